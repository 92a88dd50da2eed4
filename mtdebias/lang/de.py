"""German: the noun's own form decides, the determiner is checked against it.

Evidence, in order:

1. gender-inclusive spellings (Entwickler*in, Lehrer:innen, Kolleg_innen, LehrerInnen) and
   paired forms (Ärztinnen und Ärzte) → ``neutral``;
2. nouns that do not show the referent's gender (data/lexicons/de_neutral.txt: Lehrkraft,
   Person, Mitglied, Kind, Wache …) and the indefinite pronouns jemand/niemand → ``neutral``,
   unless a later 3rd-person pronoun departs from the word's grammatical gender — «dem Kind …
   weil er», «jemandem, dass sie», «die Person … er» — which is agreement with the referent's
   sex and decides (a pronoun that matches the grammatical gender, «die Wache … sie»,
   «jemand … er», says nothing; a «sie» with a plural verb is plural);
3. nominalised adjectives/participles (Angestellte, Studierende, Vorsitzender) are decided by
   their ending plus the determiner, as German grammar does: «der Angestellte» male, «die
   Angestellte» female, bare plural «Studierende» / «die Studierenden» → ``neutral``
   (the gender-neutral plural form), «den Angestellten» → undetected (masc. acc. or plural);
4. other nouns: the grammatical gender from the `german-nouns` lexicon (Wiktionary), looked
   up for the whole word or, failing that, the longest compound head (Softwareentwicklerin →
   Entwicklerin, Oberärztin → Ärztin): feminine → female (Ärztin, Krankenschwester),
   masculine → male (masculine plural «die Entwickler» is the generic masculine: male, and
   the evidence says plural), neuter → neutral (Mitglied; except Mädchen & co.); a determiner
   that can only be feminine singular with a noun form that cannot be plural («die Koch»,
   machine output that marks a woman with the article alone) → female, and the evidence says
   the determiner decided;
5. a noun the lexicon does not know ending in -in/-innen → female; otherwise the determiner
   alone decides when it is unambiguous (eine/einer → female, einen → male).
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from functools import lru_cache

from .base import (FEMALE, MALE, NEUTRAL, UNDETECTED, Detection, Word, between_is_plain, words,
                   words_in_span)
from .lexicons import word_set


@dataclass(frozen=True)
class _Entry:
    lemma: str
    genera: frozenset[str]  # subset of {"m", "f", "n"}
    adjectival: bool
    singular: bool  # the form occurs in a singular column
    plural: bool  # the form occurs in a plural column


@lru_cache(maxsize=1)
def _lexicon() -> dict[str, tuple[_Entry, ...]]:
    """form (lower-case) → lexicon entries, built once from german-nouns' nouns.csv."""
    from german_nouns.config import CSV_FILE_PATH

    out: dict[str, list[_Entry]] = {}
    with open(CSV_FILE_PATH, encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader)
        genus_cols = [i for i, h in enumerate(header) if h.startswith("genus")]
        form_cols = [(i, "plural" in h) for i, h in enumerate(header)
                     if " singular" in h or " plural" in h]
        for row in reader:
            if "Substantiv" not in row[1]:
                continue
            genera = frozenset(row[i] for i in genus_cols if row[i] in ("m", "f", "n"))
            if not genera:
                continue
            adjectival = "adjektivische Deklination" in row[1]
            numbers: dict[str, list[bool]] = {}
            for i, is_plural in form_cols:
                if row[i]:
                    numbers.setdefault(row[i].lower(), [False, False])[is_plural] = True
            numbers.setdefault(row[0].lower(), [True, False])
            for form, (sg, pl) in numbers.items():
                out.setdefault(form, []).append(_Entry(row[0], genera, adjectival, sg, pl))
    return {k: tuple(v) for k, v in out.items()}


# Determiner readings: which of m.sg / f.sg / n.sg / pl a determiner is compatible with.
_M, _F, _N, _PL = "m.sg", "f.sg", "n.sg", "pl"
_DER_TYPE = {"er": {_M, _F, _PL}, "e": {_F, _PL}, "es": {_M, _N}, "en": {_M, _PL},
             "em": {_M, _N}, "as": {_N}}
_EIN_TYPE = {"": {_M, _N}, "e": {_F, _PL}, "er": {_F, _PL}, "es": {_M, _N}, "en": {_M, _PL},
             "em": {_M, _N}}
_FIXED = {"der": {_M, _F, _PL}, "die": {_F, _PL}, "das": {_N}, "den": {_M, _PL},
          "dem": {_M, _N}, "des": {_M, _N}, "ein": {_M, _N}, "eine": {_F}, "einer": {_F},
          "einen": {_M}, "einem": {_M, _N}, "eines": {_M, _N},
          "im": {_M, _N}, "am": {_M, _N}, "vom": {_M, _N}, "zum": {_M, _N}, "beim": {_M, _N},
          "zur": {_F}}
_DER_STEMS = ("dies", "jen", "jed", "welch", "solch")
_EIN_STEMS = ("kein", "mein", "dein", "sein", "ihr", "unser", "euer", "eur")


def _determiner_readings(word: str) -> set[str] | None:
    w = word.lower()
    if w in _FIXED:
        return set(_FIXED[w])
    for stem in _DER_STEMS:
        if w.startswith(stem) and w[len(stem):] in _DER_TYPE:
            return set(_DER_TYPE[w[len(stem):]])
    for stem in _EIN_STEMS:
        if w.startswith(stem) and w[len(stem):] in _EIN_TYPE:
            return set(_EIN_TYPE[w[len(stem):]])
    return None


def _find_determiner(text: str, ws: list[Word], head: int) -> Word | None:
    """Walk left from the noun over lower-case words (attributive adjectives) to a determiner."""
    j = head - 1
    while j >= 0 and between_is_plain(text, ws[j], ws[j + 1]):
        if _determiner_readings(ws[j].text) is not None:
            return ws[j]
        if not ws[j].text[:1].islower() or j < head - 4:
            return None
        j -= 1
    return None


_INCLUSIVE = re.compile(r"\w+(?:[*:_/·]in(?:nen)?|[a-zäöüß]In(?:nen)?)$")


def _lookup(word: str) -> tuple[str, tuple[_Entry, ...]] | None:
    """Entries of the word, else of its longest compound head known to the lexicon."""
    lex = _lexicon()
    w = word.lower()
    if w in lex:
        return word, lex[w]
    for i in range(1, len(w) - 2):
        head = w[i:]
        if head in lex and len(head) >= 4:
            return word[i:].capitalize(), lex[head]
    return None


def _is_neutral_noun(word: str) -> bool:
    w = word.lower()
    return any(w == n or w.endswith(n) for n in word_set("de_neutral.txt"))


def _adjectival(word: str, det: Word | None, dative_context: bool = False) -> tuple[str, str]:
    """Gender of a nominalised adjective from its ending and determiner (see docstring)."""
    w = word.lower()
    d = det.lower if det is not None else None
    readings = _determiner_readings(d) if d else None
    if w.endswith("er"):
        return MALE, "strong masculine ending -er"
    if w.endswith("em"):
        return MALE, "strong masculine dative ending -em"
    if w.endswith("e"):
        if readings is None:
            return NEUTRAL, "bare plural form (gender-neutral)"
        if readings == {_F} or readings == {_F, _PL}:
            return FEMALE, "feminine singular (weak/mixed -e after feminine determiner)"
        if _M in readings and d not in ("die",):
            return MALE, "masculine singular (weak -e after masculine determiner)"
        if readings == {_N} or readings == {_M, _N}:
            return NEUTRAL, "neuter singular"
    if w.endswith("en"):
        if readings is None or readings == {_F, _PL}:
            return NEUTRAL, "plural form (gender-neutral)"
        if readings == {_M, _N} or d in ("einen",):
            return MALE, "masculine singular oblique case"
        if readings == {_M, _PL} and not dative_context:
            return MALE, "'den' + -en without a dative preposition: masculine accusative singular"
        if readings == {_F}:
            return FEMALE, "feminine singular oblique case"
    return UNDETECTED, "case/number ambiguous between masculine singular, feminine and plural"


def detect(text: str, span: tuple[int, int]) -> Detection:
    ws = words(text)
    idx = words_in_span(ws, span)
    if not idx:
        return Detection(UNDETECTED, ("span covers no word",), span)
    nouns = [i for i in idx if ws[i].text[:1].isupper()]
    span_words = {ws[i].lower for i in idx}
    head = nouns[-1] if nouns else idx[-1]
    word = ws[head].text
    out_span = (ws[idx[0]].start, ws[idx[-1]].end)
    evidence: list[str] = []

    if _INCLUSIVE.match(word):
        return Detection(NEUTRAL, (f"noun '{word}': gender-inclusive spelling",), out_span)
    if "und" in span_words or "oder" in span_words:
        genders = {_noun_gender(ws[i].text)[0] for i in nouns}
        if {MALE, FEMALE} <= genders:
            return Detection(NEUTRAL, (f"paired form '{text[out_span[0]:out_span[1]]}'",), out_span)

    det = _find_determiner(text, ws, head)
    if det is not None:
        out_span = (min(out_span[0], det.start), out_span[1])
        evidence.append(f"determiner '{det.text}'")
    det_readings = _determiner_readings(det.text) if det is not None else None

    if word.lower() in _INDEFINITES:
        return _epicene(text, ws, head, MALE, (f"'{word}': indefinite pronoun (grammatically masculine, "
                                               "says nothing of the referent)", *evidence), out_span)
    if _is_neutral_noun(word):
        grammatical = _grammatical_gender(word)
        return _epicene(text, ws, head, grammatical,
                        (f"noun '{word}': gender-neutral noun (data/lexicons/de_neutral.txt)", *evidence),
                        out_span)
    found = _lookup(word)
    if found is not None and any(e.adjectival for e in found[1]):
        gender, why = _adjectival(word, det, _after_dative_preposition(ws, det))
        return Detection(gender, (f"noun '{word}': nominalised adjective, {why}", *evidence), out_span)

    gender, why, number = _noun_gender(word)
    if det_readings is not None and _M not in det_readings and _N not in det_readings \
            and _F in det_readings and number == "sg" and gender != FEMALE \
            and not (found and any(e.adjectival for e in found[1])):
        # «die Koch»: a masculine noun form that cannot be plural after an article that can only
        # be feminine singular — machine output marking a woman with the article alone.
        return Detection(FEMALE, (f"noun '{word}': {why}", *evidence,
                                  "determiner can only be feminine singular with this singular noun "
                                  "form: the determiner decides"), out_span)
    if gender == UNDETECTED:
        if det_readings == {_F}:
            return Detection(FEMALE, (f"noun '{word}': {why}", *evidence,
                                      "determiner is feminine only"), out_span)
        if det_readings == {_M}:
            return Detection(MALE, (f"noun '{word}': {why}", *evidence,
                                    "determiner is masculine only"), out_span)
        if det_readings is not None and _M in det_readings and not re.search(r"in(?:nen)?$", word):
            # An unknown noun without the feminine -in suffix after «der/dem/den/ein…» is a
            # masculine loanword (Mover, Coder): the feminine reading of «der» (gen./dat.)
            # would need a feminine noun.
            return Detection(MALE, (f"noun '{word}': {why}", *evidence,
                                    "determiner allows masculine; no feminine -in suffix"), out_span)
        return Detection(UNDETECTED, (f"noun '{word}': {why}", *evidence), out_span)
    evidence.insert(0, f"noun '{word}': {why}")
    if det_readings is not None:
        wanted = {MALE: _M, FEMALE: _F, NEUTRAL: _N}[gender]
        fits_sg = wanted in det_readings and number != "pl"
        fits_pl = _PL in det_readings and number != "sg"
        if fits_pl and not fits_sg:
            evidence.append("plural" + (" (generic masculine)" if gender == MALE else ""))
        elif not fits_sg and not fits_pl:
            evidence.append("determiner does not agree with the noun (noun form decides)")
    return Detection(gender, tuple(evidence), out_span)


def _noun_gender(word: str) -> tuple[str, str, str]:
    """(gender, reason, number: "sg"|"pl"|"any") from the noun form alone."""
    found = _lookup(word)
    if found is None:
        if re.search(r"[a-zäöüß](?:in|innen)$", word) and len(word) > 5:
            return FEMALE, "-in/-innen suffix (not in lexicon)", "any"
        return UNDETECTED, "not in the german-nouns lexicon", "any"
    head, entries = found
    genera = set().union(*(e.genera for e in entries))
    sg = any(e.singular for e in entries)
    pl = any(e.plural for e in entries)
    number = "any" if sg and pl else ("pl" if pl else "sg")
    via = "" if head == word else f" (compound head '{head}')"
    if re.search(r"(?:in|innen)$", head) and "f" in genera:
        return FEMALE, f"feminine -in/-innen form{via}", number
    if len(genera) != 1:
        return UNDETECTED, f"lexicon lists several genders {sorted(genera)}{via}", number
    genus = next(iter(genera))
    if genus == "m":
        return MALE, f"masculine noun{via}", number
    if genus == "f":
        return FEMALE, f"feminine noun{via}", number
    if head.lower() in word_set("de_female_neuter.txt"):
        return FEMALE, f"neuter noun denoting a woman{via}", number
    return NEUTRAL, f"neuter noun{via}", number


# Prepositions that govern the dative: «mit den Angestellten» can be dative plural.
_DATIVE_PREPOSITIONS = frozenset({"mit", "von", "zu", "bei", "aus", "nach", "seit", "gegenüber",
                                  "außer", "samt", "entgegen"})
_INDEFINITES = frozenset({"jemand", "jemanden", "jemandem", "jemands", "jemandes", "niemand",
                          "niemanden", "niemandem"})
# 3rd-person singular pronouns and possessives, and the genders they can show. «ihm» and
# «sein…» are masculine or neuter; «ihr…» is feminine (or plural «ihr…»: their).
_PRONOUNS = {"er": {MALE}, "ihn": {MALE}, "ihm": {MALE, NEUTRAL}, "sie": {FEMALE}, "ihr": {FEMALE},
             **{"sein" + e: {MALE, NEUTRAL} for e in ("", "e", "en", "em", "er", "es")},
             **{"ihr" + e: {FEMALE} for e in ("e", "en", "em", "er", "es")}}


_PERSONAL = frozenset({"er", "ihn", "ihm", "sie", "ihr"})
_OBJECT_FORMS = frozenset({"ihn", "ihm", "ihr"})
_CLAUSE_OPENERS = frozenset({"dass", "weil", "und", "aber", "ob", "obwohl", "bis", "damit", "als",
                             "wenn", "da", "denn", "nachdem", "sodass"})


def _after_dative_preposition(ws: list[Word], det: Word | None) -> bool:
    if det is None:
        return False
    k = next((i for i, w in enumerate(ws) if w.start == det.start), None)
    return k is not None and k > 0 and ws[k - 1].lower in _DATIVE_PREPOSITIONS


def _grammatical_gender(word: str) -> str:
    """Grammatical gender of a gender-neutral noun (Person f, Mitglied n, Gast m)."""
    found = _lookup(word)
    if found is None:
        return NEUTRAL
    genera = set().union(*(e.genera for e in found[1]))
    return {"m": MALE, "f": FEMALE}.get(next(iter(genera)), NEUTRAL) if len(genera) == 1 else NEUTRAL


def _sie_is_plural(text: str, ws: list[Word], k: int) -> bool:
    """«dass sie … hatten»: the clause-final verb of «sie» ends in -en (plural)."""
    j = k + 1
    while j < len(ws) and not re.search(r"[,.;:!?]", text[ws[j - 1].end:ws[j].start]):
        j += 1
    last = ws[j - 1].lower if j - 1 > k else ""
    return last.endswith("en") and not last.endswith(("zen", "ßen"))


def _epicene(text: str, ws: list[Word], head: int, grammatical: str, evidence: tuple[str, ...],
             span: tuple[int, int]) -> Detection:
    """A word whose own gender says nothing of the referent: the first later 3rd-person
    pronoun decides only when it departs from the word's grammatical gender."""
    same_clause = True
    # the word opens the sentence (optionally after its determiner): a nominative subject
    subject = head == 0 or (head == 1 and _determiner_readings(ws[0].text) is not None)
    for k in range(head + 1, len(ws)):
        if re.search(r"[,;:!?.]", text[ws[k - 1].end:ws[k].start]) or ws[k].lower in _CLAUSE_OPENERS:
            same_clause = False
        genders = _PRONOUNS.get(ws[k].lower)
        if genders is None:
            continue
        if same_clause and ws[k].lower in _PERSONAL:
            continue  # «Die Wache hielt ihn an»: a personal pronoun in the word's own clause is someone else
        if subject and ws[k].lower in _OBJECT_FORMS:
            continue  # «Jemand fragte den Verkäufer und bat ihn …»: a later object is someone else
        if ws[k].lower == "sie" and _sie_is_plural(text, ws, k):
            continue
        pronoun = ws[k].text
        if grammatical in genders:
            return Detection(NEUTRAL, evidence + (f"pronoun '{pronoun}' follows the grammatical "
                                                  "gender: no evidence of the referent's sex",), span)
        semantic = genders - {NEUTRAL}
        if len(semantic) == 1:
            g = next(iter(semantic))
            return Detection(g, evidence + (f"pronoun '{pronoun}' departs from the grammatical gender: "
                                            f"it shows a {g} referent",), span)
        break
    return Detection(NEUTRAL, evidence, span)
