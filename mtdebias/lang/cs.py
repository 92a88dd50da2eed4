"""Czech (spaCy cs_core_news_sm); agreement rules in :mod:`mtdebias.lang.spacy_morph`.

The noun's own form:

* feminine derivations -ka / -kyně (učitelka, lékařka, soudkyně) and surnames in -ová
  (Nováková) are strong female cues, as is any noun the morphologizer tags Fem;
* a masculine animate noun is a weak male cue (the default form; a feminine past participle
  «doktor přišla» overrides it);
* nouns in data/lexicons/cs_neutral.txt (osoba, člověk, …) → neutral;
* the indefinites «někdo»/«nikdo» (all cases) → neutral, unless a feminine pronoun in a later
  clause departs from their default masculine;
* a masculine adjective of a default-masculine noun is weak: «Generální ředitel zavolala»
  is decided by the feminine participle.
"""

from __future__ import annotations

import re

from . import spacy_morph
from .base import FEMALE, MALE, NEUTRAL, Cue, Detection, cue
from .lexicons import word_set

_MODEL = "cs_core_news_sm"
_INDEFINITES = frozenset({"někdo", "někoho", "někomu", "někým", "někom", "nikdo", "nikoho",
                          "nikomu", "nikým", "nikom"})
_FEMININE_PRONOUNS = frozenset({"ona", "jí", "ji", "ní", "ni", "její", "jejího", "jejímu", "jejím"})


_VOWELS = frozenset("aáeéěiíoóuúůyý")
# Forms only a feminine noun has: -ka/-kyně derivations and -ová surnames in all cases, -nice
# (úřednice, -nici, -nicí), -yně (hospodyně, -yni, -yní) and the hard adjectival -á/-ou
# (strážná, strážnou). The -ka forms need a consonant before the k (učitelka, šerifka,
# uklízečka): vowel + -ka is the genitive/accusative of a masculine -ík/-ik/-ák noun
# (úředníka, mechanika, stěhováka); their feminines are -nice/-ička/-ačka.
_FEMININE_FORM = re.compile(r"((?<![aáeéěiíoóuúůyý])k(?:[aáyiuo]|[aá]ch|ou|ám|ami)|"
                            r"yn[eěií]|yním|yněmi|ov[áéoué]|ovou|nic[eií]|nicí|á|ou)$")
_FEMININE_LEMMA = re.compile(r"((?<![aáeéěiíoóuúůyý])ka|kyně|ová)$")
# Forms only a masculine (animate) noun has: dative/locative -ovi, instrumental -em, and the
# masculine adjectival endings (nadřízený, -ého, -ému, -ým, -ém; účetního, -ímu, -ím).
_MASCULINE_FORM = re.compile(r"(ovi|em|ý|ého|ému|ým|ém|ího|ímu|ím)$")


def _oblique(token) -> bool:
    """Is the token in a case other than the nominative? (a preposition governs it, or it is
    an object of a verb that has its own subject) — needed for the soft adjectival nouns,
    whose feminine oblique forms equal the nominative (účetní)."""
    if any(c.dep_ == "case" for c in token.children):
        return True
    if token.dep_ in ("obj", "iobj", "obl", "obl:arg", "nmod"):
        # (cross-checked: the clause's verb must have a subject of its own, since the small
        # parser sometimes calls a nominative subject an object)
        verb = token.head
        while verb.pos_ not in ("VERB", "AUX") and verb.head.i != verb.i:
            verb = verb.head
        return any(c.dep_.startswith("nsubj") and c.i != token.i for c in verb.children)
    return False


def _noun_cue(token) -> list[Cue]:
    w, lemma = token.text.lower(), token.lemma_.lower()
    if lemma in word_set("cs_neutral.txt") or w in word_set("cs_neutral.txt"):
        return [cue(NEUTRAL, f"noun '{token.text}': gender-neutral noun (data/lexicons/cs_neutral.txt)")]
    if w.endswith("í"):
        # soft adjectival noun (účetní, pokladní, vedoucí, krejčí): the nominative is the same
        # for both genders (only agreement decides), the masculine oblique cases end in
        # -ího/-ímu/-ím, so «-í» in an oblique case is feminine
        if _oblique(token):
            return [cue(FEMALE, f"'{token.text}': soft adjectival noun in an oblique case "
                                "(the masculine would end in -ího/-ímu/-ím)")]
        return []
    if w.endswith("ce") and not w.endswith("nice") and len(w) > 3 and w[-3] not in _VOWELS:
        # consonant + -ce: the dative/locative of a feminine -ka noun (šerifce, lékařce), or a
        # masculine noun in -ce / -ec (poradce, herce): told apart by a lexicon
        masc = word_set("cs_masculine_ce.txt")
        if w in masc or lemma in masc or (w[:-2] + "ec") in masc:
            return [cue(MALE, f"noun '{token.text}' is masculine (-ce noun, "
                              "data/lexicons/cs_masculine_ce.txt)", weak=True)]
        return [cue(FEMALE, f"noun '{token.text}': dative/locative of a feminine -ka noun")]
    if _FEMININE_FORM.search(w) or _FEMININE_LEMMA.search(lemma):
        return [cue(FEMALE, f"noun '{token.text}' (lemma '{token.lemma_}'): feminine form "
                            "(-ka/-kyně/-nice/-yně/-ová/-á)")]
    if _MASCULINE_FORM.search(w):
        return [cue(MALE, f"noun '{token.text}': masculine case ending (default; agreement can "
                          "override)", weak=True)]
    if w[-1] not in _VOWELS or (w.endswith("a") and len(w) > 2 and w[-2] not in _VOWELS
                                and w not in word_set("cs_feminine_a.txt")
                                and lemma not in word_set("cs_feminine_a.txt")):
        # a person noun ending in a consonant is masculine (šerif, auditor); consonant + -a,
        # unless a primary feminine noun (sestra, žena), is its genitive/accusative (šerifa,
        # auditora) or a masculine like předseda — the morphologizer often tags these Fem
        return [cue(MALE, f"noun '{token.text}' is masculine (consonant / consonant + -a form; "
                          "default, agreement can override)", weak=True)]
    genders = spacy_morph.genders_of(token)
    if genders == {FEMALE}:
        return [cue(FEMALE, f"noun '{token.text}' is feminine (morphologizer)")]
    if genders == {MALE}:
        return [cue(MALE, f"noun '{token.text}' is masculine (default; agreement can override)",
                    weak=True)]
    return []


def _determiner_cue(token) -> Cue | None:
    return None  # Czech determiners carry Gender in spaCy's morphology; read there.


def detect(text: str, span: tuple[int, int]) -> Detection:
    phrase = text[span[0]:span[1]].strip().lower()
    if phrase in _INDEFINITES:
        return _indefinite(text, span)
    return spacy_morph.detect(_MODEL, text, span, _noun_cue, _determiner_cue,
                              predicate_needs_etre=False)


def _indefinite(text: str, span: tuple[int, int]) -> Detection:
    """«někdo»/«někomu»: grammatically masculine; only a feminine pronoun in a later clause
    («…, že ona …») shows a woman, anything else leaves the referent's gender unexpressed."""
    word = text[span[0]:span[1]].strip()
    evidence = (f"'{word}': indefinite pronoun (grammatically masculine)",)
    rest = text[span[1]:]
    boundary = re.search(r"[,;:]", rest)
    if boundary is not None:
        for w in re.findall(r"\w+", rest[boundary.end():].lower()):
            if w in _FEMININE_PRONOUNS:
                return Detection(FEMALE, evidence + (f"pronoun '{w}' in a later clause departs from "
                                                     "the default masculine",), span)
    return Detection(NEUTRAL, evidence, span)
