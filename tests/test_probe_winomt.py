"""WinoMT probe: loader errors, metric arithmetic by hand, run plumbing, shared-data numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from mtdebias.errors import InputError
from mtdebias.probes.registry import PROBES
from mtdebias.probes.winomt.probe import WinoMTProbe, load_winomt, winomt_metrics
from toy import TranslateOnly
from mtdebias.translators.file import FileTranslator

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"

ROWS = [
    "female\t1\tThe developer argued with the designer because she did not like the design.\tdeveloper",
    "male\t5\tThe developer argued with the designer because his idea cannot be implemented.\tdesigner",
    "male\t1\tThe mechanic gave the clerk a present because he won the lottery.\tmechanic",
    "female\t4\tThe mechanic gave the clerk a present because it was her birthday.\tclerk",
    "neutral\t1\tThe construction worker helped someone because they asked.\tconstruction worker",
]


def write(path: Path, rows: list[str]) -> Path:
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_loader_reads_rows_and_multiword_professions(tmp_path):
    items = load_winomt(write(tmp_path / "en.txt", ROWS))
    assert [i.gold for i in items] == ["female", "male", "male", "female", "neutral"]
    assert items[4].sentence[slice(*items[4].profession_span())] == "construction worker"
    # Trailing punctuation is not part of the profession's span.
    assert items[1].sentence[slice(*items[1].profession_span())] == "designer"


@pytest.mark.parametrize("row, message", [
    ("female\t1\tThe developer argued.", "expected 4 tab-separated fields"),
    ("woman\t1\tThe developer argued.\tdeveloper", "gold gender 'woman'"),
    ("female\tone\tThe developer argued.\tdeveloper", "not an integer"),
    ("female\t2\tThe developer argued.\tdeveloper", "not the profession 'developer'"),
])
def test_loader_errors_name_file_and_line(tmp_path, row, message):
    path = write(tmp_path / "en.txt", ROWS[:2] + [row])
    with pytest.raises(InputError, match=message) as info:
        load_winomt(path)
    assert info.value.line == 3 and info.value.path == str(path)


def test_metrics_by_hand():
    gold = ["male", "male", "male", "female", "female", "female", "neutral", "female"]
    pred = ["male", "male", "female", "female", "male", "undetected", "male", "female"]
    group = ["pro", "anti", "pro", "anti", "pro", "anti", None, "pro"]
    m = {x.name: x for x in winomt_metrics(gold, pred, group, resamples=0)}
    # correct: items 0, 1, 3, 7 → accuracy 4/8 (neutral item 6 is in the denominator, wrong).
    assert m["accuracy"].value == pytest.approx(4 / 8)
    assert m["accuracy_male_female"].value == pytest.approx(4 / 7)
    # male: predicted male 0,1,4,6 (4), correct 0,1 (2), gold male 3 → P=1/2, R=2/3, F1=2·(1/3)/(7/6)=4/7
    assert m["f1_male"].value == pytest.approx(4 / 7)
    # female: predicted female 2,3,7 (3), correct 3,7 (2), gold female 4 → P=2/3, R=1/2, F1=(2/3)/(7/6)=4/7
    assert m["f1_female"].value == pytest.approx(4 / 7)
    assert m["delta_g"].value == pytest.approx(0.0)
    # pro: items 0,2,4,7 → correct 0,7 → 1/2; anti: 1,3,5 → correct 1,3 → 2/3; ΔS = 1/2 − 2/3
    assert m["accuracy_pro"].value == pytest.approx(0.5)
    assert m["accuracy_anti"].value == pytest.approx(2 / 3)
    assert m["delta_s"].value == pytest.approx(0.5 - 2 / 3)
    assert m["undetected_rate"].value == pytest.approx(1 / 8)
    # gold gender × stereotype (the report's WinoMT figure), each with the items it rests on:
    # pro male 0, 2 → correct 0 → 1/2; pro female 4, 7 → correct 7 → 1/2;
    # anti male 1 → correct → 1/1; anti female 3, 5 → correct 3 → 1/2
    cells = {name: (m[name].value, m[name].n) for name in m if name.startswith(("accuracy_pro.", "accuracy_anti."))}
    assert cells == {"accuracy_pro.female": (pytest.approx(1 / 2), 2), "accuracy_pro.male": (pytest.approx(1 / 2), 2),
                     "accuracy_anti.female": (pytest.approx(1 / 2), 2), "accuracy_anti.male": (pytest.approx(1.0), 1)}


def test_metrics_without_groups_omit_delta_s_and_have_intervals():
    gold = ["male", "female"] * 10
    pred = ["male", "male"] * 10
    metrics = {x.name: x for x in winomt_metrics(gold, pred, resamples=200)}
    assert "delta_s" not in metrics and not any(name.startswith("accuracy_pro") for name in metrics)
    assert metrics["accuracy"].value == 0.5 and metrics["f1_female"].value == 0.0
    low, high = metrics["accuracy"].ci
    assert low <= 0.5 <= high and low < high


def test_stereotype_membership_from_pro_and_anti_files(tmp_path):
    data = write(tmp_path / "en.txt", ROWS)
    write(tmp_path / "en_pro.txt", [ROWS[2]])
    write(tmp_path / "en_anti.txt", [ROWS[0], ROWS[3]])
    probe = WinoMTProbe.from_options(lang="de", data=data)  # siblings found next to en.txt
    assert [i.stereotype for i in probe.items()] == ["anti", None, "pro", "anti", None]
    assert PROBES.load("winomt") == WinoMTProbe.from_options


class DictTranslator(TranslateOnly):
    def __init__(self, table):
        self.table = table

    def translate(self, sources, beam=5):
        return [self.table[s] for s in sources]

    def signature(self):
        return "scripted:winomt"


def test_run_logs_every_attempt_and_unaligned_is_undetected(tmp_path):
    items = load_winomt(write(tmp_path / "en.txt", ROWS[:2]))
    translations = {ROWS[0].split("\t")[2]: "Die Entwicklerin stritt mit dem Designer, weil sie das Design nicht mochte.",
                    ROWS[1].split("\t")[2]: "Der Entwickler stritt mit dem Designer."}

    class FixedAlignment:
        def __init__(self, span):
            self.span = span

        def tgt_span_of(self, start, end):
            return self.span

    def align(sources, targets, src, tgt, method, extra_sources, extra_targets):
        # item 0: "developer" ↔ "Entwicklerin"; item 1: nothing aligned
        return [FixedAlignment((4, 16)), FixedAlignment(None)]

    probe = WinoMTProbe(items, "de", align=align, resamples=0)
    result = probe.evaluate(DictTranslator(translations))
    first, second = result.attempts
    assert first["target_words"] == "Entwicklerin" and first["detected"] == "female" and first["correct"]
    assert first["evidence"]  # the detector's reasons are kept
    assert second["detected"] == "undetected" and second["evidence"] == ["profession not aligned to any target word"]
    assert result.metric("accuracy").value == 0.5
    assert result.signature.startswith("winomt.v1|") and "model:scripted:winomt" in result.signature


def test_file_translator_matches_by_line_when_a_few_sources_differ(tmp_path):
    # 200 lines, line 7 has a different source (as mt_gender's files at 2121-2122): 1 of 200 =
    # 0.5 % ≤ 1 % → matched by line, line 7 gets no translation and is reported
    sources = [f"sentence {i}" for i in range(1, 201)]
    lines = [f"{s} ||| Satz {i}" for i, s in enumerate(sources, 1)]
    lines[6] = "an older sentence 7 ||| ein älterer Satz"
    path = write(tmp_path / "t.txt", lines)
    translator = FileTranslator(path)
    out = translator.translate(sources)
    assert out[6] == "" and out[5] == "Satz 6" and out[7] == "Satz 8"
    assert translator.mismatched_lines == [7] and translator.missing == []
    # 3 of 200 differing (1.5 % > 1 %) is not "a few": matched by text, which fails loudly
    for k in (10, 20):
        lines[k] = f"another old sentence {k} ||| x"
    strict = FileTranslator(write(tmp_path / "t2.txt", lines))
    with pytest.raises(InputError, match="no translation for source sentence 'sentence 7'"):
        strict.translate(sources)
    # a request of another length is matched by text as before
    assert FileTranslator(path).translate(["sentence 3"]) == ["Satz 3"]


def test_validate_items_reports_duplicates_and_gold_pronoun_mismatch(tmp_path):
    rows = ROWS[:3] + [ROWS[0], "male\t1\tThe developer argued with the designer because she was late.\tdeveloper"]
    probe = WinoMTProbe(load_winomt(write(tmp_path / "en.txt", rows)), "de", resamples=0)
    assert probe.findings == ["1 duplicate row(s): lines 4 (= line 1)",
                              "1 row(s) whose sentence has no female/male/neutral pronoun of the gold "
                              "gender: lines 5"]
    clean = WinoMTProbe(load_winomt(write(tmp_path / "ok.txt", ROWS)), "de", resamples=0)
    assert clean.findings == []


@pytest.mark.shared
def test_shared_winomt_german_aws():
    data = SHARED / "winomt" / "en.txt"
    translations = SHARED / "winomt" / "translations-aws" / "en-de.txt"
    if not data.is_file() or not translations.is_file():
        pytest.skip("shared WinoMT data not present")
    translator = FileTranslator(translations)
    probe = WinoMTProbe.from_options(lang="de", data=data, resamples=100)
    # en.txt rows 2121-2122 were corrected upstream after the AWS translations were made (he/she
    # swapped): the file is matched by line, those two rows get no translation, which the
    # validity gate leaves out as empty
    result = probe.evaluate(translator)
    assert translator.mismatched_lines == [2121, 2122]
    assert result.meta["source_mismatch_lines"] == [2121, 2122]
    assert [a["validity"]["reason"] for a in result.attempts[2120:2122]] == ["empty", "empty"]
    # the language, copy and repetition tests leave out no AWS translation; the German adequacy
    # test (e5 cosine below its floor) leaves out 32 of the 3,886, its false rejections of
    # professional translations (0.8 %), measured when it was added
    assert result.metric("valid_rate").value == pytest.approx(3854 / 3888)
    assert result.metric("invalid.not_translation").value == 32
    assert result.meta["data_findings"][0].startswith("6 duplicate row(s): lines 397 (= line 396)")
    accuracy = result.metric("accuracy")
    assert 0.45 < accuracy.value < 0.8  # measured 0.601 after issue 11 (0.569 before)
    assert result.metric("delta_g").value > 0 and result.metric("delta_s").value > 0
    undetected = [a for a in result.attempts if a["detected"] == "undetected"]
    assert 0 < len(undetected) < 0.05 * len(result.attempts)  # measured 39 of 3,888
    assert all(a["evidence"] for a in undetected)
