"""Bias metrics on surprisals and entropies (Staliūnaitė, Cheng & Vlachos).

* ΔI = (I(y_correct) − I(y_incorrect)) / ½(I(y_correct) + I(y_incorrect)) on unambiguous items:
  an unbiased model finds the correctly gendered translation less surprising (ΔI < 0).
* ΔLogProb: the same relative difference with I = −log p from forced decoding (the baseline).
* norm-H(x) = H(Y_x) / mean_{x'∈G_x} H(Y_x'): entropy relative to the item's contrast set.
* ΔH = (H_unamb − H_amb) / ½(H_unamb + H_amb): an unbiased model is more uncertain on
  ambiguous input (ΔH < 0).
* rank correlations between checkpoints ranked by ΔI and by gender accuracy.

Corpus-level ΔI is the mean of the per-item ΔI: the paper's ΔI tables are not reproduced by
the ratio of mean surprisals (e.g. its RU/FR/ES Opus-MT s3e means give −0.03/−0.07/−0.13
against reported 0.00/−0.04/−0.10), so the ratio of means is kept only as
:func:`delta_i_of_means`. Corpus-level ΔH uses the mean entropy of each side.
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np


def relative_difference(a: float, b: float) -> float:
    """(a − b) / ½(a + b); NaN when a + b = 0."""
    mean = 0.5 * (a + b)
    return float("nan") if mean == 0 else (a - b) / mean


def delta_i(correct: Sequence[float], incorrect: Sequence[float]) -> float:
    """Corpus ΔI: the mean over items of each item's ΔI (items with an undefined ΔI left out)."""
    if len(correct) != len(incorrect) or not correct:
        raise ValueError("need one correct and one incorrect surprisal per item")
    return finite_mean(delta_i_items(correct, incorrect))


def delta_i_of_means(correct: Sequence[float], incorrect: Sequence[float]) -> float:
    """ΔI of the mean surprisals of the two sides (a corpus-level alternative)."""
    if len(correct) != len(incorrect) or not correct:
        raise ValueError("need one correct and one incorrect surprisal per item")
    pairs = [(c, i) for c, i in zip(correct, incorrect) if not (math.isnan(c) or math.isnan(i))]
    if not pairs:
        return float("nan")
    return relative_difference(float(np.mean([c for c, _ in pairs])), float(np.mean([i for _, i in pairs])))


def delta_i_items(correct: Sequence[float], incorrect: Sequence[float]) -> list[float]:
    """ΔI of every item (NaN where either surprisal is undefined)."""
    return [float("nan") if math.isnan(c) or math.isnan(i) else relative_difference(c, i)
            for c, i in zip(correct, incorrect)]


def delta_logprob(correct_logprobs: Sequence[float], incorrect_logprobs: Sequence[float]) -> float:
    """ΔI with I = −log p (natural-log forced-decoding scores of the two references)."""
    return delta_i([-x for x in correct_logprobs], [-x for x in incorrect_logprobs])


def delta_h(unambiguous: Sequence[float], ambiguous: Sequence[float]) -> float:
    """ΔH from the entropies of unambiguous and ambiguous items."""
    if not unambiguous or not ambiguous:
        return float("nan")
    return relative_difference(float(np.mean(unambiguous)), float(np.mean(ambiguous)))


def norm_h(entropies: Mapping[str, float], groups: Mapping[str, str],
           in_group: Mapping[str, bool] | None = None) -> dict[str, float]:
    """norm-H of every item: its entropy over the mean entropy of its contrast set.

    ``groups`` maps item id → contrast-set id; only items with ``in_group`` True (default: all)
    form the denominator (a name-augmented variant is normalised by G_x without joining it).
    NaN when the contrast set's mean entropy is 0 (nothing to normalise by).
    """
    sums: dict[str, list[float]] = {}
    for item, value in entropies.items():
        if in_group is None or in_group.get(item, True):
            sums.setdefault(groups[item], []).append(value)
    out = {}
    for item, value in entropies.items():
        members = sums.get(groups[item])
        mean = float(np.mean(members)) if members else float("nan")
        out[item] = float("nan") if not members or mean == 0 else value / mean
    return out


def rank_correlations(metric: Mapping[str, float], accuracy: Mapping[str, float]) -> dict[str, float]:
    """Kendall τ and Spearman ρ (with p-values) between two scores of the same checkpoints."""
    from scipy import stats

    names = sorted(set(metric) & set(accuracy))
    if len(names) < 3:
        raise ValueError(f"rank correlations need at least 3 checkpoints scored by both, got {len(names)}")
    x = [metric[n] for n in names]
    y = [accuracy[n] for n in names]
    tau = stats.kendalltau(x, y)
    rho = stats.spearmanr(x, y)
    return {"kendall_tau": float(tau.statistic), "kendall_p": float(tau.pvalue),
            "spearman_rho": float(rho.statistic), "spearman_p": float(rho.pvalue), "n": len(names)}


def finite_mean(values: Sequence[float]) -> float:
    vals = [v for v in values if v is not None and not math.isnan(v)]
    return float(np.mean(vals)) if vals else float("nan")
