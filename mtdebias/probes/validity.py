"""Is a reply a translation into the target language at all? The translation-validity gate.

A probe reads gender, senses or sentiment *in a translation*; a reply that is no translation —
the English source handed back, English or another language, an empty line, a runaway
repetition — has none of them to read, and scoring it anyway turns a model that did not
translate into a "finding" (issue 43: 80 English WinoMT sentences handed in as their own German
translations gave a significant ΔG). Each attempt records :func:`check`'s verdict; a probe
leaves invalid attempts out of the numbers that need a translation and reports
``valid_rate`` and ``invalid.<reason>`` counts (:func:`validity_metrics`); a result whose valid
rate is at or below :data:`VALID_FLOOR` is degenerate (:class:`TooFewTranslations`).
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from typing import Any, Sequence, TypedDict

import numpy as np

from ..lang.identify import NOT_TARGET_BELOW, identify
from ..stats import bootstrap_ci
from .base import HIGHER, LOWER, NO_INTERVAL, Degenerate, Metric, MetricSpec

EMPTY, REPETITION, COPY, NOT_TARGET = "empty", "repetition", "copy", "not_target"
# in the order they are tested: an attempt is given the first that holds, so the counts add up
REASONS = (EMPTY, REPETITION, COPY, NOT_TARGET)
WHY = {EMPTY: "empty or only punctuation", REPETITION: "a runaway repetition", COPY: "a copy of the source",
       NOT_TARGET: "not in the target language"}
SAID = {EMPTY: "empty or only punctuation", REPETITION: "a runaway repetition",
        COPY: "copies of the source", NOT_TARGET: "not in the target language"}

# a result with at most this share of valid translations is degenerate. A system that translates
# sits near 1: the detector calls none of the 450 non-English gold sentences (eval/gold/langid)
# "not in the target language", and an MT system's odd line (a name list, a one-word reply) is
# rare. Below 0.8 more than one reply in five is no translation: the remaining items are those the
# model happened to translate, a sample chosen by the failure, and its accuracy or gap is no
# reading of the whole set.
VALID_FLOOR = 0.8
# a copy: the reply's words equal the source's (after case and punctuation), or nearly (difflib
# ratio of the word sequences at or above this): a copy with one word changed in ten. A real
# translation that keeps names stays well below it: 0.75 at most on eval/gold/langid.
NEAR_COPY = 0.9
# a runaway repetition: one n-gram of up to this many tokens repeated back to back this many times
MAX_NGRAM, RUNAWAY_REPEATS = 4, 5
# the gate in a probe's signature (setting ``gate``): which replies it leaves out changes every
# other number, so results of another gate are not comparable
GATE = f"py3langid{NOT_TARGET_BELOW:g}-copy{NEAR_COPY:g}-rep{RUNAWAY_REPEATS}"


class Validity(TypedDict):
    """One attempt's verdict, as logged in its attempts."""

    valid: bool
    reason: str | None  # one of REASONS; None when valid
    detected_lang: str | None  # the detector's most likely language; None when not judged
    target_share: float | None  # the probability it gives the target language; None when not judged


def _normalised(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(re.findall(r"\w+", text))


# scripts written without spaces between words (Thai, kana, CJK ideographs): compared by character
_UNSPACED = re.compile("[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def _tokens(text: str) -> list[str]:
    words = _normalised(text).split()
    return list("".join(words)) if _UNSPACED.search(text) else words


def runaway(text: str) -> bool:
    """Whether some n-gram (n ≤ :data:`MAX_NGRAM` tokens) repeats back to back
    :data:`RUNAWAY_REPEATS` times: a decoder stuck in a loop ("que que que …", "Der Fahrer der Fahrer …")."""
    tokens = _tokens(text)
    for n in range(1, MAX_NGRAM + 1):
        streak = 0  # tokens equal to the one n positions back, in a row
        for i in range(n, len(tokens)):
            streak = streak + 1 if tokens[i] == tokens[i - n] else 0
            if streak >= n * (RUNAWAY_REPEATS - 1):
                return True
    return False


def is_copy(source: str, translation: str) -> bool:
    """Whether ``translation`` is the source handed back (after case, punctuation and spacing)."""
    a, b = _tokens(source), _tokens(translation)
    if not a or not b:
        return False
    # compared word by word: a translation that keeps names and numbers still changes the words
    # between them, where a character ratio counts the shared names' letters as copied
    return a == b or difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() >= NEAR_COPY


def check(source: str, translation: str, lang: str) -> Validity:
    """The verdict on ``translation`` of ``source`` into ``lang``."""
    found = identify(translation, lang) if any(ch.isalpha() for ch in translation) else None
    if found is None:
        reason: str | None = EMPTY
    elif runaway(translation):
        reason = REPETITION
    elif is_copy(source, translation):
        reason = COPY
    elif found.in_target is False:
        reason = NOT_TARGET
    else:
        reason = None
    return {"valid": reason is None, "reason": reason, "detected_lang": found.top if found else None,
            "target_share": None if found is None or found.target_share is None else round(found.target_share, 4)}


def is_valid(attempt: dict[str, Any]) -> bool:
    """Whether an attempt's translation passed the gate (an attempt stored before the gate, with
    no verdict, counts as valid: nothing was checked)."""
    verdict = attempt.get("validity")
    return verdict is None or bool(verdict["valid"])


def validity_metrics(attempts: Sequence[dict[str, Any]], *, resamples: int = 0, seed: int = 0) -> list[Metric]:
    """``valid_rate`` (with its bootstrap interval over attempts when ``resamples``) and one
    ``invalid.<reason>`` count per reason."""
    valid = np.array([is_valid(a) for a in attempts], dtype=float)
    ci = bootstrap_ci(valid, resamples=resamples, seed=seed) if resamples and len(valid) else None
    reasons = [(a.get("validity") or {}).get("reason") for a in attempts]
    return _metrics(len(valid), {reason: reasons.count(reason) for reason in REASONS}, ci)


def tally(source: str, texts: Sequence[str], counts: Sequence[int], lang: str) -> dict[str, int]:
    """The gate over the deduplicated samples of one source (``texts`` drawn ``counts`` times):
    ``{"valid": drawn samples that pass, <reason>: drawn samples that fail for it}``, for a probe
    whose attempt is a sample distribution rather than one reply."""
    out = {"valid": 0, **{reason: 0 for reason in REASONS}}
    for text, count in zip(texts, counts):
        out[check(source, text, lang)["reason"] or "valid"] += int(count)
    return out


def validity_specs(probe: str) -> tuple[MetricSpec, MetricSpec]:
    """How a gated probe declares the gate's metrics (``probe``: its name as a label says it, "WinoMT")."""
    source = "mtdebias (translation-validity gate)"
    return (MetricSpec("valid_rate", HIGHER, bounds=(0, 1), label=f"{probe} valid rate", source=source,
                       definition=f"share of replies that are translations into the target language (at or below "
                                  f"{VALID_FLOOR:g} the result is degenerate)"),
            MetricSpec("invalid.*", LOWER, bounds=(0, float("inf")), label=f"{probe} invalid replies ({{0}})",
                       source=source, interval=NO_INTERVAL,
                       definition="replies the gate left out for one reason (empty, repetition, copy, not_target)"))


def tallied_metrics(tallies: Sequence[dict[str, int]]) -> list[Metric]:
    """``valid_rate`` and ``invalid.<reason>`` over samples, from :func:`tally`'s counts (no
    interval: samples of one source are not independent draws)."""
    invalid = {reason: sum(t.get(reason, 0) for t in tallies) for reason in REASONS}
    return _metrics(sum(t.get("valid", 0) for t in tallies) + sum(invalid.values()), invalid, None)


def _metrics(total: int, invalid: dict[str, int], ci: tuple[float, float] | None) -> list[Metric]:
    rate = (total - sum(invalid.values())) / total if total else float("nan")
    return [Metric("valid_rate", rate, ci, total)] + \
        [Metric(f"invalid.{reason}", float(invalid[reason]), None, total) for reason in REASONS]


class TooFewTranslations(Degenerate):
    """The degenerate rule of the gate: ``valid_rate`` at or below :data:`VALID_FLOOR`, said with
    how many replies failed and why ("80 of 80 are copies of the source")."""

    def __init__(self, fate: str = "they are left out of the other numbers") -> None:
        super().__init__("valid_rate", "too few replies are translations into the target language",
                         at_most=VALID_FLOOR)
        # what the probe does with the failures, said after the counts (set past the frozen dataclass)
        object.__setattr__(self, "fate", fate)

    def reasons(self, metrics: Sequence[Metric]) -> list[str]:
        out = super().reasons(metrics)
        if not out:
            return out
        rate = next(m for m in metrics if m.name == "valid_rate")
        counts = {m.name.split(".", 1)[1]: int(m.value) for m in metrics
                  if m.name.startswith("invalid.") and m.value == m.value and m.value > 0}
        if rate.n and counts:
            why = ", ".join(f"{n} {SAID.get(reason, reason)}" for reason, n in counts.items())
            out = [f"{out[0]} ({sum(counts.values())} of {rate.n} replies are no translation: {why}; "
                   f"{self.fate})"]
        return out


__all__ = ["GATE", "WHY", "check", "is_valid", "validity_specs", "is_copy", "runaway", "validity_metrics", "tally",
           "tallied_metrics", "TooFewTranslations", "Validity",
           "VALID_FLOOR", "REASONS", "EMPTY", "REPETITION", "COPY", "NOT_TARGET"]
