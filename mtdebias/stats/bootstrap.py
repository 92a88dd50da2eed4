"""Confidence intervals shared by all probes (percentile bootstrap over items), and Holm's adjustment."""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

DEFAULT_RESAMPLES = 1000


def bootstrap_ci(values: Sequence[float] | np.ndarray,
                 statistic: Callable[[np.ndarray], float] = np.mean,
                 resamples: int = DEFAULT_RESAMPLES, seed: int = 0,
                 level: float = 0.95) -> tuple[float, float] | None:
    """Percentile bootstrap interval of ``statistic`` over the rows of ``values``.

    ``values`` may be 2-D (one row per item) so that a statistic of several per-item columns
    (e.g. F1 from gold/predicted pairs) is resampled by item. ``None`` for fewer than 2 items.
    """
    data = np.asarray(values)
    if len(data) < 2:
        return None
    rng = np.random.default_rng(seed)
    return _percentile_interval(data, rng.integers(0, len(data), size=(resamples, len(data))), statistic, level)


def _percentile_interval(data: np.ndarray, draws: np.ndarray, statistic: Callable[[np.ndarray], float],
                         level: float) -> tuple[float, float] | None:
    """The ``level`` percentile interval of ``statistic`` over the resamples ``draws`` (one row
    of indices each); resamples where it is undefined (NaN) are dropped, None when all are."""
    stats = np.array([statistic(data[row]) for row in draws], dtype=float)
    stats = stats[~np.isnan(stats)]
    if len(stats) == 0:
        return None
    alpha = (1 - level) / 2
    return float(np.quantile(stats, alpha)), float(np.quantile(stats, 1 - alpha))


def bootstrap_cis(items: int, statistics: Callable[[np.ndarray], Mapping[str, float]], names: Iterable[str],
                  resamples: int = DEFAULT_RESAMPLES, seed: int = 0, level: float = 0.95,
                  units: Sequence[Any] | np.ndarray | None = None) -> dict[str, tuple[float, float] | None]:
    """Percentile intervals of several statistics computed from the same resamples of ``items``
    items: ``statistics(idx)`` gets one resample's item indices and returns every value by name.
    ``None`` for a name without a finite value in any resample, and for all under 2 items.

    ``units`` (one label per item): resample the units, each drawn unit bringing all its items,
    instead of single items. Items of one unit that share a cause (the three pronoun variants
    of one sentence) vary together; resampling them apart treats them as independent and
    makes the interval too narrow."""
    cis: dict[str, tuple[float, float] | None] = {name: None for name in names}
    if not resamples or items < 2:
        return cis
    rng = np.random.default_rng(seed)
    draw = (lambda: rng.integers(0, items, size=items)) if units is None else _unit_draw(units, items, rng)
    draws: dict[str, list[float]] = {name: [] for name in cis}
    for _ in range(resamples):
        for name, value in statistics(draw()).items():
            draws[name].append(value)
    alpha = (1 - level) / 2
    for name, values in draws.items():
        array = np.asarray(values, dtype=float)
        array = array[~np.isnan(array)]
        if len(array):
            cis[name] = (float(np.quantile(array, alpha)), float(np.quantile(array, 1 - alpha)))
    return cis


def _unit_draw(units: Sequence[Any] | np.ndarray, items: int, rng: np.random.Generator) -> Callable[[], np.ndarray]:
    """A function drawing one resample of whole units: as many units as there are, with
    replacement, as the item indices of the units drawn."""
    codes = np.unique(np.asarray(units), return_inverse=True)[1].reshape(-1)
    if len(codes) != items:
        raise ValueError(f"one unit per item: {items} items, {len(codes)} units")
    members = [np.flatnonzero(codes == code) for code in range(int(codes.max()) + 1)]
    return lambda: np.concatenate([members[u] for u in rng.integers(0, len(members), size=len(members))])


def stratified_bootstrap_ci(values: Sequence[float] | np.ndarray, strata: Sequence[Any] | np.ndarray,
                            statistic: Callable[[np.ndarray], float] = np.mean,
                            resamples: int = DEFAULT_RESAMPLES, seed: int = 0,
                            level: float = 0.95) -> tuple[float, float] | None:
    """:func:`bootstrap_ci` with the rows resampled within each stratum (e.g. female and male
    names apart): a statistic comparing groups then sees every group, at its own size, in every
    resample. A plain resample of the pooled rows can lack a group (its gap undefined) and lets
    the group sizes wander, which widens the interval for no reason the data gives."""
    data = np.asarray(values)
    labels = np.asarray(strata)
    if len(data) != len(labels):
        raise ValueError(f"one stratum per row: {len(data)} rows, {len(labels)} strata")
    groups = [np.flatnonzero(labels == label) for label in dict.fromkeys(labels.tolist())]
    if len(data) < 2 or any(len(group) < 2 for group in groups):
        return None  # a group of one has no spread to resample
    rng = np.random.default_rng(seed)
    draws = np.concatenate([group[rng.integers(0, len(group), size=(resamples, len(group)))] for group in groups],
                           axis=1)
    return _percentile_interval(data, draws, statistic, level)


def wilson_interval(successes: int, n: int, level: float = 0.95) -> tuple[float, float] | None:
    """Wilson's score interval of a proportion, ``successes`` of ``n`` independent trials; None
    for n = 0. For a share of a few items the percentile bootstrap is too narrow (it can only
    resample the few outcomes seen: of 8 items with 6 right, it never draws a share outside
    what 8 items can show, and a group of all-right items gets [1, 1]); Wilson's interval keeps
    near its level down to a handful of items (tests/test_calibration.py)."""
    if n <= 0:
        return None
    from scipy.stats import norm

    z = float(norm.ppf(1 - (1 - level) / 2))
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * float(np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)))
    return max(0.0, centre - half), min(1.0, centre + half)


def folded_interval(signed: tuple[float, float] | None) -> tuple[float, float] | None:
    """The interval of |d| implied by an interval (lo, hi) of a signed d: {|x| : lo ≤ x ≤ hi}.

    It covers |d| whenever (lo, hi) covers d, so it is at least as well calibrated, and it
    contains 0 exactly when the signed interval does. A percentile bootstrap of |d| itself
    never can: every resampled |d| is > 0, so its interval sits above 0 even when the true gap
    is 0, and the point estimate may fall below its lower end."""
    if signed is None:
        return None
    low, high = signed
    if low <= 0 <= high:
        return 0.0, max(-low, high)
    return min(abs(low), abs(high)), max(abs(low), abs(high))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment of a family of p-values (same order as given).

    The k-th smallest p (k from 0) is multiplied by (m − k), made non-decreasing along the
    order and capped at 1: rejecting where the adjusted p < α keeps the chance of any false
    rejection in the family ≤ α under any dependence between the tests (paired tests of one
    ablation share their baseline, so they are not independent)."""
    p = np.asarray(p_values, dtype=float)
    m = len(p)
    adjusted = np.empty(m)
    running = 0.0
    for rank, index in enumerate(np.argsort(p, kind="stable")):
        running = max(running, min(1.0, (m - rank) * p[index]))
        adjusted[index] = running
    return [float(v) for v in adjusted]
