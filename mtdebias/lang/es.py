"""Spanish: lexicon + rules (engine and rules explained in :mod:`mtdebias.lang.romance`).

Neutral: only the fixed-gender nouns of mtdebias/data/lexicons/es_neutral.txt (persona, víctima).
"""

from __future__ import annotations

from . import romance
from .base import FEMALE, MALE, Detection

_F, _M, _MF = frozenset({FEMALE}), frozenset({MALE}), frozenset({MALE, FEMALE})

RULES = romance.RomanceRules(
    lang="es",
    lexicon="es_person_nouns.tsv",
    neutral="es_neutral.txt",
    endings=(
        (r"istas?$", _MF, False, "-ista is epicene"),
        (r"(ante|ente)s?$", _MF, False, "-ante/-ente is epicene"),
        (r"(ora|oras|triz|trices|esa|esas)$", _F, False, "marked feminine ending"),
        (r"(o|os|or|ores)$", _M, True, "masculine ending (default)"),
        (r"(a|as)$", _F, True, "feminine ending (default)"),
    ),
    determiners={**{w: MALE for w in ("el", "los", "un", "unos", "del", "al", "este", "ese",
                                      "aquel", "estos", "esos", "aquellos", "nuestro", "nuestros",
                                      "vuestro", "vuestros", "otro", "otros", "ningún", "algún")},
                 **{w: FEMALE for w in ("la", "las", "una", "unas", "esta", "esa", "aquella",
                                        "estas", "esas", "aquellas", "nuestra", "nuestras",
                                        "vuestra", "vuestras", "otra", "otras", "ninguna",
                                        "alguna")}},
    ambiguous_determiners=frozenset({"su", "sus", "mi", "mis", "tu", "tus", "cada"}),
    prepositions=frozenset({"a", "al", "de", "del", "con", "para", "por", "en", "sin", "sobre",
                            "entre", "hacia", "desde", "contra", "según", "ante"}),
    copulas=frozenset({"es", "era", "fue", "está", "estaba", "estuvo", "estará", "será", "sería",
                       "estaría", "parece", "parecía", "sigue", "seguía", "quedó", "queda",
                       "resultó", "sido", "estuviera", "fuera", "sea", "esté",
                       "fué"}),  # the accented spelling of Reina-Valera 1909 and older texts
    skip_after_copula=frozenset({"muy", "tan", "más", "menos", "bastante", "demasiado", "ya",
                                 "no", "siempre", "sido", "estado", "sentía", "siente", "sintió",
                                 "bien", "mal", "también", "todavía", "aún"}),
    clause_stops=frozenset({"que", "porque", "pero", "y", "e", "o", "cuando", "aunque", "si",
                            "mientras", "donde", "pues", "como"}),
    adjective_endings=((r"[^aeiou]os?$|[^u]o$", MALE), (r"as?$", FEMALE)),
    stressed_a_article=frozenset({"el", "un", "del", "al"}),
    indefinites=frozenset({"alguien", "nadie"}),
    clitics=(("lo", MALE), ("la", FEMALE)),
    subject_pronouns=(("él", MALE), ("ella", FEMALE)),
    subordinators=frozenset({"porque", "que", "cuando", "mientras", "aunque", "si", "pues",
                             "como", "ya"}),
    # finite forms after an object clitic: preterite, imperfect, conditional, subjunctive
    verb_pattern=r"(ó|ió|aba|aban|ía|ían|aría|ería|iría|ara|iera|ase|iese|ará|erá|irá)$",
    auxiliaries=frozenset({"ha", "había", "habría", "hubiera", "va", "iba", "es", "era", "fue",
                           "está", "estaba", "quiere", "quería", "puede", "podía", "dijo", "hizo",
                           "vio", "llevó", "trajo", "puso"}),
    predicate_articles=(("un", MALE), ("una", FEMALE)),
)


def detect(text: str, span: tuple[int, int]) -> Detection:
    return romance.detect(RULES, text, span)
