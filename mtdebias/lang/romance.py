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
   is a strong cue («la jueza está cansada», «il medico è arrivata»);
5. an epicene noun that nothing in its phrase agrees with («l'insegnante», «su periodista»)
   and the indefinite «qualcuno»/«alguien» look further, to the first reference in a later
   clause: a gendered clitic before a verb («le ha chiesto», «gli disse», «lo ha ringraziato»,
   «la llamó»), a subject pronoun («lei», «él»), or — after a subordinator with no subject of
   its own — a null-subject predicate («perché era nuovo», «porque estaba cansada»). For an
   indefinite only a feminine reference departs from the default masculine. Nothing found:
   the translation does not express the referent's gender → ``neutral``.
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
    # Step 5 (epicene nouns and indefinites):
    indefinites: frozenset[str] = frozenset()  # qualcuno / alguien: default masculine
    clitics: tuple[tuple[str, str], ...] = ()  # gendered object clitics (before a verb)
    subject_pronouns: tuple[tuple[str, str], ...] = ()
    subordinators: frozenset[str] = frozenset()  # open a clause whose null subject may be the noun
    verb_pattern: str = r"$^"  # a word that looks like a finite verb (after a clitic)
    auxiliaries: frozenset[str] = frozenset()  # finite auxiliaries (after a clitic)
    predicate_articles: tuple[tuple[str, str], ...] = ()  # «era un bullo»: article of a predicate noun


def _gender_word(g: str) -> str:
    return "feminine" if g == FEMALE else "masculine"


def _adjective_gender(rules: RomanceRules, word: str) -> str | None:
    if re.search(r"(ando|endo|iendo)$", word):
        return None  # a gerund («está enseñando») does not agree
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
        # (a span that starts with a preposition, «a alguien», is headed by what follows it)
        content = [i for i in idx if ws[i].lower not in rules.determiners
                   and ws[i].lower not in rules.ambiguous_determiners
                   and ws[i].lower not in rules.prepositions]
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
    attributive: list[Cue] = []  # adjectives count only between a determiner and the noun
    j = head_i - 1
    while j >= 0 and j >= head_i - 3 and between_is_plain(text, ws[j], ws[j + 1]):
        w = ws[j].lower
        if w in rules.determiners or w in rules.ambiguous_determiners:
            cues.extend(attributive)
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
        if w in rules.copulas:  # «Esta era muy amado»: a determiner beyond the verb is not this word's
            break
        g = _adjective_gender(rules, w)
        if g is not None:
            attributive.append(cue(g, f"agreeing adjective '{ws[j].text}' is {_gender_word(g)}"))
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
            if w in ("se", "si") and k + 1 < len(after) and ws[after[k + 1]].lower not in rules.copulas:
                break  # a reflexive verb («se queja»), not «si è …» before a participle
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
    detection = resolve(cues, out_span)
    indefinite = noun_text.lower() in rules.indefinites
    epicene = any(c.genders == {MALE, FEMALE} and "epicene" in c.reason for c in cues)
    # a noun that neither the lexicon nor an ending rule knows, behind an article that shows no
    # gender («l'auditor»), is in the same position as an epicene one (a span on a bare
    # apostrophe, an article or a preposition is an alignment error, and stays undetected)
    epicene = epicene or (phrase is None and not noun_genders and head.lower.isalpha()
                          and head.lower not in rules.determiners
                          and head.lower not in rules.ambiguous_determiners
                          and head.lower not in rules.prepositions)
    gendered = [c for c in cues if not c.weak and len(c.genders) == 1]
    if detection.gender != "undetected" and not indefinite:
        return detection
    if indefinite:
        # «qualcuno è stato …»: masculine agreement is the default of an indefinite
        gendered = [c for c in gendered if c.genders != {MALE}]
        if gendered:
            return resolve(gendered, out_span)
    if not (indefinite or epicene) or gendered:
        return detection
    # the sentence subject: its phrase opens the sentence
    opens_sentence = all(ws[i].lower in rules.determiners or ws[i].lower in rules.ambiguous_determiners
                         for i in range(0, head_i))
    return _later_reference(rules, text, ws, end_i, detection, indefinite, opens_sentence)


def _looks_finite(rules: RomanceRules, word: str) -> bool:
    return word in rules.auxiliaries or re.search(rules.verb_pattern, word) is not None


def _later_reference(rules: RomanceRules, text: str, ws, end_i: int, detection: Detection,
                     indefinite: bool, subject: bool) -> Detection:
    """Step 5: the first gendered reference to the noun in a later clause (see docstring).

    When the noun is the sentence subject, an object clitic in a coordinated clause is someone
    else («l'analista ha aiutato il sarto e gli ha dato …»: «gli» is the tailor); in a
    subordinate clause it may be the noun («l'inserviente … perché le è stato detto»).
    """
    evidence = tuple(e for e in detection.evidence
                     if not e.startswith(("ambiguous", "no gender cue", "conflicting")))
    if indefinite:
        evidence = tuple(e for e in evidence if "masculine ending" not in e)
        evidence += (f"'{text[detection.span[0]:detection.span[1]]}': indefinite pronoun "
                     "(grammatically masculine)",)
    clitics, subjects = dict(rules.clitics), dict(rules.subject_pronouns)
    later = False
    subordinate = False
    found: tuple[str, str] | None = None
    for k in range(end_i + 1, len(ws)):
        w = ws[k].lower
        boundary = re.search(r"[,;:]", text[ws[k - 1].end:ws[k].start]) is not None
        if boundary or w in rules.clause_stops or w in rules.subordinators:
            later = True
            subordinate = w in rules.subordinators
        if not later:
            continue
        if (subordinate or not subject) and w in ("l'", "l’") and k + 2 < len(ws) \
                and ws[k + 1].lower in rules.auxiliaries:
            g = _adjective_gender(rules, ws[k + 2].lower)
            if g is not None:  # «l'ha esaminata»: the participle agrees with the object
                found = (g, f"object 'l'' with agreeing participle '{ws[k + 2].text}'")
                break
        enclitic = re.search(r"(?:ar|er|ir|ndo)(lo|la)$", w) if rules.lang == "it" else None
        if enclitic and (subordinate or not subject):  # «licenziarlo», «aiutandola»
            found = ((MALE if enclitic.group(1) == "lo" else FEMALE), f"enclitic pronoun in '{ws[k].text}'")
            break
        if w in clitics and (subordinate or not subject) and k + 1 < len(ws) \
                and _looks_finite(rules, ws[k + 1].lower):
            found = (clitics[w], f"clitic '{ws[k].text}' before '{ws[k + 1].text}'")
            break
        if w in subjects:
            found = (subjects[w], f"pronoun '{ws[k].text}'")
            break
        if w in rules.subordinators:
            g = _null_subject_predicate(rules, ws, k + 1)
            if g is not None:
                found = g
                break
    if found is None:
        return Detection(NEUTRAL, evidence + ("no agreeing word or pronoun: the translation does not "
                                              "express the referent's gender",), detection.span)
    g, why = found
    if indefinite and g == MALE:
        return Detection(NEUTRAL, evidence + (f"{why} follows the default masculine: no evidence of "
                                              "the referent's sex",), detection.span)
    return Detection(g, evidence + (f"{why} refers to it (later clause): {_gender_word(g)}",),
                     detection.span)


def _null_subject_predicate(rules: RomanceRules, ws, k: int) -> tuple[str, str] | None:
    """«perché era nuovo», «perché si è schiantata»: copula/auxiliary right after the
    subordinator (no subject of its own), then an agreeing adjective or participle."""
    while k < len(ws) and ws[k].lower in ("non", "no", "si", "se", "ci", "ne"):
        k += 1
    if k >= len(ws) or ws[k].lower not in rules.copulas:
        return None
    copula = ws[k].text
    for j in range(k + 1, min(len(ws), k + 4)):
        w = ws[j].lower
        if w in rules.skip_after_copula:
            continue
        articles = dict(rules.predicate_articles)
        if w in articles:
            return articles[w], f"predicate noun after '{copula} {ws[j].text}'"
        if w in rules.determiners or w in rules.ambiguous_determiners:
            return None
        g = _adjective_gender(rules, w)
        if g is not None:
            return g, f"null-subject predicate '{copula} … {ws[j].text}'"
        return None
    return None
