"""Shared vocabulary of the target-side gender detectors.

Every language module turns the focus noun phrase into *cues*: a set of genders a piece of
evidence allows (the noun's own form, an article, an agreeing adjective or verb) and the reason
in words. :func:`resolve` combines them the same way for every language:

* **strong** cues are intersected; an empty intersection is a conflict and gives
  ``undetected`` (we do not pick a side silently);
* **weak** cues are defaults that only narrow what the strong cues left open — an unmarked
  masculine form such as Russian «врач» or French « médecin » can refer to a woman, so it
  decides only when no article, adjective or verb says otherwise;
* one gender left → that gender; several left → ``undetected`` with the reasons.

``neutral`` is reached only through an explicit neutral cue (a gender-neutral form listed per
language), never by default.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Sequence

MALE, FEMALE, NEUTRAL, UNDETECTED = "male", "female", "neutral", "undetected"
GENDERS = (MALE, FEMALE, NEUTRAL)
OUTCOMES = (MALE, FEMALE, NEUTRAL, UNDETECTED)


@dataclass(frozen=True)
class Detection:
    gender: str  # "male" | "female" | "neutral" | "undetected"
    evidence: tuple[str, ...]  # human-readable reasons
    span: tuple[int, int] | None  # char offsets in the translation of the noun phrase judged
    weak_only: bool = False  # decided by weak cues alone (an unmarked noun ending): no strong cue at all


@dataclass(frozen=True)
class Cue:
    genders: frozenset[str]
    reason: str
    weak: bool = False


def cue(genders: Iterable[str] | str, reason: str, *, weak: bool = False) -> Cue:
    if isinstance(genders, str):
        genders = (genders,)
    return Cue(frozenset(genders), reason, weak)


def resolve(cues: Sequence[Cue], span: tuple[int, int] | None,
            extra_evidence: Sequence[str] = ()) -> Detection:
    """Combine cues into one Detection (rules in the module docstring)."""
    evidence = list(extra_evidence) + [c.reason for c in cues]
    strong = [c for c in cues if not c.weak]
    weak = [c for c in cues if c.weak]
    if not cues:
        return Detection(UNDETECTED, tuple(evidence + ["no gender cue found"]), span)
    possible = set(GENDERS)
    for c in strong:
        possible &= c.genders
    if not possible:
        return Detection(UNDETECTED, tuple(evidence + ["conflicting cues"]), span)
    for c in weak:
        narrowed = possible & c.genders
        if narrowed:
            possible = narrowed
    if len(possible) == 1:
        return Detection(next(iter(possible)), tuple(evidence), span, weak_only=not strong)
    left = " or ".join(g for g in GENDERS if g in possible)
    return Detection(UNDETECTED, tuple(evidence + [f"ambiguous: could be {left}"]), span)


# A word: letters/digits, with inner hyphens, gender-inclusive marks (Entwickler*in,
# Lehrer:innen, Kolleg_innen) or a final elision apostrophe (it. «dell'», fr. «l'»).
_WORD = re.compile(r"\w+(?:[*:_/·]\w+)*(?:[-‐]\w+)*['’]?", re.UNICODE)


@dataclass(frozen=True)
class Word:
    text: str
    start: int
    end: int

    @property
    def lower(self) -> str:
        return self.text.lower().replace("’", "'")


def words(text: str) -> list[Word]:
    return [Word(m.group(), m.start(), m.end()) for m in _WORD.finditer(text)]


def words_in_span(ws: Sequence[Word], span: tuple[int, int]) -> list[int]:
    """Indices of the words overlapping [start, end)."""
    start, end = span
    return [i for i, w in enumerate(ws) if w.start < end and w.end > start]


def between_is_plain(text: str, left: Word, right: Word) -> bool:
    """True when only spaces separate two words (no comma, dash or full stop)."""
    return text[left.end:right.start].strip() == ""


def clause_words_after(text: str, ws: Sequence[Word], index: int, limit: int,
                       stop_words: frozenset[str] = frozenset()) -> list[int]:
    """Indices of up to `limit` words after `index` in the same clause (stops at punctuation
    and at clause-opening conjunctions)."""
    out = []
    for j in range(index + 1, min(len(ws), index + 1 + limit)):
        if re.search(r"[,.;:!?()\"«»—–]", text[ws[j - 1].end:ws[j].start]):
            break
        if ws[j].lower in stop_words:
            break
        out.append(j)
    return out


def clause_words_before(text: str, ws: Sequence[Word], index: int, limit: int,
                        stop_words: frozenset[str] = frozenset()) -> list[int]:
    out = []
    for j in range(index - 1, max(-1, index - 1 - limit), -1):
        if re.search(r"[,.;:!?()\"«»—–]", text[ws[j].end:ws[j + 1].start]):
            break
        if ws[j].lower in stop_words:
            break
        out.append(j)
    return out


def quote(word: str) -> str:
    return f"'{word}'"
