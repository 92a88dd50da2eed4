"""Given-name gender and surname form *by locale*: ``gender_of(name, locale)``.

A name's gender depends on the country: Jean is male in France and mostly female in US birth
records, Andrea male in Italy and female in Germany, Sasha a man's diminutive in Russia. So the
corpus's locale picks the table (``mtdebias/data/names/locale/<locale>.tsv``, built by
:mod:`mtdebias.names.locale_build` from offline sources — see mtdebias/data/names/README.md):

* ``en``: the US SSA counts with the paper's 3:1 rule (``name_gender.tsv``), then faker's
  en_* lists for names SSA lacks;
* other locales: faker's per-country first-name lists; ru adds every given name of the
  pymorphy3 dictionary (tag ``Name``; common-gender names such as Саша/Женя → unknown); ru/uk
  add a Latin transliteration of each Cyrillic name, so an English source "Sasha" is found;
* every locale: names absent from its table fall back to the World Gender Name Dictionary 2.0
  (global probabilities; only p > 0.75, the 3:1 rule for a probability).

A name listed as male by one source and female by another of the same locale is ``unknown``.
Lookups are NFC-normalised and case-folded; a name not found is tried again without accents
(``Emilie`` → Émilie) when that stripped form has one gender in the table.

Surnames are looked up separately and never as given names: the table's ``surname`` rows
(faker last-name lists) say whether a token is a known surname, and :func:`surname_form` gives
the grammatical gender a surname's *form* carries in languages where surnames inflect for it
(ru/uk -ова/-ская, cs -ová, pl -ska); elsewhere a surname's form is ``any``.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..errors import InputError
from ..lang.languages import langs_with
from ..textio import iter_tsv
from .lexicon import DATA_DIR, NameGenderLexicon

LOCALE_DIR = DATA_DIR / "locale"
LOCALE_HEADER = ("kind", "name", "gender", "source")
KINDS = ("given", "surname")
# languages whose surnames change form with the bearer's gender
SURNAME_GENDER_LANGS = langs_with("surname_gender")


@lru_cache(maxsize=200_000)  # names repeat across a corpus
def normalise(name: str) -> str:
    """NFC + case-fold + trimmed: the lookup key of a name."""
    return unicodedata.normalize("NFC", name.strip()).casefold()


@lru_cache(maxsize=200_000)  # names repeat across a corpus
def strip_accents(text: str) -> str:
    """Remove combining marks (é → e, ñ → n); Cyrillic й/ё are kept as they are letters of
    their own (their decomposition would merge different names)."""
    out = []
    for ch in unicodedata.normalize("NFC", text):
        if ch in "йЙёЁїЇ":
            out.append(ch)
            continue
        out.append("".join(c for c in unicodedata.normalize("NFD", ch)
                           if not unicodedata.combining(c)))
    return unicodedata.normalize("NFC", "".join(out)).replace("ß", "ss").replace("ø", "o") \
        .replace("ł", "l").replace("đ", "d").replace("æ", "ae").replace("œ", "oe")


@lru_cache(maxsize=200_000)  # names repeat across a corpus
def script_of(text: str) -> str:
    """"latin", "cyrillic", "other" or "mixed" from the letters of ``text``."""
    scripts = set()
    for ch in text:
        if ch.isalpha():
            name = unicodedata.name(ch, "")
            scripts.add("latin" if name.startswith("LATIN") else
                        "cyrillic" if name.startswith("CYRILLIC") else "other")
    if len(scripts) == 1:
        return scripts.pop()
    return "mixed" if scripts else "other"


_CYR_LAT = {
    "а": "a", "б": "b", "в": "v", "г": "g", "ґ": "g", "д": "d", "е": "e", "ё": "e", "є": "ye",
    "ж": "zh", "з": "z", "и": "i", "і": "i", "ї": "yi", "й": "y", "к": "k", "л": "l", "м": "m",
    "н": "n", "о": "o", "п": "p", "р": "r", "с": "s", "т": "t", "у": "u", "ф": "f", "х": "kh",
    "ц": "ts", "ч": "ch", "ш": "sh", "щ": "shch", "ъ": "", "ы": "y", "ь": "", "э": "e",
    "ю": "yu", "я": "ya", "'": "", "’": "",
}
_CYR_LAT_UK = dict(_CYR_LAT, г="h", и="y")


def transliterate(text: str, lang: str = "ru") -> str:
    """A plain Latin transliteration of a Cyrillic name (Александр → Aleksandr)."""
    table = _CYR_LAT_UK if lang == "uk" else _CYR_LAT
    out = []
    for ch in text:
        low = ch.lower()
        if low in table:
            rep = table[low]
            out.append(rep.capitalize() if ch != low and rep else rep)
        else:
            out.append(ch)
    return "".join(out)


@lru_cache(maxsize=200_000)  # names repeat across a corpus
def name_skeleton(text: str) -> str:
    """A spelling-insensitive key for comparing a name across scripts: Alexander, Aleksandr
    and Александр → the same skeleton up to vowels and doubled letters."""
    t = strip_accents(transliterate(text) if script_of(text) == "cyrillic" else text).casefold()
    for a, b in (("shch", "sh"), ("sch", "sh"), ("tch", "ch"), ("kh", "h"), ("ph", "f"),
                 ("th", "t"), ("ck", "k"), ("x", "ks"), ("q", "k"), ("w", "v"), ("c", "k"),
                 ("j", "i"), ("y", "i"), ("ts", "z"), ("tz", "z"), ("dzh", "g"), ("zh", "g")):
        t = t.replace(a, b)
    t = "".join(ch for ch in t if ch.isalpha() or ch == " ")
    words = []
    for word in t.split():
        # consonant skeleton with the first letter kept: Ekaterina/Katerina, Iosif/Joseph differ
        # anyway; what must match is the same name written in two scripts
        skel = word[0] + "".join(ch for ch in word[1:] if ch not in "aeiou")
        dedup = "".join(ch for k, ch in enumerate(skel) if k == 0 or ch != skel[k - 1])
        words.append(dedup)
    return " ".join(words)


@lru_cache(maxsize=200_000)  # names repeat across a corpus
def same_name(src: str, tgt: str) -> bool:
    """Is ``tgt`` the same name as ``src``? Latin↔Latin: identical modulo case and diacritics;
    Latin↔Cyrillic: the transliteration has the same skeleton, word by word."""
    a, b = script_of(src), script_of(tgt)
    if a == b == "latin" or a == b == "cyrillic":
        return strip_accents(normalise(src)).split() == strip_accents(normalise(tgt)).split() \
            or _dehyphen(src) == _dehyphen(tgt)
    if {a, b} == {"latin", "cyrillic"}:
        sa, sb = name_skeleton(src).split(), name_skeleton(tgt).split()
        return len(sa) == len(sb) and all(x == y or _close(x, y) for x, y in zip(sa, sb))
    return True  # another script: no check we can make


def _dehyphen(text: str) -> str:
    return " ".join(strip_accents(normalise(text)).replace("-", " ").replace("‐", " ").split())


def _close(a: str, b: str) -> bool:
    from difflib import SequenceMatcher

    return a[:1] == b[:1] and SequenceMatcher(None, a, b).ratio() >= 0.75


def surname_form(surname: str, lang: str) -> str:
    """Grammatical gender of a surname's form in ``lang``: "male", "female" or "any".

    Only languages in :data:`SURNAME_GENDER_LANGS` mark it; there the ending decides
    (ru Иванова / uk -ська / cs -ová / pl -ska are female, their partners male); an invariant
    surname (Шевченко, Nowak) is "any".
    """
    if lang not in SURNAME_GENDER_LANGS:
        return "any"
    s = normalise(surname).split()[-1] if surname.split() else ""
    if script_of(s) == "cyrillic":
        if s.endswith(("ова", "ева", "ёва", "ина", "ына", "ская", "цкая", "ая", "яя", "ська",
                       "цька")):
            return "female"
        if s.endswith(("ов", "ев", "ёв", "ин", "ын", "ский", "цкий", "ий", "ый", "ой", "ський",
                       "цький")):
            return "male"
        return "any"
    if lang in ("cs", "sk"):
        return "female" if s.endswith("á") else "male"
    if lang == "pl":
        if s.endswith(("ska", "cka", "dzka")):
            return "female"
        if s.endswith(("ski", "cki", "dzki")):
            return "male"
        return "any"
    # a Russian/Ukrainian surname in Latin letters (English source "Ivanova")
    if s.endswith(("ova", "eva", "ina", "yna", "skaya", "tskaya", "ska", "cka")):
        return "female"
    if s.endswith(("ov", "ev", "in", "yn", "sky", "skiy", "skii", "ski", "cki")):
        return "male"
    return "any"


@dataclass(frozen=True)
class NameGender:
    gender: str  # male | female | unknown
    source: str  # which table or rule decided ("-" = not found)


class LocaleNames:
    """Given-name gender and surname lookups for one locale."""

    def __init__(self, locale: str, given: dict[str, tuple[str, str]], surnames: dict[str, str],
                 ssa: NameGenderLexicon | None = None, wgnd: bool = True):
        self.locale = locale
        self._given = given
        self._surnames = surnames
        self._ssa = ssa
        self.wgnd = wgnd
        self._wgnd = None
        stripped: dict[str, set[tuple[str, str]]] = {}
        for key, value in given.items():
            stripped.setdefault(strip_accents(key), set()).add(value)
        self._given_stripped = {k: next(iter(v)) for k, v in stripped.items()
                                if len({g for g, _ in v}) == 1}
        self._surnames_stripped = {strip_accents(k): v for k, v in surnames.items()}

    @classmethod
    def load(cls, locale: str, directory: str | Path | None = None, *, wgnd: bool = True
             ) -> "LocaleNames":
        directory = Path(directory) if directory is not None else LOCALE_DIR
        path = directory / f"{locale}.tsv"
        if not path.is_file():
            known = sorted(p.stem for p in directory.glob("*.tsv"))
            raise InputError(f"no name table for locale {locale!r}", path=path,
                             hint=f"use one of {', '.join(known) or '(none built)'}, or build "
                                  "them with `mtdebias data name-locales`")
        given: dict[str, tuple[str, str]] = {}
        surnames: dict[str, str] = {}
        for number, fields in iter_tsv(path, LOCALE_HEADER, "rebuild the table"):
            if len(fields) != 4 or fields[0] not in KINDS:
                raise InputError("expected kind<TAB>name<TAB>gender<TAB>source with kind "
                                 "given|surname", path=path, line=number,
                                 hint="rebuild with `mtdebias data name-locales`")
            kind, name, gender, source = fields
            if kind == "given":
                given[normalise(name)] = (gender, source)
            else:
                surnames[normalise(name)] = gender
        ssa = NameGenderLexicon.load() if locale == "en" else None
        return cls(locale, given, surnames, ssa, wgnd)

    # ----------------------------------------------------------------- given names
    def gender_of(self, name: str) -> NameGender:
        key = normalise(name)
        if not key:
            return NameGender("unknown", "-")
        if self._ssa is not None:
            entry = self._ssa.entry(key)
            if entry is None and key != strip_accents(key):
                entry = self._ssa.entry(strip_accents(key))
            if entry is not None:
                return NameGender(entry.gender, "ssa")
        hit = self._given.get(key) or self._given_stripped.get(strip_accents(key))
        if hit is not None:
            return NameGender(*hit)
        if self.wgnd:
            return NameGender(self._wgnd_gender(key), "wgnd")
        return NameGender("unknown", "-")

    def is_given(self, name: str) -> bool:
        key = normalise(name)
        if self._ssa is not None and (self._ssa.entry(key) is not None):
            return True
        return key in self._given or strip_accents(key) in self._given_stripped

    def _wgnd_gender(self, key: str) -> str:
        """WGND 2.0's global answer, from the precomputed ``wgnd_fallback.tsv`` (names of SSA
        and of every faker country; parsing the package's 4 M rows takes minutes per process)."""
        table = _wgnd_table()
        return table.get(key) or table.get(strip_accents(key)) or "unknown"

    # ----------------------------------------------------------------- surnames
    def is_surname(self, name: str) -> bool:
        key = normalise(name)
        if key in self._surnames or strip_accents(key) in self._surnames_stripped:
            return True
        if self.locale in ("ru", "uk"):
            if script_of(key) == "cyrillic":
                # pymorphy3's Surn tag for ru; uk by ending only (its dictionary is GPL-3.0)
                return _pymorphy_surname(key) if self.locale == "ru" else surname_form(key, "uk") != "any"
            # an English spelling of a Russian/Ukrainian surname: Petrova, Sokolov
            return surname_form(key, "ru") != "any" and len(key) > 4
        return False

    def coverage(self) -> dict[str, int]:
        genders = [g for g, _ in self._given.values()]
        return {"given": len(genders), "male": genders.count("male"),
                "female": genders.count("female"), "unknown": genders.count("unknown"),
                "surnames": len(self._surnames)}


WGND_FALLBACK = DATA_DIR / "wgnd_fallback.tsv"
WGND_HEADER = ("name", "gender", "p")


@lru_cache(maxsize=1)
def _wgnd_table() -> dict[str, str]:
    rebuild = "rebuild it with `mtdebias data name-locales --wgnd`"
    if not WGND_FALLBACK.is_file():
        raise InputError("the WGND fallback table is missing", path=WGND_FALLBACK, hint=rebuild)
    out = {}
    for number, fields in iter_tsv(WGND_FALLBACK, WGND_HEADER, rebuild):
        if len(fields) != 3 or fields[1] not in ("male", "female", "unknown"):
            raise InputError("expected name<TAB>male|female|unknown<TAB>p", path=WGND_FALLBACK, line=number,
                             hint=rebuild)
        out[fields[0]] = fields[1]
    return out


@lru_cache(maxsize=100_000)
def _pymorphy_surname(word: str) -> bool:
    from ..lang.slavic_pymorphy import analyzer

    return any("Surn" in p.tag for p in analyzer("ru").parse(word) if p.score >= 0.05)


def available_locales(directory: str | Path | None = None) -> list[str]:
    directory = Path(directory) if directory is not None else LOCALE_DIR
    return sorted(p.stem for p in directory.glob("*.tsv"))


@lru_cache(maxsize=None)
def locale_names(locale: str) -> LocaleNames:
    """The shipped table of ``locale`` (cached per process)."""
    return LocaleNames.load(locale)


def gender_of(name: str, locale: str) -> str:
    """"male", "female" or "unknown": the gender of the given name ``name`` in ``locale``."""
    return locale_names(locale).gender_of(name).gender


def default_locale(src_lang: str, tgt_lang: str) -> str:
    """The corpus's name locale when none is given: its non-English language (an en→fr corpus
    is about French speakers more often than not), else the source language; a language
    without a table falls back to ``en``."""
    lang = tgt_lang if src_lang == "en" and tgt_lang != "en" else src_lang
    return lang if lang in available_locales() else "en"
