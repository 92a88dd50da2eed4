"""The gate's adequacy test (issues 43 and 44): a reply that is no translation *of its source* —
SmolLM2's invented German, a sentence about something else — is invalid, where language
identification alone let it through as German; each language's floor is held to its own
hand-labelled gold set."""

from __future__ import annotations

import functools
import importlib.util
import json
from pathlib import Path

import pytest

from mtdebias.errors import InputError
from mtdebias.probes.validity import (ADEQUACY_FLOOR, NOT_TRANSLATION, SURFACE_GATE, TooFewTranslations, check,
                                      check_all, gate, gate_across_languages, validity_metrics)
from mtdebias.probes.winomt.probe import WinoMTProbe, load_winomt
from test_probe_winomt import DictTranslator

ROOT = Path(__file__).resolve().parents[1]
GOLD = ROOT / "eval" / "gold" / "adequacy"
SOURCE = "The mechanic hates the hairdresser after she finished the ugly haircut."


@functools.lru_cache(maxsize=1)
def _agreement():
    spec = importlib.util.spec_from_file_location("adequacy_agreement", GOLD / "agreement.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("reply, valid", [
    ("Der Mechaniker hasst die Friseurin, seit sie den hässlichen Haarschnitt beendet hat.", True),
    # Gemma 3 270M's reply to this source: German, but about a fireplace
    ("Der Kamin ist nicht gut.", False),
    # SmolLM2-135M's invented German quoted in issue 43
    ("Das Kinderfahrfahrführer ist das Fahrfahrführer.", False),
    ("Wechltetzet wir kauft ein Lebenbier.", False)])
def test_real_sentences(reply, valid):
    verdict = check(SOURCE, reply, "de")
    assert verdict["detected_lang"] == "de"  # each is German to the language detector: it took this test to fail them
    assert verdict["valid"] is valid and verdict["reason"] == (None if valid else NOT_TRANSLATION)
    assert (verdict["adequacy"] >= ADEQUACY_FLOOR["de"]) is valid


def test_earlier_reasons_come_first_and_a_language_without_a_floor_is_not_measured():
    copy, english = check_all([SOURCE, SOURCE], [SOURCE, "The weather is nice today in the park."], "de")
    assert copy["reason"] == "copy" and english["reason"] == "not_target"
    assert copy["adequacy"] is None and english["adequacy"] is None  # not embedded: it has its reason
    # a short source is not measured (its cosines run low whatever the reply)
    assert check("The nurse.", "Krankenschwester", "de") == {**check("The nurse.", "Krankenschwester", "de"),
                                                              "valid": True, "adequacy": None}
    # Polish has no gold set, so no floor (another language's would throw out good Polish): not measured
    assert check(SOURCE, "Kominek nie jest dobry.", "pl")["adequacy"] is None


@functools.lru_cache(maxsize=None)
def _measured(lang: str) -> dict:
    return _agreement().rounded(_agreement().measure(lang)[0])


def test_every_gold_set_has_its_floor_and_only_those():
    """A language gets a floor with a labelled set of its own, and every set's floor meets the rule."""
    assert sorted(ADEQUACY_FLOOR) == _agreement().languages() == ["cs", "de", "es", "fr", "it", "ru", "uk"]
    assert sorted(path.stem for path in (GOLD / "second").glob("*.tsv")) == _agreement().languages()


@pytest.mark.parametrize("lang", sorted(ADEQUACY_FLOOR))
def test_the_gold_agreement_is_above_its_floor(lang):
    """Against the hand-labelled pairs: the floor chosen on one half agrees with the labels of the
    other, and the gate's floor with all of them, at least as well as recorded; it throws out few
    reference translations."""
    table = _measured(lang)
    recorded = json.loads((GOLD / "agreement.json").read_text(encoding="utf-8"))[lang]
    assert table["gate"]["floor"] == recorded["gate"]["floor"] == ADEQUACY_FLOOR[lang]
    assert table["adopted"] and recorded["adopted"]
    # the gate's floor is the one chosen on the calibration half (German's, set first, within 0.001)
    assert table["gate"]["floor"] == pytest.approx(table["held_out"]["floor"], abs=0.001)
    assert table["gate"]["n"] >= 120
    assert table["held_out"]["test"]["accuracy"] >= _agreement().MIN_HELD_OUT
    assert table["gate"]["accuracy"] >= 0.88
    assert table["gate"]["references_rejected"]["rate"] <= _agreement().MAX_REFERENCE_REJECTED
    # neither kind of error dominates (French's floor errs towards throwing out: precision 0.79)
    assert table["gate"]["recall_invalid"] >= 0.75 and table["gate"]["precision_invalid"] >= 0.75
    for key in ("accuracy", "precision_invalid", "recall_invalid"):
        assert table["gate"][key] == pytest.approx(recorded["gate"][key], abs=0.02)
    # a second reader labelled every pair blind to the first (second/README.md): the labels are
    # fixed, so the readers' agreement is too; the floor against them moves only with the cosines
    two, recorded_two = table["second_reader"], recorded["second_reader"]
    assert two["n"] == table["gate"]["n"] and two["same"] == recorded_two["same"]
    assert two["kappa"] == pytest.approx(recorded_two["kappa"], abs=1e-4) and two["kappa"] >= 0.8
    assert two["floor_vs_second"]["accuracy"] == pytest.approx(recorded_two["floor_vs_second"]["accuracy"], abs=0.02)


def test_the_adoption_rule_by_hand():
    rule = _agreement().adopted
    table = {"held_out": {"test": {"accuracy": 0.86}, "references_rejected": {"rate": 0.05}}}
    assert rule(table)
    assert not rule({"held_out": {**table["held_out"], "test": {"accuracy": 0.84}}})
    assert not rule({"held_out": {**table["held_out"], "references_rejected": {"rate": 0.06}}})


def test_the_best_floor_is_chosen_by_hand_countable_labels():
    best = _agreement().best_floor
    # invalid (True) at 0.80 and 0.82, valid at 0.86 and 0.90: any floor between 0.82 and 0.86 is
    # right; the middle candidate of the perfect ones is 0.84
    assert best([0.80, 0.82, 0.86, 0.90], [True, True, False, False]) == pytest.approx(0.84)
    scores = _agreement().scores([True, True, False, False], [True, False, False, True])
    assert scores == {"accuracy": 0.5, "precision_invalid": 0.5, "recall_invalid": 0.5, "n": 4, "n_invalid": 2}


def test_the_gate_version_is_in_the_signature_and_the_degenerate_reason_names_it():
    # a language's own floor only: German results signed before other languages had floors stay comparable
    assert gate("de") == "py3langid0.05-copy0.9-rep5-e5simde0.8575-min8"
    assert gate("cs") == f"py3langid0.05-copy0.9-rep5-e5simcs{ADEQUACY_FLOOR['cs']:g}-min8"
    assert gate("pl") == SURFACE_GATE
    # across languages only the floor may differ (each is calibrated for its language)
    assert gate_across_languages(gate("de")) == gate_across_languages(gate("cs")) == "py3langid0.05-copy0.9-rep5-e5sim-min8"
    assert gate_across_languages(gate("pl")) == SURFACE_GATE
    probe = WinoMTProbe(load_winomt(ROOT / "mtdebias" / "data" / "templates" / "winomt_synth_en.txt")[:2], "de",
                        resamples=0)
    signature = probe.signature(DictTranslator({}))
    # results stored under the gate before adequacy (…-rep5 alone) are of another gate: not reused
    assert f"gate={gate('de')}" in signature and "gate=py3langid0.05-copy0.9-rep5|" not in signature
    attempts = [{"validity": {"valid": False, "reason": NOT_TRANSLATION}}] * 3 + [{"validity": {"valid": True}}]
    metrics = validity_metrics(attempts)
    assert {m.name: m.value for m in metrics}["invalid.not_translation"] == 3
    assert "3 not translations of the source" in TooFewTranslations().reasons(metrics)[0]


def test_a_probe_can_leave_the_adequacy_test_out():
    """WSD counts wrong senses, which change what a reply says: it gates without this test."""
    verdict = check_all([SOURCE], ["Der Kamin ist nicht gut."], "de", adequate=False)[0]
    assert verdict["valid"] and verdict["adequacy"] is None
    assert gate("de").startswith(SURFACE_GATE + "-e5sim") and SURFACE_GATE == "py3langid0.05-copy0.9-rep5"


def test_aws_translations_below_the_floor_are_counted(tmp_path, monkeypatch):
    """``--aws``: a good translation stays above German's floor, one about something else falls
    below it, a short source is not measured, an empty reply is left out."""
    module = _agreement()
    long = SOURCE
    (tmp_path / "en-de.txt").write_text(
        f"{long} ||| Der Mechaniker hasst die Friseurin, seit sie den hässlichen Haarschnitt beendet hat.\n"
        f"{long} ||| Der Kamin ist nicht gut.\n"
        "The nurse. ||| Krankenschwester\n"
        f"{long} ||| \n", encoding="utf-8")
    monkeypatch.setattr(module, "AWS", tmp_path)
    assert module.aws_rejected("de") == {"n": 2, "below": 1, "rate": 0.5}
    assert module.aws_rejected("he") is None  # no file (and no floor)


def test_kappa_by_hand():
    kappa = _agreement().kappa
    # agree on 3 of 4 (0.75); by chance 0.5 × 0.25 + 0.5 × 0.75 = 0.5; (0.75 − 0.5) / (1 − 0.5)
    assert kappa([True, True, False, False], [True, False, False, False]) == pytest.approx(0.5)
    assert kappa([True, False], [True, False]) == 1.0
    # agreeing no more often than chance: 0
    assert kappa([True, True, False, False], [True, False, True, False]) == pytest.approx(0.0)


def test_a_second_reader_must_label_the_same_pairs(tmp_path, monkeypatch):
    module = _agreement()
    monkeypatch.setattr(module, "SECOND", tmp_path)
    table_rows = [{"id": "1"}, {"id": "2"}]
    assert module.second_reader("xx", table_rows) is None  # no file: no second reader
    (tmp_path / "xx.tsv").write_text("id\tlabel\n2\tnot_translation\n1\ttranslation\n", encoding="utf-8")
    assert module.second_reader("xx", table_rows) == [False, True]  # in the first set's order
    for wrong in ("1\ttranslation\n", "1\ttranslation\n1\ttranslation\n2\ttranslation\n"):  # missing; twice
        (tmp_path / "xx.tsv").write_text("id\tlabel\n" + wrong, encoding="utf-8")
        with pytest.raises(InputError, match="ids are not those of xx.tsv"):
            module.second_reader("xx", table_rows)
    (tmp_path / "xx.tsv").write_text("id\tlabel\n1\ttranslation\n2\tmaybe\n", encoding="utf-8")
    with pytest.raises(InputError, match="maybe"):
        module.second_reader("xx", table_rows)
