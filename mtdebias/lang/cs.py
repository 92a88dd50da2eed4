"""Czech (spaCy cs_core_news_sm); agreement rules in :mod:`mtdebias.lang.spacy_morph`.

The noun's own form:

* feminine derivations -ka / -kyně (učitelka, lékařka, soudkyně) and surnames in -ová
  (Nováková) are strong female cues, as is any noun the morphologizer tags Fem;
* a masculine animate noun is a weak male cue (the default form; a feminine past participle
  «doktor přišla» overrides it);
* nouns in data/lexicons/cs_neutral.txt (osoba, člověk, …) → neutral;
* the indefinites «někdo»/«nikdo» (all cases) → neutral, unless a feminine pronoun in a later
  clause departs from their default masculine;
* a masculine adjective of a default-masculine noun is weak: «Generální ředitel zavolala»
  is decided by the feminine participle.
"""

from __future__ import annotations

import re

from . import spacy_morph
from .base import FEMALE, MALE, NEUTRAL, Cue, Detection, cue
from .lexicons import word_set

_MODEL = "cs_core_news_sm"
# (the dative/locative -ce of -ka nouns, «šerifce», is left out: it would also match the
# masculine poradce, soudce, správce)
_FEMININE_DERIVATION = re.compile(r"(k[aáyeiuo]|k[aá]ch|kou|kám|kami|kyn[eěií]|kyním|kyněmi|"
                                  r"ov[áéoué]|ovou)$")
_INDEFINITES = frozenset({"někdo", "někoho", "někomu", "někým", "někom", "nikdo", "nikoho",
                          "nikomu", "nikým", "nikom"})
_FEMININE_PRONOUNS = frozenset({"ona", "jí", "ji", "ní", "ni", "její", "jejího", "jejímu", "jejím"})


def _noun_cue(token) -> list[Cue]:
    w, lemma = token.text.lower(), token.lemma_.lower()
    if lemma in word_set("cs_neutral.txt") or w in word_set("cs_neutral.txt"):
        return [cue(NEUTRAL, f"noun '{token.text}': gender-neutral noun (data/lexicons/cs_neutral.txt)")]
    genders = spacy_morph.genders_of(token)
    if (lemma.endswith(("ka", "kyně", "ová")) or _FEMININE_DERIVATION.search(w)) and MALE not in genders:
        return [cue(FEMALE, f"noun '{token.text}' (lemma '{token.lemma_}'): feminine "
                            "-ka/-kyně/-ová form")]
    if genders == {FEMALE}:
        return [cue(FEMALE, f"noun '{token.text}' is feminine (morphologizer)")]
    if genders == {MALE}:
        return [cue(MALE, f"noun '{token.text}' is masculine (default; agreement can override)",
                    weak=True)]
    return []


def _determiner_cue(token) -> Cue | None:
    return None  # Czech determiners carry Gender in spaCy's morphology; read there.


def detect(text: str, span: tuple[int, int]) -> Detection:
    phrase = text[span[0]:span[1]].strip().lower()
    if phrase in _INDEFINITES:
        return _indefinite(text, span)
    return spacy_morph.detect(_MODEL, text, span, _noun_cue, _determiner_cue,
                              predicate_needs_etre=False)


def _indefinite(text: str, span: tuple[int, int]) -> Detection:
    """«někdo»/«někomu»: grammatically masculine; only a feminine pronoun in a later clause
    («…, že ona …») shows a woman, anything else leaves the referent's gender unexpressed."""
    word = text[span[0]:span[1]].strip()
    evidence = (f"'{word}': indefinite pronoun (grammatically masculine)",)
    rest = text[span[1]:]
    boundary = re.search(r"[,;:]", rest)
    if boundary is not None:
        for w in re.findall(r"\w+", rest[boundary.end():].lower()):
            if w in _FEMININE_PRONOUNS:
                return Detection(FEMALE, evidence + (f"pronoun '{w}' in a later clause departs from "
                                                     "the default masculine",), span)
    return Detection(NEUTRAL, evidence, span)
