"""Bias metrics on surprisals and entropies (Staliūnaitė, Cheng & Vlachos).

* ΔI = (I(y_correct) − I(y_incorrect)) / ½(I(y_correct) + I(y_incorrect)) on unambiguous items:
  an unbiased model finds the correctly gendered translation less surprising (ΔI < 0).
* ΔLogProb: the same relative difference with I = −log p from forced decoding (the baseline).
* norm-H(x) = H(Y_x) / mean_{x'∈G_x} H(Y_x'): entropy relative to the item's contrast set.
* ΔH: unambiguous against ambiguous entropy; an unbiased model is more uncertain on
  ambiguous input (ΔH < 0).
* rank correlations between checkpoints ranked by ΔI and by gender accuracy.

Corpus-level ΔI is the mean of the per-item ΔI: the paper's ΔI tables are not reproduced by
the ratio of mean surprisals (e.g. its RU/FR/ES Opus-MT s3e means give −0.03/−0.07/−0.13
against reported 0.00/−0.04/−0.10), so the ratio of means is kept only as
:func:`delta_i_of_means`. A reference outside every sample cluster has an infinite surprisal
under the paper's I(y) = −log E[S(y, y')]; such an item has no finite ΔI and is left out (the
probe counts, per side, how many were).

Corpus-level ΔH is (H̄_unamb − H̄_amb) / H̄_unamb, the difference of the two sides' mean
entropies relative to the unambiguous mean (:func:`delta_h`): of the aggregations that can be
computed from the paper's published means it is the one that reproduces every ΔH of its
Tables 4 and 15 (36 of 36 within rounding; the printed equation applied to the means, kept as
:func:`delta_h_of_means`, reproduces 18 — docs/papers.md has the comparison row by row).
:func:`delta_h_per_set` applies the printed equation per contrast set and averages, as ΔI is
per item. ΔH is undefined (NaN) where H̄_unamb is under a tenth of H̄_amb (``DELTA_H_FLOOR``): the
ratio then explodes (ΔH < −9) and says nothing about bias; the printed equation's bounded form
(``_of_means``, in [−2, 2]) stays defined there.
"""

from __future__ import annotations

import math
from typing import Hashable, Mapping, Sequence

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
    """ΔI of the mean surprisals of the two sides (a corpus-level alternative), over the items
    whose surprisals are both finite."""
    if len(correct) != len(incorrect) or not correct:
        raise ValueError("need one correct and one incorrect surprisal per item")
    pairs = [(c, i) for c, i in zip(correct, incorrect) if math.isfinite(c) and math.isfinite(i)]
    if not pairs:
        return float("nan")
    return relative_difference(float(np.mean([c for c, _ in pairs])), float(np.mean([i for _, i in pairs])))


def delta_i_items(correct: Sequence[float], incorrect: Sequence[float]) -> list[float]:
    """ΔI of every item; NaN where it is undefined: a surprisal NaN (the reference's gender not
    detected), infinite (the reference outside every sample cluster) or both surprisals 0
    (both references in the cluster that holds every sample)."""
    return [relative_difference(c, i) if math.isfinite(c) and math.isfinite(i) else float("nan")
            for c, i in zip(correct, incorrect)]


def defined(values: Sequence[float]) -> int:
    """How many of ``values`` are finite: the items a mean of them rests on."""
    return sum(1 for v in values if v is not None and math.isfinite(v))


def delta_logprob(correct_logprobs: Sequence[float], incorrect_logprobs: Sequence[float]) -> float:
    """ΔI with I = −log p (natural-log forced-decoding scores of the two references)."""
    return delta_i([-x for x in correct_logprobs], [-x for x in incorrect_logprobs])


# ΔH = 1 − H̄_amb/H̄_unamb has no lower bound: as H̄_unamb nears 0 it runs to −∞ (−245 and −348
# in a quickstart run) and then measures how near 0 the unambiguous entropy is, not bias. Below
# this share of the larger side's mean the denominator is too small to divide by, and ΔH is
# undefined: ΔH ≥ 1 − 1/DELTA_H_FLOOR = −9 wherever it is defined.
DELTA_H_FLOOR = 0.1
# why a ΔH is undefined when it rests on enough items: what the report and the CLI print beside it
BELOW_FLOOR = "H̄_unamb under a tenth of H̄_amb (ΔH < −9)"


def delta_h(unambiguous: Sequence[float], ambiguous: Sequence[float]) -> float:
    """ΔH = (H̄_unamb − H̄_amb) / H̄_unamb over the finite entropies of each side: the form the
    paper's Tables 4 and 15 are computed with (see the module docstring). NaN when a side has
    no finite entropy or H̄_unamb is under ``DELTA_H_FLOOR`` × H̄_amb (0 included)."""
    u, a = _finite(unambiguous), _finite(ambiguous)
    if not u or not a:
        return float("nan")
    mean_u, mean_a = float(np.mean(u)), float(np.mean(a))
    if mean_u <= 0 or mean_u < DELTA_H_FLOOR * mean_a:
        return float("nan")
    return (mean_u - mean_a) / mean_u


def delta_h_of_means(unambiguous: Sequence[float], ambiguous: Sequence[float]) -> float:
    """The paper's printed ΔH equation, (H_u − H_a) / ½(H_u + H_a), applied to the two sides'
    mean entropies (the default before it was checked against the paper's tables)."""
    u, a = _finite(unambiguous), _finite(ambiguous)
    if not u or not a:
        return float("nan")
    return relative_difference(float(np.mean(u)), float(np.mean(a)))


def delta_h_per_set(entropies: Sequence[float], sets: Sequence[Hashable],
                    ambiguous: Sequence[bool]) -> tuple[float, int]:
    """The printed ΔH equation per contrast set — (mean H of the set's unambiguous items − mean
    H of its ambiguous ones) / ½(their sum) — averaged over sets. ``entropies``, ``sets`` (the
    set of each item) and ``ambiguous`` run in parallel. Returns the mean and how many sets
    defined it: a set with no finite entropy on a side, or mean entropy 0 on both, has no ΔH."""
    h = np.asarray(entropies, dtype=float)
    amb = np.asarray(ambiguous, dtype=bool)
    if not len(h):
        return float("nan"), 0
    codes = np.unique(np.asarray(sets), return_inverse=True)[1].reshape(-1)
    finite = np.isfinite(h)
    k = int(codes.max()) + 1

    def side_mean(mask: np.ndarray) -> np.ndarray:  # NaN for a set with no item on this side
        count = np.bincount(codes[mask], minlength=k)
        total = np.bincount(codes[mask], weights=h[mask], minlength=k)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(count > 0, total / np.maximum(count, 1), np.nan)

    u, a = side_mean(finite & ~amb), side_mean(finite & amb)
    half = 0.5 * (u + a)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_set = np.where(half != 0, (u - a) / half, np.nan)
    per_set = per_set[np.isfinite(per_set)]
    return (float(per_set.mean()) if len(per_set) else float("nan")), int(len(per_set))


def _finite(values: Sequence[float]) -> list[float]:
    return [float(v) for v in values if v is not None and math.isfinite(v)]


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
    vals = _finite(values)
    return float(np.mean(vals)) if vals else float("nan")
