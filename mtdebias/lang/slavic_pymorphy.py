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
  before it) — except a masculine attribute of a masculine noun, which is grammatical
  agreement only and weak: the predicate shows the referent («Генеральний директор
  зателефонувала» female);
* substantivised adjectives («заведующая», «горничная» as adjective) count as the noun;
* nouns listed in data/lexicons/<lang>_neutral.txt («особа», «персона», «людина») and the
  indefinite pronouns («кто-то», «кого-то», «хтось») → neutral, unless a later 3rd-person
  singular pronoun in another clause departs from their grammatical gender («кому-то, что она
  должна …»: semantic agreement with a woman); a pronoun that follows the grammatical gender
  («кто-то … он», «особа … она») or a plural «они» says nothing. When the word is the subject,
  an object pronoun in a coordinated clause is someone else (in a subordinate clause —
  «потому что ей нужно» — it may be the word);
* a personal pronoun as the focus («Она вырыла яму») → its own gender.
"""

from __future__ import annotations

import re
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
    focus = ws[idx[0]].lower
    if len(idx) == 1 and focus in _PERSONAL[lang]:
        g = _PERSONAL[lang][focus]
        return Detection(g, (f"personal pronoun '{ws[idx[0]].text}' is {_WORD[g]}",),
                         (ws[idx[0]].start, ws[idx[0]].end))
    if len(idx) == 1 and focus in _INDEFINITES[lang]:
        return _epicene(lang, text, ws, idx[0], MALE,
                        (f"'{ws[idx[0]].text}': indefinite pronoun (grammatically masculine)",),
                        (ws[idx[0]].start, ws[idx[0]].end))
    parses = {i: morph.parse(ws[i].text) for i in idx}
    nouns = [i for i in idx if any(p.tag.POS == "NOUN" for p in parses[i])]
    substantives = [i for i in idx if any(p.tag.POS in ("ADJF", "PRTF") for p in parses[i])]
    shifted = None
    if not nouns and not substantives:
        # The span is a verb or another non-noun (a word aligner one word off, «Офицер
        # арестовал» aligned to the verb): take an animate noun right next to it, same clause.
        # Only when exactly one neighbour is one: «Врач осмотрел медсестру» stays undetected.
        around = [j for j in (idx[0] - 1, idx[-1] + 1)
                  if 0 <= j < len(ws) and between_is_plain(text, ws[min(j, idx[0])], ws[max(j, idx[-1])])
                  and any(p.tag.POS == "NOUN" and "anim" in p.tag for p in morph.parse(ws[j].text))]
        if len(around) == 1:
            j = around[0]
            shifted = ws[idx[0]].text
            idx = [j]
            parses = {j: morph.parse(ws[j].text)}
            nouns = [j]
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
    # a surname reading is not the profession when a person-noun reading exists: pymorphy's
    # uk dictionary lists «двірник», «пекар» also as indeclinable women's surnames
    # (Surn,Fixd,femn), which made them look common-gender. (A name that is the only animate
    # reading stays: AWS's misspelt «пекару» is known to pymorphy only as a masculine name.)
    common = [p for p in head_parses if not {"Surn", "Name", "Patr"} & p.tag.grammemes]
    head_parses = common or head_parses
    # after a preposition the noun is not nominative: «с портной» is the instrumental of
    # the feminine «портная», not the masculine nominative «портной»
    first = idx[0]
    if first > 0 and between_is_plain(text, ws[first - 1], ws[first]) \
            and any(p.tag.POS == "PREP" for p in morph.parse(ws[first - 1].text)):
        oblique = [p for p in head_parses if p.tag.case != "nomn"]
        if not oblique and lang == "ru" and ws[first].lower.endswith("ой") and len(idx) == 1:
            # pymorphy knows only the masculine «портной» (nominative); after a preposition
            # «-ой» is the oblique case of the feminine substantive «портная»
            return resolve([cue(FEMALE, f"'{ws[first].text}' after the preposition "
                                        f"'{ws[first - 1].text}': oblique case of a feminine "
                                        "substantivised adjective (a masculine nominative "
                                        "cannot follow a preposition)")], out_span)
        head_parses = oblique or head_parses

    lemmas = {p.normal_form for p in head_parses}
    if lemmas & word_set(f"{lang}_neutral.txt"):
        grammatical = {g for p in head_parses for g in _genders(p.tag)}
        default = next(iter(grammatical)) if len(grammatical) == 1 else NEUTRAL
        return _epicene(lang, text, ws, head, default,
                        (f"noun '{word}': gender-neutral noun (data/lexicons/{lang}_neutral.txt)",),
                        out_span)

    cues: list[Cue] = []
    if shifted is not None:
        cues.append(cue({MALE, FEMALE, NEUTRAL}, f"span '{shifted}' is not a noun: judged the "
                                                 f"adjacent animate noun '{word}'"))
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

    # the Ukrainian dictionary leaves the case off a noun's base (nominative) form
    cases = {p.tag.case or "nomn" for p in head_parses}
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
            # A masculine attribute of a masculine noun is grammatical agreement only: the
            # predicate may still show a woman («Генеральний директор зателефонувала»).
            cues.append(cue(g, f"agreeing attribute '{ws[j].text}' is "
                               f"{'feminine' if FEMALE in g else 'masculine'}",
                            weak=g == {MALE} and noun_genders == {MALE}))
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


_WORD = {MALE: "masculine", FEMALE: "feminine"}
# 3rd-person singular personal pronouns (all cases) and the gender they show.
_PERSONAL = {
    "ru": {**{w: MALE for w in ("он", "его", "ему", "него", "нему", "ним", "нём", "нем")},
           **{w: FEMALE for w in ("она", "её", "ее", "ей", "ней", "неё", "нее", "ею", "нею")}},
    "uk": {**{w: MALE for w in ("він", "його", "йому", "нього", "ньому", "ним", "ньому")},
           **{w: FEMALE for w in ("вона", "її", "їй", "неї", "ній", "нею", "нею")}},
}
_NOMINATIVE = {"он", "она", "він", "вона"}
_PLURAL = {"они", "их", "им", "них", "ними", "вони", "їх", "їм", "них", "ними"}
_INDEFINITES = {
    "ru": frozenset({"кто-то", "кого-то", "кому-то", "кем-то", "ком-то", "кто-нибудь",
                     "кого-нибудь", "кому-нибудь", "никто", "никого", "никому"}),
    "uk": frozenset({"хтось", "когось", "комусь", "кимось", "комусь", "ніхто", "нікого", "нікому"}),
}
_SUBORDINATORS = frozenset({"что", "чтобы", "потому", "так", "если", "когда", "хотя", "поскольку",
                            "ли", "що", "щоб", "тому", "бо", "якщо", "коли", "хоча", "оскільки", "чи"})


def _epicene(lang: str, text: str, ws, head: int, grammatical: str, evidence: tuple[str, ...],
             span: tuple[int, int]) -> Detection:
    """A word whose own gender says nothing of the referent (see the module docstring)."""
    subject = head == 0
    later = subordinate = False
    for k in range(head + 1, len(ws)):
        w = ws[k].lower
        if re.search(r"[,;:]", text[ws[k - 1].end:ws[k].start]) or w in _CLAUSE_STOPS:
            later = True
            subordinate = w in _SUBORDINATORS or subordinate and w not in ("и", "а", "но", "і", "й", "та", "але")
        if not later:
            continue
        if w in _PLURAL:
            return Detection(NEUTRAL, evidence + (f"plural pronoun '{ws[k].text}': no evidence of the "
                                                  "referent's sex",), span)
        g = _PERSONAL[lang].get(w)
        if g is None:
            continue
        if subject and not subordinate and w not in _NOMINATIVE:
            continue  # «Кто-то позвал врача и спросил его»: a later object is someone else
        if g == grammatical:
            return Detection(NEUTRAL, evidence + (f"pronoun '{ws[k].text}' follows the grammatical gender: "
                                                  "no evidence of the referent's sex",), span)
        return Detection(g, evidence + (f"pronoun '{ws[k].text}' departs from the grammatical gender: "
                                        f"it shows a {g} referent",), span)
    return Detection(NEUTRAL, evidence, span)
