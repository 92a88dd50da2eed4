"""Detectors against the hand-labelled WinoMT gold set (eval/gold/winomt/): a regression test
that fails when a detector agrees less, or leaves more items undetected, than recorded in
eval/gold/winomt/agreement.json; and the agreement arithmetic checked by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mtdebias.errors import InputError
from mtdebias.lang import detect_gender
from mtdebias.lang.agreement import load_gold, score
from mtdebias.lang.base import Detection

GOLD = Path(__file__).resolve().parents[1] / "eval" / "gold" / "winomt"
RECORDED = json.loads((GOLD / "agreement.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("lang", sorted(RECORDED))
def test_detector_keeps_its_recorded_agreement(lang):
    gold = load_gold(GOLD, lang)
    assert len(gold) == RECORDED[lang]["all"]["items"]
    for split in ("dev", "heldout", "heldout2", "heldout3"):
        if split not in RECORDED[lang]:
            continue  # heldout2 (fresh rows) exists for it, ru, uk and cs only; heldout3 for cs
        tally = score([g for g in gold if g.split == split], detect_gender)
        floor = RECORDED[lang][split]
        shown = [(item.line, item.label, det.gender, det.evidence) for item, det in tally.disagreements]
        assert tally.agree >= floor["agree"], (split, shown)
        assert tally.disagree <= floor["disagree"], (split, shown)
        assert tally.undetected <= floor["undetected"], (split, [(i.line, d.evidence) for i, d in tally.undetected_items])
    # the goal of issue 11 on the development split (uk has only held-out sets)
    if "dev" in RECORDED[lang]:
        assert RECORDED[lang]["dev"]["agreement"] >= 0.95


def _write_gold(tmp_path, labels):
    (tmp_path / "items").mkdir()
    (tmp_path / "labels").mkdir()
    header = "line\tsplit\tstratum\twino_gold\tstereotype\tprofession\tsource\ttranslation\taligned\n"
    rows = [("1", "dev", "Die Ärztin kam."), ("2", "dev", "Der Arzt kam."), ("3", "heldout", "Das Kind kam."),
            ("4", "dev", "Der Umzug kam."), ("5", "dev", "Er sah den Arzt und den Arzt.")]
    (tmp_path / "items" / "xx.tsv").write_text(
        header + "".join(f"{n}\t{s}\tpro-male\tmale\tpro\tdoctor\tThe doctor came.\t{t}\t-\n" for n, s, t in rows),
        encoding="utf-8")
    (tmp_path / "labels" / "xx.tsv").write_text("line\ttarget\tlabel\tnote\n" + labels, encoding="utf-8")


def test_agreement_arithmetic_by_hand(tmp_path):
    _write_gold(tmp_path, "1\tÄrztin\tfemale\t\n2\tArzt\tmale\t\n3\tKind\tneutral\t\n4\t-\tnot_found\t\n"
                          "5\tArzt#2\tmale\t\n")
    gold = load_gold(tmp_path, "xx")
    assert gold[4].span() == (24, 28)  # «Arzt#2»: after "Er sah den Arzt und den " (24 characters)
    answers = {"Ärztin": "female", "Arzt": "female", "Kind": "undetected"}

    def detect(lang, text, span):
        return Detection(answers[text[span[0]:span[1]]], (), span)

    tally = score(gold, detect)
    # items 1 agree; 2 and 5 disagree (female ≠ male); 3 undetected; 4 not found (no span)
    assert (tally.agree, tally.disagree, tally.undetected, tally.not_found) == (1, 2, 1, 1)
    assert tally.agreement == pytest.approx(1 / 3)  # 1 / (1 + 2): undetected is not in the denominator
    assert tally.undetected_rate == pytest.approx(1 / 4)  # 1 of the 4 items with a target


@pytest.mark.parametrize("labels, message", [
    ("9\tArzt\tmale\t\n", "line 9 is not among the extracted items"),
    ("1\tÄrztin\tfeminine\t\n", "label 'feminine'"),
    ("1\tDoktor\tfemale\t\n", "does not occur in the translation"),
    ("1\tÄrztin\tfemale\t\n1\tÄrztin\tfemale\t\n", "labelled twice"),
])
def test_gold_errors_name_the_file_and_line(tmp_path, labels, message):
    _write_gold(tmp_path, labels)
    with pytest.raises(InputError, match=message) as info:
        load_gold(tmp_path, "xx")
    assert info.value.path.endswith("xx.tsv") and info.value.line is not None


def test_a_gold_file_with_another_header_is_refused_at_line_1(tmp_path):
    _write_gold(tmp_path, "1\tÄrztin\tfemale\t\n")
    (tmp_path / "labels" / "xx.tsv").write_text("line\ttarget\tgender\tnote\n1\tÄrztin\tfemale\t\n", encoding="utf-8")
    with pytest.raises(InputError, match="expected the header line<TAB>target<TAB>label<TAB>note") as info:
        load_gold(tmp_path, "xx")
    assert info.value.path.endswith("labels/xx.tsv") and info.value.line == 1
