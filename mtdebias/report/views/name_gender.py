"""The name-gender probe's report view: Acc_f and Acc_m bars per run and name type (its figure)
and the table of them (its section)."""

from __future__ import annotations

import re

from typing import Any, Sequence

import numpy as np

from ..plots import GENDER_COLOURS, figure, legend_below
from . import View

_ACC = re.compile(r"^(?P<type>[\w-]+)\.acc_(?P<g>[fm])$")  # "first.acc_f": a name type's Acc_f


def accuracy_bars(rows: Sequence[dict], title: str = "Acc_f and Acc_m per run and name type"):
    """Grouped bars: one group per (run, name type), a female and a male bar, CI error bars.

    ``rows`` hold ``label`` (e.g. "baseline · first"), ``acc_f``, ``acc_m`` and optional
    ``acc_f_ci``/``acc_m_ci`` (low, high). Returns the Figure.
    """
    fig = figure(max(6.0, 0.9 * len(rows) + 2), 3.8)
    ax = fig.add_subplot()
    x = np.arange(len(rows))
    width = 0.38
    for offset, key, gender in ((-width / 2, "acc_f", "female"), (width / 2, "acc_m", "male")):
        values = np.array([r.get(key, np.nan) for r in rows], dtype=float)
        errors = np.array([[v - r[f"{key}_ci"][0], r[f"{key}_ci"][1] - v] if r.get(f"{key}_ci") and np.isfinite(v)
                           else [0.0, 0.0] for r, v in zip(rows, values)]).T.reshape(2, -1)
        ax.bar(x + offset, np.nan_to_num(values), width, yerr=np.clip(errors, 0, None), capsize=3,
               color=GENDER_COLOURS[gender], label=f"Acc_{gender[0]} ({gender} names)")
    ax.set_xticks(x, [r["label"] for r in rows], rotation=30, ha="right", fontsize=8)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("accuracy")
    ax.set_title(title, fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    legend_below(fig, fontsize=8)
    return fig


def _cells(view: Any, labels: Sequence[str]) -> tuple[list[dict], list[dict]]:
    """Acc_f / Acc_m of every name type at the headline checkpoints: bar rows and table rows."""
    rows, table_rows = [], []
    for run, ckpt in view.picked():
        per_type: dict[str, dict[str, Any]] = {}
        for label in labels:
            for row in view.results(run, ckpt, label):
                match = _ACC.match(row["metric"])
                if not match or not view.finite(row["value"]):
                    continue
                name_type, gender = match.group("type"), match.group("g")
                shown = view.shown(label)
                cell = per_type.setdefault(f"{shown} · {name_type}" if shown else name_type, {})
                cell[f"acc_{gender}"] = float(row["value"])
                if view.interval(row):
                    cell[f"acc_{gender}_ci"] = view.interval(row)
        for name_type, cell in sorted(per_type.items()):
            rows.append({"label": f"{view.run_label(run, ckpt)} · {name_type}", **cell})
            table_rows.append({"run": view.run_label(run, ckpt), "checkpoint": ckpt, "name_type": name_type,
                               "acc_f": cell.get("acc_f"), "acc_m": cell.get("acc_m"),
                               "acc_f_ci": cell.get("acc_f_ci"), "acc_m_ci": cell.get("acc_m_ci")})
    return rows, table_rows


def figure_of(view: Any, labels: Sequence[str]) -> None:
    """The probe's figure: Acc_f / Acc_m bars of every name type (first and full names)."""
    rows, _ = _cells(view, labels)
    if rows:
        view.figure(accuracy_bars(rows), "Acc_f / Acc_m per run and name type (error bars: 95% interval)")


def section(view: Any, labels: Sequence[str]) -> None:
    """Acc_f / Acc_m of every name type at the headline checkpoints, as a table (the bars are
    the probe's figure)."""
    _, table_rows = _cells(view, labels)
    if not table_rows:
        return
    view.heading("Name gender: Acc_f and Acc_m")
    view.table("name_gender_accuracy", "Acc_f / Acc_m", ["run", "checkpoint", "name_type", "acc_f", "acc_m"],
               table_rows)


VIEWS = {"name_gender.v1": View(figure=figure_of, section=section)}  # found by name (view_of)
