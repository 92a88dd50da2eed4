"""Polish: Morfeusz 2 (the ``morfeusz2`` wheel ships the SGJP dictionary) with the clause rules
of :mod:`.clauses`.

Polish writes the first person on the verb itself: the past «byłam» is «była» + the agglutinate
«-m» (``aglt:sg:pri``), the conditional «mogłabym» is «mogła» + «by» + «-m», «powinnam» is
«powinna» + «-m». Such a word is the speaker's wherever it stands. A first-person marker
(``fin:sg:pri`` «jestem», ``bedzie:sg:pri`` «będę», a free agglutinate «żebym») makes its
clause the speaker's; then the clause's other gendered words are the speaker's too: a bare
past form after «żebym» («żebym *mógł*»), adjectives and participles in the nominative or
instrumental singular not followed by a noun they agree with («jestem *pewna* siebie», «być
*miły*», «byłem *dominującym*»), «sam/sama», a person noun in the instrumental after «być»
(«jestem *dyrektorem*»). Unlike Russian, a bare past form with no first-person marker is a third
person («Seks *był* najważniejszy»): there is no dropped-«ja» default.
"""

from __future__ import annotations

from functools import lru_cache

from .base import FEMALE, MALE, SpeakerCue, SpeakerDetection, resolve
from .clauses import Clause, Word, speaker_cues, split, tokens

_BOUNDARIES = {"że", "żeby", "żebym", "aby", "abym", "bo", "ponieważ", "gdy", "gdybym", "kiedy",
               "jeśli", "jeżeli", "jeślibym", "chociaż", "choć", "który", "która", "które", "którzy",
               "którego", "której", "których", "którym", "kto", "co", "gdzie", "i", "a", "ale", "lecz",
               "oraz", "więc", "czy", "niż", "zanim", "dopóki", "jak", "albo", "lub"}
_OTHER_SUBJECTS = {"on", "ona", "ono", "my", "wy", "oni", "one", "ty", "kto", "nikt", "wszyscy", "ktoś"}
_COPULAS = {"być", "zostać", "stać"}
_FEMININE_PERSON_SUFFIXES = ("ka", "owa", "yni", "ini")


@lru_cache(maxsize=None)
def _morfeusz():
    import morfeusz2

    return morfeusz2.Morfeusz(expand_tags=False)


def _analyses(word: str) -> list[tuple[str, list[list[str]]]]:
    """(lemma, tag fields with their '.'-separated alternatives) per segment reading."""
    return [(a[2][1].split(":")[0], [f.split(".") for f in a[2][2].split(":")]) for a in _morfeusz().analyse(word)]


def _genders(values: list[str]) -> set[str]:
    out = set()
    if {"m1", "m2", "m3"} & set(values):
        out.add(MALE)
    if "f" in values:
        out.add(FEMALE)
    return out


def _one(genders: set[str]) -> str | None:
    return genders.pop() if len(genders) == 1 else None


def _judge(words: list[str], k: int) -> Word:
    text = words[k]
    low = text.lower()
    w = Word(text)
    readings = _analyses(low)
    pos = {fields[0][0] for _, fields in readings}
    first = any(fields[0][0] == "aglt" and fields[1] == ["sg"] and fields[2] == ["pri"] for _, fields in readings)
    first |= any(fields[0][0] in ("fin", "bedzie") and fields[1] == ["sg"] and fields[2] == ["pri"]
                 for _, fields in readings)
    w.first_sg = first
    if low in _OTHER_SUBJECTS:
        w.other_person = True
        return w
    past = set()
    for _, fields in readings:
        if fields[0][0] in ("praet", "winien") and "sg" in fields[1]:
            past |= _genders(fields[2])
    own_agglutinate = any(f[0][0] == "aglt" and f[2] == ["pri"] and f[1] == ["sg"] for _, f in readings)
    if past and own_agglutinate:  # «byłam», «miałem» (not the noun «miał»), «mogłabym», «powinnam»
        w.gender, w.kind = _one(past), "first-person past/conditional form"
        if w.gender:
            return w
    if "praet" in pos and not own_agglutinate:
        # a bare past form is a third person unless a free «-m» (żebym, bym) stands in its clause
        w.other_person = True
        if past and pos <= {"praet", "winien", "part", "qub"}:
            w.gender, w.kind = _one(past), "past form after a first-person agglutinate"
            if w.gender:
                return w
    if any(f[0][0] in ("fin", "bedzie") and f[2] in (["ter"], ["sec"]) for _, f in readings) and not first:
        w.other_person = True  # «jest», «radzi»: a present of another person
    nxt = _analyses(words[k + 1].lower()) if k + 1 < len(words) else []
    # the agglutinate «-m» has the lemma «być» too: only the word's own readings count
    prev_lemmas = {lemma for lemma, f in _analyses(words[k - 1].lower()) if f[0][0] != "aglt"} if k else set()
    adjectival = set()
    cases_genders = []
    for _, fields in readings:
        cases = {"nom", "inst"} if prev_lemmas & _COPULAS else {"nom"}  # «byłem dominującym»; else «-ą» is an object
        if fields[0][0] in ("adj", "ppas", "pact") and fields[1] == ["sg"] and cases & set(fields[2]):
            g = _genders(fields[3])
            adjectival |= g
            cases_genders.append((set(fields[2]) & cases, set(fields[3])))
    idiom = low == "sam" and k + 1 < len(words) and words[k + 1].lower() == "na"  # «sam na sam»
    if adjectival and not idiom:
        agreeing_noun = any(f[0][0] == "subst" and f[1] == ["sg"] and any(set(f[2]) & c and set(f[3]) & g
                                                                         for c, g in cases_genders)
                            for _, f in nxt)
        if not agreeing_noun:
            w.gender, w.kind = _one(adjectival), "predicative adjective/participle"
            if w.gender:
                return w
    nouns = [(lemma, f) for lemma, f in readings if f[0][0] == "subst"]
    if nouns and prev_lemmas & _COPULAS and not (pos & {"adj", "ppas", "pact"}):
        person = set()
        for lemma, f in nouns:
            if f[1] == ["sg"] and {"inst", "nom"} & set(f[2]):
                if "m1" in f[3]:
                    person.add(MALE)
                elif "f" in f[3] and lemma.endswith(_FEMININE_PERSON_SUFFIXES):
                    person.add(FEMALE)
        w.gender, w.kind = _one(person), "person noun after a form of «być»"
        if w.gender:
            return w
    if not (pos & {"adj", "ppas", "pact"}):
        subject = set()
        for _, f in nouns:
            if f[1] == ["sg"] and "nom" in f[2]:
                subject |= _genders(f[3])
        w.subject_genders = frozenset(subject)
    return w


def detect(text: str) -> SpeakerDetection:
    clauses = [Clause([_judge(words, k) for k in range(len(words))], starts)
               for words, starts in split(tokens(text), _BOUNDARIES)]
    cues = speaker_cues(clauses, pro_drop=False)
    # a first-person past form is the speaker's even in a clause the rules gave to someone else
    seen = {c.word for c in cues}
    for clause in clauses:
        for w in clause.words:
            if w.first_sg and w.gender and w.text not in seen:
                cues.append(SpeakerCue(w.gender, w.text, w.kind))
    return resolve(cues)
