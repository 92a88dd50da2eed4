"""Bias cues of contrast-set items, read off spaCy parses.

Each cue is one categorical variable whose levels say whether the cue points the pronoun at
the focus noun ("S": same) or at another noun phrase ("O": other), crossed with the pronoun's
gender ("F"/"M"). The ambiguous "they" items carry no gendered cue: their level is "N", the
reference level of every cue except three (the reference groups of the ANOVA):

==============  ===========================================================  ==============
cue             levels                                                       reference
==============  ===========================================================  ==============
names           F, M: a first name of that gender follows the focus noun      no_name
recency         SF, SM, OF, OM: nearest preceding NP is focus / other person  N
ic              SF, SM, OF, OM: implicit-causality verb + causal connective   N
                points to the focus noun / to the other participant
stereotype      F, M: the profession's stereotypical gender (WinoMT pro/anti) N
subject         SF, SM, OF, OM: focus noun is / is not the main-clause subject N
pronoun         F, M: the disambiguating context                             N
default_m       F, M, N: Russian noun defaults to masculine (pronoun gender)  no_default
ambiguity       ambiguous                                                    unambiguous
==============  ===========================================================  ==============

For the Subject cue "S"/"O" reads naturally as subject/object; for recency and implicit
causality it means the cue's favoured antecedent is the focus noun / somebody else. A nearest
noun phrase that is not a person ("a present", "someone") gives no recency cue ("N").
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Iterable, Sequence

from ..errors import InputError
from ..resources import data_dir
from ..textio import read_lines
from .contrast import GENDERS, ContrastItem, WinoRow, load_english_parser

CUES = ("names", "recency", "ic", "stereotype", "subject", "pronoun", "default_m", "ambiguity")
REFERENCE = {"names": "no_name", "recency": "N", "ic": "N", "stereotype": "N", "subject": "N",
             "pronoun": "N", "default_m": "no_default", "ambiguity": "unambiguous"}

DATA_DIR = data_dir("cues")
CAUSAL_CONNECTIVES = {"because", "since", "as", "cause", "'cause"}
_LETTER = {"male": "M", "female": "F", "neutral": "N"}
_PRONOUNS = {"he", "she", "him", "her", "his", "hers", "himself", "herself",
             "they", "them", "their", "theirs", "themselves", "themself"}


def _read_tsv(path: Path, columns: int, header: str) -> list[tuple[int, list[str]]]:
    rows = []
    for number, line in enumerate(read_lines(path), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if parts[0] == header:
            continue
        if len(parts) < columns:
            raise InputError(f"expected {columns} tab-separated columns, found {len(parts)}", path=path,
                             line=number, hint="see mtdebias/data/cues/README.md for the format")
        rows.append((number, [p.strip() for p in parts]))
    return rows


def load_ic_verbs(path: str | Path | None = None) -> dict[str, str]:
    """Implicit-causality verbs: lemma → ``subject`` | ``object`` (the expected explanation)."""
    path = Path(path) if path else DATA_DIR / "ic_verbs.tsv"
    verbs = {}
    for number, (lemma, direction, *_rest) in _read_tsv(path, 2, "lemma"):
        if direction not in ("subject", "object"):
            raise InputError(f"direction must be 'subject' or 'object', found {direction!r}", path=path,
                             line=number, hint="fix the second column")
        verbs[lemma.lower()] = direction
    return verbs


def load_default_masculine(path: str | Path | None = None) -> set[str]:
    """English professions whose Russian translation stays masculine for women."""
    path = Path(path) if path else DATA_DIR / "ru_default_masculine.tsv"
    return {parts[0].lower() for _number, parts in _read_tsv(path, 4, "english")}


def load_stereotypes(pro: Sequence[WinoRow], anti: Sequence[WinoRow] | None = None) -> dict[str, str]:
    """Profession → stereotypical gender ("male"/"female") from the rows of WinoMT's pro/anti
    files (read by the probe layer: :func:`mtdebias.probes.winomt.probe.load_winomt`).

    In the pro-stereotypical file the gold gender is the stereotype; in the anti file it is
    the opposite. Votes are counted so that a stray row cannot flip a profession.
    """
    votes: dict[str, Counter] = {}
    for source, flip in ((pro, False), (anti, True)):
        if source is None:
            continue
        for row in source:
            if row.gold == "neutral":
                continue
            gender = {"male": "female", "female": "male"}[row.gold] if flip else row.gold
            votes.setdefault(row.profession.lower(), Counter())[gender] += 1
    return {prof: c.most_common(1)[0][0] for prof, c in votes.items()
            if len(c) == 1 or c.most_common(2)[0][1] > c.most_common(2)[1][1]}


def _focus_tokens(doc, item: ContrastItem) -> set[int]:
    start, end = item.focus_span
    return {t.i for t in doc if t.idx < end and t.idx + len(t.text) > start}


def _text_to_parse(item: ContrastItem) -> str:
    """The sentence the structural cues are read from: without an inserted name.

    A name in apposition ("The developer Ivan argued") changes no grammatical role, but the
    small English parser often misreads it (as a relative clause), so it is parsed away.
    """
    if not item.name:
        return item.sentence
    end = item.focus_span[1]
    return item.sentence[:end] + item.sentence[end + 1 + len(item.name):]


def _first_pronoun(doc):
    for tok in doc:
        if tok.lower_ in _PRONOUNS and tok.tag_ in ("PRP", "PRP$"):
            return tok
    return None


def _object_of(verb):
    for child in verb.children:
        if child.dep_ in ("dobj", "dative"):
            return child
    for child in verb.children:
        if child.dep_ in ("prep", "agent"):
            for grand in child.children:
                if grand.dep_ == "pobj":
                    return grand
    return None


def _subject_of(verb):
    for child in verb.children:
        if child.dep_ in ("nsubj", "nsubjpass"):
            return child
    return None


def _level(points_to_focus: bool | None, gender: str) -> str:
    if gender == "neutral" or points_to_focus is None:
        return "N"
    return ("S" if points_to_focus else "O") + _LETTER[gender]


def annotate_cues(items: Sequence[ContrastItem], lang: str, stereotypes: dict[str, str] | None = None,
                  ic_verbs: dict[str, str] | None = None, default_masculine: Iterable[str] | None = None,
                  person_nouns: Iterable[str] | None = None, nlp=None) -> list[dict[str, str]]:
    """One dict of cue levels per item (keys :data:`CUES`), from one parse per sentence.

    ``person_nouns`` are the lemmas that count as people for the recency cue (default: every
    profession of ``items``); ``default_masculine`` applies to Russian targets only.
    """
    nlp = nlp or load_english_parser()
    stereotypes = {k.lower(): v for k, v in (stereotypes or {}).items()}
    ic_verbs = load_ic_verbs() if ic_verbs is None else ic_verbs
    defaults = {p.lower() for p in (load_default_masculine() if default_masculine is None else default_masculine)}
    people = {p.lower() for p in (person_nouns or ())} | {it.profession.split(" ")[-1].lower() for it in items}
    out = []
    for item, doc in zip(items, nlp.pipe([_text_to_parse(it) for it in items])):
        focus = _focus_tokens(doc, item)
        gender = item.gold
        pronoun = _first_pronoun(doc)
        cues = {
            "names": _LETTER[item.name_gender] if item.name_gender else "no_name",
            "stereotype": _LETTER.get(stereotypes.get(item.profession.lower(), ""), "N"),
            "pronoun": _LETTER[gender],
            "ambiguity": "ambiguous" if item.ambiguous else "unambiguous",
            "default_m": (_LETTER[gender] if lang == "ru" and item.profession.lower() in defaults
                          else "no_default"),
        }
        # Subject: is the focus noun the subject of the main clause?
        root = next((t for t in doc if t.dep_ == "ROOT"), None)
        subj = _subject_of(root) if root is not None else None
        cues["subject"] = _level(None if subj is None else subj.i in focus, gender)
        # Recency: the noun phrase nearest before the pronoun, if it is a person.
        recency = None
        if pronoun is not None:
            chunks = [c for c in doc.noun_chunks if c.root.i < pronoun.i and c.root.lower_ not in _PRONOUNS]
            if chunks:
                nearest = max(chunks, key=lambda c: c.root.i)
                if any(t.i in focus for t in nearest):
                    recency = True
                elif nearest.root.lemma_.lower() in people or nearest.root.pos_ == "PROPN":
                    recency = False
        cues["recency"] = _level(recency, gender)
        # Implicit causality: IC verb, then a causal connective introducing the pronoun's clause.
        ic = None
        if pronoun is not None:
            for verb in doc:
                if verb.i >= pronoun.i or verb.pos_ not in ("VERB", "AUX"):
                    continue
                direction = ic_verbs.get(verb.lemma_.lower())
                if direction is None:
                    continue
                connective = any(t.lower_ in CAUSAL_CONNECTIVES and verb.i < t.i < pronoun.i for t in doc)
                subject, obj = _subject_of(verb), _object_of(verb)
                if not connective or subject is None or obj is None:
                    continue
                favoured = subject if direction == "subject" else obj
                ic = favoured.i in focus
                break
        cues["ic"] = _level(ic, gender)
        out.append(cues)
    return out


def cue_levels_seen(annotations: Sequence[dict[str, str]]) -> dict[str, Counter]:
    """How many items have each level of each cue (a cue with one level cannot be tested)."""
    return {cue: Counter(a[cue] for a in annotations) for cue in CUES}


__all__ = ["CUES", "REFERENCE", "GENDERS", "annotate_cues", "load_ic_verbs", "load_default_masculine",
           "load_stereotypes", "cue_levels_seen"]
