"""French and Czech gender detection (spaCy morphologizer) on hand-checked and real text."""

from __future__ import annotations

from pathlib import Path

import pytest

from mtdebias.lang import detect_gender

WINOMT = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "winomt"


def at(text: str, word: str) -> tuple[int, int]:
    start = text.index(word)
    return start, start + len(word)


def winomt_translation(lang: str, line: int) -> str:
    """Translation half of line `line` (1-based) of the AWS WinoMT output for `lang`."""
    path = WINOMT / "translations-aws" / f"en-{lang}.txt"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    return path.read_text(encoding="utf-8").splitlines()[line - 1].split(" ||| ", 1)[1]


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
