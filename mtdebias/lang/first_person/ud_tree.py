"""Finding the speaker's agreeing words in a Universal Dependencies parse (ru, cs).

A gendered word (a past-tense verb or l-participle, an adjective, «сам/sám», «один/jeden») is
the speaker's when the predicate it belongs to has a first-person-singular subject:

* the predicate ``H`` is the word itself, or its head when the word is an auxiliary/copula
  («jsem *byl* šéf», «я *была* покорной»);
* ``H``'s subject is the speaker when ``H`` has an ``nsubj`` that is «я/já», or an auxiliary /
  copula in the first person singular («jsem», «bych»); any other ``nsubj`` makes it someone
  else's («моя rodina *šla*», «он сказал»);
* without a subject of its own, a conjunct inherits its head's subject and an ``xcomp`` its
  controller's («хотела быть *красивой*»); a dative «мне/mi» controls an infinitive's predicate
  («мне нужно быть *стабильным*», «мне не нравится быть *суровым*»);
* a predicate that itself agrees with a neuter or plural subject («оказалось») has no speaker
  subject, and passes none on to its conjuncts;
* a word attached directly to «я» (``amod``, ``det``, ``appos``: «я *сама*») is the speaker's;
* a subjectless main clause is the speaker's only where the language drops «я» without an
  auxiliary (Russian «Никогда не думала»); Czech marks the first person with «jsem», so there a
  bare participle belongs to a third person.

Each language supplies the parsed tokens and two judgements: the gender a word carries
(:attr:`Tok.gender`) and whether a token marks the first person singular.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .base import SpeakerCue

_SUBJECT = ("nsubj", "nsubj:pass", "csubj")
_AUX = ("aux", "aux:pass", "cop")


@dataclass
class Tok:
    i: int
    text: str
    head: int  # index of the head token; == i for the root
    dep: str
    pos: str
    gender: str | None = None  # "male"/"female" when the word itself carries speaker-possible gender
    first_sg: bool = False  # «я», «já», «jsem», «bych», a 1sg finite verb
    dative_first: bool = False  # «мне», «mi»
    impersonal: bool = False  # agrees with a non-speaker: neuter or plural past («оказалось», «byli»)
    children: list[int] = field(default_factory=list)


def link(tokens: list[Tok]) -> list[Tok]:
    for t in tokens:
        t.children = []
    for t in tokens:
        if t.head != t.i:
            tokens[t.head].children.append(t.i)
    return tokens


def _predicate(tokens: list[Tok], t: Tok) -> Tok:
    return tokens[t.head] if t.dep in _AUX and t.head != t.i else t


def subject_is_speaker(tokens: list[Tok], h: Tok, *, pro_drop_root: bool, depth: int = 0) -> tuple[bool, str]:
    """Is the subject of predicate ``h`` the speaker? Returns (answer, reason)."""
    if depth > 6:
        return False, "too deep"
    if h.impersonal:
        return False, f"'{h.text}' is neuter or plural"
    kids = [tokens[c] for c in h.children]
    subjects = [k for k in kids if k.dep in _SUBJECT]
    for s in subjects:
        if s.first_sg:
            return True, f"subject '{s.text}'"
    if subjects:
        return False, f"subject '{subjects[0].text}' is someone else"
    for k in kids:
        if k.dep in _AUX and k.first_sg:
            return True, f"first-person auxiliary '{k.text}'"
    if h.first_sg and h.pos in ("VERB", "AUX"):
        return True, f"first-person verb '{h.text}'"
    if h.dep == "conj" and h.head != h.i:
        ok, why = subject_is_speaker(tokens, tokens[h.head], pro_drop_root=pro_drop_root, depth=depth + 1)
        return ok, f"conjoined with '{tokens[h.head].text}', {why}"
    if h.dep in ("xcomp", "csubj") and h.head != h.i:
        head = tokens[h.head]
        if any(tokens[c].dative_first for c in head.children):
            return True, f"controlled by the dative speaker of '{head.text}'"
        ok, why = subject_is_speaker(tokens, head, pro_drop_root=pro_drop_root, depth=depth + 1)
        return ok, f"controlled by '{head.text}', {why}"
    if any(k.dative_first for k in kids) and h.pos in ("ADJ", "NOUN"):
        return False, "dative experiencer is not a subject"
    if pro_drop_root and h.dep in ("root", "ROOT") and h.pos in ("VERB", "AUX", "ADJ"):
        return True, "subjectless main clause (dropped «я»)"
    return False, "no first-person subject"


def speaker_cues(tokens: list[Tok], *, pro_drop_root: bool) -> list[SpeakerCue]:
    link(tokens)
    cues = []
    for t in tokens:
        if t.gender is None:
            continue
        if t.dep in ("amod", "det", "appos", "nmod") and t.head != t.i and tokens[t.head].first_sg \
                and tokens[t.head].pos == "PRON":
            cues.append(SpeakerCue(t.gender, t.text, f"attached to '{tokens[t.head].text}'"))
            continue
        if t.dep in ("amod", "det", "nummod") and tokens[t.head].pos in ("NOUN", "PROPN"):
            continue  # agrees with a noun, not with the speaker
        h = _predicate(tokens, t)
        ok, why = subject_is_speaker(tokens, h, pro_drop_root=pro_drop_root)
        if not ok and t.pos == "ADJ" and t.head != t.i and tokens[t.head].first_sg \
                and tokens[t.head].pos in ("VERB", "AUX"):
            ok, why = True, f"predicative with first-person verb '{tokens[t.head].text}'"
        if ok:
            cues.append(SpeakerCue(t.gender, t.text, why))
    return cues
