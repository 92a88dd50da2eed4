"""Who is a person mention? Shape, gender and the evidence that can veto the lexicon.

SwitchEntity may only replace a person's name by one of the same gender and the same shape;
this module decides both for every PERSON mention of a sentence pair, before alignment:

* **shape** — ``full`` (given name + surname), ``first`` (given name(s) only: "Laura",
  "José María"), ``last`` (a surname alone: "Caron", "Mr. Caron") or ``single`` (one token
  that is neither clearly a given name nor clearly a surname). A surname-only mention is
  looked up as a surname, never as a given name.
* **gender** — the locale lexicon's gender of the given name (first token), or the gender of
  a title before the name (Mr/Mrs/Herr/Señora…). ``unknown`` is not a gender: such mentions
  are never switched.
* **evidence** — English source pronouns (he/his/him vs she/her/hers) when the sentence names
  one person, or when a pronoun's gender is carried by no named person in a several-person
  sentence; and target-side agreement found by the project's detectors (:mod:`mtdebias.lang`:
  «est partie», «была»), taking only cues on words that agree with the name (never the
  name's own noun form, which the detectors would guess from its ending); and a kinship
  apposition right after the name ("Seraiah the son of Azariah", "Abigail his wife", "Nabal
  her husband"), which names the mention's own sex. Evidence that contradicts the lexicon makes
  the mention a ``gender_conflict``; in one sentence evidence never *assigns* a gender (a
  pronoun may be about someone else) — only counted over a whole corpus (:mod:`.corpus_gender`).
* **partial mentions** — "Laurent Caron … Caron" in one sentence: the bare "Caron" is the same
  person, and switching the two mentions independently would name two people; both are left
  alone (``partial_mention``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Protocol, Sequence

from ..align import tokenize
from ..names.locale import NameGender, surname_form

SHAPES = ("full", "first", "last", "titled", "single")
GENDERED_SHAPES = ("full", "first", "titled")  # shapes whose switch must keep the gender
MALE_PRONOUNS = frozenset({"he", "him", "his", "himself"})
FEMALE_PRONOUNS = frozenset({"she", "her", "hers", "herself"})
MALE_TITLES = frozenset({"mr", "mister", "sir", "lord", "king", "prince", "herr", "monsieur",
                         "señor", "sr", "signor", "father", "brother",
                         "uncle", "duke", "count", "baron", "emperor", "pharaoh"})
FEMALE_TITLES = frozenset({"mrs", "ms", "miss", "lady", "dame", "queen", "princess", "madam",
                           "madame", "mme", "mlle", "mademoiselle", "frau", "señora", "sra",
                           "señorita", "srta", "doña", "signora", "pani", "mother", "sister",
                           "aunt", "duchess", "countess", "baroness", "empress"})
NEUTRAL_TITLES = frozenset({"dr", "prof", "professor", "doctor", "president", "minister",
                            "judge", "senator", "general", "captain", "coach", "officer"})
_TITLE_BEFORE = re.compile(r"(\w+)\.?\s+$", re.UNICODE)
# "X the son of", "X, his wife", "X her husband": the noun is about X itself. A name *after*
# "son of" is a parent, whose sex the phrase does not give (Joab the son of Zeruiah, a woman).
KIN_MALE = ("son", "brother", "father", "husband", "nephew", "uncle", "grandson")
KIN_FEMALE = ("daughter", "sister", "mother", "wife", "niece", "aunt", "granddaughter", "concubine")
_APPOSITION = re.compile(r",?\s+(?:the|his|her|their|my|your|thy)\s+(" + "|".join(KIN_MALE + KIN_FEMALE) + r")\b",
                         re.IGNORECASE)


class NameSource(Protocol):
    def gender_of(self, name: str) -> NameGender: ...
    def is_given(self, name: str) -> bool: ...
    def is_surname(self, name: str) -> bool: ...


class CallableNames:
    """Adapter for a plain ``name → gender`` function (tests, user code): every name it
    genders is a given name; it knows no surnames."""

    def __init__(self, fn: Callable[[str], str]):
        self.fn = fn
        self.locale = "custom"

    def gender_of(self, name: str) -> NameGender:
        g = self.fn(name)
        return NameGender(g if g in ("male", "female") else "unknown", "custom")

    def is_given(self, name: str) -> bool:
        return self.gender_of(name).gender != "unknown"

    def is_surname(self, name: str) -> bool:
        return False


@dataclass
class Person:
    """What annotation knows about one PERSON mention."""

    words: list[str]
    title: str | None = None
    shape: str = "single"
    gender: str = "unknown"           # the person's gender as used for matching
    source: str = "-"                 # what decided the gender (lexicon name, "title", …)
    evidence: list[str] = field(default_factory=list)
    conflict: str | None = None       # why the evidence contradicts the gender
    partial: bool = False             # part of a longer mention of the same sentence
    apposition: str | None = None     # the sex a kinship apposition after the name gives

    def key_gender(self, surname_lang: str | None, surname_text: str | None) -> str:
        """The middle part of the candidate key: the person's gender, or for a surname-only
        mention the gender its *form* carries ("any" where surnames do not inflect)."""
        if self.shape == "last":
            if surname_lang is None or not surname_text:
                return "any"
            return surname_form(surname_text, surname_lang)
        return self.gender


def name_words(text: str, lang: str) -> list[str]:
    """The words of a name mention (punctuation dropped): "Mr. O'Neill" → ["Mr", "O'Neill"]."""
    return [t.text for t in tokenize(text, lang) if any(ch.isalnum() for ch in t.text)]


def _title_gender(title: str | None) -> str | None:
    if title is None:
        return None
    t = title.casefold().rstrip(".")
    return "male" if t in MALE_TITLES else "female" if t in FEMALE_TITLES else None


def _is_title(word: str) -> bool:
    t = word.casefold().rstrip(".")
    return t in MALE_TITLES or t in FEMALE_TITLES or t in NEUTRAL_TITLES


def analyse_persons(src: str, mentions: Sequence, src_lang: str, names: NameSource) -> list[Person]:
    """A :class:`Person` for each PERSON mention (``mentions`` carry .text/.start)."""
    people = []
    for ent in mentions:
        words = name_words(ent.text, src_lang)
        title = None
        inside = len(words) > 1 and _is_title(words[0])
        if inside:                                        # "Mr Caron", "King David"
            title, words = words[0], words[1:]
        else:
            m = _TITLE_BEFORE.search(src[:ent.start])
            if m and _is_title(m.group(1)) and m.group(1)[:1].isupper():
                title = m.group(1)
        people.append(Person(words, title, shape="titled" if inside else "single",
                             apposition=apposition_gender(src, ent.start + len(ent.text)) if src_lang == "en"
                             else None))
    multi = [{w.casefold() for w in p.words} for p in people if len(p.words) > 1]
    for person in people:
        if len(person.words) == 1 and any(person.words[0].casefold() in ws for ws in multi):
            person.partial = True
            for other in people:  # the longer mention it belongs to
                if len(other.words) > 1 and person.words[0].casefold() in {w.casefold() for w in other.words}:
                    other.partial = True
    for person in people:
        _shape_and_gender(person, names)
    return people


def _shape_and_gender(person: Person, names: NameSource) -> None:
    words, title_gender = person.words, _title_gender(person.title)
    if not words:
        return
    if person.shape == "titled":
        # the span holds the title: it is replaced only by another titled name of the same
        # title gender ("Mr Smith" → "Mr Brown"); a neutral title needs the name's gender
        found = names.gender_of(words[0]) if len(words) > 1 or names.is_given(words[0]) \
            else NameGender("unknown", "-")
        person.gender, person.source = found.gender, found.source
    elif len(words) > 1:
        all_given = all(names.is_given(w) for w in words) and not names.is_surname(words[-1])
        person.shape = "first" if all_given else "full"
    elif person.title is not None:
        person.shape = "last"                               # "Mr. Caron", "Dr. Weber"
    else:
        given, surname = names.is_given(words[0]), names.is_surname(words[0])
        if surname and not given:
            person.shape = "last"
        elif given:
            person.shape = "first"
        else:
            # in no table of the locale: the global dictionary may still know it as a name
            person.shape = "first" if names.gender_of(words[0]).gender != "unknown" else "single"
    if person.shape in ("full", "first"):
        found = names.gender_of(words[0])
        person.gender, person.source = found.gender, found.source
    if title_gender is not None:
        if person.gender not in ("unknown", title_gender):
            person.conflict = f"title '{person.title}' is {title_gender}, the name {person.gender}"
        else:
            person.gender, person.source = title_gender, "title"


def apposition_gender(src: str, end: int) -> str | None:
    """"male"/"female" when a kinship noun follows the mention ending at ``end``, else None."""
    m = _APPOSITION.match(src, end)
    if m is None:
        return None
    return "male" if m.group(1).lower() in KIN_MALE else "female"


def add_apposition_evidence(people: list[Person]) -> None:
    """A kinship apposition that contradicts the lexicon's gender vetoes the mention."""
    for p in people:
        if p.apposition is None or p.shape not in GENDERED_SHAPES:
            continue
        p.evidence.append(f"apposition: {p.apposition}")
        if p.gender not in ("unknown", p.apposition):
            p.conflict = p.conflict or f"'{p.apposition}' kinship apposition, the name is {p.gender}"


def pronoun_genders(src: str) -> set[str]:
    words = {w.casefold() for w in re.findall(r"[A-Za-z]+", src)}
    return ({"male"} if words & MALE_PRONOUNS else set()) | \
        ({"female"} if words & FEMALE_PRONOUNS else set())


def add_pronoun_evidence(src: str, people: list[Person]) -> None:
    """English source pronouns against the people of the sentence (rules in the docstring)."""
    genders = pronoun_genders(src)
    if not genders:
        return
    distinct = {tuple(w.casefold() for w in p.words) for p in people if not p.partial} | \
        {tuple(w.casefold() for w in p.words) for p in people if p.partial and len(p.words) > 1}
    candidates = [p for p in people if p.shape in GENDERED_SHAPES and p.gender != "unknown"]
    if len(distinct) == 1:
        for p in candidates:
            if genders == {_other(p.gender)}:
                p.conflict = p.conflict or f"source pronoun(s) are {_other(p.gender)}"
            p.evidence.append("pronouns: " + "/".join(sorted(genders)))
        return
    named = {p.gender for p in people}
    if "unknown" in named:
        return  # the pronoun may be about the person we cannot gender
    orphan = genders - named
    if orphan:  # "Jean met Marie; he …" with Jean filed as female: someone's gender is wrong
        for p in candidates:
            p.conflict = p.conflict or (f"a {'/'.join(sorted(orphan))} pronoun refers to none of "
                                        "the named people")


def agreement_genders(detection) -> set[str]:
    """Genders of the *agreement* cues of a :class:`mtdebias.lang.Detection` (verbs, adjectives,
    predicates agreeing with the name), ignoring cues about the name's own form."""
    out = set()
    for reason in detection.evidence:
        if not reason.startswith("agreeing"):
            continue
        fem, masc = "feminine" in reason, "masculine" in reason
        if fem != masc:
            out.add("female" if fem else "male")
    return out


def _other(gender: str) -> str:
    return "female" if gender == "male" else "male"


__all__ = ["SHAPES", "GENDERED_SHAPES", "Person", "CallableNames", "analyse_persons",
           "add_apposition_evidence", "add_pronoun_evidence", "agreement_genders", "apposition_gender",
           "name_words", "pronoun_genders"]
