"""Clause rules for languages without an offline dependency parser (uk, pl).

A sentence is cut into clauses at punctuation and at subordinating words («що», «бо», «że»,
«który» …) and at coordinators («і», «але», «a»). Each clause gets a subject:

* the speaker, when it holds the first-person marker (Ukrainian «я»; Polish first-person
  endings «-łem/-łam», «jestem», «bym»);
* someone else, when it holds a nominative noun or pronoun that agrees with the clause's
  gendered word («Мені потрібна була *допомога*», «*змія* вкусила»);
* otherwise the subject of the clause before it («я дуже боявся, не хотіла бути одна»), and
  in the first clause of a sentence the speaker — GEST sentences are first-person and drop «я»
  («Ніколи не думала»).

The language module supplies the words of a clause as :class:`Word` objects already judged:
which gender each can carry for the speaker, whether it marks the first person singular,
whether it could be another subject (and with which genders).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .base import SpeakerCue

SPEAKER, OTHER = "speaker", "other"
_TOKEN = re.compile(r"\w+(?:['’ʼ-]\w+)*|[^\w\s]", re.UNICODE)
_BREAK = set(",;:()—–-\"«»„“”")
_SENTENCE_END = set(".!?…")


@dataclass
class Word:
    text: str
    gender: str | None = None  # gender the word gives the speaker if its subject is the speaker
    kind: str = ""  # what kind of agreeing word, for the evidence
    first_sg: bool = False  # marks the first person singular
    subject_genders: frozenset[str] = frozenset()  # genders it agrees with as a possible other subject
    other_person: bool = False  # marks another person whatever it agrees with (він, ми, хто; pl «jest», «był»)


@dataclass
class Clause:
    words: list[Word] = field(default_factory=list)
    starts_sentence: bool = False


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def split(toks: list[str], boundary_words: set[str]) -> list[tuple[list[str], bool]]:
    """(words, starts_sentence) per clause; punctuation dropped."""
    clauses: list[tuple[list[str], bool]] = []
    current: list[str] = []
    starts = True
    for tok in toks:
        low = tok.lower()
        if tok in _SENTENCE_END:
            if current:
                clauses.append((current, starts))
            current, starts = [], True
        elif tok in _BREAK or (low in boundary_words and current):
            if current:
                clauses.append((current, starts))
                starts = False
            current = [] if tok in _BREAK else [tok]
        elif not re.match(r"\w", tok):
            continue
        else:
            current.append(tok)
    if current:
        clauses.append((current, starts))
    return clauses


def speaker_cues(clauses: list[Clause], *, pro_drop: bool = True) -> list[SpeakerCue]:
    """``pro_drop``: a subjectless first clause is the speaker's (uk); Polish marks the first
    person on the verb, so there it is not."""
    cues = []
    previous: str | None = None  # subject of the clause before
    for clause in clauses:
        carriers = [w for w in clause.words if w.gender]
        if any(w.first_sg for w in clause.words):
            subject, why = SPEAKER, "first person in the clause"
        elif any(w.other_person for w in clause.words):
            subject, why = OTHER, ""
        elif carriers and any(w.subject_genders & {c.gender for c in carriers} for w in clause.words
                              if w not in carriers):
            subject, why = OTHER, ""
        elif clause.starts_sentence or previous is None:
            subject, why = (SPEAKER, "subjectless first clause (dropped first person)") if pro_drop else (None, "")
        else:
            subject, why = previous, "subject carried over from the previous clause"
        if subject == SPEAKER:
            cues += [SpeakerCue(w.gender, w.text, f"{w.kind}; {why}") for w in carriers]
        previous = subject
    return cues
