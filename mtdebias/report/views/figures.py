"""What the probes' report figures share: a stored row as a bar, a bar's name, the rows at the
headline checkpoints.

A probe's figure is drawn by its view (:mod:`mtdebias.report.views`) from what the report's
:class:`~mtdebias.report.views.ReportView` hands it (stored rows, tables, attempts); the report
puts each probe's figure under "Figures per probe" and writes it beside the Markdown summary. A
probe whose view draws nothing (or that has none) gets its headline metrics as bars
(:func:`mtdebias.report.headline_figure.headline_figure`).
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from .. import plots


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


__all__ = ["bar", "where", "picked_rows"]
