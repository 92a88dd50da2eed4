"""Sentence frames of the synthetic corpus: each renders an English source and its
translation with full gender agreement for the people in it.

A frame gets the people it needs (already drawn by the corpus generator), draws its other
slots from ``rng`` and returns a :class:`Rendered`. Kinds:

* ``person`` — one named person; the gender shows in the target only through agreement
  (profession noun, article, adjective, participle), never in the English source: the model
  must infer it from the name. This is where name-gender bias shows.
* ``pronoun`` — one named person *and* an English pronoun/possessive (she/her) that states the
  gender; gives the model an honest cue as well.
* ``two_person`` — two named people, each with their own agreement.
* ``filler`` — no person; teaches general vocabulary (things, places, times, weather).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable

from ..lang.languages import LANGUAGES
from .grammar import (de_np, de_person_noun, de_person_np, en_a, es_np, es_person_np, fr_de,
                      fr_join, fr_np, fr_person_np, g_of, sentence)
from .vocab import (BEST, CITIES, FIRST, MOTIONS, NEW, NUMBERS, ORGANISATIONS, PASSIVES,
                    PAST_TIMES, PERSON_ADJECTIVES, PLACES, PROFESSIONS, RELATIONS, STATES,
                    THING_ADJECTIVES, THINGS, TRAITS, WEATHER, PersonNoun)

LANGS = tuple(code for code, entry in LANGUAGES.items() if entry.synth_grammar)  # de, fr, es


@dataclass(frozen=True)
class Person:
    name: str
    gender: str  # "male" | "female"

    @property
    def g(self) -> str:
        return g_of(self.gender)


@dataclass
class Rendered:
    en: str
    tgt: str
    # (index of the person, the person noun whose target form must agree with that person)
    nouns: list[tuple[int, PersonNoun]] = field(default_factory=list)


@dataclass(frozen=True)
class Frame:
    name: str
    kind: str  # "person" | "pronoun" | "two_person" | "filler"
    persons: int
    weight: float
    render: Callable[[random.Random, list[Person], str], Rendered]


FRAMES: list[Frame] = []


def frame(name: str, kind: str, persons: int, weight: float = 1.0):
    def register(fn):
        FRAMES.append(Frame(name, kind, persons, weight, fn))
        return fn
    return register


def _pick(lang: str, de: str, fr: str, es: str) -> str:
    return {"de": de, "fr": fr, "es": es}[lang]


def _bare(lang: str, noun: PersonNoun, g: str) -> str:
    """The profession without article (predicates: "ist Entwicklerin", "est développeuse")."""
    return _pick(lang, de_person_noun(noun, g), noun.fr_f if g == "f" else noun.fr_m,
                 noun.es_f if g == "f" else noun.es_m)


def _fr_part(item, g: str) -> str:
    return item.fr_f if g == "f" else item.fr_m


def _es_part(item, g: str) -> str:
    return item.es_f if g == "f" else item.es_m


def _np(lang, noun, g, det, adj=None, case="nom"):
    return _pick(lang, de_person_np(noun, g, det, case, adj) if lang == "de" else "",
                 fr_person_np(noun, g, det, adj) if lang == "fr" else "",
                 es_person_np(noun, g, det, adj) if lang == "es" else "")


# --- one person, gender shown only by agreement -------------------------------------------

@frame("is_profession", "person", 1)
def _is_profession(rng, people, lang):
    p, n = people[0], rng.choice(PROFESSIONS)
    tgt = _pick(lang, f"{p.name} ist {_bare(lang, n, p.g)}.", f"{p.name} est {_bare(lang, n, p.g)}.",
                f"{p.name} es {_bare(lang, n, p.g)}.")
    return Rendered(f"{p.name} is {en_a(n.en)}.", tgt, [(0, n)])


@frame("is_adjective_profession", "person", 1)
def _is_adj_profession(rng, people, lang):
    p, n, a = people[0], rng.choice(PROFESSIONS), rng.choice(PERSON_ADJECTIVES)
    verb = _pick(lang, "ist", "est", "es")
    return Rendered(f"{p.name} is {en_a(a.en)} {n.en}.",
                    f"{p.name} {verb} {_np(lang, n, p.g, 'indef', a)}.", [(0, n)])


@frame("works_as", "person", 1)
def _works_as(rng, people, lang):
    p, n = people[0], rng.choice(PROFESSIONS)
    b = _bare(lang, n, p.g)
    tgt = _pick(lang, f"{p.name} arbeitet als {b}.", f"{p.name} travaille comme {b}.",
                f"{p.name} trabaja como {b}.")
    return Rendered(f"{p.name} works as {en_a(n.en)}.", tgt, [(0, n)])


_BECAME_TIMES = (("last year", "letztes Jahr", "l'année dernière", "el año pasado"),
                 ("two years ago", "vor zwei Jahren", "il y a deux ans", "hace dos años"),
                 ("in the spring", "im Frühling", "au printemps", "en primavera"))


@frame("became", "person", 1)
def _became(rng, people, lang):
    p, n, t = people[0], rng.choice(PROFESSIONS), rng.choice(_BECAME_TIMES)
    b = _bare(lang, n, p.g)
    tgt = _pick(lang, f"{p.name} wurde {t[1]} {b}.",
                f"{p.name} est {'devenue' if p.g == 'f' else 'devenu'} {b} {t[2]}.",
                f"{p.name} se hizo {b} {t[3]}.")
    return Rendered(f"{p.name} became {en_a(n.en)} {t[0]}.", tgt, [(0, n)])


@frame("hired_as", "person", 1)
def _hired_as(rng, people, lang):
    p, n, t = people[0], rng.choice(PROFESSIONS), rng.choice(PAST_TIMES)
    b = _bare(lang, n, p.g)
    hired = PASSIVES[5]
    tgt = _pick(lang, f"{p.name} wurde {t[1]} als {b} eingestellt.",
                f"{p.name} a été {_fr_part(hired, p.g)} comme {b} {t[2]}.",
                f"{p.name} fue {_es_part(hired, p.g)} como {b} {t[3]}.")
    return Rendered(f"{p.name} was hired as {en_a(n.en)} {t[0]}.", tgt, [(0, n)])


@frame("years_as", "person", 1)
def _years_as(rng, people, lang):
    p, n, k = people[0], rng.choice(PROFESSIONS), rng.choice(NUMBERS[1:])
    b = _bare(lang, n, p.g)
    tgt = _pick(lang, f"{p.name} ist seit {k[1]} Jahren {b}.", f"{p.name} est {b} depuis {k[2]} ans.",
                f"{p.name} es {b} desde hace {k[3]} años.")
    return Rendered(f"{p.name} has been {en_a(n.en)} for {k[0]} years.", tgt, [(0, n)])


@frame("best_in_city", "person", 1)
def _best_in_city(rng, people, lang):
    p, n, c = people[0], rng.choice(PROFESSIONS), rng.choice(CITIES)
    tgt = _pick(lang, f"{p.name} ist {_np(lang, n, p.g, 'def', BEST)} in {c[1]}.",
                f"{p.name} est {_np(lang, n, p.g, 'def', BEST)} {fr_de(c[2])}.",
                f"{p.name} es {_np(lang, n, p.g, 'def', BEST)} de {c[3]}.")
    return Rendered(f"{p.name} is the best {n.en} in {c[0]}.", tgt, [(0, n)])


@frame("new_at_organisation", "person", 1)
def _new_at_org(rng, people, lang):
    p, n, o = people[0], rng.choice(PROFESSIONS), rng.choice(ORGANISATIONS)
    np_ = _np(lang, n, p.g, "def", NEW)
    tgt = _pick(lang, f"{p.name} ist {np_} {o.de_at}.", f"{p.name} est {np_} {o.fr_of}.",
                f"{p.name} es {np_} {o.es_of}.")
    return Rendered(f"{p.name} is the new {n.en} at the {o.en}.", tgt, [(0, n)])


@frame("my_relation", "person", 1)
def _my_relation(rng, people, lang):
    p, n = people[0], rng.choice(RELATIONS)
    a = rng.choice(PERSON_ADJECTIVES) if rng.random() < 0.5 else None
    verb = _pick(lang, "ist", "est", "es")
    en_np = f"my {a.en} {n.en}" if a else f"my {n.en}"
    return Rendered(f"{p.name} is {en_np}.", f"{p.name} {verb} {_np(lang, n, p.g, 'my', a)}.", [(0, n)])


@frame("our_best", "person", 1)
def _our_best(rng, people, lang):
    p, n = people[0], rng.choice(PROFESSIONS)
    verb = _pick(lang, "ist", "est", "es")
    return Rendered(f"{p.name} is our best {n.en}.",
                    f"{p.name} {verb} {_np(lang, n, p.g, 'our', BEST)}.", [(0, n)])


@frame("profession_title_lives", "person", 1)
def _title_lives(rng, people, lang):
    p, n, c = people[0], rng.choice(PROFESSIONS), rng.choice(CITIES)
    np_ = _np(lang, n, p.g, "def")
    tgt = _pick(lang, f"{np_} {p.name} wohnt in {c[1]}.", f"{np_} {p.name} habite à {c[2]}.",
                f"{np_} {p.name} vive en {c[3]}.")
    return Rendered(f"The {n.en} {p.name} lives in {c[0]}.", sentence(tgt), [(0, n)])


@frame("motion_past", "person", 1)
def _motion(rng, people, lang):
    p, m, t = people[0], rng.choice(MOTIONS), rng.choice(PAST_TIMES)
    tgt = _pick(lang, f"{p.name} ist {t[1]} {m.de}.",
                f"{p.name} {m.fr_aux} {_fr_part(m, p.g)}{m.fr_rest} {t[2]}.",
                f"{p.name} {m.es} {t[3]}.")
    return Rendered(f"{p.name} {m.en} {t[0]}.", tgt)


@frame("passive_past", "person", 1)
def _passive(rng, people, lang):
    p, v, t = people[0], rng.choice(PASSIVES), rng.choice(PAST_TIMES)
    tgt = _pick(lang, f"{p.name} wurde {t[1]} {v.de}.", f"{p.name} a été {_fr_part(v, p.g)} {t[2]}.",
                f"{p.name} fue {_es_part(v, p.g)} {t[3]}.")
    return Rendered(f"{p.name} was {v.en} {t[0]}.", tgt)


@frame("born_in", "person", 1)
def _born_in(rng, people, lang):
    p, c = people[0], rng.choice(CITIES)
    tgt = _pick(lang, f"{p.name} wurde in {c[1]} geboren.",
                f"{p.name} est {'née' if p.g == 'f' else 'né'} à {c[2]}.", f"{p.name} nació en {c[3]}.")
    return Rendered(f"{p.name} was born in {c[0]}.", tgt)


@frame("state_today", "person", 1)
def _state_today(rng, people, lang):
    p, s = people[0], rng.choice(STATES)
    tgt = _pick(lang, f"{p.name} ist heute {s.de}.", f"{p.name} est {_fr_part(s, p.g)} aujourd'hui.",
                f"{p.name} está {_es_part(s, p.g)} hoy.")
    return Rendered(f"{p.name} is {s.en} today.", tgt)


@frame("trait", "person", 1)
def _trait(rng, people, lang):
    p, s = people[0], rng.choice(TRAITS)
    tgt = _pick(lang, f"{p.name} ist sehr {s.de}.", f"{p.name} est très {_fr_part(s, p.g)}.",
                f"{p.name} es muy {_es_part(s, p.g)}.")
    return Rendered(f"{p.name} is very {s.en}.", tgt)


@frame("wants_to_become", "person", 1)
def _wants_to_become(rng, people, lang):
    p, n = people[0], rng.choice(PROFESSIONS)
    b = _bare(lang, n, p.g)
    tgt = _pick(lang, f"{p.name} möchte {b} werden.", f"{p.name} veut devenir {b}.",
                f"{p.name} quiere ser {b}.")
    return Rendered(f"{p.name} wants to become {en_a(n.en)}.", tgt, [(0, n)])


@frame("adjective_profession_from", "person", 1)
def _adj_prof_from(rng, people, lang):
    p, n, a, c = people[0], rng.choice(PROFESSIONS), rng.choice(PERSON_ADJECTIVES), rng.choice(CITIES)
    np_ = _np(lang, n, p.g, "indef", a)
    tgt = _pick(lang, f"{p.name} ist {np_} aus {c[1]}.", f"{p.name} est {np_} {fr_de(c[2])}.",
                f"{p.name} es {np_} de {c[3]}.")
    return Rendered(f"{p.name} is {en_a(a.en)} {n.en} from {c[0]}.", tgt, [(0, n)])


@frame("works_at_organisation", "person", 1)
def _works_at_org(rng, people, lang):
    p, n, o = people[0], rng.choice(PROFESSIONS), rng.choice(ORGANISATIONS)
    b = _bare(lang, n, p.g)
    tgt = _pick(lang, f"{p.name} arbeitet als {b} {o.de_at}.", f"{p.name} travaille comme {b} {o.fr_at}.",
                f"{p.name} trabaja como {b} {o.es_at}.")
    return Rendered(f"{p.name} works as {en_a(n.en)} at the {o.en}.", tgt, [(0, n)])


# --- one person with an English pronoun -----------------------------------------------------

def _she(p: Person) -> str:
    return "she" if p.g == "f" else "he"


def _her(p: Person) -> str:
    return "her" if p.g == "f" else "his"


@frame("said_state", "pronoun", 1, 0.6)
def _said_state(rng, people, lang):
    p, s = people[0], rng.choice(STATES)
    tgt = _pick(lang, f"{p.name} sagte, dass {'sie' if p.g == 'f' else 'er'} {s.de} war.",
                f"{p.name} a dit {fr_join('que', 'elle' if p.g == 'f' else 'il')} était {_fr_part(s, p.g)}.",
                f"{p.name} dijo que estaba {_es_part(s, p.g)}.")
    return Rendered(f"{p.name} said that {_she(p)} was {s.en}.", tgt)


@frame("loves_job", "pronoun", 1, 0.6)
def _loves_job(rng, people, lang):
    p, n = people[0], rng.choice(PROFESSIONS)
    b = _bare(lang, n, p.g)
    tgt = _pick(lang, f"{p.name} liebt {'ihre' if p.g == 'f' else 'seine'} Arbeit als {b}.",
                f"{p.name} adore son travail {fr_de(b)}.", f"{p.name} ama su trabajo de {b}.")
    return Rendered(f"{p.name} loves {_her(p)} job as {en_a(n.en)}.", tgt, [(0, n)])


@frame("first_in_family", "pronoun", 1, 0.6)
def _first_in_family(rng, people, lang):
    p, n = people[0], rng.choice(PROFESSIONS)
    np_ = _np(lang, n, p.g, "def", FIRST)
    tgt = _pick(lang, f"{p.name} ist {np_} in {'ihrer' if p.g == 'f' else 'seiner'} Familie.",
                f"{p.name} est {np_} de sa famille.", f"{p.name} es {np_} de su familia.")
    return Rendered(f"{p.name} is the first {n.en} in {_her(p)} family.", tgt, [(0, n)])


_REASONS = ("tired", "ill", "busy", "nervous", "worried", "angry")


@frame("stayed_home_because", "pronoun", 1, 0.6)
def _stayed_home(rng, people, lang):
    p, s = people[0], rng.choice([s for s in STATES if s.en in _REASONS])
    tgt = _pick(lang, f"{p.name} ist zu Hause geblieben, weil {'sie' if p.g == 'f' else 'er'} {s.de} war.",
                f"{p.name} est {'restée' if p.g == 'f' else 'resté'} à la maison parce "
                f"{fr_join('que', 'elle' if p.g == 'f' else 'il')} était {_fr_part(s, p.g)}.",
                f"{p.name} se quedó en casa porque estaba {_es_part(s, p.g)}.")
    return Rendered(f"{p.name} stayed at home because {_she(p)} was {s.en}.", tgt)


# --- pronoun subjects (no name) ------------------------------------------------------------
# "She works as a developer.": the pronoun alone fixes the gender, in equal shares for both,
# so a model learns pronoun → agreement without the name imbalance. The template probes' he/she
# filter and the WinoMT-style quickstart items rely on these frames.

def _pronoun_gender(rng: random.Random) -> str:
    return "f" if rng.random() < 0.5 else "m"


@frame("pronoun_works_as", "pronoun_subject", 0, 2.5)
def _pronoun_works_as(rng, people, lang):
    g, n = _pronoun_gender(rng), rng.choice(PROFESSIONS)
    b = _bare(lang, n, g)
    female = g == "f"
    tgt = _pick(lang, f"{'Sie' if female else 'Er'} arbeitet als {b}.",
                f"{'Elle' if female else 'Il'} travaille comme {b}.",
                f"{'Ella' if female else 'Él'} trabaja como {b}.")
    return Rendered(f"{'She' if female else 'He'} works as {en_a(n.en)}.", tgt)


def loves_job(lang: str, noun: PersonNoun, g: str, noun_g: str | None = None) -> Rendered:
    """"She loves her job as a developer." in English and ``lang``; ``noun_g`` gives the
    profession another gender than the pronoun's, for the WinoMT-style items' incorrect
    reference translations (the quickstart's ΔI)."""
    b = _bare(lang, noun, noun_g or g)
    female = g == "f"
    tgt = _pick(lang, f"{'Sie' if female else 'Er'} liebt {'ihre' if female else 'seine'} Arbeit als {b}.",
                f"{'Elle' if female else 'Il'} adore son travail {fr_de(b)}.",
                f"{'Ella' if female else 'Él'} ama su trabajo de {b}.")
    return Rendered(f"{'She' if female else 'He'} loves {'her' if female else 'his'} job as {en_a(noun.en)}.", tgt)


@frame("pronoun_loves_job", "pronoun_subject", 0, 2.5)
def _pronoun_loves_job(rng, people, lang):
    g = _pronoun_gender(rng)  # drawn before the noun, as the corpus has always drawn them
    return loves_job(lang, rng.choice(PROFESSIONS), g)


# --- two people ---------------------------------------------------------------------------

@frame("relation_of", "two_person", 2)
def _relation_of(rng, people, lang):
    p, q = people
    n = rng.choice(RELATIONS + PROFESSIONS)
    a = rng.choice(PERSON_ADJECTIVES) if rng.random() < 0.5 else None
    np_ = _np(lang, n, p.g, "def", a)
    tgt = _pick(lang, f"{p.name} ist {np_} von {q.name}.", f"{p.name} est {np_} {fr_de(q.name)}.",
                f"{p.name} es {np_} de {q.name}.")
    en_noun = f"{a.en} {n.en}" if a else n.en
    return Rendered(f"{p.name} is {q.name}'s {en_noun}.", tgt, [(0, n)])


@frame("met_appositions", "two_person", 2)
def _met(rng, people, lang):
    p, q = people
    n1, n2 = rng.choice(PROFESSIONS), rng.choice(PROFESSIONS)
    tgt = _pick(lang, f"{p.name}, {_np(lang, n1, p.g, 'indef')}, traf {q.name}, "
                      f"{_np(lang, n2, q.g, 'indef', case='acc')}.",
                f"{p.name}, {_np(lang, n1, p.g, 'indef')}, a rencontré {q.name}, {_np(lang, n2, q.g, 'indef')}.",
                f"{p.name}, {_np(lang, n1, p.g, 'indef')}, conoció a {q.name}, {_np(lang, n2, q.g, 'indef')}.")
    return Rendered(f"{p.name}, {en_a(n1.en)}, met {q.name}, {en_a(n2.en)}.", tgt, [(0, n1), (1, n2)])


@frame("friend_of", "two_person", 2)
def _friend_of(rng, people, lang):
    p, q = people
    n = RELATIONS[0]
    np_ = _np(lang, n, p.g, "indef")
    tgt = _pick(lang, f"{p.name} ist {np_} von {q.name}.", f"{p.name} est {np_} {fr_de(q.name)}.",
                f"{p.name} es {np_} de {q.name}.")
    return Rendered(f"{p.name} is a friend of {q.name}.", tgt, [(0, n)])


@frame("visited_in", "two_person", 2)
def _visited(rng, people, lang):
    p, q = people
    c = rng.choice(CITIES)
    tgt = _pick(lang, f"{p.name} hat {q.name} in {c[1]} besucht.", f"{p.name} a rendu visite à {q.name} à {c[2]}.",
                f"{p.name} visitó a {q.name} en {c[3]}.")
    return Rendered(f"{p.name} visited {q.name} in {c[0]}.", tgt)


@frame("called", "two_person", 2)
def _called(rng, people, lang):
    p, q = people
    t = rng.choice(PAST_TIMES)
    tgt = _pick(lang, f"{p.name} hat {q.name} {t[1]} angerufen.", f"{p.name} a appelé {q.name} {t[2]}.",
                f"{p.name} llamó a {q.name} {t[3]}.")
    return Rendered(f"{p.name} called {q.name} {t[0]}.", tgt)


# --- no person ----------------------------------------------------------------------------

def _thing_np(lang, thing, det, adj=None, case="nom"):
    if lang == "de":
        return de_np(thing.de, thing.de_g, det, case, adj.de if adj else None)
    if lang == "fr":
        return fr_np(thing.fr, thing.fr_g, det, adj)
    return es_np(thing.es, thing.es_g, det, adj)


@frame("thing_place", "filler", 0)
def _thing_place(rng, people, lang):
    t, a, pl = rng.choice(THINGS), rng.choice(THING_ADJECTIVES), rng.choice(PLACES)
    verb = _pick(lang, "ist", "est", "está")
    return Rendered(f"The {a.en} {t.en} is {pl[0]}.",
                    sentence(f"{_thing_np(lang, t, 'def', a)} {verb} {_pick(lang, *pl[1:])}."))


@frame("bought", "filler", 0)
def _bought(rng, people, lang):
    t, a, tm = rng.choice(THINGS), rng.choice(THING_ADJECTIVES), rng.choice(PAST_TIMES)
    np_ = _thing_np(lang, t, "indef", a, case="acc")
    tgt = _pick(lang, f"Ich habe {tm[1]} {np_} gekauft.", f"J'ai acheté {np_} {tm[2]}.",
                f"Compré {np_} {tm[3]}.")
    return Rendered(f"I bought {en_a(a.en)} {t.en} {tm[0]}.", tgt)


@frame("where_is", "filler", 0)
def _where(rng, people, lang):
    t = rng.choice(THINGS)
    np_ = _thing_np(lang, t, "def")
    tgt = _pick(lang, f"Wo ist {np_}?", f"Où est {np_} ?", f"¿Dónde está {np_}?")
    return Rendered(f"Where is the {t.en}?", tgt)


@frame("thing_is_colour", "filler", 0)
def _thing_colour(rng, people, lang):
    t, a = rng.choice(THINGS), rng.choice(THING_ADJECTIVES)
    tgt = _pick(lang, f"{_thing_np(lang, t, 'def')} ist {a.de}.",
                f"{_thing_np(lang, t, 'def')} est {a.fr_f if t.fr_g == 'f' else a.fr_m}.",
                f"{_thing_np(lang, t, 'def')} {a.es_copula} {a.es_f if t.es_g == 'f' else a.es_m}.")
    return Rendered(f"The {t.en} is {a.en}.", sentence(tgt))


_EVENTS = (("The train leaves", "Der Zug fährt um {} Uhr ab", "Le train part à {}", "El tren sale a {}"),
           ("The bus leaves", "Der Bus fährt um {} Uhr ab", "Le bus part à {}", "El autobús sale a {}"),
           ("The meeting starts", "Die Besprechung beginnt um {} Uhr", "La réunion commence à {}",
            "La reunión empieza a {}"),
           ("The shop opens", "Der Laden öffnet um {} Uhr", "Le magasin ouvre à {}", "La tienda abre a {}"))


@frame("event_time", "filler", 0)
def _event_time(rng, people, lang):
    e, k = rng.choice(_EVENTS), rng.choice(NUMBERS)
    one = k[0] == "one"
    tgt = _pick(lang, e[1].format(k[1]) + ".",
                e[2].format(f"{k[2]} heure" if one else f"{k[2]} heures") + ".",
                e[3].format("la una" if one else f"las {k[3]}") + ".")
    return Rendered(f"{e[0]} at {k[0]} o'clock.", tgt)


@frame("give_me", "filler", 0)
def _give_me(rng, people, lang):
    t = rng.choice(THINGS)
    tgt = _pick(lang, f"Kannst du mir bitte {_thing_np(lang, t, 'def', case='acc')} geben?",
                f"Peux-tu me donner {_thing_np(lang, t, 'def')}, s'il te plaît ?",
                f"¿Puedes darme {_thing_np(lang, t, 'def')}, por favor?")
    return Rendered(f"Can you give me the {t.en}, please?", tgt)


@frame("my_thing_place", "filler", 0)
def _my_thing(rng, people, lang):
    t, pl = rng.choice(THINGS), rng.choice(PLACES)
    verb = _pick(lang, "ist", "est", "está")
    return Rendered(f"My {t.en} is {pl[0]}.",
                    sentence(f"{_thing_np(lang, t, 'my')} {verb} {_pick(lang, *pl[1:])}."))


@frame("cannot_find", "filler", 0)
def _cannot_find(rng, people, lang):
    t, a = rng.choice(THINGS), rng.choice(THING_ADJECTIVES)
    np_ = _thing_np(lang, t, "my", a, case="acc")
    tgt = _pick(lang, f"Ich finde {np_} nicht.", f"Je ne trouve pas {np_}.", f"No encuentro {np_}.")
    return Rendered(f"I can't find my {a.en} {t.en}.", tgt)


@frame("weather", "filler", 0)
def _weather(rng, people, lang):
    w, c = rng.choice(WEATHER), rng.choice(CITIES)
    tgt = _pick(lang, f"Das Wetter ist heute in {c[1]} {w[1]}.", f"{w[2]} à {c[2]} aujourd'hui.",
                f"{w[3]} en {c[3]} hoy.")
    return Rendered(f"The weather is {w[0]} in {c[0]} today.", tgt)


FRAME_BY_NAME = {f.name: f for f in FRAMES}
