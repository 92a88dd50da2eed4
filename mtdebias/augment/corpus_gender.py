"""Counting what a corpus says about each given name's sex, and applying it to annotations.

A single sentence cannot settle a name's gender (a pronoun may be about someone else), but a
corpus can. For each given name this module counts sentences of evidence:

* sentences that name exactly one person and carry English pronouns of one gender only;
* sentences where a kinship apposition follows the name ("Gera the son of Bela", "Abigail his
  wife"), whatever else they contain.

:func:`mtdebias.names.corpus_rule.corpus_gender` turns the counts and the name table's answer
into the gender SwitchEntity uses (the corpus may settle, contest or fail to support the table);
the per-sentence vetoes of :mod:`.person` still apply on top.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable

from ..names.corpus_rule import MIN_SENTENCES, RATIO, corpus_gender
from ..names.locale import normalise
from .person import Person, name_words, pronoun_genders

RELABEL_SHAPES = ("first", "full", "single")  # titled mentions keep the title's gender


def given_name_key(person: Person) -> str | None:
    """The given name a person mention is filed under, or None (surname-only, titled, empty)."""
    if not person.words or person.shape not in RELABEL_SHAPES:
        return None
    return normalise(person.words[0])


def tally(src: str, people: Iterable[Person], counts: Counter) -> None:
    """Add one sentence's evidence to ``counts["male:<name>"]`` / ``counts["female:<name>"]``:
    its English pronouns when the sentence names exactly one person (partial mentions of the
    same name aside) and they are of one gender only; a kinship apposition after a name
    ("Seraiah the son of Azariah") in any sentence."""
    people = list(people)
    kin = {(p.apposition, given_name_key(p)) for p in people if p.apposition}
    found = set(kin)
    names = {tuple(w.casefold() for w in p.words) for p in people if p.words and not p.partial}
    genders = pronoun_genders(src)
    if len(names) == 1 and len(genders) == 1:
        found |= {(next(iter(genders)), given_name_key(p)) for p in people if not p.partial}
    for kind, pairs in (("", found), ("kin-", kin)):  # one per sentence; appositions also apart
        for gender, key in pairs:
            if key is not None:
                counts[f"{kind}{gender}:{key}"] += 1


COLUMNS = ("male", "female", "kin-male", "kin-female")


def by_name(counts: Counter) -> dict[str, tuple[int, int, int, int]]:
    """``{"male:gera": 3, "kin-male:gera": 1, …}`` → ``{"gera": (male, female, kin_male, kin_female)}``
    (male/female: all evidence sentences; kin-*: those with a kinship apposition)."""
    out: dict[str, list[int]] = {}
    for key, n in counts.items():
        kind, name = key.split(":", 1)
        out.setdefault(name, [0, 0, 0, 0])[COLUMNS.index(kind)] += n
    return {name: tuple(v) for name, v in out.items()}


def corpus_genders_json(counts: Counter, outcomes: dict[str, tuple[str, str, str]]) -> dict:
    """What ``corpus_genders.json`` holds: every name with evidence, most first, its counts and,
    for names of accepted mentions, the table's gender and the rule's outcome."""
    names = by_name(counts)
    for name in outcomes:
        names.setdefault(name, (0, 0, 0, 0))
    order = sorted(names, key=lambda k: (-sum(names[k][:2]), k))
    out = {}
    for name in order:
        entry = dict(zip(COLUMNS, names[name]))
        if name in outcomes:
            entry.update(zip(("table", "gender", "why"), outcomes[name]))
        out[name] = entry
    return {"min_sentences": MIN_SENTENCES, "ratio": RATIO, "names": out}


class Relabeller:
    """Applies :func:`corpus_gender` to accepted PERSON records of ``annotated.jsonl``.

    A record's ``key`` is ``PERSON/<gender>/<shape>``; a single-token name of unknown shape
    that the corpus genders becomes ``first`` (the corpus uses it as a person's name). Titled
    mentions and genders that come from a title keep them.
    """

    def __init__(self, counts: Counter, src_lang: str, enabled: bool = True):
        self.counts = by_name(counts) if enabled else {}
        self.enabled = enabled
        self.src_lang = src_lang
        self.changed: Counter = Counter()                      # "from→to (why)" → mentions
        self.outcomes: dict[str, tuple[str, str, str]] = {}   # name → (table, gender, why)

    def relabel(self, entity: dict) -> dict:
        if not self.enabled or entity.get("type") != "PERSON" or entity.get("gender_source") == "title":
            return entity
        _, gender, shape = (entity["key"].split("/") + ["", ""])[:3]
        if shape not in RELABEL_SHAPES:
            return entity
        words = name_words(entity["src_text"], self.src_lang)
        if not words:
            return entity
        name = normalise(words[0])
        male, female, kin_male, kin_female = self.counts.get(name, (0, 0, 0, 0))
        new_gender, why = corpus_gender(male, female, gender, entity.get("gender_source", "-"),
                                        kin_male, kin_female)
        self.outcomes.setdefault(name, (gender, new_gender, why))
        new_shape = "first" if shape == "single" and new_gender != "unknown" else shape
        if (new_gender, new_shape) == (gender, shape):
            return entity
        self.changed[f"{gender}→{new_gender} ({why})"] += 1
        return dict(entity, gender=new_gender, key=f"PERSON/{new_gender}/{new_shape}")

    def summary(self) -> dict | str:
        if not self.enabled:
            return "off"
        why = Counter(w for _, _, w in self.outcomes.values())
        return {"min_sentences": MIN_SENTENCES, "ratio": RATIO, "names_with_evidence": len(self.counts),
                "names_by_outcome": dict(why), "relabelled_mentions": dict(self.changed),
                "examples": {name: f"{t}→{g} ({w})" for name, (t, g, w) in list(
                    (n, o) for n, o in self.outcomes.items() if o[2] != "table")[:40]}}


__all__ = ["Relabeller", "by_name", "corpus_genders_json", "given_name_key", "tally"]
