"""Noun-phrase agreement for the synthetic corpus: English articles, German case/gender
declension, French elision and adjective placement, Spanish articles and apocope.

Genders are "m", "f" (persons and things) and "n" (German things). Persons map
"male" → "m", "female" → "f".
"""

from __future__ import annotations

from .vocab import Adjective, Colour, PersonNoun

_VOWELS = "aeiouyàâäéèêëîïôöùûüœæh"  # French "h" in this vocabulary is always mute


def g_of(gender: str) -> str:
    return {"male": "m", "female": "f"}[gender]


# --- English -----------------------------------------------------------------------------

def en_a(word: str) -> str:
    """"a"/"an" chosen by the first letter (true for every word in this vocabulary)."""
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


# --- German ------------------------------------------------------------------------------

_DE_DEF = {("nom", "m"): "der", ("nom", "f"): "die", ("nom", "n"): "das",
           ("acc", "m"): "den", ("acc", "f"): "die", ("acc", "n"): "das",
           ("dat", "m"): "dem", ("dat", "f"): "der", ("dat", "n"): "dem"}
# Endings of "ein" and the possessives built like it (mein, unser, sein, ihr).
_DE_EIN_END = {("nom", "m"): "", ("nom", "f"): "e", ("nom", "n"): "",
               ("acc", "m"): "en", ("acc", "f"): "e", ("acc", "n"): "",
               ("dat", "m"): "em", ("dat", "f"): "er", ("dat", "n"): "em"}
# Adjective endings after the definite article (weak) and after ein-words (mixed).
_DE_WEAK_ADJ = {("nom", "m"): "e", ("nom", "f"): "e", ("nom", "n"): "e",
                ("acc", "m"): "en", ("acc", "f"): "e", ("acc", "n"): "e",
                ("dat", "m"): "en", ("dat", "f"): "en", ("dat", "n"): "en"}
_DE_MIXED_ADJ = {("nom", "m"): "er", ("nom", "f"): "e", ("nom", "n"): "es",
                 ("acc", "m"): "en", ("acc", "f"): "e", ("acc", "n"): "es",
                 ("dat", "m"): "en", ("dat", "f"): "en", ("dat", "n"): "en"}
DE_POSSESSIVE_STEMS = {"my": "mein", "our": "unser", "his": "sein", "her": "ihr"}


def de_person_noun(noun: PersonNoun, g: str, case: str = "nom") -> str:
    if g == "f":
        return noun.de_f
    return noun.de_m + (noun.de_weak if case != "nom" else "")


def de_np(head: str, g: str, det: str, case: str = "nom", adj: str | None = None) -> str:
    """German noun phrase. ``det``: "def", "indef", "none" or a possessive key ("my", ...);
    ``adj`` is the adjective stem; ``head`` is the already-inflected noun."""
    key = (case, g)
    if det == "def":
        words = [_DE_DEF[key]] + ([adj + _DE_WEAK_ADJ[key]] if adj else [])
    elif det == "indef" or det in DE_POSSESSIVE_STEMS:
        stem = "ein" if det == "indef" else DE_POSSESSIVE_STEMS[det]
        words = [stem + _DE_EIN_END[key]] + ([adj + _DE_MIXED_ADJ[key]] if adj else [])
    elif det == "none":
        words = [adj + _DE_MIXED_ADJ[key]] if adj else []
    else:
        raise ValueError(f"unknown German determiner {det!r}")
    return " ".join(words + [head])


def de_person_np(noun: PersonNoun, g: str, det: str, case: str = "nom",
                 adj: Adjective | None = None) -> str:
    return de_np(de_person_noun(noun, g, case), g, det, case, adj.de if adj else None)


# --- French ------------------------------------------------------------------------------

def fr_starts_with_vowel(word: str) -> bool:
    return word[:1].lower() in _VOWELS


def fr_join(det: str, word: str) -> str:
    """"le"/"la" → "l'" and "de" → "d'" before a vowel; "ma"/"sa" → "mon"/"son"."""
    if fr_starts_with_vowel(word):
        if det in ("le", "la"):
            return "l'" + word
        if det in ("de", "que"):
            return det[:-1] + "'" + word
        if det == "ma":
            det = "mon"
        elif det == "sa":
            det = "son"
    return f"{det} {word}"


_FR_DET = {"def": ("le", "la"), "indef": ("un", "une"), "my": ("mon", "ma"),
           "our": ("notre", "notre"), "his": ("son", "sa"), "her": ("son", "sa"),
           "poss3": ("son", "sa")}


def fr_adj_form(adj: Adjective | Colour, g: str, next_word: str) -> str:
    if g == "f":
        return adj.fr_f
    if adj.fr_m_vowel and fr_starts_with_vowel(next_word):
        return adj.fr_m_vowel
    return adj.fr_m


def fr_np(head: str, g: str, det: str, adj: Adjective | Colour | None = None) -> str:
    """French noun phrase with elision and pre-/post-nominal adjective placement."""
    words = [head]
    if adj is not None:
        if adj.fr_pre:
            words.insert(0, fr_adj_form(adj, g, head))
        else:
            words.append(adj.fr_f if g == "f" else adj.fr_m)
    if det == "none":
        return " ".join(words)
    article = _FR_DET[det][0 if g == "m" else 1]
    return fr_join(article, words[0]) + ("" if len(words) == 1 else " " + " ".join(words[1:]))


def fr_person_np(noun: PersonNoun, g: str, det: str, adj: Adjective | None = None) -> str:
    return fr_np(noun.fr_f if g == "f" else noun.fr_m, g, det, adj)


def fr_de(word: str) -> str:
    return fr_join("de", word)


# --- Spanish -----------------------------------------------------------------------------

_ES_DET = {"def": ("el", "la"), "indef": ("un", "una"), "my": ("mi", "mi"),
           "our": ("nuestro", "nuestra"), "poss3": ("su", "su")}


def es_np(head: str, g: str, det: str, adj: Adjective | Colour | None = None) -> str:
    words = [head]
    if adj is not None:
        if getattr(adj, "es_pre", False):
            pre = adj.es_f if g == "f" else (getattr(adj, "es_m_pre", None) or adj.es_m)
            words.insert(0, pre)
        else:
            words.append(adj.es_f if g == "f" else adj.es_m)
    if det != "none":
        words.insert(0, _ES_DET[det][0 if g == "m" else 1])
    return " ".join(words)


def es_person_np(noun: PersonNoun, g: str, det: str, adj: Adjective | None = None) -> str:
    return es_np(noun.es_f if g == "f" else noun.es_m, g, det, adj)


def person_np(lang: str, noun: PersonNoun, g: str, det: str, adj: Adjective | None = None,
              case: str = "nom") -> str:
    if lang == "de":
        return de_person_np(noun, g, det, case, adj)
    if lang == "fr":
        return fr_person_np(noun, g, det, adj)
    if lang == "es":
        return es_person_np(noun, g, det, adj)
    raise ValueError(lang)


def sentence(text: str) -> str:
    """Capitalise the first letter (the name or article that starts every sentence)."""
    return text[:1].upper() + text[1:]
