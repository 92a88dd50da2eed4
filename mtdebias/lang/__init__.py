"""Target-side gender detection: is the focus noun of a translation male, female, neutral —
or could we not tell (``undetected``, an outcome of its own)?

One module per language, ``mtdebias/lang/<code>.py``, each exposing ``detect(text, span) ->
Detection``; which languages have one is said once, by ``detector=True`` in the language
registry (:mod:`mtdebias.lang.languages`), and a detector module is imported when its language is
first asked for.
"""

from __future__ import annotations

import importlib
import re
from typing import Callable, Iterable, Mapping, Sequence

from ..errors import InputError
from .languages import langs_with
from .base import FEMALE, GENDERS, MALE, NEUTRAL, OUTCOMES, UNDETECTED, Detection

__all__ = ["detect_gender", "Detection", "SUPPORTED_LANGS", "undetected_rate",
           "MALE", "FEMALE", "NEUTRAL", "UNDETECTED", "OUTCOMES"]

SUPPORTED_LANGS: tuple[str, ...] = langs_with("detector")


def detector_of(lang: str) -> Callable[[str, tuple[int, int]], Detection] | None:
    """The ``detect`` function of ``mtdebias.lang.<lang>``; None for a language without one."""
    if lang not in SUPPORTED_LANGS:
        return None
    return importlib.import_module(f"{__name__}.{lang}").detect


def detect_gender(lang: str, translation: str, span: tuple[int, int] | None = None, *,
                  forms: Mapping[str, Sequence[str]] | None = None) -> Detection:
    """Gender of the focus noun phrase in `translation`.

    `span` is the [start, end) character range of the focus word (e.g. from word alignment).
    `forms` are known key-noun forms ``{"male": [...], "female": [...]}`` (template probes):
    without a span, the first occurrence of one of them becomes the span. The morphological
    detector decides; a form list entry decides only when the detector cannot (the form list
    does not know about a feminine verb agreeing with a masculine-form noun, the detector does).
    """
    detector = detector_of(lang)
    if detector is None:
        raise InputError(f"no gender detector for language {lang!r}",
                         hint=f"supported: {', '.join(SUPPORTED_LANGS)}")
    if forms is not None:
        bad = set(forms) - set(GENDERS)
        if bad:
            raise InputError(f"forms has keys {sorted(bad)}",
                             hint=f"use only {', '.join(GENDERS)}")
    if span is not None:
        start, end = span
        if not (0 <= start < end <= len(translation)):
            raise InputError(f"span {span} is outside the translation of {len(translation)} characters",
                             hint="pass [start, end) character offsets into the translation")
    form_match: tuple[str, set[str]] | None = None
    if span is None:
        if not forms:
            return Detection(UNDETECTED, ("no span",), None)
        found = _find_form(translation, forms)
        if found is None:
            return Detection(UNDETECTED, ("none of the known forms found",), None)
        span, form_match = found[0], (found[1], found[2])
    elif forms:
        text = translation[span[0]:span[1]].strip().lower()
        genders = {g for g, fs in forms.items() for f in fs if f.lower() == text}
        if genders:
            form_match = (translation[span[0]:span[1]].strip(), genders)
    detection = detector(translation, span)
    if form_match is None:
        return detection
    form, genders = form_match
    listed = "/".join(g for g in GENDERS if g in genders)
    note = f"known {listed} form '{form}'"
    if detection.gender == UNDETECTED and len(genders) == 1:
        return Detection(next(iter(genders)), detection.evidence + (note + " decides",), detection.span)
    if detection.gender != UNDETECTED and detection.gender not in genders:
        if len(genders) == 1 and detection.weak_only:
            # «Sara profeta»: a noun the lexicon lacks, guessed from its -a, against the
            # template's own list that names «profeta» the masculine form: the list knows better
            return Detection(next(iter(genders)), detection.evidence + (note + " decides over a noun-ending guess",),
                             detection.span)
        note += f" (overridden by the morphological evidence: {detection.gender})"
    return Detection(detection.gender, detection.evidence + (note,), detection.span)


def _find_form(text: str, forms: Mapping[str, Sequence[str]]
               ) -> tuple[tuple[int, int], str, set[str]] | None:
    """Earliest whole-word occurrence of any form (longest first at the same position)."""
    best = None
    for gender, fs in forms.items():
        for form in fs:
            if not form.strip():
                continue
            pattern = r"(?<!\w)" + re.escape(form.strip()) + r"(?!\w)"
            m = re.search(pattern, text, flags=re.IGNORECASE)
            if m is None:
                continue
            key = (m.start(), -(m.end() - m.start()))
            if best is None or key < best[0]:
                best = (key, (m.start(), m.end()), m.group())
    if best is None:
        return None
    matched = best[2].lower()
    genders = {g for g, fs in forms.items() for f in fs if f.strip().lower() == matched}
    return best[1], best[2], genders


def undetected_rate(detections: Iterable[Detection]) -> float:
    """Share of detections whose outcome is ``undetected``; NaN for an empty list (a rate of
    nothing is not zero)."""
    items = list(detections)
    if not items:
        return float("nan")
    return sum(d.gender == UNDETECTED for d in items) / len(items)
