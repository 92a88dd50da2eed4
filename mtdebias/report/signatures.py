"""Signature checks: numbers shown together must agree on everything but the model.

A report puts many numbers side by side (lines in one plot, cells in one table column). When
their signatures differ in anything other than the model (other test data, other decoding
settings, another seed of the metric, another mtdebias version) the comparison may be
meaningless, so the report says so right where it happens.
"""

from __future__ import annotations

from typing import Iterable

from ..probes.validity import gate_across_languages
from ..signature import Signature

_FIELDS = ("method", "version", "data", "settings", "seed")


def _parse(signature: str) -> Signature | None:
    try:
        parsed = Signature.parse(signature)
    except (ValueError, TypeError):
        return None
    return parsed if "|" in signature else None


def comparability_key(signature: str) -> str:
    """Equal keys ⇔ comparable numbers; a signature that does not parse is its own key."""
    parsed = _parse(signature)
    return parsed.without_model() if parsed is not None else signature


def signature_differences(signatures: Iterable[str]) -> list[str]:
    """Human-readable reasons why ``signatures`` are not comparable; [] when they are.

    E.g. ``["data: 3f2a9c1d04e2 vs 77aa0f3e9b1c", "settings: beam=5 vs beam=1"]``.
    """
    unique = sorted(set(signatures))
    if len({comparability_key(s) for s in unique}) <= 1:
        return []
    parsed = [_parse(s) for s in unique]
    if any(p is None for p in parsed):
        return ["signatures in different formats: " + " vs ".join(unique)]
    reasons = []
    for name in _FIELDS:
        values = sorted({_field(p, name) for p in parsed})
        if len(values) > 1:
            reasons.append(f"{name}: " + " vs ".join(values))
    return reasons


def _field(sig: Signature, name: str) -> str:
    if name == "settings":
        return ",".join(f"{k}={v}" for k, v in sorted(sig.settings.items())) or "-"
    value = getattr(sig, name)
    return "-" if value is None else str(value)


def model_of(signature: str) -> str:
    parsed = _parse(signature)
    return parsed.model if parsed is not None else "-"


# the settings that name the language a probe ran in: one probe's suite labels (winomt_de,
# winomt_es) differ in them by design
LANGUAGE_SETTINGS = ("lang", "src_lang", "tgt_lang")


def across_labels(signature: str) -> str:
    """``signature`` as a headline with one row per suite label compares it down a column: without
    its language settings and its data. Decided so because such a column holds one metric of one
    probe in several languages, each row naming its label (so its test set): a language's own test
    data (name-gender's templates, a language's WinoMT sample) is what the row says it is, while a
    different method version, seed, decoding or gate still makes the numbers incomparable and is
    flagged — less the gate's adequacy floor, which is calibrated per language
    (:func:`~mtdebias.probes.validity.gate_across_languages`). A signature that does not parse is returned as it is (its own key)."""
    parsed = _parse(signature)
    if parsed is None:
        return signature
    settings = {k: v for k, v in parsed.settings.items() if k not in LANGUAGE_SETTINGS}
    if "gate" in settings:  # the translation-validity gate: its adequacy floor is the language's own
        settings["gate"] = gate_across_languages(str(settings["gate"]))
    return str(Signature(parsed.method, "-", parsed.model, settings, parsed.seed, parsed.version))
