"""Italian: lexicon + rules (engine and rules explained in :mod:`mtdebias.lang.romance`).

Neutral: only the fixed-gender nouns of mtdebias/data/lexicons/it_neutral.txt (persona, vittima,
guardia, sentinella).
"""

from __future__ import annotations

from . import romance
from .base import FEMALE, MALE, Detection

_F, _M, _MF = frozenset({FEMALE}), frozenset({MALE}), frozenset({MALE, FEMALE})

RULES = romance.RomanceRules(
    lang="it",
    lexicon="it_person_nouns.tsv",
    neutral="it_neutral.txt",
    endings=(
        (r"ista$", _MF, False, "-ista is epicene in the singular"),
        (r"isti$", _M, False, "-isti masculine plural"),
        (r"iste$", _F, False, "-iste feminine plural"),
        (r"(ante|ente|anti|enti)$", _MF, False, "-ante/-ente is epicene"),
        (r"(essa|esse|rice|rici)$", _F, False, "marked feminine ending"),
        (r"(ore|ori|iere|ieri|o|i)$", _M, True, "masculine ending (default)"),
        (r"a$", _F, True, "feminine ending (default)"),
    ),
    determiners={**{w: MALE for w in ("il", "lo", "i", "gli", "un", "uno", "del", "dello", "dei",
                                      "degli", "al", "allo", "ai", "agli", "dal", "dallo", "dai",
                                      "dagli", "nel", "nello", "nei", "negli", "sul", "sullo",
                                      "sui", "sugli", "questo", "quel", "quello", "questi",
                                      "quei", "quegli", "nessun", "nessuno", "alcun")},
                 **{w: FEMALE for w in ("la", "le", "una", "un'", "della", "delle", "alla",
                                        "alle", "dalla", "dalle", "nella", "nelle", "sulla",
                                        "sulle", "questa", "queste", "quella", "quelle",
                                        "nessuna", "alcuna")}},
    ambiguous_determiners=frozenset({"l'", "dell'", "all'", "dall'", "nell'", "sull'", "quell'",
                                     "quest'"}),
    prepositions=frozenset({"a", "ad", "al", "allo", "alla", "ai", "agli", "alle", "all'", "di",
                            "del", "dello", "della", "dei", "degli", "delle", "dell'", "da",
                            "dal", "dallo", "dalla", "dai", "dagli", "dalle", "dall'", "in",
                            "nel", "nello", "nella", "nei", "negli", "nelle", "nell'", "con",
                            "su", "sul", "sullo", "sulla", "sui", "sugli", "sulle", "sull'",
                            "per", "tra", "fra", "verso", "contro"}),
    copulas=frozenset({"è", "e'", "era", "fu", "sarà", "sarebbe", "sembra", "sembrava",
                       "resta", "restò", "rimase", "rimane", "stato", "stata", "fosse",
                       "sia", "sembrava", "e'"}),
    skip_after_copula=frozenset({"molto", "così", "più", "meno", "troppo", "già", "ancora",
                                 "sempre", "non", "anche", "davvero", "piuttosto", "sentito",
                                 "sentita", "sente", "sentiva"}),
    clause_stops=frozenset({"che", "perché", "perche'", "poiché", "ma", "e", "o", "quando",
                            "mentre", "se", "dove", "come", "anche"}),
    adjective_endings=((r"o$", MALE), (r"a$", FEMALE)),
    indefinites=frozenset({"qualcuno", "nessuno"}),
    clitics=(("le", FEMALE), ("gli", MALE), ("lo", MALE), ("la", FEMALE)),
    subject_pronouns=(("lei", FEMALE), ("lui", MALE), ("egli", MALE), ("ella", FEMALE)),
    subordinators=frozenset({"perché", "perche'", "poiché", "poiche'", "che", "quando", "mentre",
                             "se", "nonostante", "sebbene", "benché", "finché", "dato"}),
    # finite forms: passato remoto, imperfetto, congiuntivo, futuro, and common irregulars
    # (not a bare -à: città, società are nouns; the future's -erà/-irà/-arà are listed)
    verb_pattern=r"(ò|ì|è|ava|eva|iva|avano|evano|esse|asse|isse|essero|ebbe|rebbe|"
                 r"ese|ise|ose|ede|isse|ette|erà|irà|arà)$",
    auxiliaries=frozenset({"ha", "hanno", "aveva", "avevano", "avrà", "avrebbe", "abbia", "avesse",
                           "è", "e'", "era", "fu", "sarà", "sarebbe", "sia", "fosse", "disse",
                           "chiese", "diede", "fece", "mise", "prese", "rispose", "scrisse", "vide",
                           "dice", "chiede", "dà", "manda", "offre", "deve", "può", "vuole"}),
    predicate_articles=(("un", MALE), ("uno", MALE), ("una", FEMALE), ("un'", FEMALE)),
)


def detect(text: str, span: tuple[int, int]) -> Detection:
    return romance.detect(RULES, text, span)
