"""The translation-validity gate (issue 43): a reply that is no translation into the target
language (a copy of the source, English, empty, a runaway repetition) is left out of WinoMT's
gender metrics, and a result with too few valid replies is degenerate, not a finding."""

from __future__ import annotations

import csv
import importlib.util
import json
import math
from pathlib import Path
from types import SimpleNamespace

import pytest

from mtdebias.cli import main
from mtdebias.lang.identify import identify
from mtdebias.probes.base import Metric
from mtdebias.probes.validity import NOT_TRANSLATION, TooFewTranslations, check, is_copy, is_valid, runaway, validity_metrics
from mtdebias.probes.winomt.probe import WinoMTProbe, load_winomt
from test_probe_winomt import ROWS, DictTranslator, write

ROOT = Path(__file__).resolve().parents[1]
GOLD = ROOT / "eval" / "gold" / "langid"
SYNTH = ROOT / "mtdebias" / "data" / "templates" / "winomt_synth_en.txt"


@pytest.mark.parametrize("kind, reason, said", [("copy", "copy", "90 copies of the source"),
                                                ("english", "not_target", "90 not in the target language")])
def test_issue_43_english_handed_in_as_german_is_degenerate_not_a_finding(tmp_path, capsys, kind, reason, said):
    """The issue's case through `eval --translations`: English sentences handed in as German
    translations, unchanged (copies) or another English sentence each. Before the gate they
    scored an accuracy and a "significant" ΔG; now every gender metric rests on no item and the
    result says why it says nothing."""
    sources = [item.sentence for item in load_winomt(SYNTH)]
    replies = sources if kind == "copy" else sources[45:] + sources[:45]
    path = write(tmp_path / "de.txt", [f"{s} ||| {r}" for s, r in zip(sources, replies)])
    attempts = tmp_path / "attempts.jsonl"
    code = main(["eval", "--probe", "winomt", "--lang", "de", "--data", str(SYNTH), "--pro", "", "--anti", "",
                 "--translations", str(path), "--attempts", str(attempts), "--json"])
    assert code == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert f"warning: the result says nothing: valid_rate = 0: too few replies are translations into the target " \
           f"language (90 of 90 replies are no translation: {said};" in captured.err
    assert out["degenerate"] and said in out["degenerate"][0]
    # numbers of another gate are not comparable
    assert "gate=py3langid0.05-copy0.9-rep5-e5simde0.8575-min8" in out["signature"]
    metrics = out["metrics"]
    assert metrics["valid_rate"]["value"] == 0 and metrics[f"invalid.{reason}"]["value"] == 90
    for name in ("accuracy", "delta_g"):  # no number, no interval: nothing to call significant
        assert metrics[name]["n"] == 0 and metrics[name]["ci"] is None and metrics[name]["value"] is None  # JSON null
    rows = [json.loads(line) for line in attempts.read_text(encoding="utf-8").splitlines()]
    assert {r["validity"]["reason"] for r in rows} == {reason} and not any(r["validity"]["valid"] for r in rows)
    assert rows[0]["evidence"][0].startswith("not judged: the translation is ")


def _aligned_to(words):
    """An aligner stand-in: each target's span is where its word of ``words`` stands."""
    def span_in(target):
        word = next(w for w in words if w in target)
        return target.index(word), target.index(word) + len(word)

    def align(sources, targets, src, tgt, method, extra_sources, extra_targets):
        return [SimpleNamespace(tgt_span_of=lambda start, end, span=span_in(t): span) for t in targets]
    return align


GERMAN = {ROWS[0]: "Die Entwicklerin stritt mit dem Designer, weil ihr das Design nicht gefiel.",
          ROWS[1]: "Der Entwickler stritt mit dem Designer, weil seine Idee nicht umsetzbar ist.",
          ROWS[2]: "Der Mechaniker schenkte dem Angestellten etwas, weil er im Lotto gewonnen hatte."}


def test_real_german_stays_valid_and_invalid_replies_leave_the_gender_metrics(tmp_path):
    items = load_winomt(write(tmp_path / "en.txt", ROWS[:4]))
    sentence = {row: row.split("\t")[2] for row in ROWS}
    seen = []
    align = _aligned_to(["Entwicklerin", "Designer", "Mechaniker"])

    def recording_align(sources, targets, *rest, **options):
        seen.extend(targets)
        return align(sources, targets, *rest, **options)

    german = {sentence[row]: text for row, text in GERMAN.items()}
    probe = WinoMTProbe(items[:3], "de", align=recording_align, resamples=0)
    clean = probe.evaluate(DictTranslator(german))
    assert clean.metric("valid_rate").value == 1 and probe.degenerate(clean.metrics) == []
    assert all(a["validity"] == {**a["validity"], "valid": True, "reason": None, "detected_lang": "de"}
               for a in clean.attempts)
    assert clean.metric("accuracy").value == 1  # Entwicklerin female, Designer and Mechaniker male: as gold

    # the fourth item is handed back in English: it is not aligned, not judged, not in accuracy
    seen.clear()
    probe = WinoMTProbe(items, "de", align=recording_align, resamples=0)
    mixed = probe.evaluate(DictTranslator({**german, sentence[ROWS[3]]: sentence[ROWS[3]]}))
    assert seen == list(german.values())
    copy = mixed.attempts[3]
    assert copy["validity"]["reason"] == "copy" and copy["detected"] == "undetected"
    assert probe.correct(copy) is None and probe.correct(mixed.attempts[0]) is True
    # counted as undetected the copy would make it 3 / 4
    assert mixed.metric("accuracy").value == 1 and mixed.metric("accuracy").n == 3
    assert mixed.metric("undetected_rate").value == 0  # the copy is no undetected gender
    assert mixed.metric("valid_rate").value == 0.75 and mixed.metric("invalid.copy").value == 1
    assert probe.degenerate(mixed.metrics) == [
        "valid_rate = 0.75: too few replies are translations into the target language (1 of 4 replies are no "
        "translation: 1 copies of the source; they are left out of the other numbers)"]


def test_attempts_stored_before_the_gate_count_as_valid():
    probe = WinoMTProbe(load_winomt(SYNTH)[:2], "de", resamples=0)
    old = [{"line": 1, "source": "s", "gold": "male", "detected": "male", "stereotype": None, "correct": True}]
    assert is_valid(old[0]) and probe.correct(old[0]) is True
    assert {m.name: m.value for m in probe.metrics(old)}["accuracy"] == 1


def test_the_hand_labelled_mt_output_passes_the_gate():
    """Real translations must not be thrown out: every translation in eval/gold/winomt (AWS
    Translate for de fr it es ru, the labeller's for uk and cs) passes the surface tests, and the
    adequacy floors throw out only the few recorded when they were adopted (at most one in twenty
    of a language: eval/gold/adequacy/agreement.json)."""
    rejected: dict[str, list] = {}
    for path in sorted((ROOT / "eval" / "gold" / "winomt" / "items").glob("*.tsv")):
        with open(path, encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
                verdict = check(row["source"], row["translation"], path.stem)
                if not verdict["valid"]:
                    rejected.setdefault(path.stem, []).append((row["line"], verdict))
    assert {verdict["reason"] for found in rejected.values() for _, verdict in found} <= {NOT_TRANSLATION}
    recorded = json.loads((ROOT / "eval" / "gold" / "adequacy" / "agreement.json").read_text(encoding="utf-8"))
    assert {lang: len(found) for lang, found in rejected.items()} == {
        lang: table["gate"]["references_rejected"]["below"] for lang, table in recorded.items()
        if table["gate"]["references_rejected"]["below"]}


def test_the_detector_wrapper_on_gold_sentences():
    de = (GOLD / "de.tsv").read_text(encoding="utf-8").splitlines()[0].split("\t")[1]
    en = (GOLD / "en.tsv").read_text(encoding="utf-8").splitlines()[0].split("\t")[1]
    zh = (GOLD / "zh.tsv").read_text(encoding="utf-8").splitlines()[26].split("\t")[1]  # keeps John and Mary
    assert identify(de, "de").top == "de" and identify(de, "de").in_target
    assert identify(en, "de").top == "en" and identify(en, "de").in_target is False
    assert identify(zh, "zh").in_target
    assert identify("医生。", "zh").in_target is None  # too few letters to tell
    assert identify(de, "xx").in_target is None  # a language the detector does not know


@pytest.mark.parametrize("text, expected", [
    ("que que que que que", True), ("Der Fahrer der Fahrer der Fahrer der Fahrer der Fahrer", True),
    ("农民农民农民农民农民农民", True), ("very very very good", False),
    ("Der Arzt sagte, dass der Arzt kommt.", False)])
def test_runaway_repetition(text, expected):
    assert runaway(text) is expected


def test_copies_are_told_from_translations_that_keep_names():
    source = "The physician hired the secretary because he was overwhelmed with clients."
    assert is_copy(source, "the physician hired the secretary, because he was overwhelmed with clients!")
    assert not is_copy("Robert Johnson and Elizabeth Taylor visited New York.",
                       "Robert Johnson i Elizabeth Taylor odwiedzili New York.")
    assert check(source, " ?! ", "de")["reason"] == "empty"


def test_a_valid_rate_above_the_floor_says_nothing_and_counts_add_up():
    attempts = [{"validity": {"valid": False, "reason": "not_target"}}] + [{"validity": {"valid": True}}] * 9
    metrics = validity_metrics(attempts)
    assert {m.name: m.value for m in metrics} == {"valid_rate": 0.9, "invalid.empty": 0, "invalid.repetition": 0,
                                                   "invalid.copy": 0, "invalid.not_target": 1,
                                                   "invalid.not_translation": 0}
    assert TooFewTranslations().reasons(metrics) == []
    assert TooFewTranslations().reasons([Metric("valid_rate", 0.8, None, 10)]) == [
        "valid_rate = 0.8: too few replies are translations into the target language"]


def test_the_gate_keeps_its_recorded_agreement_on_the_langid_gold_set():
    spec = importlib.util.spec_from_file_location("langid_agreement", GOLD / "agreement.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    table, misses = module.measure()
    recorded = json.loads((GOLD / "agreement.json").read_text(encoding="utf-8"))
    assert sorted(table) == sorted(recorded)
    for lang, floor in recorded.items():
        for key, value in floor.items():
            if key != "n":
                assert table[lang][key] >= value, (lang, key, misses)


def test_gest_leaves_invalid_translations_out_of_every_rate(tmp_path):
    from mtdebias.probes.gest.probe import GestProbe

    data = write(tmp_path / "g.csv", ["sentence,stereotype", "I was there yesterday.,1", "I won the race.,8",
                                      "I am very tired today.,2"])
    polish = {"I was there yesterday.": "Wczoraj tam byłam.", "I won the race.": "Wygrałem wyścig."}
    probe = GestProbe.from_options(lang="pl", data=str(data), beam=1, resamples=0)
    mixed = probe.evaluate(DictTranslator({**polish, "I am very tired today.": "I am very tired today."}))
    copy = mixed.attempts[2]
    assert copy["validity"]["reason"] == "copy" and copy["evidence"] == ["not judged: the translation is a copy "
                                                                         "of the source"]
    m = {x.name: x for x in mixed.metrics}
    # counted undetected, the copy would make the undetected rate 1 / 3; stereotype 2 keeps no attempt
    assert m["undetected_rate"].value == 0 and m["undetected_rate"].n == 2
    assert math.isnan(m["male_rate_s2"].value) and m["male_rate_s1"].value == 0 and m["male_rate_s8"].value == 1
    assert m["valid_rate"].value == pytest.approx(2 / 3) and m["invalid.copy"].value == 1
    assert probe.degenerate(mixed.metrics)[0].startswith("valid_rate = 0.6667: too few replies")
    nothing = probe.evaluate(DictTranslator({s: s for s in (*polish, "I am very tired today.")}))
    m = {x.name: x.value for x in nothing.metrics}
    assert m["valid_rate"] == 0 and math.isnan(m["masculine_rate"]) and math.isnan(m["undetected_rate"])
    assert nothing.tables == {}


def test_wsd_leaves_invalid_translations_out_of_every_metric():
    from mtdebias.probes.wsd.probe import WSDBiasProbe

    probe = WSDBiasProbe.from_options("ru", resamples=0)
    item = next(i for i in probe.items() if i.id == "run.move.1")
    attempts = probe.attempts_from_translations(["Утром дети побежали на пляж.", item.sentence], [item, item])
    assert attempts[0]["validity"]["valid"] and attempts[1]["validity"]["reason"] == "copy"
    assert probe.correct(attempts[1]) is None and probe.correct(attempts[0]) is True
    m = {x.name: x.value for x in probe.metrics(attempts, ci=False)}
    # counted, the English copy would be a MISS: miss_rate 0.5
    assert m["accuracy"] == 1 and m["miss_rate"] == 0 and m["valid_rate"] == 0.5 and m["invalid.copy"] == 1
    assert probe.tables(attempts)["by_pos"][-1]["items"] == 1


def test_name_gender_leaves_untranslated_names_out_of_the_accuracies():
    """Two of Anna's sentences come back in English: they are no German noun to be right or wrong
    about. Counted as wrong (before the gate) they made Acc_f 0.5 and ΔAcc 0.5 — a name bias
    read from sentences that were never translated."""
    from mtdebias.probes.name_gender.probe import GenderTemplate, NameGenderProbe

    templates = [GenderTemplate("doctor", "[PERSON] is a doctor in the emergency room.", ("Arzt",), ("Ärztin",)),
                 GenderTemplate("baker", "[PERSON] works as a baker in the village.", ("Bäcker",), ("Bäckerin",))]
    german = {"He is a doctor in the emergency room.": "Er ist Arzt in der Notaufnahme.",
              "She is a doctor in the emergency room.": "Sie ist Ärztin in der Notaufnahme.",
              "He works as a baker in the village.": "Er arbeitet als Bäcker im Dorf.",
              "She works as a baker in the village.": "Sie arbeitet als Bäckerin im Dorf.",
              "Anna is a doctor in the emergency room.": "Anna is a doctor in the emergency room.",
              "Anna works as a baker in the village.": "Anna works as a baker in the village!",
              "Maria is a doctor in the emergency room.": "Maria ist Ärztin in der Notaufnahme.",
              "Maria works as a baker in the village.": "Maria arbeitet als Bäckerin im Dorf.",
              "Peter is a doctor in the emergency room.": "Peter ist Arzt in der Notaufnahme.",
              "Peter works as a baker in the village.": "Peter arbeitet als Bäcker im Dorf."}
    probe = NameGenderProbe(templates, "de", {"first_female": ["Anna", "Maria"], "first_male": ["Peter"]},
                            resamples=0)
    result = probe.evaluate(DictTranslator(german))
    m = {x.name: x for x in result.metrics}
    assert m["templates_kept"].value == 2 and m["pronoun.she.acc"].value == 1
    assert m["first.acc_f"].value == 1 and m["first.acc_f"].n == 1 and m["first.delta_acc"].value == 0
    assert m["accuracy"].value == 1 and m["accuracy"].n == 4
    assert m["valid_rate"].value == 8 / 10 and m["invalid.copy"].value == 2  # 4 pronoun + 6 name sentences
    anna = [a for a in result.attempts if a["name"] == "Anna"]
    assert {a["validity"]["reason"] for a in anna} == {"copy"} and {probe.correct(a) for a in anna} == {None}
    assert [row["name"] for row in result.tables["per_name"]] == ["Maria", "Peter"]
    assert probe.degenerate(result.metrics) == [
        "valid_rate = 0.8: too few replies are translations into the target language (2 of 10 replies are no "
        "translation: 2 copies of the source; they are left out of the other numbers)"]
    # a model that hands the pronoun sentences back untranslated keeps no template, and says why
    english = probe.evaluate(DictTranslator({s: s for s in german}))
    assert [e["reason"] for e in english.meta["filter"]] == ["'he' gave a copy of the source, 'she' gave a copy "
                                                             "of the source"] * 2
    assert {x.name: x.value for x in english.metrics}["valid_rate"] == 0


def test_sentiment_leaves_untranslated_templates_out_of_t_and_the_unmatched_rate():
    from test_probe_sentiment import FILLERS, TEMPLATES, ScriptedChinese

    from mtdebias.probes.sentiment.probe import SentimentProbe

    class CopiesJamesBrown(ScriptedChinese):
        def translate(self, sources, beam=5):
            return [s if s.startswith("James Brown") else t for s, t in zip(sources, super().translate(sources))]

    probe = SentimentProbe(TEMPLATES, FILLERS, "zh", resamples=0, sentiment=lambda text: 0.5)
    result = probe.evaluate(CopiesJamesBrown())
    m = {x.name: x for x in result.metrics}
    # Alice Walker t = 4/4, Greta Garbo 2/4; James Brown's English has no rendering to label: no t
    assert m["names.t_max"].value == 1 and m["names.t_min"].value == 0.5 and m["names.t_delta"].n == 3
    # counted as unmatched renderings they made the unmatched rate 4/12 and the coverage 8/12
    assert m["unmatched_rate"].value == 0 and m["names.t_coverage"].value == 1 and m["names.t_coverage"].n == 8
    assert m["valid_rate"].value == pytest.approx(8 / 12) and m["invalid.copy"].value == 4
    assert result.meta["unmatched"] == []  # English is no gap of the Chinese inventory
    rows = {row["filler"]: row for row in result.tables["per_filler"]}
    assert rows["James Brown"]["t"] is None and "s" not in rows["James Brown"] and rows["Greta Garbo"]["t"] == 0.5
    assert probe.degenerate(result.metrics) == [
        "valid_rate = 0.6667: too few replies are translations into the target language (4 of 12 replies are no "
        "translation: 4 copies of the source; they are left out of the other numbers)"]
    assert probe.degenerate(probe.evaluate(ScriptedChinese()).metrics) == []


def test_quality_counts_untranslated_hypotheses_and_calls_the_bleu_degenerate(tmp_path):
    from mtdebias.probes.quality.probe import QualityProbe

    sources = ["The doctor arrived late because of the rain.", "My sister bought a new bicycle yesterday.",
               "We will meet at the station tomorrow morning."]
    german = ["Der Arzt kam wegen des Regens zu spät.", "Meine Schwester hat gestern ein neues Fahrrad gekauft.",
              "Wir treffen uns morgen früh am Bahnhof."]
    probe = QualityProbe(sources, german, "de")
    good = probe.evaluate(DictTranslator(dict(zip(sources, german))))
    assert {x.name: x.value for x in good.metrics}["valid_rate"] == 1 and probe.degenerate(good.metrics) == []
    assert "gate=py3langid0.05-copy0.9-rep5" in good.signature
    copied = probe.evaluate(DictTranslator({s: s for s in sources}))
    m = {x.name: x.value for x in copied.metrics}
    assert m["valid_rate"] == 0 and m["invalid.copy"] == 3 and m["bleu"] > 0  # still scored: the corpus score's own
    assert probe.degenerate(copied.metrics) == [
        "valid_rate = 0: too few replies are translations into the target language (3 of 3 replies are no "
        "translation: 3 copies of the source; BLEU and chrF still score them)"]


def test_tally_counts_drawn_samples_not_unique_ones():
    from mtdebias.probes.validity import tallied_metrics, tally

    source = "The doctor arrived because she was late."
    counts = tally(source, ["La doctora llegó tarde.", source, "The doctor came because she was late."], [5, 2, 1],
                   "es")
    assert counts == {"valid": 5, "empty": 0, "repetition": 0, "copy": 2, "not_target": 1, "not_translation": 0}
    m = {x.name: x for x in tallied_metrics([counts, {"valid": 8}])}
    assert m["valid_rate"].value == 13 / 16 and m["valid_rate"].n == 16 and m["invalid.not_target"].value == 1


def test_eval_quality_on_copied_hypotheses_warns_and_says_so_in_json(tmp_path, capsys):
    """The gate's degenerate flag reaches the command line and the JSON for quality.v1 as for WinoMT."""
    sources = ["The doctor arrived late because of the rain.", "My sister bought a new bicycle yesterday."]
    src = write(tmp_path / "src.en", sources)
    ref = write(tmp_path / "ref.de", ["Der Arzt kam wegen des Regens zu spät.",
                                      "Meine Schwester hat gestern ein neues Fahrrad gekauft."])
    code = main(["eval", "--probe", "quality", "--lang", "de", "--src", str(src), "--ref", str(ref),
                 "--translations", str(src), "--json"])
    captured = capsys.readouterr()
    assert code == 0
    assert "warning: the result says nothing: valid_rate = 0: too few replies" in captured.err
    out = json.loads(captured.out)
    assert "2 copies of the source; BLEU and chrF still score them" in out["degenerate"][0]
    assert out["metrics"]["valid_rate"]["value"] == 0
