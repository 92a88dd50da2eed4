"""Russian and Ukrainian with pymorphy3: the noun's gender, then the words that agree with it.

Many East Slavic profession nouns are grammatically masculine but used for women too («врач»,
«лікар»): the speaker's choice shows in agreement — «врач пришла» (feminine past verb), «наша
врач». So:

* a masculine person noun is a *weak* male cue (a default);
* a feminine noun (feminitives «учительница», «лікарка»; «медсестра») is a strong female cue;
* common-gender nouns («коллега», «судья»; pymorphy's ``ms-f`` or both genders listed) give no
  noun cue — only agreement can decide them;
* agreeing words are strong cues: attributive adjectives / participles / possessive pronouns
  in the noun's case directly before it, and — when the noun can be nominative — the first
  past-tense verb or short adjective/participle in the same clause (after the noun, else
  before it);
* substantivised adjectives («заведующая», «горничная» as adjective) count as the noun;
* nouns listed in mtdebias/data/lexicons/<lang>_neutral.txt («особа», «персона», «людина») → neutral.
"""

from __future__ import annotations

from functools import lru_cache

from .base import (FEMALE, MALE, NEUTRAL, Cue, Detection, between_is_plain, clause_words_after,
                   clause_words_before, cue, resolve, words, words_in_span)
from .lexicons import word_set

_GENDER = {"masc": MALE, "femn": FEMALE}
_ATTRIBUTIVE = {"ADJF", "PRTF", "NPRO", "NUMR"}
_CLAUSE_STOPS = frozenset({"и", "а", "но", "что", "чтобы", "потому", "так", "который", "которая",
                           "которое", "которые", "если", "когда", "хотя", "і", "й", "та", "але",
                           "що", "щоб", "тому", "бо", "який", "яка", "яке", "які", "якщо", "коли"})


@lru_cache(maxsize=None)
def analyzer(lang: str):
    import pymorphy3

    return pymorphy3.MorphAnalyzer(lang=lang)


def _genders(tag) -> set[str]:
    if "ms-f" in tag.grammemes:
        return {MALE, FEMALE}
    g = _GENDER.get(tag.gender)
    return {g} if g else set()


def _singular(tag) -> bool:
    return tag.number != "plur"


def detect(lang: str, text: str, span: tuple[int, int]) -> Detection:
    morph = analyzer(lang)
    ws = words(text)
    idx = words_in_span(ws, span)
    if not idx:
        return Detection("undetected", ("span covers no word",), span)
    parses = {i: morph.parse(ws[i].text) for i in idx}
    nouns = [i for i in idx if any(p.tag.POS == "NOUN" for p in parses[i])]
    substantives = [i for i in idx if any(p.tag.POS in ("ADJF", "PRTF") for p in parses[i])]
    head = nouns[0] if nouns else (substantives[-1] if substantives else idx[-1])
    word = ws[head].text
    out_span = (ws[idx[0]].start, ws[idx[-1]].end)
    head_parses = [p for p in parses[head] if p.tag.POS == "NOUN"]
    substantive = False
    if not head_parses:
        head_parses = [p for p in parses[head] if p.tag.POS in ("ADJF", "PRTF")]
        substantive = True
    if not head_parses:
        return Detection("undetected", (f"'{word}' is not a noun for pymorphy3",), out_span)
    animate = [p for p in head_parses if "anim" in p.tag]
    head_parses = animate or head_parses

    lemmas = {p.normal_form for p in head_parses}
    if lemmas & word_set(f"{lang}_neutral.txt"):
        return Detection(NEUTRAL, (f"noun '{word}': gender-neutral noun (mtdebias/data/lexicons/{lang}_neutral.txt)",),
                         out_span)

    cues: list[Cue] = []
    noun_genders = set().union(*(_genders(p.tag) for p in head_parses))
    lemma = sorted(lemmas)[0]
    if substantive and len(noun_genders) == 1 and all(_singular(p.tag) for p in head_parses):
        cues.append(cue(noun_genders, f"substantivised adjective '{word}' is "
                                      f"{'feminine' if FEMALE in noun_genders else 'masculine'}"))
    elif noun_genders == {FEMALE}:
        cues.append(cue(FEMALE, f"noun '{word}' (lemma '{lemma}') is feminine"))
    elif noun_genders == {MALE}:
        cues.append(cue(MALE, f"noun '{word}' (lemma '{lemma}') is masculine (default; "
                              "agreement can override)", weak=True))
    elif noun_genders == {MALE, FEMALE}:
        cues.append(cue({MALE, FEMALE}, f"noun '{word}' is common gender: agreement decides"))

    cases = {p.tag.case for p in head_parses}
    singular = any(_singular(p.tag) for p in head_parses)

    # Attributive words directly before the head, in its case.
    j = head - 1
    while j >= 0 and j >= head - 3 and between_is_plain(text, ws[j], ws[j + 1]):
        attr = [p for p in morph.parse(ws[j].text)
                if p.tag.POS in _ATTRIBUTIVE and p.tag.case in cases and _singular(p.tag)]
        if not attr:
            break
        g = set().union(*(_genders(p.tag) for p in attr))
        if len(g) == 1:
            cues.append(cue(g, f"agreeing attribute '{ws[j].text}' is "
                               f"{'feminine' if FEMALE in g else 'masculine'}"))
        out_span = (min(out_span[0], ws[j].start), out_span[1])
        j -= 1

    # Predicate agreement (subject only): past-tense verb or short adjective/participle.
    if "nomn" in cases and singular:
        pred = _predicate(morph, text, ws, clause_words_after(text, ws, idx[-1], 6, _CLAUSE_STOPS))
        if pred is None:
            pred = _predicate(morph, text, ws, clause_words_before(text, ws, idx[0], 4, _CLAUSE_STOPS))
        if pred is not None:
            cues.append(pred)
    return resolve(cues, out_span)


def _predicate(morph, text, ws, candidates) -> Cue | None:
    for j in candidates:
        ps = morph.parse(ws[j].text)
        if any(p.tag.POS == "NOUN" and p.tag.case == "nomn" and p.score > 0.5 for p in ps):
            return None  # another subject stands between
        pred = [p for p in ps if _singular(p.tag) and
                ((p.tag.POS == "VERB" and p.tag.tense == "past") or p.tag.POS in ("ADJS", "PRTS"))]
        if not pred:
            continue
        g = set().union(*(_genders(p.tag) for p in pred))
        if len(g) == 1:
            kind = "past-tense verb" if pred[0].tag.POS == "VERB" else "short-form predicate"
            return cue(g, f"agreeing {kind} '{ws[j].text}' is {'feminine' if FEMALE in g else 'masculine'}")
        return None
    return None
