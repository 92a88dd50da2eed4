"""The public contract of mtdebias.lang: detect_gender, Detection, SUPPORTED_LANGS, undetected_rate."""

from __future__ import annotations

import math

import pytest

from mtdebias.errors import InputError
from mtdebias.lang import SUPPORTED_LANGS, Detection, detect_gender, undetected_rate


def test_supported_languages():
    assert set(SUPPORTED_LANGS) == {"de", "fr", "es", "it", "ru", "uk", "cs"}


def test_unsupported_language_is_an_input_error():
    with pytest.raises(InputError, match="supported: cs, de"):
        detect_gender("xx", "text", (0, 4))


def test_span_outside_text_is_an_input_error():
    with pytest.raises(InputError, match="outside"):
        detect_gender("de", "Die Ärztin", (4, 99))


def test_no_span_and_no_forms_is_undetected():
    d = detect_gender("de", "Die Ärztin kam.")
    assert d == Detection("undetected", ("no span",), None)


def test_forms_locate_the_noun():
    text = "Gestern kam die Ärztin."
    d = detect_gender("de", text, forms={"male": ["Arzt"], "female": ["Ärztin"]})
    assert d.gender == "female"
    assert text[d.span[0]:d.span[1]] == "die Ärztin"
    assert any("known female form" in e for e in d.evidence)


def test_forms_not_found_is_undetected():
    d = detect_gender("es", "El pintor llegó.", forms={"male": ["médico"], "female": ["médica"]})
    assert d.gender == "undetected" and d.evidence == ("none of the known forms found",)


def test_morphology_overrides_the_form_list():
    # «врач» listed as the male form, but the verb agreeing with it is feminine
    d = detect_gender("ru", "Врач пришла.", forms={"male": ["врач"], "female": ["врачиха"]})
    assert d.gender == "female"
    assert any("overridden" in e for e in d.evidence)


def test_form_list_decides_only_when_morphology_cannot():
    # a first name is undetected on its own; a form list that knows it as female decides
    d = detect_gender("fr", "Il a parlé à Kim.", forms={"female": ["Kim"]})
    assert d.gender == "female"
    assert d.evidence[-1] == "known female form 'Kim' decides"


def test_bad_forms_key_is_an_input_error():
    with pytest.raises(InputError, match="forms has keys"):
        detect_gender("de", "Die Ärztin", forms={"feminine": ["Ärztin"]})


def test_undetected_rate():
    ds = [Detection("male", (), None), Detection("undetected", (), None),
          Detection("female", (), None), Detection("undetected", (), None),
          Detection("neutral", (), None)]
    assert undetected_rate(ds) == pytest.approx(2 / 5)  # 2 of 5 undetected, by hand
    assert math.isnan(undetected_rate([]))


def test_detection_is_frozen():
    d = Detection("male", ("x",), (0, 1))
    with pytest.raises(AttributeError):
        d.gender = "female"  # type: ignore[misc]
