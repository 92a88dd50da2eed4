"""The GEST probes' report view: per-stereotype male rates at the headline checkpoints (their
figure: 16 bars with their intervals, the female stereotypes 1–7 apart from the male ones 8–16)
and the masculine rate and stereotype rate over training (their section).

Reads the stored rows (``male_rate_s1`` … ``male_rate_s16``, ``masculine_rate``,
``stereotype_rate``; gest_choice.v1: ``masculine_rate_<language>[_<translator>]_<s>``); nothing
is recomputed.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

import numpy as np

from .. import plots
from . import View
STEREOTYPE_NAMES = {1: "emotional", 2: "gentle", 3: "empathetic", 4: "neat", 5: "social", 6: "weak",
                    7: "beautiful", 8: "tough", 9: "self-confident", 10: "professional", 11: "rational",
                    12: "providers", 13: "leaders", 14: "childish", 15: "sexual", 16: "strong"}
_RATE = re.compile(r"^male_rate_s(\d+)$")
# gest_choice.v1's per-stereotype rates: one set of 16 per language (and translator) cell
_CHOICE_RATE = re.compile(r"^masculine_rate_(?P<cell>.+)_(?P<s>\d+)$")


def stereotype_bars(rates: dict[int, tuple[float, tuple[float, float] | None, int | None]], title: str,
                    ylabel: str = "male rate (male / detected)"):
    """16 bars: male rate per stereotype with its interval; female stereotypes (1–7) on the left,
    a gap, male stereotypes (8–16) on the right; a dashed line at 0.5 (no preference). Returns
    the Figure."""
    fig = plots.figure(8.0, 3.9)
    ax = fig.add_subplot()
    xs, labels = [], []
    for s in range(1, 17):
        x = s - 1 + (1 if s >= 8 else 0)  # the gap between the two groups
        xs.append(x)
        n = rates.get(s, (np.nan, None, None))[2]
        labels.append(f"{s} {STEREOTYPE_NAMES[s]}" + (f"\nn={n}" if n is not None else ""))
    for group, colour, label in ((range(1, 8), plots.GENDER_COLOURS["female"], "female stereotypes (1–7)"),
                                 (range(8, 17), plots.GENDER_COLOURS["male"], "male stereotypes (8–16)")):
        gx = [xs[s - 1] for s in group]
        values = np.array([rates.get(s, (np.nan, None, None))[0] for s in group], dtype=float)
        errors = np.array([[v - c[0], c[1] - v] if (c := rates.get(s, (0, None, None))[1]) and np.isfinite(v)
                           else [0.0, 0.0] for s, v in zip(group, values)]).T.reshape(2, -1)
        ax.bar(gx, np.nan_to_num(values), 0.75, yerr=np.clip(errors, 0, None), capsize=3, color=colour, label=label)
    ax.axhline(0.5, color="#444444", linestyle="--", linewidth=1)
    ax.set_xticks(xs, labels, rotation=60, ha="right", fontsize=7)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    plots.legend_below(fig)
    return fig


RATES_NOTE = ("Male rate = male / (male + female) among translations whose first-person speaker has a detected "
              "gender (gest.v1), or the share of items whose masculine variant scores higher (gest_pref.v1), or "
              "the share of answers choosing the masculine variant (gest_choice.v1). Stereotype rate = mean over "
              "the male stereotypes 8–16 minus the mean over the female ones 1–7; 0 when the stereotypes do not "
              "steer the translator.")


def figure_of(view: Any, labels: Sequence[str]) -> None:
    """The stereotype bars at each headline checkpoint, for every stored label of a GEST probe."""
    for run, ckpt in view.picked():
        for label in labels:
            rates = {}
            for r in view.results(run, ckpt, label):
                match = _RATE.match(r["metric"])
                if match and view.finite(r["value"]):
                    rates[int(match.group(1))] = (float(r["value"]), view.interval(r), r.get("n"))
            if rates:
                where = view.run_label(run, ckpt)
                view.figure(stereotype_bars(rates, f"{label} · {where} · {ckpt}"),
                            f"{label}: male rate per stereotype, {where} at {ckpt} (error bars: 95% interval)")


def choice_figure(view: Any, labels: Sequence[str]) -> None:
    """gest_choice.v1: the masculine rate per stereotype of each language (and translator) cell
    at each headline checkpoint, the same 16 bars as gest.v1's."""
    for run, ckpt in view.picked():
        for label in labels:
            cells: dict[str, dict[int, tuple[float, tuple[float, float] | None, int | None]]] = {}
            for r in view.results(run, ckpt, label):
                match = _CHOICE_RATE.match(r["metric"])
                if match and 1 <= int(match.group("s")) <= 16 and view.finite(r["value"]):
                    cells.setdefault(match.group("cell"), {})[int(match.group("s"))] = (
                        float(r["value"]), view.interval(r), r.get("n"))
            where = view.run_label(run, ckpt)
            for cell, rates in sorted(cells.items()):
                view.figure(stereotype_bars(rates, f"{label} · {cell} · {where}", "masculine rate (chosen variant)"),
                            f"{label}: masculine rate per stereotype, {cell}, {where} (error bars: 95% interval)")


def section(view: Any, labels: Sequence[str]) -> None:
    """The rate trends over training, for every stored label of a GEST probe (the stereotype
    bars are the probe's figure)."""
    started = False
    for label in labels:
        trend: dict[str, list[plots.SeriesPoint]] = {}
        for run in view.runs:
            for ckpt in run.checkpoints():
                rows = [r for r in view.results(run, ckpt, label) if view.finite(r["value"])]
                where = view.run_label(run, ckpt)
                step = run.step_of(ckpt)
                if step is None:
                    continue
                for r in rows:
                    if r["metric"] in ("masculine_rate", "stereotype_rate"):
                        trend.setdefault(f"{where} · {r['metric']}", []).append(
                            plots.SeriesPoint(step, float(r["value"]), view.interval(r)))
        if trend:
            if not started:  # gest.v1 and gest_pref.v1 both draw this section: the heading names whose it is
                view.heading(f"GEST: masculine and stereotype rate over training ({', '.join(labels)})")
                view.paragraph(RATES_NOTE, "note")
                started = True
            view.figure(plots.metric_lines(trend, f"{label}: masculine rate and stereotype rate", "rate"),
                        f"{label}: masculine rate and stereotype rate against training step (band: 95% interval)")


# found by name (view_of); gest_choice.v1 has a figure of its own and no section: its masculine and
# stereotype rates are drawn against training step like any metric
VIEWS = {"gest.v1": View(figure=figure_of, section=section), "gest_pref.v1": View(figure=figure_of, section=section),
         "gest_choice.v1": View(figure=choice_figure)}
