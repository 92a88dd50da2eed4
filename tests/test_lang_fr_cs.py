"""French and Czech gender detection (spaCy morphologizer) on hand-checked and real text."""

from __future__ import annotations


import pytest

from mtdebias.lang import detect_gender

from lang_helpers import at, winomt_translation


@pytest.mark.parametrize("text, word, gender", [
    ("La juge est partie.", "juge", "female"),  # épicène, feminine article
    ("Le juge est arrivé.", "juge", "male"),
    ("L'architecte a parlé.", "architecte", "undetected"),  # elided article, avoir: nothing decides
    ("L'architecte était fatiguée.", "architecte", "female"),  # predicate with être
    ("La médecin a parlé.", "médecin", "female"),  # feminine use of a masculine form
    ("Le mécanicien a offert un cadeau au greffier.", "greffier", "male"),
    ("L'infirmière a parlé.", "infirmière", "female"),
    ("Une juge compétente a tranché.", "juge", "female"),
])
def test_french_hand_checked(text, word, gender):
    d = detect_gender("fr", text, at(text, word))
    assert d.gender == gender, d


@pytest.mark.parametrize("text, word, gender", [
    ("Lékařka přišla pozdě.", "Lékařka", "female"),
    ("Náš nový lékař přišel.", "lékař", "male"),
    ("Paní Nováková odešla.", "Nováková", "female"),  # -ová surname
    ("Soudkyně odešla.", "Soudkyně", "female"),  # -kyně
    ("Ředitelka podepsala smlouvu.", "Ředitelka", "female"),  # -ka
    ("Učitelka dala dárek řediteli.", "řediteli", "male"),
    ("Ta osoba odešla.", "osoba", "neutral"),
])
def test_czech_hand_checked(text, word, gender):
    d = detect_gender("cs", text, at(text, word))
    assert d.gender == gender, d


def test_multiword_noun_headed_by_femme():
    text = "Le déménageur a dit merci à la femme de ménage."
    d = detect_gender("fr", text, at(text, "femme de ménage"))
    assert d.gender == "female"
    assert text[d.span[0]:d.span[1]] == "la femme de ménage"


@pytest.mark.shared
@pytest.mark.parametrize("line, word, gender", [
    (7, "assistante", "female"),  # L'assistante
    (7, "analyste", "undetected"),  # l'analyste: épicène, elided article
    (11, "bibliothécaire", "female"),  # à la bibliothécaire
    (12, "bibliothécaire", "male"),  # au bibliothécaire
])
def test_real_winomt_lines(line, word, gender):
    text = winomt_translation("fr", line)
    assert detect_gender("fr", text, at(text, word)).gender == gender
