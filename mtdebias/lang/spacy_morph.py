"""French and Czech with a spaCy pipeline: the noun, its dependents, and its predicate.

The morphologizer's Gender on a *noun* is partly guessed from context, so a noun's own form is
judged by per-language rules (the ``noun_cue`` callback of each language module); the words
that agree with it are read from spaCy's morphology and dependency parse:

* determiners and adjectives attached to the noun (``det``, ``amod``, ``nmod:poss`` …);
* when the noun is a subject, its head when that is an adjective or participle agreeing with it
  (French only with *être* — a participle with *avoir* does not agree; Czech past participles
  always agree) and any auxiliary/copula of that head that carries Gender (Czech «byla»).

spaCy models are loaded lazily, once per process.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable

from .base import FEMALE, MALE, NEUTRAL, Cue, Detection, cue, resolve

_GENDER = {"Masc": MALE, "Fem": FEMALE}
_AGREEING_DEPS = {"det", "amod", "nmod:poss", "det:poss", "det:numgov", "det:nummod", "acl"}
_CLAUSE_DEPS = {"advcl", "ccomp", "csubj", "parataxis", "conj"}


@lru_cache(maxsize=None)
def nlp(model: str):
    import spacy

    return spacy.load(model, exclude=["ner"])


@lru_cache(maxsize=256)
def parse(model: str, text: str):
    return nlp(model)(text)


def genders_of(token) -> set[str]:
    return {_GENDER[g] for g in token.morph.get("Gender") if g in _GENDER}


def is_participle(token, form_check: Callable[[object], bool] | None = None) -> bool:
    """Tagged a participle, and (when the language gives a check) shaped like one: the small
    French model tags the finite «discute» a feminine past participle."""
    return "Part" in token.morph.get("VerbForm") and (form_check is None or form_check(token))


def detect(model: str, text: str, span: tuple[int, int],
           noun_cue: Callable[[object], list[Cue]],
           determiner_cue: Callable[[object], Cue | None],
           predicate_needs_etre: bool,
           participle_form: Callable[[object], bool] | None = None) -> Detection:
    doc = parse(model, text)
    toks = [t for t in doc if t.idx < span[1] and t.idx + len(t.text) > span[0]]
    toks = [t for t in toks if not t.is_punct] or toks
    if not toks:
        return Detection("undetected", ("span covers no word",), span)
    inside = {t.i for t in toks}
    # The head of the phrase: the token whose syntactic head lies outside the span
    # («femme de ménage» → «femme»), preferring nouns.
    roots = [t for t in toks if t.head.i not in inside or t.head.i == t.i]
    nouns = [t for t in roots if t.pos_ in ("NOUN", "PROPN")] or \
            [t for t in toks if t.pos_ in ("NOUN", "PROPN")] or roots or toks
    head = nouns[0]
    start = min(t.idx for t in toks)
    end = max(t.idx + len(t.text) for t in toks)

    cues: list[Cue] = list(noun_cue(head))
    if any(c.genders == {NEUTRAL} for c in cues):
        # A gender-neutral noun agrees by its grammatical gender, which says nothing of the
        # referent; agreement is not evidence here.
        return Detection(NEUTRAL, tuple(c.reason for c in cues), (start, end))
    for child in head.children:
        if child.i in inside and child.pos_ in ("NOUN", "PROPN"):
            continue
        if child.dep_ == "case":
            # contracted preposition + article (fr. «au», «du») carries the article's gender
            c = determiner_cue(child)
            if c is not None:
                cues.append(c)
                start = min(start, child.idx) if child.i < head.i else start
            continue
        if child.dep_ in _CLAUSE_DEPS or any(g.dep_ == "mark" for g in child.children):
            # an adjective heading a clause of its own («…, protože byla naštvaná» mis-attached
            # to the noun) agrees with that clause's subject, not with the noun
            continue
        if child.dep_ in _AGREEING_DEPS or child.pos_ in ("DET", "ADJ"):
            if child.dep_ in ("acl", "acl:relcl") and child.pos_ == "VERB" and not is_participle(child, participle_form):
                continue
            c = determiner_cue(child) if child.pos_ == "DET" or child.dep_.startswith("det") else None
            if c is None:
                g = genders_of(child)
                if len(g) == 1:
                    # a masculine adjective of a default-masculine noun is grammatical
                    # agreement only («Generální ředitel zavolala»): weak
                    default_male = any(n.weak and n.genders == {MALE} for n in cues)
                    c = cue(g, f"agreeing {child.pos_.lower()} '{child.text}' is "
                               f"{'feminine' if FEMALE in g else 'masculine'}",
                            weak=default_male and g == {MALE} and child.pos_ == "ADJ")
            if c is not None:
                cues.append(c)
                if child.i < head.i and child.idx >= head.idx - 40:
                    start = min(start, child.idx)
    if head.dep_ in ("nsubj", "nsubj:pass") and head.head.i != head.i \
            and not any(c.dep_.startswith("nsubj") and c.i != head.i for c in head.head.children):
        # (a predicate with a subject of its own — «le garde parce qu'elle est paresseuse»
        # mis-parsed — agrees with that subject, not with the noun)
        pred = head.head
        helpers = [c for c in pred.children if c.dep_ in ("cop", "aux", "aux:pass", "aux:tense")]
        etre = any(h.lemma_ == "être" for h in helpers)
        if pred.pos_ in ("ADJ", "VERB") and (not predicate_needs_etre or etre or pred.pos_ == "ADJ"):
            g = genders_of(pred)
            if pred.pos_ == "VERB" and not is_participle(pred, participle_form):
                g = set()
            if len(g) == 1:
                cues.append(cue(g, f"agreeing predicate '{pred.text}' is "
                                   f"{'feminine' if FEMALE in g else 'masculine'}"))
        for h in helpers:
            g = genders_of(h)
            if len(g) == 1:
                cues.append(cue(g, f"agreeing auxiliary '{h.text}' is "
                                   f"{'feminine' if FEMALE in g else 'masculine'}"))
    return resolve(cues, (start, end))
