"""Ukrainian: pymorphy3 (``pymorphy3-dicts-uk``) morphology with the clause rules of
:mod:`.clauses` — no Ukrainian dependency parser installs offline.

Gendered words: past-tense singular verbs («був/була»), adjectives and participles in the
nominative or instrumental singular used as predicates («я впевнена», «залишився
*спокійним*»; not when a noun they agree with follows, nor after a preposition), «сам/сама»,
«один/одна», a person noun in the instrumental after «бути/є/стати» («бути *вчителем*»).
"""

from __future__ import annotations


from ..slavic_pymorphy import analyzer
from .base import FEMALE, MALE, SpeakerDetection, resolve
from .clauses import Clause, Word, speaker_cues, split, tokens

_GENDER = {"masc": MALE, "femn": FEMALE}
_BOUNDARIES = {"що", "щоб", "бо", "коли", "якщо", "хоча", "хоч", "поки", "доки", "аби", "ніж",
               "який", "яка", "яке", "які", "якого", "якої", "яким", "якій", "хто", "де", "куди",
               "і", "й", "та", "а", "але", "проте", "тому", "чому", "чи"}
_OTHER_SUBJECTS = {"він", "вона", "воно", "ми", "ви", "вони", "ти", "хто", "це", "що-небудь", "щось",
                   "ніхто", "ніщо", "все", "усе", "всі", "усі"}
_PREPOSITIONS = {"з", "із", "зі", "над", "під", "перед", "за", "між", "поміж"}
_COPULAS = {"бути", "є", "був", "була", "будучи", "стати", "став", "стала", "стаю", "буду"}


def _one(genders: set[str]) -> str | None:
    return genders.pop() if len(genders) == 1 else None


def _judge(words: list[str], k: int, morph) -> Word:
    text = words[k]
    low = text.lower()
    parses = morph.parse(low)
    w = Word(text)
    if low == "я":
        w.first_sg = True
        return w
    if low in _OTHER_SUBJECTS:
        w.other_person = True
        return w
    prev = words[k - 1].lower() if k else ""
    past = {_GENDER[p.tag.gender] for p in parses
            if p.tag.POS == "VERB" and p.tag.tense == "past" and p.tag.gender in _GENDER}
    if past and all(p.tag.POS != "VERB" or p.tag.tense == "past" for p in parses) \
            and (prev in ("я", "не") or not _reads_as_noun(words, k, parses, morph)):
        w.gender, w.kind = _one(past), "past-tense verb"
        if w.gender:
            return w
    nxt = [p.tag for p in morph.parse(words[k + 1].lower())] if k + 1 < len(words) else []
    adjectival = [p.tag for p in parses if p.tag.POS in ("ADJF", "ADJS", "PRTF", "PRTS", "NUMR", "NPRO")]
    predicative = [t for t in adjectival if t.case in ("nomn", "ablt", None) and t.number != "plur"
                   and t.gender in _GENDER and (t.POS != "NPRO" or low in ("сам", "сама", "той"))]
    if any(t.case == "ablt" for t in predicative) and prev != "себе" and \
            any(p.tag.POS == "NOUN" and p.tag.case == "accs" for p in morph.parse(prev)):
        predicative = []  # «залишала будинок безладним»: it predicates the object, not the speaker
    if predicative and prev not in _PREPOSITIONS:
        agreeing_noun = any(n.POS == "NOUN" and n.gender in {t.gender for t in predicative}
                            and n.case in {t.case for t in predicative} | {None} for n in nxt)
        if not agreeing_noun:
            w.gender, w.kind = _one({_GENDER[t.gender] for t in predicative}), "predicative adjective"
            if w.gender:
                return w
    nouns = [p.tag for p in parses if p.tag.POS == "NOUN"]
    person = [t for t in nouns if t.case == "ablt" and "anim" in t and t.gender in _GENDER and t.number != "plur"]
    if person and prev in _COPULAS:
        w.gender, w.kind = _one({_GENDER[t.gender] for t in person}), f"person noun after '{prev}'"
        if w.gender:
            return w
    subject = {_GENDER[t.gender] for t in nouns if t.case in ("nomn", None) and t.gender in _GENDER
               and t.number != "plur"}
    subject |= {_GENDER[p.tag.gender] for p in parses if p.tag.POS == "NPRO" and p.tag.case == "nomn"
                and p.tag.gender in _GENDER}
    w.subject_genders = frozenset(subject)
    return w


def _finite_verb_only(morph, word: str) -> bool:
    parses = morph.parse(word.lower())
    return bool(parses) and all(p.tag.POS == "VERB" and (p.tag.tense or p.tag.person) for p in parses)


def _reads_as_noun(words: list[str], k: int, parses, morph) -> bool:
    """«правила» is a past verb and a noun; the dictionary also lists rare nouns for common
    verbs («хотів», «стала»). Read the noun when a preposition, conjunction or adjective stands
    before the word, or when the clause already has a finite verb of its own."""
    if not any(p.tag.POS == "NOUN" for p in parses):
        return False
    if k and any(p.tag.POS in ("PREP", "CONJ", "ADJF", "NUMR") for p in morph.parse(words[k - 1].lower())):
        return True
    return any(_finite_verb_only(morph, w) for j, w in enumerate(words) if j != k)


def detect(text: str) -> SpeakerDetection:
    morph = analyzer("uk")
    clauses = [Clause([_judge(words, k, morph) for k in range(len(words))], starts)
               for words, starts in split(tokens(text), _BOUNDARIES)]
    return resolve(speaker_cues(clauses))
