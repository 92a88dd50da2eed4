"""A small generated parallel corpus to give word aligners something to learn from.

fast_align and eflomal are trained on the sentences they align; a test or a probe with a few
dozen pairs gives them too little co-occurrence evidence. These simple, literal sentence pairs
(written for this project) teach the aligner function words and word order for en→de/fr/es/ru,
and contain first names and surnames so that names learn to align to themselves.
"""

from __future__ import annotations

import random

# (en, de, fr, es, ru) — translations chosen to be word-for-word where the language allows.
_SUBJECTS = [
    ("the doctor", "der Arzt", "le médecin", "el médico", "врач"),
    ("the teacher", "der Lehrer", "le professeur", "el profesor", "учитель"),
    ("the child", "das Kind", "l'enfant", "el niño", "ребёнок"),
    ("the dog", "der Hund", "le chien", "el perro", "собака"),
    ("the man", "der Mann", "l'homme", "el hombre", "мужчина"),
    ("the woman", "die Frau", "la femme", "la mujer", "женщина"),
    ("my friend", "mein Freund", "mon ami", "mi amigo", "мой друг"),
    ("the baker", "der Bäcker", "le boulanger", "el panadero", "пекарь"),
]
_VERBS = [
    ("sees", "sieht", "voit", "ve", "видит"),
    ("likes", "mag", "aime", "quiere", "любит"),
    ("calls", "ruft", "appelle", "llama", "зовёт"),
    ("visits", "besucht", "visite", "visita", "навещает"),
    ("helps", "hilft", "aide", "ayuda", "помогает"),
]
_OBJECTS = [
    ("the house", "das Haus", "la maison", "la casa", "дом"),
    ("the city", "die Stadt", "la ville", "la ciudad", "город"),
    ("the car", "das Auto", "la voiture", "el coche", "машину"),
    ("the book", "das Buch", "le livre", "el libro", "книгу"),
    ("the garden", "den Garten", "le jardin", "el jardín", "сад"),
]
_TIMES = [
    ("today", "heute", "aujourd'hui", "hoy", "сегодня"),
    ("tomorrow", "morgen", "demain", "mañana", "завтра"),
    ("again", "wieder", "encore", "otra vez", "снова"),
    ("often", "oft", "souvent", "a menudo", "часто"),
]
# (latin form, cyrillic form)
_FIRST = [("Anna", "Анна"), ("Peter", "Пётр"), ("Maria", "Мария"), ("Thomas", "Томас"),
          ("Laura", "Лаура"), ("David", "Давид"), ("Sofia", "София"), ("Martin", "Мартин"),
          ("Elena", "Елена"), ("Paul", "Пауль"), ("Julia", "Юлия"), ("Victor", "Виктор")]
_LAST = [("Berger", "Бергер"), ("Novak", "Новак"), ("Klein", "Кляйн"), ("Moreau", "Моро"),
         ("Lopez", "Лопес"), ("Fischer", "Фишер"), ("Martins", "Мартинс"), ("Weber", "Вебер")]
_SAYS = ("said", "sagte", "a dit", "dijo", "сказал")
_FEMALE = {"Anna", "Maria", "Laura", "Sofia", "Elena", "Julia"}

LANGS = {"de": 1, "fr": 2, "es": 3, "ru": 4}


def seed_pairs(tgt_lang: str, n: int = 300, seed: int = 0) -> tuple[list[str], list[str]]:
    """``n`` generated (English, ``tgt_lang``) sentence pairs; deterministic in ``seed``."""
    if tgt_lang not in LANGS:
        raise ValueError(f"no seed corpus for en-{tgt_lang}; available: {', '.join(LANGS)}")
    col = LANGS[tgt_lang]
    rng = random.Random(seed)
    sources, targets = [], []
    for k in range(n):
        first, last = rng.choice(_FIRST), rng.choice(_LAST)
        name_en = f"{first[0]} {last[0]}" if k % 2 else first[0]
        name_tgt_pair = (first[1], last[1]) if tgt_lang == "ru" else (first[0], last[0])
        name_tgt = " ".join(name_tgt_pair) if k % 2 else name_tgt_pair[0]
        subj, verb, obj, time = (rng.choice(_SUBJECTS), rng.choice(_VERBS), rng.choice(_OBJECTS),
                                 rng.choice(_TIMES))
        form = k % 3
        if form == 0:
            src = f"{subj[0].capitalize()} {verb[0]} {obj[0]} {time[0]}."
            tgt = f"{subj[col][0].upper()}{subj[col][1:]} {verb[col]} {obj[col]} {time[col]}."
        elif form == 1:
            src = f"{name_en} {verb[0]} {obj[0]} {time[0]}."
            tgt = f"{name_tgt} {verb[col]} {obj[col]} {time[col]}."
        else:
            # German reported speech keeps verb-second order without "dass"; English drops "that".
            conj = {"de": "", "fr": " que", "es": " que", "ru": " что"}[tgt_lang]
            comma = "," if tgt_lang in ("de", "ru") else ""
            src = f"{name_en} {_SAYS[0]} {subj[0]} {verb[0]} {obj[0]}."
            says = _SAYS[col] + ("а" if tgt_lang == "ru" and first[0] in _FEMALE else "")
            tgt = f"{name_tgt} {says}{comma}{conj} {subj[col]} {verb[col]} {obj[col]}."
        sources.append(src)
        targets.append(tgt)
    return sources, targets
