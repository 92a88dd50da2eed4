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


def test_den_plus_en_is_masculine_unless_a_dative_preposition_allows_plural():
    # «sah den Angestellten»: accusative — a plural would be «die Angestellten» → masculine sg.
    text = "Sie sah den Angestellten."
    assert detect_gender("de", text, at(text, "Angestellten")).gender == "male"
    # «mit den Angestellten»: masculine dative sg. is «dem», so this is dative plural or odd
    text = "Sie sprach mit den Angestellten."
    assert detect_gender("de", text, at(text, "Angestellten")).gender == "undetected"


@pytest.mark.parametrize("text, word, gender", [
    # the pronoun follows the grammatical gender: nothing about the referent
    ("Die Wache hielt ihn an, weil sie misstrauisch war.", "Wache", "neutral"),
    ("Der Apotheker sagte jemandem, dass er die Pillen nehmen sollte.", "jemandem", "neutral"),
    ("Die Person kam, weil sie Hilfe brauchte.", "Person", "neutral"),
    # the pronoun departs from it: agreement with the referent's sex
    ("Der Lehrer ermutigte jemanden, ihren Träumen nachzugehen.", "jemanden", "female"),
    ("Der Arzt half dem Kind, weil er Schmerzen hatte.", "Kind", "male"),
    ("Die Person kam, weil er Hilfe brauchte.", "Person", "male"),
    # «sie» with a plural verb is plural, not feminine
    ("Jemand sagte dem Berater, dass sie Probleme hatten.", "Jemand", "neutral"),
])
def test_epicene_words_and_coreferent_pronouns(text, word, gender):
    d = detect_gender("de", text, at(text, word))
    assert d.gender == gender, d


def test_feminine_article_on_masculine_singular_form_decides():
    text = "Die Putzfrau mag die Koch nicht, weil sie die Küche schmutzig gemacht hat."
    d = detect_gender("de", text, at(text, "Koch"))
    assert d.gender == "female" and any("determiner decides" in e for e in d.evidence), d
    # but «die Arbeiter» can be plural: generic masculine
    text = "Die Rezeptionistin hasste die Arbeiter."
    assert detect_gender("de", text, at(text, "Arbeiter")).gender == "male"


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
