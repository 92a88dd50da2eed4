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
from ..base import BOOTSTRAP, HIGHER, LOWER, MCNEMAR, SAYS_LITTLE, Measure, Metric, measured

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


def mfs(a: np.ndarray) -> float:
    bad = (a[:, STATUS] == _CODE[BAD]) & ~np.isnan(a[:, CHOSEN_MU])
    return float(np.mean(a[bad, CHOSEN_MU] == 1)) if np.any(bad) else float("nan")


def mfs_plus(a: np.ndarray) -> float:
    bad = (a[:, STATUS] == _CODE[BAD]) & ~np.isnan(a[:, CHOSEN_MU]) & ~np.isnan(a[:, MU])
    return float(np.mean(a[bad, CHOSEN_MU] < a[bad, MU])) if np.any(bad) else float("nan")


def forced_bad_preferred(a: np.ndarray) -> float:
    keep = ~np.isnan(a[:, FORCED])
    return float(np.mean(a[keep, FORCED] == 1)) if np.any(keep) else float("nan")


def _count(keep: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], int]:
    return lambda a: int(np.sum(keep(a)))


def _decided(a: np.ndarray) -> np.ndarray:
    return a[:, STATUS] != _CODE[MISS]


def _bad(a: np.ndarray) -> np.ndarray:
    return a[:, STATUS] == _CODE[BAD]


DIBIMT = "Campolungo et al. 2022, DiBiMT"
# DiBiMT's metrics, each declared once, in the order they are stored: McNemar pairs the per-item
# "correct" (None for MISS items, which it leaves out), the rest resample items. Every one is a
# share of items (SFII/SPDI a mean of per-group shares) in [0, 1] and none is NaN: an undefined
# one is left out (measured), and a μ or δ group has a decided item
MEASURES = (
    Measure("accuracy", HIGHER, MCNEMAR, (0, 1), label="WSD accuracy", source=f"{DIBIMT}, §4.3",
            definition="GOOD / (GOOD + BAD): share of decided items translated with a lemma of the right sense",
            value=accuracy, items=_count(_decided), headline=True),
    Measure("miss_rate", LOWER, BOOTSTRAP, (0, 1), label="WSD MISS rate", source=f"{DIBIMT}, §4.2",
            definition="share of items whose translation holds neither a good nor a bad lemma", value=miss_rate,
            headline=True, degenerate="most translations hold neither a good nor a bad lemma (MISS)",
            at_least=SAYS_LITTLE),
    Measure("sfii", LOWER, BOOTSTRAP, (0, 1), label="SFII", source=f"{DIBIMT}, §4.4, Table 4",
            definition="Sense Frequency Index Influence: mean error rate over groups of the sense's frequency rank μ",
            value=lambda a: grouped_error(a, MU), items=_count(lambda a: _decided(a) & ~np.isnan(a[:, MU])),
            headline=True),
    Measure("spdi", LOWER, BOOTSTRAP, (0, 1), label="SPDI", source=f"{DIBIMT}, §4.4, Table 4",
            definition="Sense Polysemy Degree Importance: mean error rate over groups of the word's polysemy δ",
            value=lambda a: grouped_error(a, DELTA), items=_count(lambda a: _decided(a) & ~np.isnan(a[:, DELTA])),
            headline=True),
    Measure("mfs", LOWER, BOOTSTRAP, (0, 1), label="MFS", source=f"{DIBIMT}, §4.4, Table 5",
            definition="share of errors that picked the word's most frequent sense", value=mfs,
            items=_count(lambda a: _bad(a) & ~np.isnan(a[:, CHOSEN_MU]))),
    Measure("mfs_plus", LOWER, BOOTSTRAP, (0, 1), label="MFS+", source=f"{DIBIMT}, §4.4, Table 5",
            definition="share of errors that picked a sense more frequent than the right one", value=mfs_plus,
            items=_count(lambda a: _bad(a) & ~np.isnan(a[:, CHOSEN_MU]) & ~np.isnan(a[:, MU]))),
    Measure("forced_bad_preferred", LOWER, BOOTSTRAP, (0, 1), label="BAD preferred (forced decoding)",
            source=f"{DIBIMT}, §4.8, Table 8",
            definition="share of items whose BAD translation the model scores above the GOOD one",
            value=forced_bad_preferred, items=_count(lambda a: ~np.isnan(a[:, FORCED]))),
)


def wsd_metrics(rows: np.ndarray, *, resamples: int = 1000, seed: int = 0) -> list[Metric]:
    """Every metric with its bootstrap interval and item count; undefined metrics are left out."""
    return measured(MEASURES, rows, resamples=resamples, seed=seed)


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
