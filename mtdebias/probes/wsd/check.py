"""Check word-sense items against resources their author did not write: FreeDict (Debian's
``dict-freedict-*``) and WordNet 3.0 glosses. Every flag must be resolved by hand in a
resolutions file; :func:`check_items` returns the flags nobody has resolved.

Flags (``kind``):

* ``unattested`` — a good or bad lemma that no dictionary gives as a translation of the English
  word: neither eng→X's entry for the word lists it (after lemmatising the dictionary's
  translation with the project's lemmatiser, so «etw. ausklopfen» or «sich bewegen» count) nor
  X→eng's entry for the lemma lists the word — raised only when X→eng has an entry for the
  lemma or a large eng→X (≥ :data:`LARGE_DICTIONARY` headwords: eng-deu) one for the word
  (Debian's eng-ita/eng-spa/eng-rus hold 1,700–5,000 headwords with one or two translations
  each: their silence is no evidence). The rest is reported as *uncovered*.
* ``cross-sense`` — a lemma bad in an item (sense *a*) although it may express *a*: FreeDict
  links it with another word of *a*'s WordNet synset (es *subir* ↔ *lift* for raise
  «lift up»), or it is the first translation eng→X gives for the word whatever the sense (it
  *battere* for beat — the dictionary's default rendering must be shown not to fit *a*). Read literally — "bad in one item, good in another item of the same word" — the
  check fires on every bad lemma, since every bad lemma is the good lemma of another sense; the
  synonym test asks the question the project's rule turns on instead.
* ``generic`` — a bad lemma of a verb item that the dictionaries give for at least
  :data:`GENERIC_MIN` distinct English words (X→eng's entry, or the inverted eng→X where no
  X→eng exists): a verb like *verlangen* that renders many unrelated English verbs is weak
  evidence of a wrong sense.
* ``gloss`` — the item's WordNet sense shares no content word (crude stem: 4-letter prefix) with the
  sentence: neither the synset's other words nor its gloss nor its examples. A weak signal for
  a wrong sense key; judged by hand.

Resolutions (``resolutions.tsv`` beside the items): ``word lang lemma kind decision reason``,
tab-separated, ``#`` comments; ``lang``/``lemma`` are ``-`` for an item-level flag and ``word``
is the item id there. ``decision`` is ``keep`` (the flag is a false alarm, the reason says why).
A resolution that no longer matches a flag is reported too, so the file stays true.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from ...errors import InputError
from ...lang import freedict
from ...lang.lemmatize import find_lemma, fold, lemmatizer
from ...lang.wordnet import WordNet
from ...textio import read_text
from .items import WSDItem

LARGE_DICTIONARY = 50_000  # headwords; below this an eng→X entry's silence does not flag a lemma
GENERIC_MIN = 8  # distinct English words a bad lemma translates before it counts as generic
# FreeDict databases per target language, each direction that Debian ships
FORWARD = {"de": "eng-deu", "es": "eng-spa", "it": "eng-ita", "ru": "eng-rus"}
REVERSE = {"de": "deu-eng", "es": "spa-eng", "it": "ita-eng"}
# placeholders a dictionary writes around a verb («etw. ausklopfen», «sich bewegen»)
PLACEHOLDERS = {"etw.", "etw", "jdn.", "jdm.", "jds.", "sich", "sb.", "sth.", "qc", "qn", "qualcosa", "qualcuno",
                "algo", "alguien", "se", "что-л.", "кого-л.", "чего-л.", "что-либо", "кого-либо", "ся"}
DECISIONS = ("keep",)
_STOP = set("""a an the of to in on at by for with from and or but not no as is are was were be been being it its
this that these those some any all each every one two three his her their our your my he she they we you i me him
them us who whom which what when where how than then so such very more most much many into onto up down out over
under about after before off again there here have has had do does did can could will would shall should may might
must also just only other another own same something someone somebody sth sb etc used especially usually""".split())


@dataclass(frozen=True)
class Flag:
    kind: str
    word: str  # English word (item id for an item-level flag)
    lang: str  # "-" for an item-level flag
    lemma: str  # "-" for an item-level flag
    items: tuple[str, ...]
    detail: str

    @property
    def key(self) -> tuple[str, str, str, str]:
        return self.word, self.lang, self.lemma, self.kind


@dataclass(frozen=True)
class Resolution:
    word: str
    lang: str
    lemma: str
    kind: str
    decision: str
    reason: str
    line: int

    @property
    def key(self) -> tuple[str, str, str, str]:
        return self.word, self.lang, self.lemma, self.kind


def load_resolutions(path: str | Path) -> dict[tuple[str, str, str, str], Resolution]:
    path = Path(path)
    out: dict[tuple[str, str, str, str], Resolution] = {}
    for number, line in enumerate(read_text(path).splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 6 or not fields[5].strip():
            raise InputError("expected 6 tab-separated fields (word lang lemma kind decision reason), the "
                             "reason not empty", path=path, line=number)
        resolution = Resolution(*[f.strip() for f in fields], line=number)
        if resolution.decision not in DECISIONS:
            raise InputError(f"unknown decision {resolution.decision!r}", path=path, line=number,
                             hint=f"one of {', '.join(DECISIONS)}; a wrong lemma is fixed in the items instead")
        if resolution.key in out:
            raise InputError(f"flag {resolution.key} resolved twice (also line {out[resolution.key].line})",
                             path=path, line=number)
        out[resolution.key] = resolution
    return out


def _phrase_gives(translation: str, lemma: str, lang: str) -> bool:
    """Does a dictionary translation («etw. ausklopfen», «battete») give ``lemma``?"""
    words = [w for w in fold(translation).split() if w not in PLACEHOLDERS]
    if " ".join(words) == fold(lemma):
        return True
    if len(words) > len(lemma.split()) + 1:
        return False  # a longer phrase («conto bancario») does not attest one of its words
    tokens = lemmatizer(lang).tokens(" ".join(words))
    return bool(find_lemma(tokens, lemma, lang, compounds=False))


def attested(word: str, lemma: str, lang: str) -> bool | None:
    """True when a dictionary links ``lemma`` with the English ``word``; False when X→eng has an
    entry for the lemma, or a large eng→X one for the word, and still neither links them; None
    when neither is covered (FreeDict's eng-rus holds 1,700 headwords: its silence is no evidence)."""
    covered = False
    forward = FORWARD.get(lang)
    if forward and freedict.available(forward):
        dictionary = freedict.load_dictionary(forward)
        translations = dictionary.translations(word)
        # a small dictionary gives one or two translations per word: its silence is no evidence
        covered = bool(translations) and len(dictionary.entries) >= LARGE_DICTIONARY
        if any(_phrase_gives(t, lemma, lang) for t in translations):
            return True
    reverse = REVERSE.get(lang)
    if reverse and freedict.available(reverse):
        english = {fold(t) for t in freedict.load_dictionary(reverse).translations(lemma)}
        covered = covered or bool(english)
        if fold(word) in english or any(fold(word) in t.split() and len(t.split()) <= 2 for t in english):
            return True
    return False if covered else None


def first_translation(word: str, lemma: str, lang: str) -> bool:
    """Is ``lemma`` the first translation eng→X gives for ``word`` (its default rendering)?"""
    name = FORWARD.get(lang)
    if not name or not freedict.available(name):
        return False
    translations = freedict.load_dictionary(name).translations(word)
    return bool(translations) and _phrase_gives(translations[0], lemma, lang)


def sense_words(sense: str, word: str, wordnet: WordNet) -> set[str]:
    """The other words of a sense's synset («lift», «elevate» for raise%2:38:00::)."""
    found = wordnet.gloss(sense)
    return {fold(s) for s in found[0] if fold(s) != fold(word)} if found else set()


def expresses(lemma: str, lang: str, synonyms: set[str]) -> str | None:
    """A synonym of a sense that the dictionaries link with ``lemma`` (so the lemma can express
    that sense), or None."""
    for synonym in sorted(synonyms):
        if attested(synonym, lemma, lang):
            return synonym
    return None


def english_words(lemma: str, lang: str) -> set[str]:
    """Distinct English words the dictionaries give for (or under) ``lemma``."""
    words: set[str] = set()
    reverse = REVERSE.get(lang)
    if reverse and freedict.available(reverse):
        words |= {_english_lemma(t) for t in freedict.load_dictionary(reverse).translations(lemma)}
    elif FORWARD.get(lang) and freedict.available(FORWARD[lang]):
        inverted = freedict.load_dictionary(FORWARD[lang]).headwords_giving()
        words |= {_english_lemma(t) for t in inverted.get(fold(lemma), set())}
    return words - {None}


def _stem(word: str) -> str:
    """A crude English stem: enough to meet «eggs»/«egg», «lifted»/«lifts» (4-letter prefix)."""
    for ending in ("ing", "ed", "es", "s"):
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            word = word[:-len(ending)]
            break
    return word[:4]


def _content(text: str) -> set[str]:
    return {_stem(w) for w in re.findall(r"[a-z]+", text.lower()) if len(w) > 2 and w not in _STOP}


def _english_lemma(text: str) -> str | None:
    """One English word or phrase as a type: plural/3rd-person «s» and phonetic junk dropped."""
    text = fold(text).strip(" .!")
    if not text or text.startswith("/"):
        return None
    return text[:-1] if text.endswith("s") and not text.endswith("ss") and len(text) > 3 else text


def gloss_overlap(item: WSDItem, wordnet: WordNet) -> set[str] | None:
    """Content-word prefixes shared by the sentence and the sense's synset words + gloss; None if
    the sense has no gloss."""
    found = wordnet.gloss(item.sense)
    if found is None:
        return None
    synonyms, gloss = found
    start, end = item.span
    sentence = item.sentence[:start] + " " + item.sentence[end:]
    sense_text = " ".join(s for s in synonyms if s.lower() != item.lemma.lower()) + " " + gloss
    return _content(sentence) & (_content(sense_text) - _content(item.lemma))


def raw_flags(items: Sequence[WSDItem], wordnet: WordNet | None, langs: Iterable[str] | None = None
              ) -> tuple[list[Flag], list[tuple[str, str, str]]]:
    """Every flag, resolved or not, in a stable order; and the (word, lang, lemma) triples no
    dictionary covers (neither the word's entry nor the lemma's exists)."""
    wanted = set(langs) if langs else None
    flags: list[Flag] = []
    uncovered: list[tuple[str, str, str]] = []  # (word, lang, lemma) no dictionary covers
    by_word: dict[str, list[WSDItem]] = {}
    for item in items:
        by_word.setdefault(item.lemma, []).append(item)
    for word, group in by_word.items():
        lemmas: dict[tuple[str, str], dict[str, list[str]]] = {}  # (lang, lemma) → good/bad → item ids
        for item in group:
            for lang, side in item.targets.items():
                if wanted is not None and lang not in wanted:
                    continue
                for lemma in side.good:
                    lemmas.setdefault((lang, lemma), {"good": [], "bad": []})["good"].append(item.id)
                for entry in side.bad:
                    lemmas.setdefault((lang, entry.lemma), {"good": [], "bad": []})["bad"].append(item.id)
        for (lang, lemma), roles in sorted(lemmas.items()):
            ids = tuple(roles["good"] + roles["bad"])
            if lang in FORWARD:
                found = attested(word, lemma, lang)
                if found is False:
                    flags.append(Flag("unattested", word, lang, lemma, ids,
                                      f"FreeDict {lang} knows {word!r} or {lemma!r} but does not link them"))
                elif found is None:
                    uncovered.append((word, lang, lemma))
            bad_items = [item for item in group if item.id in roles["bad"]]
            if bad_items and lang in FORWARD and first_translation(word, lemma, lang):
                flags.append(Flag("cross-sense", word, lang, lemma, tuple(i.id for i in bad_items),
                                  f"bad in {', '.join(i.id for i in bad_items)} yet the first translation "
                                  f"FreeDict {FORWARD[lang]} gives for {word!r}, whatever the sense"))
            for item in bad_items if wordnet is not None else ():
                synonym = expresses(lemma, lang, sense_words(item.sense, word, wordnet))
                if synonym:
                    flags.append(Flag("cross-sense", word, lang, lemma, (item.id,),
                                      f"bad in {item.id} ({item.sense}) yet FreeDict gives it for {synonym!r}, "
                                      f"a synonym of that sense"))
            if roles["bad"] and group[0].pos == "VERB":
                english = english_words(lemma, lang)
                if len(english) >= GENERIC_MIN:
                    flags.append(Flag("generic", word, lang, lemma, ids,
                                      f"translates {len(english)} English words: {', '.join(sorted(english)[:12])}"))
    if wordnet is not None:
        for item in items:
            shared = gloss_overlap(item, wordnet)
            if shared is not None and not shared:
                synonyms, gloss = wordnet.gloss(item.sense)
                flags.append(Flag("gloss", item.id, "-", "-", (item.id,),
                                  f"{item.sense} ({', '.join(synonyms)}: {gloss[:90]}) shares no content word"))
    return flags, uncovered


@dataclass(frozen=True)
class CheckResult:
    flags: list[Flag]
    unresolved: list[Flag]
    uncovered: list[tuple[str, str, str]]
    stale: list[Resolution]  # resolutions that match no flag any more


def check_items(items: Sequence[WSDItem], resolutions: dict[tuple[str, str, str, str], Resolution],
                wordnet: WordNet | None, langs: Iterable[str] | None = None) -> CheckResult:
    flags, uncovered = raw_flags(items, wordnet, langs)
    keys = {f.key for f in flags}
    return CheckResult(flags, [f for f in flags if f.key not in resolutions], uncovered,
                       [r for k, r in resolutions.items() if k not in keys])


def missing_dictionaries() -> list[str]:
    return [name for name in list(FORWARD.values()) + list(REVERSE.values()) if not freedict.available(name)]
