"""Inverse-square-root learning-rate schedule with linear warm-up (Vaswani et al. 2017)."""

from __future__ import annotations

import math


def inverse_sqrt_factor(step: int, warmup_steps: int) -> float:
    """Multiplier of the peak learning rate at optimizer step ``step`` (1-based after the first update).

    Rises linearly to 1 at ``warmup_steps``, then decays as sqrt(warmup_steps / step).
    """
    step = max(step, 1)
    if warmup_steps <= 0:
        return 1.0 / math.sqrt(step)
    if step < warmup_steps:
        return step / warmup_steps
    return math.sqrt(warmup_steps / step)
