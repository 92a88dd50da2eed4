"""The figure of a probe that draws none of its own (a plugin's, or one whose stored results lack
the breakdown its figure needs): its headline metrics at the headline checkpoints as bars with
their 95% intervals."""

from __future__ import annotations

from typing import Any, Sequence

from . import plots
from ..probes.base import ZERO
from .views.figures import bar, picked_rows

SUMMARY_METRICS = 6  # a probe that declares no headline: its first stored summary metrics, as the headline table


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


__all__ = ["headline_figure"]
