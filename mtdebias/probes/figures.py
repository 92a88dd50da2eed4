"""What the probes' report figures share, and the figure of a probe that declares none: its
headline metrics at the headline checkpoints as bars with their 95% intervals.

A probe's figure is drawn by its class method ``report_figure(view, labels)`` from what the
report's :class:`~mtdebias.probes.base.ReportView` hands it (stored rows, tables, attempts); the
report puts each probe's figure under "Figures per probe" and writes it beside the Markdown
summary. :meth:`BaseProbe.report_figure <mtdebias.probes.base.BaseProbe.report_figure>` calls
:func:`headline_figure`, so a probe (a plugin's too) has a figure without writing one.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from .. import plots
from .base import ZERO

SUMMARY_METRICS = 6  # a probe that declares no headline: its first stored summary metrics, as the headline table


def bar(view: Any, row: dict[str, Any] | None) -> plots.Bar | None:
    """A stored result row as a bar: its value (NaN when undefined) and its interval."""
    if row is None:
        return None
    value = float(row["value"]) if view.finite(row.get("value")) else math.nan
    return plots.Bar(value, view.interval(row))


def where(view: Any, run: Any, checkpoint: str, label: str) -> str:
    """A bar's name: the run (and derived copy), and the suite label when it is not the probe's."""
    shown = view.shown(label)
    return view.run_label(run, checkpoint) + (f" · {shown}" if shown else "")


def picked_rows(view: Any, labels: Sequence[str]) -> list[tuple[str, dict[str, dict[str, Any]]]]:
    """[(bar name, {metric: stored row})] at the headline checkpoints, one per run and label that
    stored anything."""
    out = []
    for run, checkpoint in view.picked():
        for label in labels:
            rows = {row["metric"]: row for row in view.results(run, checkpoint, label)}
            if rows:
                out.append((where(view, run, checkpoint, label), rows))
    return out


def headline_figure(view: Any, probe: type, labels: Sequence[str]) -> None:
    """One panel per headline metric (a probe without headline metrics: its first stored summary
    metrics), a bar per run at its headline checkpoint with its 95% interval; a dashed line at 0
    for a metric whose best value is 0. Metrics on different scales get panels of their own."""
    stored = picked_rows(view, labels)
    names = {h.metric: h.label for h in getattr(probe, "headline", ())}
    if not names:
        seen = dict.fromkeys(metric for _, rows in stored for metric in rows if "[" not in metric)
        names = {metric: metric for metric in list(seen)[:SUMMARY_METRICS]}
    panels = [metric for metric in names if any(metric in rows for _, rows in stored)]
    if not panels:
        return
    specs = getattr(probe, "specs", ())
    fig = plots.figure(min(16.0, max(4.5, 2.6 * len(panels) + 0.3 * len(stored))), 3.8)
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, metric in zip(axes, panels):
        spec = next((s for s in specs if s.matches(metric)), None)
        plots.interval_bars(ax, [names[metric]], {name: [bar(view, rows.get(metric))] for name, rows in stored},
                            reference=0.0 if spec is not None and spec.better == ZERO else None)
    fig.suptitle(f"{probe.name}: headline metrics", fontsize=10)
    plots.legend_below(fig)
    view.figure(fig, f"{probe.name}: headline metrics at the headline checkpoints (error bars: 95% interval)")


__all__ = ["bar", "where", "picked_rows", "headline_figure"]
