"""The WinoMT probe against mt_gender's human annotations (eval/gold/mt_gender_human/): a
regression test that fails when the probe agrees with the human labels less, or leaves more
rows undetected, than recorded in agreement.json; the agreement arithmetic checked by hand; and
the two detector fixes these annotations showed."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from mtdebias.errors import InputError
from mtdebias.lang import detect_gender

HERE = Path(__file__).resolve().parents[1] / "eval" / "gold" / "mt_gender_human"
RECORDED = json.loads((HERE / "agreement.json").read_text(encoding="utf-8"))


def _module():
    spec = importlib.util.spec_from_file_location("mt_gender_human_agreement", HERE / "agreement.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


agreement = _module()


@pytest.mark.shared
@pytest.mark.parametrize("lang", sorted(RECORDED))
def test_probe_keeps_its_recorded_agreement_with_the_human_labels(lang, shared_data):
    annotations, attempts, _ = agreement.judge(lang, shared_data)
    for who, rows in annotations.items():
        got = agreement.tally(rows, attempts)
        floor = RECORDED[lang][who]
        shown = [(r.index, r.label, a["detected"], a["target_words"]) for r, a in zip(rows, attempts)
                 if r.label not in (None, "not_found") and a["detected"] != r.label]
        assert got["rows"] == floor["rows"] and got["unlabelled"] == floor["unlabelled"]
        assert got["agree"] >= floor["agree"], (who, shown)
        assert got["disagree"] <= floor["disagree"], (who, shown)
        assert got["undetected"] <= floor["undetected"], (who, shown)


def _row(index, find, gender, text="x"):
    return agreement.HumanRow(index, "the doctor", text, find, gender, "")


def test_agreement_arithmetic_by_hand():
    rows = [_row(0, "Y", "M"), _row(1, "Y", "F"), _row(2, "Y", "N"), _row(3, "Y", "F"),
            _row(4, "N", "M"), _row(5, "Y", "M/N"), _row(6, "", "")]
    probe = ["male", "male", "neutral", "undetected", "female", "male", "male"]
    gold = ["male", "female", "female", "female", "male", "male", "female"]
    attempts = [{"detected": p, "gold": g} for p, g in zip(probe, gold)]
    got = agreement.tally(rows, attempts)
    # rows 0 and 2 agree, row 1 disagrees, row 3 is undetected; row 4 is not_found (human said
    # the entity is missing: only counted); rows 5 (M/N) and 6 (no answer) are unlabelled
    assert (got["agree"], got["disagree"], got["undetected"], got["not_found"], got["unlabelled"]) == (2, 1, 1, 1, 2)
    assert got["agreement"] == pytest.approx(round(2 / 3, 4))  # undetected is not in the denominator
    assert got["undetected_rate"] == pytest.approx(1 / 4)  # 1 of the 4 rows the human found and labelled
    # accuracy against the WinoMT gold over the 5 labelled rows 0-4: the probe is right on row 0
    # only (1 of 5); the human's labels match the gold on rows 0, 1 and 3 (3 of 5; not_found ≠ male)
    assert got["probe_accuracy"] == pytest.approx(1 / 5)
    assert got["human_accuracy"] == pytest.approx(3 / 5)
    assert got["confusion"]["female"] == {"male": 1, "female": 0, "neutral": 0, "undetected": 1}


def test_reading_mt_gender_files(tmp_path):
    path = tmp_path / "xx.csv"
    # the uk file's header names the columns wrongly (Index,,Entity,...): columns are read by position
    path.write_text("Index,,Entity,Find entity? [Y/N],Gender? [M/F/N],Comments\n"
                    '3,the doctor,"Der Arzt kam, weil er wollte.",Y,M,\n'
                    "4,the nurse,Die Pflegerin kam.,N,,not a person\n", encoding="utf-8")
    rows = agreement.read_annotations(path)
    assert [(r.index, r.translation, r.label, r.comment) for r in rows] == [
        (3, "Der Arzt kam, weil er wollte.", "male", ""), (4, "Die Pflegerin kam.", "not_found", "not a person")]
    path.write_text("Entity,Sentence\nthe doctor,Der Arzt kam.\n", encoding="utf-8")
    with pytest.raises(InputError, match="Index") as info:
        agreement.read_annotations(path)
    assert info.value.line == 1


def test_finite_french_verb_is_not_a_participle():
    # spaCy tags «discute» a feminine past participle; the participle of «discuter» is «discuté»
    text = "Le PDG discute avec l'écrivain de la façon dont il aimerait que l'histoire soit écrite."
    assert detect_gender("fr", text, (3, 6)).gender == "male"
    # a real participle still agrees (épicène noun, feminine participle with être)
    assert detect_gender("fr", "La juge est arrivée.", (3, 7)).gender == "female"


def test_surname_reading_does_not_make_a_ukrainian_noun_common_gender():
    # pymorphy's uk dictionary also lists «двірник» as an indeclinable woman's surname
    text = "Вчитель і двірник розмовляли про її величезні обов'язки з очищення."
    start = text.index("двірник")
    assert detect_gender("uk", text, (start, start + 7)).gender == "male"
    assert detect_gender("uk", "Пекар прийшла.", (0, 5)).gender == "female"  # agreement still decides


def test_unknown_italian_noun_behind_an_elided_article_reads_a_later_clitic():
    # «auditor» is neither in the lexicon nor caught by an ending rule, and «l'» shows no gender
    text = "Il manager ha parlato con l'auditor e le ha detto di rimanere in ritardo."
    start = text.index("auditor")
    assert detect_gender("it", text, (start, start + 7)).gender == "female"
    # no later reference: the translation does not express the referent's gender
    text = "L'operaio fu sorpreso che l'auditor apparì perché disse che tutto andava bene."
    start = text.index("auditor")
    assert detect_gender("it", text, (start, start + 7)).gender == "neutral"
    # an aligner's span on the bare apostrophe is no noun: it stays undetected
    assert detect_gender("it", "L'ufficiale ha arrestato il manifestante.", (1, 2)).gender == "undetected"
    # nor on a preposition («con l'» aligned to «the attendant»)
    text = "La guardia ha gareggiato con l'inserviente per lo stesso lavoro nonostante fosse più qualificata."
    start = text.index("con l'")
    assert detect_gender("it", text, (start, start + 5)).gender == "undetected"
