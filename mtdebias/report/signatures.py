"""Signature checks: numbers shown together must agree on everything but the model.

A report puts many numbers side by side (lines in one plot, cells in one table column). When
their signatures differ in anything other than the model (other test data, other decoding
settings, another seed of the metric, another mtdebias version) the comparison may be
meaningless, so the report says so right where it happens.
"""

from __future__ import annotations

from typing import Iterable

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
