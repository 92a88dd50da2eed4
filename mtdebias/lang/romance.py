"""Spanish and Italian: a person-noun lexicon, ending rules, articles and agreeing words.

No morphological analyser for es/it is in our dependencies, so each language module gives a
:class:`RomanceRules` (lexicon file, ending rules, determiner table, copulas) and this engine
applies them the same way:

1. the focus phrase is matched against the lexicon, multi-word entries first («ama de
   llaves»); a lexicon form is a strong cue (an epicene entry — «la/el periodista», «il/la
   giudice» — is no cue: agreement decides), a neutral-list noun → ``neutral``;
2. unknown nouns fall back to ending rules: marked feminine endings (-ora, -essa, -rice) are
   strong, the unmarked -o/-or/-ore masculine and -a feminine are weak (a determiner
   overrides: «la piloto»);
3. the determiner before the noun (skipping attributive adjectives, which agree too) is a
   strong cue; elided forms (l', dell', all') carry no gender;
4. if the noun is a subject (no preposition or contracted article before it), a copula or
   *essere* auxiliary after it in the same clause, followed by an -o/-a adjective or participle,
   is a strong cue («la jueza está cansada», «il medico è arrivata»).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .base import (FEMALE, MALE, NEUTRAL, Cue, Detection, between_is_plain,
                   clause_words_after, cue, resolve, words, words_in_span)
from .lexicons import person_lexicon, word_set


@dataclass(frozen=True)
class RomanceRules:
    lang: str
    lexicon: str  # file under mtdebias/data/lexicons/
    neutral: str  # file under mtdebias/data/lexicons/
    endings: tuple[tuple[str, frozenset[str], bool, str], ...]  # (regex, genders, weak, reason)
    determiners: dict[str, str]  # word → "male" | "female"
    ambiguous_determiners: frozenset[str]  # elided or genderless (l', le possessive «su»)
    prepositions: frozenset[str]  # marks the noun as not a subject
    copulas: frozenset[str]
    skip_after_copula: frozenset[str]  # adverbs and auxiliaries between copula and adjective
    clause_stops: frozenset[str]
    adjective_endings: tuple[tuple[str, str], ...]  # (regex, gender) for agreeing adjectives
    stressed_a_article: frozenset[str] = frozenset()  # es «el/un» before stressed a- feminines


def _gender_word(g: str) -> str:
    return "feminine" if g == FEMALE else "masculine"


def _adjective_gender(rules: RomanceRules, word: str) -> str | None:
    for pattern, g in rules.adjective_endings:
        if re.search(pattern, word):
            return g
    return None


def detect(rules: RomanceRules, text: str, span: tuple[int, int]) -> Detection:
    ws = words(text)
    idx = words_in_span(ws, span)
    if not idx:
        return Detection("undetected", ("span covers no word",), span)
    lex = person_lexicon(rules.lexicon)

    # 1. Longest lexicon phrase overlapping the span.
    first, last = idx[0], idx[-1]
    for n in range(lex.max_words, 0, -1):
        hits = []
        for i in range(max(0, first - n + 1), min(len(ws) - n, last) + 1):
            group = ws[i:i + n]
            if not all(between_is_plain(text, a, b) for a, b in zip(group, group[1:])):
                continue
            phrase = " ".join(w.lower for w in group)
            if phrase in lex.forms:
                hits.append((i, phrase))
        if hits:
            start_i, phrase = hits[0]
            head_i, end_i = start_i, start_i + n - 1
            break
    else:
        phrase = None
        content = [i for i in idx if ws[i].lower not in rules.determiners
                   and ws[i].lower not in rules.ambiguous_determiners]
        head_i = end_i = (content or idx)[0]
    head = ws[head_i]
    noun_text = text[head.start:ws[end_i].end]
    out_span = (head.start, ws[end_i].end)

    if noun_text.lower() in word_set(rules.neutral):
        return Detection(NEUTRAL, (f"noun '{noun_text}': gender-neutral noun "
                                   f"(mtdebias/data/lexicons/{rules.neutral})",), out_span)
    cues: list[Cue] = []
    noun_genders: set[str] = set()
    if phrase is not None:
        entries = lex.forms[phrase]
        if all(epicene for _, _, epicene in entries):
            cues.append(cue({MALE, FEMALE}, f"noun '{noun_text}' is epicene: agreement decides"))
        else:
            noun_genders = {g for g, _, epicene in entries if not epicene}
            cues.append(cue(noun_genders, f"noun '{noun_text}': lexicon form "
                                          + "/".join(sorted(_gender_word(g) for g in noun_genders))))
    else:
        w = head.lower
        for pattern, genders, weak, reason in rules.endings:
            if re.search(pattern, w):
                cues.append(Cue(genders, f"noun '{noun_text}' (not in lexicon): {reason}", weak))
                noun_genders = set(genders)
                break

    # 3. Determiner (and attributive adjectives) before the noun.
    subject = True
    j = head_i - 1
    while j >= 0 and j >= head_i - 3 and between_is_plain(text, ws[j], ws[j + 1]):
        w = ws[j].lower
        if w in rules.determiners or w in rules.ambiguous_determiners:
            g = rules.determiners.get(w)
            if w in rules.prepositions or (j > 0 and ws[j - 1].lower in rules.prepositions):
                subject = False
            out_span = (ws[j].start, out_span[1])
            if g is None:
                cues.append(cue({MALE, FEMALE}, f"determiner '{ws[j].text}' shows no gender"))
            elif (w in rules.stressed_a_article and noun_genders == {FEMALE}
                  and re.match(r"h?[aá]", head.lower)):
                cues.append(cue({MALE, FEMALE}, f"determiner '{ws[j].text}' before stressed a-: "
                                                "no gender evidence"))
            else:
                cues.append(cue(g, f"determiner '{ws[j].text}' is {_gender_word(g)}"))
            break
        if w in rules.prepositions or not w.isalpha():
            subject = False
            break
        g = _adjective_gender(rules, w)
        if g is not None:
            cues.append(cue(g, f"agreeing adjective '{ws[j].text}' is {_gender_word(g)}"))
        j -= 1
    else:
        if j >= 0 and ws[j].lower in rules.prepositions:
            subject = False

    # 4. Predicate agreement after a copula / essere.
    if subject:
        after = clause_words_after(text, ws, end_i, 6, rules.clause_stops)
        for k, j in enumerate(after):
            w = ws[j].lower
            if w in rules.determiners or w in rules.ambiguous_determiners:
                break
            if w in rules.copulas:
                for j2 in after[k + 1:]:
                    w2 = ws[j2].lower
                    if w2 in rules.skip_after_copula:
                        continue
                    if w2 in rules.determiners or w2 in rules.ambiguous_determiners:
                        break
                    g = _adjective_gender(rules, w2)
                    if g is not None:
                        cues.append(cue(g, f"agreeing predicate '{ws[j2].text}' "
                                           f"after '{ws[j].text}' is {_gender_word(g)}"))
                    break
                break
    return resolve(cues, out_span)
