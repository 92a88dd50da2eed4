"""The spread of a metric over training runs that differ only by seed."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np


@dataclass(frozen=True)
class SeedInterval:
    mean: float
    ci: tuple[float, float] | None  # None for a single seed: no spread to estimate
    n: int

    @property
    def half_width(self) -> float | None:
        return None if self.ci is None else (self.ci[1] - self.ci[0]) / 2

    def format(self, digits: int = 3) -> str:
        if self.half_width is None:
            return f"{self.mean:.{digits}f}"
        return f"{self.mean:.{digits}f} ± {self.half_width:.{digits}f}"


def seed_interval(values: Sequence[float], level: float = 0.95) -> SeedInterval:
    """Mean and Student-t interval, mean ± t_{n−1} · s/√n, over runs that differ only by seed.

    NaN values (a metric a run could not compute) are left out.
    """
    from scipy.stats import t

    data = np.asarray([v for v in values if v is not None and not math.isnan(v)], dtype=float)
    if len(data) == 0:
        raise ValueError("no finite values to average")
    mean = float(data.mean())
    if len(data) < 2:
        return SeedInterval(mean, None, len(data))
    half = float(t.ppf((1 + level) / 2, len(data) - 1) * data.std(ddof=1) / math.sqrt(len(data)))
    return SeedInterval(mean, (mean - half, mean + half), len(data))


__all__ = ["SeedInterval", "seed_interval"]
