"""Confidence intervals shared by all probes (percentile bootstrap over items)."""

from __future__ import annotations

from typing import Callable, Sequence

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
    idx = rng.integers(0, len(data), size=(resamples, len(data)))
    stats = np.array([statistic(data[row]) for row in idx], dtype=float)
    stats = stats[~np.isnan(stats)]
    if len(stats) == 0:
        return None
    alpha = (1 - level) / 2
    return float(np.quantile(stats, alpha)), float(np.quantile(stats, 1 - alpha))
