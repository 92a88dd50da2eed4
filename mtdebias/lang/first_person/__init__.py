"""Who is "I"? The grammatical gender a translation gives a first-person speaker.

``detect_speaker(lang, translation)`` → :class:`SpeakerDetection` (``male`` / ``female`` /
``undetected``, with the words and reasons it rests on). Languages and the offline tools behind
them (each installs from PyPI with its data; nothing is downloaded at run time):

* ``ru`` — Natasha's dependency parse + pymorphy3 (:mod:`.russian`);
* ``uk`` — pymorphy3 with clause rules; no Ukrainian parser installs offline (:mod:`.ukrainian`);
* ``cs`` — spaCy ``cs_core_news_sm`` parse and morphology (:mod:`.czech`);
* ``pl`` — Morfeusz 2 (SGJP dictionary) with clause rules (:mod:`.polish`).

Other Slavic languages (be, bg, hr, mk, sk, sl, sr) are not supported: no morphological analyser
for them installs offline with its data, and guessing from endings would be unchecked — each
supported language has a hand-labelled gold set (eval/gold/gest/README.md).
"""

from __future__ import annotations

import importlib

from ...errors import InputError
from ..languages import langs_with, language
from .base import FEMALE, MALE, SPEAKER_OUTCOMES, UNDETECTED, SpeakerCue, SpeakerDetection


SPEAKER_LANGS: tuple[str, ...] = langs_with("first_person")


def check_speaker_lang(lang: str) -> None:
    if lang in SPEAKER_LANGS:
        return
    why = language(lang).notes.get("first_person", "the language does not mark a first-person speaker's "
                                                   "gender in a way this detector reads")
    raise InputError(f"no first-person speaker-gender detector for language {lang!r}: {why}",
                     hint=f"supported: {', '.join(SPEAKER_LANGS)}")


def detect_speaker(lang: str, translation: str) -> SpeakerDetection:
    """The gender the translation gives its first-person speaker (see the module docstring)."""
    check_speaker_lang(lang)
    if not translation.strip():
        return SpeakerDetection(UNDETECTED, (), "empty translation")
    # the module the language registry names, imported on first use (parsers load slowly)
    module = importlib.import_module(f"{__name__}.{language(lang).first_person}")
    return module.detect(translation)


__all__ = ["detect_speaker", "check_speaker_lang", "SpeakerDetection", "SpeakerCue", "SPEAKER_LANGS",
           "SPEAKER_OUTCOMES", "MALE", "FEMALE", "UNDETECTED"]
