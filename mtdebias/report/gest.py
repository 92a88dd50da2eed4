"""The report's GEST views: per-stereotype male rates at each checkpoint (16 bars with their
intervals, the female stereotypes 1–7 apart from the male ones 8–16) and the masculine rate and
stereotype rate over training.

Reads the stored rows of ``gest.v1`` / ``gest_pref.v1`` (``male_rate_s1`` … ``male_rate_s16``,
``masculine_rate``, ``stereotype_rate``); nothing is recomputed.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

import numpy as np

from . import plots
from .collect import RunData, checkpoint_suffix, finite, row_key

GEST_PROBES = ("gest.", "gest_pref.")
STEREOTYPE_NAMES = {1: "emotional", 2: "gentle", 3: "empathetic", 4: "neat", 5: "social", 6: "weak",
                    7: "beautiful", 8: "tough", 9: "self-confident", 10: "professional", 11: "rational",
                    12: "providers", 13: "leaders", 14: "childish", 15: "sexual", 16: "strong"}
_RATE = re.compile(r"^male_rate_s(\d+)$")


def is_gest(probe: str) -> bool:
    return probe.startswith(GEST_PROBES)


def is_stereotype_rate_key(key: str) -> bool:
    """``gest.v1:male_rate_s3`` — drawn as bars here, so the line plots leave these out."""
    probe, _, metric = key.partition(":")
    return is_gest(probe) and bool(_RATE.match(metric))


def _ci(row: dict[str, Any]) -> tuple[float, float] | None:
    ci = row.get("ci")
    if isinstance(ci, (list, tuple)) and len(ci) == 2 and all(finite(c) for c in ci):
        return float(ci[0]), float(ci[1])
    return None


def stereotype_bars(rates: dict[int, tuple[float, tuple[float, float] | None, int | None]], title: str) -> bytes:
    """16 bars: male rate per stereotype with its interval; female stereotypes (1–7) on the left,
    a gap, male stereotypes (8–16) on the right; a dashed line at 0.5 (no preference)."""
    fig = plots._figure(8.0, 3.9)
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


def _label(run: RunData, checkpoint: str) -> str:
    suffix = checkpoint_suffix(checkpoint)
    return run.name + (f" ({suffix})" if suffix else "")


def add_gest_section(builder) -> None:
    """Per-checkpoint stereotype bars and the rate trends, for every stored GEST probe."""
    runs: Sequence[RunData] = builder.runs
    probes = sorted({row_key(r).split(":", 1)[0] for run in runs for r in run.results if is_gest(r["probe"])})
    if not probes:
        return
    builder.doc.heading("GEST: the speaker's gender per stereotype")
    builder.doc.paragraph("Male rate = male / (male + female) among translations whose first-person speaker has a "
                          "detected gender (gest.v1), or the share of items whose masculine variant scores higher "
                          "(gest_pref.v1). Stereotype rate = mean over the male stereotypes 8–16 minus the mean over "
                          "the female ones 1–7; 0 when the stereotypes do not steer the translator.", "note")
    for probe in probes:
        trend: dict[str, list[plots.SeriesPoint]] = {}
        for run in runs:
            for ckpt in run.checkpoints():
                rows = [r for r in run.rows_at(ckpt) if row_key(r).split(":", 1)[0] == probe and finite(r["value"])]
                rates = {}
                for r in rows:
                    match = _RATE.match(r["metric"])
                    if match:
                        rates[int(match.group(1))] = (float(r["value"]), _ci(r), r.get("n"))
                if rates:
                    builder.add_figure(stereotype_bars(rates, f"{probe} · {_label(run, ckpt)} · {ckpt}"),
                                       f"{probe}: male rate per stereotype, {_label(run, ckpt)} at {ckpt} "
                                       "(error bars: 95% interval)")
                step = run.step_of(ckpt)
                if step is None:
                    continue
                for r in rows:
                    if r["metric"] in ("masculine_rate", "stereotype_rate"):
                        trend.setdefault(f"{_label(run, ckpt)} · {r['metric']}", []).append(
                            plots.SeriesPoint(step, float(r["value"]), _ci(r)))
        if trend:
            builder.add_figure(plots.metric_lines(trend, f"{probe}: masculine rate and stereotype rate", "rate"),
                               f"{probe}: masculine rate and stereotype rate against training step (band: 95% interval)")
