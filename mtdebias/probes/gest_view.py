"""The GEST probes' report view: per-stereotype male rates at each checkpoint (16 bars with their
intervals, the female stereotypes 1–7 apart from the male ones 8–16) and the masculine rate and
stereotype rate over training.

Reads the stored rows (``male_rate_s1`` … ``male_rate_s16``, ``masculine_rate``,
``stereotype_rate``); nothing is recomputed.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

import numpy as np

from .. import plots
STEREOTYPE_NAMES = {1: "emotional", 2: "gentle", 3: "empathetic", 4: "neat", 5: "social", 6: "weak",
                    7: "beautiful", 8: "tough", 9: "self-confident", 10: "professional", 11: "rational",
                    12: "providers", 13: "leaders", 14: "childish", 15: "sexual", 16: "strong"}
_RATE = re.compile(r"^male_rate_s(\d+)$")


def stereotype_bars(rates: dict[int, tuple[float, tuple[float, float] | None, int | None]], title: str) -> bytes:
    """16 bars: male rate per stereotype with its interval; female stereotypes (1–7) on the left,
    a gap, male stereotypes (8–16) on the right; a dashed line at 0.5 (no preference)."""
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
    ax.set_ylabel("male rate (male / detected)")
    ax.set_title(title, fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    return plots.to_png(fig)


def section(view: Any, labels: Sequence[str]) -> None:
    """Per-checkpoint stereotype bars and the rate trends, for every stored label of a GEST probe."""
    # gest.v1 and gest_pref.v1 both draw this section: the heading names whose it is
    view.heading(f"GEST: the speaker's gender per stereotype ({', '.join(labels)})")
    view.paragraph("Male rate = male / (male + female) among translations whose first-person speaker has a "
                   "detected gender (gest.v1), or the share of items whose masculine variant scores higher "
                   "(gest_pref.v1). Stereotype rate = mean over the male stereotypes 8–16 minus the mean over "
                   "the female ones 1–7; 0 when the stereotypes do not steer the translator.", "note")
    for label in labels:
        trend: dict[str, list[plots.SeriesPoint]] = {}
        for run in view.runs:
            for ckpt in run.checkpoints():
                rows = [r for r in view.results(run, ckpt, label) if view.finite(r["value"])]
                rates = {}
                for r in rows:
                    match = _RATE.match(r["metric"])
                    if match:
                        rates[int(match.group(1))] = (float(r["value"]), view.interval(r), r.get("n"))
                where = view.run_label(run, ckpt)
                if rates:
                    view.figure(stereotype_bars(rates, f"{label} · {where} · {ckpt}"),
                                f"{label}: male rate per stereotype, {where} at {ckpt} (error bars: 95% interval)")
                step = run.step_of(ckpt)
                if step is None:
                    continue
                for r in rows:
                    if r["metric"] in ("masculine_rate", "stereotype_rate"):
                        trend.setdefault(f"{where} · {r['metric']}", []).append(
                            plots.SeriesPoint(step, float(r["value"]), view.interval(r)))
        if trend:
            view.figure(plots.metric_lines(trend, f"{label}: masculine rate and stereotype rate", "rate"),
                        f"{label}: masculine rate and stereotype rate against training step (band: 95% interval)")
