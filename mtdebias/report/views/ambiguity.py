"""The ambiguity probe's report views: its figure (ΔI and ΔH per entropy kind, as bars with their
intervals), entropy violins (ambiguous vs unambiguous inputs), the ΔI and ΔH metrics with the
items each rests on, ΔI against gender accuracy across checkpoints, and the cue ANOVA tables."""

from __future__ import annotations

import math
import re
from typing import Any, Sequence

import numpy as np

from .. import plots
from ..plots import figure, to_png
from .figures import bar, picked_rows
from . import View

WINOMT = "winomt.v1"  # the gender-accuracy yardstick ΔI is validated against
AMBIGUITY_COLOURS = {"unambiguous": "#2e7d32", "ambiguous": "#ef6c00"}


def entropy_violins(values: dict[str, dict[str, list[float]]], title: str) -> bytes:
    """One panel per entropy kind, a violin each for unambiguous and ambiguous inputs.

    ``values[kind][label]`` are the per-item entropies. A side with fewer than two distinct
    values has no density to draw, so its items are shown as points instead.
    """
    kinds = list(values)
    fig = figure(max(4.0, 2.8 * len(kinds)), 3.6)
    axes = fig.subplots(1, len(kinds), squeeze=False)[0]
    labels = ["unambiguous", "ambiguous"]
    for ax, kind in zip(axes, kinds):
        for x, label in enumerate(labels):
            data = np.array([v for v in values[kind].get(label, []) if np.isfinite(v)], dtype=float)
            colour = AMBIGUITY_COLOURS[label]
            if len(data) >= 2 and np.ptp(data) > 0:
                parts = ax.violinplot([data], positions=[x], showmeans=True, widths=0.8)
                for body in parts["bodies"]:
                    body.set_facecolor(colour)
                    body.set_alpha(0.5)
                for key in ("cmeans", "cmins", "cmaxes", "cbars"):
                    if key in parts:
                        parts[key].set_color(colour)
            elif len(data):
                ax.scatter(np.full(len(data), x), data, color=colour, s=14)
        ax.set_xticks(range(len(labels)),
                      [f"{lab}\n(n={len(values[kind].get(lab, []))})" for lab in labels], fontsize=8)
        ax.set_title(kind, fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("entropy")
    fig.suptitle(title, fontsize=10)
    return to_png(fig)


def section(view: Any, labels: Sequence[str]) -> None:
    """Entropy violins at the headline checkpoints, ΔI against WinoMT accuracy over every
    checkpoint, and the cue ANOVA tables (the entropies read from the attempts as the probe
    reads them)."""
    from ...probes.ambiguity.probe import entropy_values  # the probe's modules load only when drawn

    started = False
    for run, ckpt in view.picked():
        for label in labels:
            attempts = view.attempts(run, ckpt, label)
            if not attempts:
                continue
            for kind_name, values in entropy_values(attempts).items():
                if not started:
                    view.heading("Entropy: ambiguous vs unambiguous inputs")
                    started = True
                where = view.run_label(run, ckpt)
                view.figure(entropy_violins(values, f"{where} · {label}: {kind_name}"),
                            f"{where}: {kind_name} for ambiguous vs unambiguous inputs ({label})")
    _deltas(view, labels)
    _delta_i_vs_accuracy(view, labels)
    _anova(view, labels)


KINDS = (("se", "SE"), ("s3e", "S3E"), ("ge", "GE"))
# the panels of the figure: (metric pattern with {kind}, title)
DELTA_PANELS = (("delta_i_{kind}", "ΔI (lower is better)"),
                ("delta_h_{kind}", "ΔH (lower is better; < 0 desired)"),
                ("delta_h_{kind}_per_set", "ΔH per contrast set"))


def delta_figure(view: Any, labels: Sequence[str]) -> None:
    """One panel each for ΔI, ΔH and ΔH per contrast set (where stored), a group of bars per
    entropy kind, a bar per run and data set (suite label) at its headline checkpoint; an
    undefined value (too few items) is marked "n/a", not drawn as 0."""
    stored = picked_rows(view, labels)
    panels = []
    for pattern, title in DELTA_PANELS:
        kinds = [(kind, name) for kind, name in KINDS if any(pattern.format(kind=kind) in rows for _, rows in stored)]
        if kinds:
            panels.append((pattern, title, kinds))
    if not panels:
        return
    fig = figure(min(16.0, max(5.0, 3.4 * len(panels) + 0.3 * len(stored))), 3.9)
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, (pattern, title, kinds) in zip(axes, panels):
        plots.interval_bars(ax, [name for _, name in kinds],
                            {label: [bar(view, rows.get(pattern.format(kind=kind))) for kind, _ in kinds]
                             for label, rows in stored}, reference=0.0)
        ax.set_title(title, fontsize=9)
    axes[0].set_ylabel("Δ (relative)")
    fig.suptitle("Ambiguity: ΔI and ΔH per entropy", fontsize=10)
    plots.legend_below(fig)
    view.figure(fig, "Ambiguity ΔI and ΔH per entropy kind at the headline checkpoints, per run and data set "
                     "(error bars: 95% interval; n/a: undefined, too few items)")


def delta_cell(row: dict[str, Any]) -> str:
    """A stored ΔI/ΔH row as the report prints it: the value, or "undefined" with the items it
    would rest on and why — under the probe's minimum (from the signature), or for a ΔH on
    enough items, its floor — when the probe left it NaN."""
    from ...signature import Signature
    from ...uncertainty.metrics import BELOW_FLOOR

    value, n = row.get("value"), row.get("n")
    if isinstance(value, (int, float)) and math.isfinite(value):
        return f"{value:.0f}" if "_outside_" in row["metric"] else f"{value:.3f}"
    minimum = Signature.parse(row["signature"]).settings.get("min_items")
    if n is None:
        return "undefined"
    if minimum and n < int(minimum):  # the signature's settings are text
        return f"undefined (n = {n} < {minimum})"
    # enough items: a ΔH of the means is undefined only below its floor (the per-set mean and ΔI
    # of enough items are always defined)
    return f"undefined (n = {n}; {BELOW_FLOOR})" if re.fullmatch(r"delta_h_[a-z0-9]+", row["metric"]) \
        else f"undefined (n = {n})"


def _deltas(view: Any, labels: Sequence[str]) -> None:
    """Every ΔI and ΔH at the headline checkpoints, with n: the items (ΔH per set: the contrast
    sets) that define it — a value resting on fewer than the probe's minimum is "undefined"."""
    rows = []
    for run, ckpt in view.picked():
        for label in labels:
            for row in view.results(run, ckpt, label):
                if not re.match(r"delta_(i|h)_|delta_logprob", row["metric"]):
                    continue
                ci = view.interval(row)
                rows.append({"run": view.run_label(run, ckpt), "label": label, "metric": row["metric"],
                             "value": delta_cell(row), "ci": f"[{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "",
                             "n": row.get("n")})
    if rows:
        view.heading("ΔI and ΔH, with the items each rests on")
        view.table("ambiguity_deltas", "ΔI and ΔH with their item counts", ["run", "label", "metric", "value", "ci", "n"],
                   rows, note="n: items with a defined value (delta_h_*_per_set: contrast sets); a value resting on "
                              "fewer than min_items (in the signature) is undefined, not a number. ΔI leaves out "
                              "items whose reference lies outside every sample cluster: delta_i_*_outside_* count "
                              "them per side, out of the n items with references.")


def _delta_i_vs_accuracy(view: Any, labels: Sequence[str]) -> None:
    """Kendall τ / Spearman ρ of ΔI against WinoMT accuracy over every scored checkpoint."""
    from ...uncertainty.validation import DELTA_I_METRICS, delta_i_correlations

    points = []
    for run in view.runs:
        for ckpt in run.checkpoints():
            point: dict[str, Any] = {"name": f"{run.name}/{ckpt}", "accuracy": None}
            for row in run.rows_at(ckpt):  # the WinoMT probe's accuracy is the yardstick of ΔI
                if row["probe"] == WINOMT and row["metric"] == "accuracy" and view.finite(row["value"]):
                    point["accuracy"] = float(row["value"])
            for label in labels:
                for row in view.results(run, ckpt, label):
                    if row["metric"] in DELTA_I_METRICS and view.finite(row["value"]):
                        point[row["metric"]] = (float(row["value"]), row["signature"])
            points.append(point)
    rows, warnings = delta_i_correlations(points)
    for warning in warnings:
        view.warning(warning)
    if rows:
        view.heading("ΔI against gender accuracy across checkpoints")
        view.table("delta_i_vs_accuracy", "Rank correlation of ΔI with WinoMT accuracy",
                   ["metric", "kendall_tau", "kendall_p", "spearman_rho", "spearman_p", "n"], rows,
                   note="every scored checkpoint of every run; a useful ΔI correlates negatively "
                        "(the uncertainty paper, §5.1)", summary=True)


def anova_rows(obj: Any) -> list[dict[str, Any]]:
    """A stored ANOVA table's rows: a list of row dicts, ``{"rows": [...]}`` or pandas' "split"
    orientation ``{"columns": [...], "data": [[...]]}``."""
    if isinstance(obj, list):
        return [r for r in obj if isinstance(r, dict)]
    if isinstance(obj, dict):
        if isinstance(obj.get("rows"), list):
            return anova_rows(obj["rows"])
        if isinstance(obj.get("columns"), list) and isinstance(obj.get("data"), list):
            return [dict(zip(obj["columns"], row)) for row in obj["data"]]
    return []


def _anova(view: Any, labels: Sequence[str]) -> None:
    from ...stats.anova import COLUMNS

    started = False
    for run, ckpt in view.picked():
        for label in labels:
            record = view.stored_table(run, ckpt, label, "anova")
            if not isinstance(record, dict):
                continue
            rows, dropped = anova_rows(record), list(record.get("dropped") or [])
            if not started:
                view.heading("ANOVA: cue effects on entropy")
                started = True
            present = {k for r in rows for k in r} - {"model", "lang"}
            columns = [c for c in ("response", *COLUMNS) if c in present]
            columns += sorted(present - set(columns))
            where = view.run_label(run, ckpt)
            name = "anova_" + re.sub(r"[^A-Za-z0-9]+", "_", f"{where}_{label}").strip("_")
            view.heading(f"{where} · {ckpt} · {label}", 3)
            if record.get("error"):
                view.warning(f"ANOVA not computed: {record['error']}")
            reasons: dict[tuple[str, str], int] = {}
            for row in dropped:
                key = (str(row.get("response")), str(row.get("reason")))
                reasons[key] = reasons.get(key, 0) + 1
            view.paragraph(f"{record.get('items', '?')} test items. " + (
                "Rows dropped (NaN response): " + "; ".join(f"{response}: {count} ({reason})" for
                                                            (response, reason), count in sorted(reasons.items()))
                if reasons else "No rows dropped."), "note")
            view.table(name, f"ANOVA {where} {label}", columns, rows,
                       "coef: mean response of the level minus that of the reference level (OLS, treatment "
                       "coding); p: its t-test; f, f_p: the cue's F-test.")


VIEWS = {"ambiguity.v1": View(figure=delta_figure, section=section)}  # found by name (view_of)
