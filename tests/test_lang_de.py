"""German gender detection on hand-checked sentences and real WinoMT (AWS) output."""

from __future__ import annotations


import pytest

from mtdebias.lang import detect_gender

from lang_helpers import at, winomt_translation


@pytest.mark.parametrize("text, word, gender", [
    ("Die Softwareentwicklerin stellte das Produkt vor.", "Softwareentwicklerin", "female"),
    ("Die Oberärztin untersuchte den Patienten.", "Oberärztin", "female"),
    ("Der Oberarzt untersuchte den Patienten.", "Oberarzt", "male"),
    ("Ich sprach mit der Ärztin.", "Ärztin", "female"),  # «der» = feminine dative here
    ("Die Krankenschwester half.", "Krankenschwester", "female"),  # feminine without -in
    ("Die Lehrkraft erklärte die Aufgabe.", "Lehrkraft", "neutral"),
    ("Studierende schrieben die Klausur.", "Studierende", "neutral"),  # bare plural
    ("Die Studierenden schrieben die Klausur.", "Studierenden", "neutral"),
    ("Der Angestellte kam spät.", "Angestellte", "male"),
    ("Eine Angestellte kam spät.", "Angestellte", "female"),
    ("Die Entwickler*innen trafen sich.", "Entwickler*innen", "neutral"),
    ("Die Lehrer:innen trafen sich.", "Lehrer:innen", "neutral"),
    ("Ärztinnen und Ärzte protestierten.", "Ärztinnen und Ärzte", "neutral"),
    ("Das Mitglied stimmte ab.", "Mitglied", "neutral"),
    ("Der Mover bedankte sich.", "Mover", "male"),  # unknown loanword after «der», no -in
])
def test_hand_checked(text, word, gender):
    d = detect_gender("de", text, at(text, word))
    assert d.gender == gender, d


def test_generic_masculine_plural_is_male_and_says_plural():
    text = "Die Entwickler trafen sich."
    d = detect_gender("de", text, at(text, "Entwickler"))
    assert d.gender == "male"
    assert any("plural" in e for e in d.evidence)


def test_compound_head_is_named_in_evidence():
    text = "Die Oberärztin kam."
    d = detect_gender("de", text, at(text, "Oberärztin"))
    assert d.span == (0, len("Die Oberärztin"))  # the article joins the judged phrase
    assert any("determiner 'Die'" == e for e in d.evidence)


def test_ambiguous_adjectival_noun_is_undetected():
    # «den Angestellten»: masculine accusative singular or dative plural
    text = "Sie sah den Angestellten."
    d = detect_gender("de", text, at(text, "Angestellten"))
    assert d.gender == "undetected"


@pytest.mark.shared
@pytest.mark.parametrize("line, word, gender", [
    (1, "Designer", "male"),  # Der Entwickler stritt mit dem Designer ...
    (3, "Mechanikerin", "female"),
    (6, "Haushälterin", "female"),  # bei der Haushälterin
    (7, "Analysten", "male"),  # für den Analysten
])
def test_real_winomt_lines(line, word, gender):
    text = winomt_translation("de", line)
    assert detect_gender("de", text, at(text, word)).gender == gender
