"""Paired tests of two systems on the same probe items, as each probe's metrics declare them.

* ``mcnemar``: McNemar's test on the per-item outcome :meth:`BaseProbe.correct` (attempts
  whose outcome is None on either side are left out; a metric of one group of items pairs the
  attempts :meth:`BaseProbe.counts_toward` it).
* ``bootstrap``: one paired bootstrap for every probe: the probe's units
  (:meth:`BaseProbe.unit`) are resampled with replacement, the same draw for both systems,
  and every tested metric is recomputed with :meth:`BaseProbe.metrics` on both resamples; the
  p-value is :func:`mtdebias.stats.paired.centered_p_value` (calibrated under the null by
  tests/test_calibration.py). A metric undefined (NaN) for either system is not tested, and
  says so: its row has ``test`` "not tested", ``p_value`` None and ``why`` (which system left it
  undefined); an undefined value is None, never a number to compare.
  A probe with a faster exact equivalent (BLEU from sufficient statistics) provides
  ``paired_test(metric, a, b, resamples=, seed=)`` and is asked first.
"""

from __future__ import annotations

import math
from itertools import chain
from typing import Any, Hashable, Protocol, Sequence

import numpy as np

from .paired import centered_p_value, mcnemar, percentile_ci

# the paired tests a metric may declare (``MetricSpec.test``)
MCNEMAR, BOOTSTRAP = "mcnemar", "bootstrap"


class PairedProbe(Protocol):
    """What the paired tests ask of a probe (:class:`mtdebias.probes.base.BaseProbe` has it all);
    a protocol here because the statistics sit below the probes and import none of them."""

    name: str

    def metrics(self, attempts: Sequence[dict[str, Any]], *, ci: bool = True) -> list: ...

    def spec(self, metric: str) -> Any: ...

    def unit(self, attempt: dict[str, Any], index: int) -> Hashable: ...

    def correct(self, attempt: dict[str, Any]) -> bool | None: ...

    def counts_toward(self, metric: str, attempt: dict[str, Any]) -> bool: ...


def _values(probe: PairedProbe, attempts: Sequence[dict[str, Any]]) -> dict[str, float]:
    return {m.name: m.value for m in probe.metrics(attempts, ci=False)}


def _units(probe: PairedProbe, attempts: Sequence[dict[str, Any]]) -> list[list[int]]:
    groups: dict[Any, list[int]] = {}
    for index, attempt in enumerate(attempts):
        groups.setdefault(probe.unit(attempt, index), []).append(index)
    return list(groups.values())


def paired_tests(probe: PairedProbe, a: Sequence[dict[str, Any]], b: Sequence[dict[str, Any]], *,
                 resamples: int = 1000, seed: int = 0) -> list[dict[str, Any]]:
    """One row per tested metric: metric, test, baseline_value (a), variant_value (b), p_value.

    ``a`` and ``b`` are the two systems' attempts on the same items in the same order."""
    if len(a) != len(b):
        raise ValueError(f"paired attempts must cover the same items: {len(a)} vs {len(b)}")
    value_a, value_b = _values(probe, a), _values(probe, b)
    rows: list[dict[str, Any]] = []
    bootstrapped: list[str] = []
    for name in value_a:
        spec = probe.spec(name)
        if spec is None or spec.test is None or name not in value_b:
            continue
        undefined = [side for side, value in (("baseline", value_a[name]), ("variant", value_b[name]))
                     if math.isnan(value)]
        if undefined:  # a ΔH below its floor, a t without coverage: no number to test
            rows.append(untested(name, spec.better, value_a[name], value_b[name],
                                 f"undefined for the {' and the '.join(undefined)}"))
            continue
        custom = getattr(probe, "paired_test", None)
        if custom is not None:
            row = custom(name, a, b, resamples=resamples, seed=seed)
            if row is not None:
                rows.append({"metric": name, "better": spec.better, **row})
                continue
        if spec.test == MCNEMAR:
            pairs = [(probe.correct(x), probe.correct(y)) for x, y in zip(a, b) if probe.counts_toward(name, x)]
            pairs = [(x, y) for x, y in pairs if x is not None and y is not None]
            if not pairs:
                continue
            test = mcnemar([x for x, _ in pairs], [y for _, y in pairs])
            rows.append({"metric": name, "better": spec.better, "test": f"McNemar ({test.method})",
                         "baseline_value": value_a[name], "variant_value": value_b[name], "p_value": test.p_value})
        elif spec.test == BOOTSTRAP:
            bootstrapped.append(name)
        else:
            raise ValueError(f"{probe.name}: unknown paired test {spec.test!r} for {name}")
    if bootstrapped:
        rows += _paired_bootstrap(probe, a, b, bootstrapped, value_a, value_b, resamples, seed)
    return rows


def untested(metric: str, better: str, baseline: float, variant: float, why: str) -> dict[str, Any]:
    """The row of a metric left untested, and ``why``."""
    def shown(value: float) -> float | None:
        return None if math.isnan(value) else value

    return {"metric": metric, "better": better, "test": "not tested", "baseline_value": shown(baseline),
            "variant_value": shown(variant), "p_value": None, "why": why}


def _paired_bootstrap(probe: PairedProbe, a, b, names: list[str], value_a: dict[str, float],
                      value_b: dict[str, float], resamples: int, seed: int) -> list[dict[str, Any]]:
    units = _units(probe, a)
    if len(units) < 2:
        return []
    units_a = [[a[i] for i in unit] for unit in units]
    units_b = [[b[i] for i in unit] for unit in units]
    rng = np.random.default_rng(seed)
    deltas: dict[str, list[float]] = {name: [] for name in names}
    for draw in rng.integers(0, len(units), size=(resamples, len(units))):
        va = _values(probe, list(chain.from_iterable(units_a[u] for u in draw)))
        vb = _values(probe, list(chain.from_iterable(units_b[u] for u in draw)))
        for name in names:
            delta = vb.get(name, math.nan) - va.get(name, math.nan)
            if not math.isnan(delta):
                deltas[name].append(delta)
    rows = []
    for name in names:
        observed = value_b[name] - value_a[name]
        sample = np.asarray(deltas[name], dtype=float)
        if len(sample) == 0:  # defined on all items, on no resample of them
            rows.append(untested(name, probe.spec(name).better, value_a[name], value_b[name],
                                 "undefined on every resample"))
            continue
        rows.append({"metric": name, "better": probe.spec(name).better, "test": "paired bootstrap",
                     "baseline_value": value_a[name], "variant_value": value_b[name],
                     "p_value": centered_p_value(sample, observed), "delta_ci": list(percentile_ci(sample))})
    return rows


__all__ = ["MCNEMAR", "BOOTSTRAP", "paired_tests", "untested"]
