"""Russian: Natasha's dependency parse (slovnet, shipped with the ``natasha`` package — no
download) finds the words whose subject is «я»; pymorphy3 says which gender each carries.

Gendered words: past-tense singular verbs («был/была»), short adjectives and participles
(«рад/рада», «готов/готова», «должен/должна»), full adjectives and participles in the nominative
or instrumental used as predicates («я единственный», «была покорной»), «сам/сама»,
«один/одна». Rules for whose subject a word has: :mod:`.ud_tree`.
"""

from __future__ import annotations

from functools import lru_cache

from ..slavic_pymorphy import analyzer
from .base import FEMALE, MALE, SpeakerDetection, resolve
from .ud_tree import Tok, speaker_cues

_PYMORPHY_GENDER = {"masc": MALE, "femn": FEMALE}
_NATASHA_GENDER = {"Masc": MALE, "Fem": FEMALE}
_ONE_SELF = {"сам", "сама", "один", "одна", "одна-одинешенька"}


@lru_cache(maxsize=None)
def _natasha():
    from natasha import Doc, NewsEmbedding, NewsMorphTagger, NewsSyntaxParser, Segmenter

    embedding = NewsEmbedding()
    return Doc, Segmenter(), NewsMorphTagger(embedding), NewsSyntaxParser(embedding)


def word_gender(morph, word: str, kinds: set[str]) -> str | None:
    """The speaker-possible gender pymorphy3 gives ``word`` read as one of ``kinds``
    (``past``: past-tense singular verb; ``short``: short adjective/participle; ``full``: full
    adjective/participle/numeral in the nominative or instrumental singular). Neuter readings
    are ignored (a person is not neuter); masculine and feminine readings together → None."""
    genders = set()
    for p in morph.parse(word):
        tag = p.tag
        if tag.number == "plur":
            continue
        ok = (("past" in kinds and tag.POS == "VERB" and tag.tense == "past")
              or ("short" in kinds and tag.POS in ("ADJS", "PRTS"))
              or ("full" in kinds and tag.POS in ("ADJF", "PRTF", "NUMR") and tag.case in ("nomn", "ablt")))
        if ok and tag.gender in _PYMORPHY_GENDER:
            genders.add(_PYMORPHY_GENDER[tag.gender])
    return genders.pop() if len(genders) == 1 else None


def _kinds(pos: str, feats: dict) -> set[str]:
    if pos in ("VERB", "AUX") and feats.get("VerbForm") != "Part":
        return {"past"}  # pymorphy3 decides whether the form is a past tense
    if feats.get("Variant") == "Short":
        return {"short"}
    if pos in ("ADJ", "DET", "NUM") or feats.get("VerbForm") == "Part":
        return {"full", "short"}
    return set()


def _first_singular_verb(morph, word: str) -> bool:
    """«думаю», «смогу»: every verb reading is a first-person singular present/future."""
    verbs = [p.tag for p in morph.parse(word) if p.tag.POS == "VERB"]
    return bool(verbs) and all(t.person == "1per" and t.number == "sing" for t in verbs)


def _neuter_or_plural_past(morph, word: str) -> bool:
    """«оказалось», «были»: a past form that cannot agree with a (singular, male or female) «я»."""
    verbs = [p.tag for p in morph.parse(word) if p.tag.POS == "VERB"]
    return bool(verbs) and all(t.tense == "past" and (t.number == "plur" or t.gender == "neut") for t in verbs)


def parse(text: str, morph=None) -> list[Tok]:
    Doc, segmenter, tagger, parser = _natasha()
    morph = morph or analyzer("ru")
    doc = Doc(text)
    doc.segment(segmenter)
    doc.tag_morph(tagger)
    doc.parse_syntax(parser)
    tokens: list[Tok] = []
    for sent in doc.sents:  # one tree per sentence; indices made global
        base = len(tokens)
        ids = {t.id: base + k for k, t in enumerate(sent.tokens)}
        for k, t in enumerate(sent.tokens):
            feats = t.feats or {}
            lower = t.text.lower()
            head = ids.get(t.head_id, base + k)
            gender = None
            kinds = _kinds(t.pos, feats)
            if kinds and feats.get("Number", "Sing") == "Sing":
                gender = word_gender(morph, lower, kinds)
                if gender is None and lower in _ONE_SELF:
                    gender = MALE if lower in ("сам", "один") else FEMALE
            first = lower == "я" or (t.pos in ("VERB", "AUX") and _first_singular_verb(morph, lower))
            impersonal = t.pos in ("VERB", "AUX") and gender is None and _neuter_or_plural_past(morph, lower)
            tokens.append(Tok(base + k, t.text, head, t.rel, t.pos, gender, first, lower == "мне", impersonal))
    return tokens


def detect(text: str) -> SpeakerDetection:
    return resolve(speaker_cues(parse(text), pro_drop_root=True))
