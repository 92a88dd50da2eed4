"""Czech: spaCy's ``cs_core_news_sm`` parse finds the words whose subject is the speaker.

Czech marks the first person in the past and the conditional with an auxiliary («udělal
*jsem*», «udělala *bych*»), in the present with the verb's ending («*Mám* ráda»). Gendered
words: l-participles (-l masculine, -la feminine; with a first-person-singular auxiliary the
-la form cannot be the neuter plural the morphologizer also allows), short forms
(«rád/ráda», «sám/sama», «připraven/připravena»), hard adjectives in the nominative or
instrumental (-ý/-á, -ým/-ou). Soft adjectives in -í («nejšťastnější») have one form for both
genders and say nothing. Rules for whose subject a word has: :mod:`.ud_tree`.
"""

from __future__ import annotations

from functools import lru_cache

from .base import FEMALE, MALE, SpeakerDetection, resolve
from .ud_tree import Tok, speaker_cues

_MODEL = "cs_core_news_sm"
# First-person-singular auxiliaries; the parser sometimes takes «Kdybych» for a name.
_FIRST_SG_AUX = {"jsem", "bych", "abych", "kdybych", "jsem-li"}
_SHORT = {"rád": MALE, "ráda": FEMALE, "nerad": MALE, "nerada": FEMALE, "sám": MALE, "sama": FEMALE,
          "jeden": MALE, "jedna": FEMALE, "samotný": MALE, "samotná": FEMALE}


@lru_cache(maxsize=None)
def _nlp():
    import spacy

    return spacy.load(_MODEL, exclude=["ner"])


def word_gender(token) -> str | None:
    """Speaker-possible gender of a Czech word from its form and spaCy's morphology."""
    lower = token.text.lower()
    if lower in _SHORT:
        return _SHORT[lower]
    morph = token.morph
    if "Plur" in morph.get("Number") and "Sing" not in morph.get("Number"):
        return None
    verb_form = morph.get("VerbForm")
    if "Part" in verb_form and "Past" in morph.get("Tense") and "Act" in morph.get("Voice"):
        # l-participle: the ending decides (-l masc sg; -la fem sg or neut pl)
        if lower.endswith("l"):
            return MALE
        if lower.endswith("la"):
            return FEMALE
        return None
    if token.pos_ == "ADJ" or "Part" in verb_form:
        genders = set(morph.get("Gender"))
        cases = set(morph.get("Case"))
        short = "Short" in morph.get("Variant")
        if lower.endswith(("í", "ím")) and not short:
            return None  # soft adjective: the same form for both genders
        predicative = any(c.dep_ == "cop" for c in token.children)  # case tags of predicates are unreliable
        if not short and cases and not cases & {"Nom", "Ins"} and not predicative:
            return None
        if short:  # připraven / připravena: the ending decides
            return FEMALE if lower.endswith("a") else MALE if not lower.endswith(("o", "i", "y")) else None
        if lower.endswith(("ý", "ým")) and "Masc" in genders:
            return MALE
        if lower.endswith(("á", "ou")) and "Fem" in genders:
            return FEMALE
    return None


def parse(text: str) -> list[Tok]:
    doc = _nlp()(text)
    tokens = []
    for t in doc:
        lower = t.text.lower()
        morph = t.morph
        first = (lower in _FIRST_SG_AUX or lower == "já"
                 or ("1" in morph.get("Person") and morph.get("Number") == ["Sing"]
                     and t.pos_ in ("VERB", "AUX") and "Fin" in morph.get("VerbForm")))
        gender = word_gender(t) if t.pos_ in ("VERB", "AUX", "ADJ", "DET", "NUM", "PRON") else None
        head = t.head.i
        dep = t.dep_ if head != t.i else "root"
        tokens.append(Tok(t.i, t.text, head, dep, t.pos_, gender, first, lower == "mi"))
    return tokens


def detect(text: str) -> SpeakerDetection:
    return resolve(speaker_cues(parse(text), pro_drop_root=False))
