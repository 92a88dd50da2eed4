"""DiBiMT's metrics (Campolungo et al. 2022) from per-item outcomes — pure arithmetic.

Each analysed item is GOOD, BAD or MISS. With μ the correct sense's frequency index, δ the
lemma's number of senses and μ̂ the frequency index of the sense a BAD translation chose:

* accuracy = #GOOD / (#GOOD + #BAD) — MISS items are left out;
* MISS rate = #MISS / #items;
* SFII: non-MISS items grouped by μ; the mean over groups of each group's error rate
  #BAD / (#GOOD + #BAD) (every group weighs the same, however many items it holds);
* SPDI: the same with items grouped by δ;
* MFS: among BAD items, the share whose chosen sense is the lemma's most frequent (μ̂ = 1);
* MFS+: among BAD items, the share whose chosen sense is more frequent than the correct one
  (μ̂ < μ).

Items whose μ (or δ, or μ̂) is unknown are left out of the metrics that need it; each metric
carries the number of items it rests on. Values are fractions (the paper prints percentages).
Intervals: percentile bootstrap over items (:func:`mtdebias.stats.bootstrap_ci`); the accuracy
within one μ or δ group, a share of few items, Wilson's (:func:`mtdebias.stats.wilson_interval`).
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from ...stats import bootstrap_ci, wilson_interval
from ..base import Metric

GOOD, BAD, MISS = "GOOD", "BAD", "MISS"
_CODE = {GOOD: 0, BAD: 1, MISS: 2}
# columns of the per-item array the bootstrap resamples
STATUS, MU, DELTA, CHOSEN_MU, FORCED = range(5)


def item_rows(statuses: Sequence[str], mus: Sequence[int | None], deltas: Sequence[int | None],
              chosen_mus: Sequence[int | None], forced: Sequence[bool | None] | None = None) -> np.ndarray:
    """(items × 5) float array: status code, μ, δ, μ̂, forced-decoding BAD-preferred (NaN = unknown)."""
    forced = list(forced) if forced is not None else [None] * len(statuses)
    if not len(statuses) == len(mus) == len(deltas) == len(chosen_mus) == len(forced):
        raise ValueError("one status, mu, delta, chosen mu and forced value per item")
    for status in statuses:
        if status not in _CODE:
            raise ValueError(f"status {status!r} is not one of GOOD, BAD, MISS")

    def num(v):
        return float("nan") if v is None else float(v)

    return np.array([[_CODE[s], num(m), num(d), num(c), num(f)]
                     for s, m, d, c, f in zip(statuses, mus, deltas, chosen_mus, forced)],
                    dtype=float).reshape(-1, 5)


def accuracy(a: np.ndarray) -> float:
    decided = a[:, STATUS] != _CODE[MISS]
    return float(np.mean(a[decided, STATUS] == _CODE[GOOD])) if np.any(decided) else float("nan")


def miss_rate(a: np.ndarray) -> float:
    return float(np.mean(a[:, STATUS] == _CODE[MISS])) if len(a) else float("nan")


def grouped_error(a: np.ndarray, column: int) -> float:
    """Mean over groups (distinct values of ``column``) of #BAD / (#GOOD + #BAD); SFII/SPDI."""
    keep = (a[:, STATUS] != _CODE[MISS]) & ~np.isnan(a[:, column])
    if not np.any(keep):
        return float("nan")
    rows = a[keep]
    rates = [float(np.mean(rows[rows[:, column] == g, STATUS] == _CODE[BAD])) for g in np.unique(rows[:, column])]
    return float(np.mean(rates))


def group_accuracy(a: np.ndarray, column: int, value: float) -> float:
    keep = (a[:, STATUS] != _CODE[MISS]) & (a[:, column] == value)
    return float(np.mean(a[keep, STATUS] == _CODE[GOOD])) if np.any(keep) else float("nan")


def mfs(a: np.ndarray) -> float:
    bad = (a[:, STATUS] == _CODE[BAD]) & ~np.isnan(a[:, CHOSEN_MU])
    return float(np.mean(a[bad, CHOSEN_MU] == 1)) if np.any(bad) else float("nan")


def mfs_plus(a: np.ndarray) -> float:
    bad = (a[:, STATUS] == _CODE[BAD]) & ~np.isnan(a[:, CHOSEN_MU]) & ~np.isnan(a[:, MU])
    return float(np.mean(a[bad, CHOSEN_MU] < a[bad, MU])) if np.any(bad) else float("nan")


def forced_bad_preferred(a: np.ndarray) -> float:
    keep = ~np.isnan(a[:, FORCED])
    return float(np.mean(a[keep, FORCED] == 1)) if np.any(keep) else float("nan")


def wsd_metrics(rows: np.ndarray, *, resamples: int = 1000, seed: int = 0) -> list[Metric]:
    """Every metric with its bootstrap interval and item count; undefined metrics are left out."""
    status = rows[:, STATUS]
    decided = status != _CODE[MISS]
    bad = status == _CODE[BAD]
    functions: list[tuple[str, Callable[[np.ndarray], float], int]] = [
        ("accuracy", accuracy, int(np.sum(decided))),
        ("miss_rate", miss_rate, len(rows)),
        ("sfii", lambda a: grouped_error(a, MU), int(np.sum(decided & ~np.isnan(rows[:, MU])))),
        ("spdi", lambda a: grouped_error(a, DELTA), int(np.sum(decided & ~np.isnan(rows[:, DELTA])))),
        ("mfs", mfs, int(np.sum(bad & ~np.isnan(rows[:, CHOSEN_MU])))),
        ("mfs_plus", mfs_plus, int(np.sum(bad & ~np.isnan(rows[:, CHOSEN_MU]) & ~np.isnan(rows[:, MU])))),
        ("forced_bad_preferred", forced_bad_preferred, int(np.sum(~np.isnan(rows[:, FORCED])))),
    ]
    metrics = []
    for name, fn, n in functions:
        value = fn(rows)
        if np.isnan(value):
            continue
        ci = bootstrap_ci(rows, fn, resamples=resamples, seed=seed) if resamples else None
        metrics.append(Metric(name, value, ci, n))
    return metrics


def group_accuracies(rows: np.ndarray, by: str, *, resamples: int = 1000, seed: int = 0) -> list[dict]:
    """Accuracy within each μ group (``by="mu"``) or δ group (``by="delta"``): the numbers behind
    SFII/SPDI and the report's accuracy-by-μ/δ plots. Rows: ``group``, ``accuracy``, ``ci``
    (Wilson's interval of GOOD of ``n``: a group may hold a handful of items, where a percentile
    bootstrap covered the true accuracy in 28 of 40 simulations), ``n`` (GOOD + BAD items),
    ``bad``. ``seed`` is kept for the callers; the interval draws nothing."""
    column = {"mu": MU, "delta": DELTA}[by]
    decided = rows[rows[:, STATUS] != _CODE[MISS]]
    out = []
    for g in np.unique(decided[~np.isnan(decided[:, column]), column]):
        group = decided[decided[:, column] == g]
        bad = int(np.sum(group[:, STATUS] == _CODE[BAD]))
        ci = wilson_interval(len(group) - bad, len(group)) if resamples else None
        out.append({"group": int(g), "accuracy": accuracy(group), "ci": list(ci) if ci else None, "n": len(group),
                    "bad": bad})
    return out


POS_ORDER = ("NOUN", "VERB", "ADJ", "ADV")
_POS_METRICS: tuple[tuple[str, Callable[[np.ndarray], float]], ...] = (
    ("accuracy", accuracy), ("miss_rate", miss_rate), ("sfii", lambda a: grouped_error(a, MU)),
    ("spdi", lambda a: grouped_error(a, DELTA)), ("mfs", mfs), ("mfs_plus", mfs_plus))


def pos_accuracies(attempts: Sequence[dict], *, resamples: int = 1000, seed: int = 0) -> list[dict]:
    """Accuracy within each part of speech (the report's per-POS figure): rows as
    :func:`group_accuracies`' with the POS as ``group``, in :data:`POS_ORDER` and then by name; a
    POS without a GOOD or BAD item has no accuracy and no row."""
    by_pos: dict[str, list[dict]] = {}
    for attempt in attempts:
        by_pos.setdefault(attempt["pos"], []).append(attempt)
    out = []
    for pos in [p for p in POS_ORDER if p in by_pos] + sorted(set(by_pos) - set(POS_ORDER)):
        rows = rows_from_attempts(by_pos[pos])
        decided = rows[rows[:, STATUS] != _CODE[MISS]]
        if not len(decided):
            continue
        ci = bootstrap_ci(decided, accuracy, resamples=resamples, seed=seed) if resamples else None
        out.append({"group": pos, "accuracy": accuracy(decided), "ci": list(ci) if ci else None, "n": len(decided),
                    "bad": int(np.sum(decided[:, STATUS] == _CODE[BAD]))})
    return out


def rows_from_attempts(attempts: Sequence[dict]) -> np.ndarray:
    """The per-item array of :func:`item_rows` from the probe's attempt records."""
    return item_rows([a["status"] for a in attempts], [a.get("mu") for a in attempts],
                     [a.get("delta") for a in attempts],
                     [a.get("chosen_mu") if a["status"] == BAD else None for a in attempts],
                     [a["forced"]["bad_preferred"] if a.get("forced") else None for a in attempts])


def metrics_by_pos(attempts: Sequence[dict]) -> list[dict]:
    """DiBiMT's Table 6: accuracy, MISS, SFII, SPDI, MFS and MFS+ within each part of speech
    (and ``ALL``), from the attempt records (``pos``, ``status``, ``mu``, ``delta``,
    ``chosen_mu``). Each row: ``pos``, ``items``, ``decided`` (GOOD + BAD), ``bad`` and the six
    metrics as fractions (NaN where undefined, e.g. MFS without a BAD item)."""
    groups: dict[str, list[dict]] = {}
    for attempt in attempts:
        groups.setdefault(attempt["pos"], []).append(attempt)
    order = [p for p in POS_ORDER if p in groups] + sorted(set(groups) - set(POS_ORDER))
    out = []
    for pos, group in [(p, groups[p]) for p in order] + [("ALL", list(attempts))]:
        rows = rows_from_attempts(group)
        row = {"pos": pos, "items": len(rows), "decided": int(np.sum(rows[:, STATUS] != _CODE[MISS])),
               "bad": int(np.sum(rows[:, STATUS] == _CODE[BAD]))}
        row.update({name: fn(rows) if len(rows) else float("nan") for name, fn in _POS_METRICS})
        out.append(row)
    return out


def pos_table(attempts: Sequence[dict]) -> str:
    """:func:`metrics_by_pos` as a Markdown table in percent, the way DiBiMT prints it."""
    head = "| POS | items | accuracy | MISS | SFII | SPDI | MFS | MFS+ |\n|---|---:|---:|---:|---:|---:|---:|---:|"
    lines = [head]
    for row in metrics_by_pos(attempts):
        cells = ["–" if np.isnan(row[k]) else f"{100 * row[k]:.1f}" for k, _ in _POS_METRICS]
        lines.append(f"| {row['pos']} | {row['items']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
