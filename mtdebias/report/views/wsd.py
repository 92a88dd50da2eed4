"""The word-sense probe's report view: its figure, accuracy per part of speech (its
``accuracy_by_pos.<POS>`` metrics; results stored before them: the ``by_pos`` table, without
intervals); accuracy by sense frequency index μ and by polysemy degree δ (its
``accuracy_by_mu.<μ>`` / ``accuracy_by_delta.<δ>`` metrics), and its metrics per part of speech
(its ``by_pos`` table); nothing is re-derived here.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .. import plots
from ..plots import figure, legend_below, to_png
from .figures import bar, where
from ...probes.wsd.metrics import POS_ORDER
from . import View

GROUPINGS = (("mu", "μ: sense frequency index (1 = most frequent sense)"), ("delta", "δ: number of senses of the lemma"))


def accuracy_by_group(series: dict[str, list[dict[str, Any]]], xlabel: str, title: str) -> bytes:
    """One line per system: accuracy per group with 95% interval bars; point size ~ items."""
    fig = figure(6.4, 3.8)
    ax = fig.add_subplot()
    offsets = np.linspace(-0.15, 0.15, max(len(series), 1))
    for offset, (label, groups) in zip(offsets, sorted(series.items())):
        groups = sorted(groups, key=lambda g: g["group"])
        if not groups:
            continue
        x = np.array([g["group"] for g in groups], dtype=float) + offset
        y = np.array([g["accuracy"] for g in groups], dtype=float)
        err = np.array([[v - g["ci"][0], g["ci"][1] - v] if g.get("ci") else [0.0, 0.0]
                        for g, v in zip(groups, y)]).T.reshape(2, -1)
        sizes = np.array([g["n"] for g in groups], dtype=float)
        line = ax.errorbar(x, y, yerr=np.clip(err, 0, None), marker="o", markersize=0, capsize=3, linewidth=1,
                           label=f"{label} (n = {int(sizes.sum())})")
        ax.scatter(x, y, s=12 + 8 * sizes, color=line[0].get_color(), zorder=3)
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("accuracy = GOOD / (GOOD + BAD)")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    legend_below(fig)
    return to_png(fig)


def groups_of(rows: Sequence[dict[str, Any]], by: str) -> list[dict[str, Any]]:
    """The ``accuracy_by_<by>.<group>`` metric rows of one checkpoint as group records."""
    prefix = f"accuracy_by_{by}."
    return [{"group": int(r["metric"][len(prefix):]), "accuracy": float(r["value"]), "ci": r.get("ci"),
             "n": r.get("n") or 0} for r in rows if r["metric"].startswith(prefix) and r["value"] is not None]


def pos_figure(view: Any, labels: Sequence[str]) -> None:
    """Accuracy = GOOD / (GOOD + BAD) per part of speech and over all items, one bar per run at
    its headline checkpoint, with 95% intervals where stored."""
    series: dict[str, dict[str, plots.Bar | None]] = {}
    from_table = False
    for run, ckpt in view.picked():
        for label in labels:
            rows = view.results(run, ckpt, label)
            cells = {r["metric"][len("accuracy_by_pos."):]: bar(view, r) for r in rows
                     if r["metric"].startswith("accuracy_by_pos.")}
            if not cells:  # stored before the per-POS metrics: the table's accuracies, no interval
                table = [row for row in view.stored_table(run, ckpt, label, "by_pos") or [] if row.get("pos") != "ALL"]
                cells = {row["pos"]: plots.Bar(float(row["accuracy"]) if view.finite(row.get("accuracy")) else None)
                         for row in table}
                from_table = from_table or bool(cells)
            if cells:
                overall = next((r for r in rows if r["metric"] == "accuracy"), None)
                series[where(view, run, ckpt, label)] = {**cells, "all": bar(view, overall)}
    if not series:
        return
    found = {pos for cells in series.values() for pos in cells} - {"all"}
    groups = [p for p in POS_ORDER if p in found] + sorted(found - set(POS_ORDER)) + ["all"]
    fig = plots.bar_figure(groups, {name: [cells.get(pos) for pos in groups] for name, cells in series.items()},
                           "Word senses: accuracy per part of speech", "accuracy = GOOD / (GOOD + BAD)",
                           ylim=(0, 1.05))
    view.figure(fig, "Word-sense accuracy per part of speech at the headline checkpoints (error bars: 95% interval"
                + ("; none for results stored before the per-POS metrics" if from_table else "") + ")")


def section(view: Any, labels: Sequence[str]) -> None:
    """Accuracy per μ and δ group at the headline checkpoints (one line per system), then the
    metrics per part of speech."""
    per_label: dict[str, dict[str, dict[str, list]]] = {}
    table_rows, pos_rows = [], []
    for run, ckpt in view.picked():
        where = view.run_label(run, ckpt)
        for label in labels:
            rows = view.results(run, ckpt, label)
            for by, _ in GROUPINGS:
                groups = groups_of(rows, by)
                if groups:
                    per_label.setdefault(label, {}).setdefault(by, {})[where] = groups
                    table_rows += [{"run": where, "probe": label, "by": by, "group": g["group"],
                                    "accuracy": g["accuracy"], "n": g["n"]} for g in groups]
            pos_rows += [{"run": where, "probe": label, **row}
                         for row in view.stored_table(run, ckpt, label, "by_pos") or []]
    if not per_label and not pos_rows:
        return
    view.heading("Word senses: accuracy by sense frequency and polysemy")
    view.paragraph("Non-MISS items grouped by the correct sense's frequency index μ and by the lemma's number of "
                   "senses δ (SFII and SPDI are the mean error over these groups). Bars: 95% interval; point "
                   "size: items in the group.", "note")
    for label, groupings in sorted(per_label.items()):
        for by, xlabel in GROUPINGS:
            series = groupings.get(by, {})
            if any(series.values()):
                view.figure(accuracy_by_group(series, xlabel, f"{label}: accuracy by {by}"),
                            f"{label}: accuracy by {xlabel}")
    if table_rows:
        view.table("wsd_accuracy_by_group", "Word-sense accuracy by μ and δ",
                   ["run", "probe", "by", "group", "accuracy", "n"], table_rows,
                   collapsed="accuracy per μ / δ group")
    if pos_rows:
        columns = ["run", "probe", *dict.fromkeys(k for row in pos_rows for k in row if k not in ("run", "probe"))]
        view.table("wsd_by_pos", "Word-sense metrics per part of speech", columns, pos_rows,
                   note="DiBiMT's metrics within each part of speech (items of that POS only)")


VIEWS = {"wsd_bias.v1": View(figure=pos_figure, section=section)}  # found by name (view_of)
