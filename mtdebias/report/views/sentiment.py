"""The sentiment probe's report view: its figure (mean t and s per profession group × gender, from
the stored ``<kind>.<t|s>_mean[<cell>]`` metrics, with their intervals) and positiveness per
name / filler, by group and gender (from its ``per_filler`` table)."""

from __future__ import annotations

import re
from typing import Any, Sequence

import numpy as np

from .. import plots
from ..plots import GENDER_COLOURS, figure, legend_below, to_png
from .figures import bar, picked_rows
from . import View

_CELL = re.compile(r"^(?P<kind>names|terms)\.(?P<measure>[ts])_mean\[(?P<cell>[^\]]*)\]$")


def positiveness(fillers: Sequence[dict], measure: str, title: str) -> bytes:
    """Per-filler ``measure`` (t or s) as points, grouped by profession group, coloured by gender,
    with the mean of each (group, gender) cell as a bar; the extreme fillers are labelled."""
    groups = sorted({str(f.get("group", "-")) for f in fillers})
    genders = sorted({str(f.get("gender", "-")) for f in fillers})
    fig = figure(max(6.0, 1.2 * len(groups) + 2), 3.8)
    ax = fig.add_subplot()
    rng = np.random.default_rng(0)  # fixed jitter: the same data draw the same picture
    span = 0.7
    step = span / max(len(genders), 1)
    for g_index, gender in enumerate(genders):
        offset = -span / 2 + step * (g_index + 0.5)
        colour = GENDER_COLOURS.get(gender, f"C{g_index + 2}")
        xs_all, ys_all = [], []
        for x, group in enumerate(groups):
            values = [float(f[measure]) for f in fillers if str(f.get("group", "-")) == group
                      and str(f.get("gender", "-")) == gender]
            if not values:
                continue
            xs = x + offset + rng.uniform(-step / 4, step / 4, len(values))
            xs_all += list(xs)
            ys_all += values
            ax.hlines(np.mean(values), x + offset - step / 2.5, x + offset + step / 2.5, color=colour, linewidth=2.5)
        ax.scatter(xs_all, ys_all, s=14, alpha=0.75, color=colour, label=gender)
    ordered = sorted(fillers, key=lambda f: float(f[measure]))
    for f in (ordered[0], ordered[-1]) if len(ordered) > 1 else ():
        x = groups.index(str(f.get("group", "-")))
        ax.annotate(str(f.get("filler", "")), (x, float(f[measure])), fontsize=7, xytext=(4, 2),
                    textcoords="offset points")
    ax.set_xticks(range(len(groups)), groups, rotation=20, ha="right", fontsize=8)
    ax.set_ylabel(measure)
    ax.set_title(title, fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    legend_below(fig, fontsize=8, title="gender", title_fontsize=8)
    return to_png(fig)


def _cell_key(kind: str, cell: str) -> tuple[str, str] | None:
    """(group on the x axis, gender) of a stored cell: "group=doctors,gender=female" → ("doctors",
    "female"); a name's gender alone → ("all names", gender); a term's → ("terms", gender)."""
    parts = dict(part.split("=", 1) for part in cell.split(",") if "=" in part)
    if "gender" not in parts:
        return None  # a group over both genders: its two halves are drawn instead
    if kind == "terms":
        return "terms", parts["gender"]
    return parts.get("group", "all names"), parts["gender"]


def group_means_figure(view: Any, labels: Sequence[str]) -> None:
    """Mean t and s (one panel each, where stored) per profession group and gender, a bar per
    gender (and run) at the headline checkpoints, with 95% intervals over fillers."""
    measures: dict[str, dict[str, dict[str, plots.Bar | None]]] = {}  # measure → series → group → bar
    for name, rows in picked_rows(view, labels):
        for metric, row in rows.items():
            match = _CELL.match(metric)
            key = _cell_key(match.group("kind"), match.group("cell")) if match else None
            if key is None:
                continue
            group, gender = key
            series = gender if len(view.picked()) * len(labels) == 1 else f"{name} · {gender}"
            measures.setdefault(match.group("measure"), {}).setdefault(series, {})[group] = bar(view, row)
    if not measures:
        return
    fig = figure(min(16.0, max(6.0, 0.35 * sum(len(s) for m in measures.values() for s in m.values()) + 2)),
                 3.9)
    axes = fig.subplots(1, len(measures), squeeze=False)[0]
    for ax, (measure, series) in zip(axes, sorted(measures.items(), key=lambda kv: kv[0] != "t")):
        found = {g for cells in series.values() for g in cells}
        groups = sorted(found - {"all names", "terms"}) + [g for g in ("all names", "terms") if g in found]
        plots.interval_bars(ax, groups,
                            {label: [cells.get(g) for g in groups] for label, cells in sorted(series.items())},
                            colours={label: GENDER_COLOURS[label] for label in series if label in GENDER_COLOURS})
        ax.set_ylim(0, 1.05)
        ax.set_title({"t": "t: positive renderings (mean over fillers)",
                      "s": "s: sentence sentiment (mean over fillers)"}[measure], fontsize=9)
    axes[0].set_ylabel("positiveness")
    fig.suptitle("Sentiment: group means by gender", fontsize=10)
    legend_below(fig)
    view.figure(fig, "Sentiment: mean t and s per profession group and gender at the headline checkpoints "
                     "(error bars: 95% interval over fillers)")


def section(view: Any, labels: Sequence[str]) -> None:
    """Per-filler t and s at the headline checkpoints (the probe's ``per_filler`` table)."""
    started = False
    for run, ckpt in view.picked():
        for label in labels:
            fillers = view.stored_table(run, ckpt, label, "per_filler")
            if not fillers:
                continue
            if not started:
                view.heading("Positiveness per name / filler")
                view.paragraph("t: share of the matched templates (word in an inventory) whose ambiguous word was "
                               "rendered positively, none under half matched; s: sentence sentiment with the name "
                               "masked. Points are fillers, bars cell means.", "note")
                started = True
            where = view.run_label(run, ckpt) + (f" · {view.shown(label)}" if view.shown(label) else "")
            for measure in ("t", "s"):
                values = [f for f in fillers if view.finite(f.get(measure))]
                if values:
                    view.figure(positiveness(values, measure, f"{where} · {ckpt}: {measure}"),
                                f"{where}: per-filler {measure} by group and gender")
            view.table("sentiment_fillers_" + re.sub(r"[^A-Za-z0-9]+", "_", where).strip("_"),
                       f"Per-filler positiveness, {where}", ["filler", "group", "gender", "t", "t_coverage", "s"], fillers,
                       collapsed=f"per-filler values: {where}")


VIEWS = {"sentiment.v1": View(figure=group_means_figure, section=section)}  # found by name (view_of)
