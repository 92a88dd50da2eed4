"""The WinoMT probe's report figure: accuracy by gold gender × stereotype (pro / anti) with 95%
intervals, read from the stored ``accuracy_pro.<gender>``, ``accuracy_anti.<gender>``,
``accuracy_pro`` and ``accuracy_anti`` rows; nothing is recomputed."""

from __future__ import annotations

from typing import Any, Sequence

from .. import plots
from .figures import bar, picked_rows
from . import View

STEREOTYPE_COLOURS = {"pro-stereotypical": "#8e8e8e", "anti-stereotypical": "#ef6c00"}


def winomt_figure(view: Any, labels: Sequence[str]) -> None:
    """Bars in groups of (run, gold gender): female, male and all items, each with its
    pro-stereotypical and anti-stereotypical accuracy. Results stored before the per-gender cells
    existed show the "all" group only; results of items without stereotype groups draw nothing
    (the report then draws the headline metrics)."""
    groups: list[str] = []
    pro: list[plots.Bar | None] = []
    anti: list[plots.Bar | None] = []
    for name, rows in picked_rows(view, labels):
        if "accuracy_pro" not in rows and "accuracy_anti" not in rows:
            continue
        for gender in ("female", "male", "all"):
            suffix = "" if gender == "all" else f".{gender}"
            if gender != "all" and f"accuracy_pro{suffix}" not in rows and f"accuracy_anti{suffix}" not in rows:
                continue
            groups.append(f"{name} · {gender}")
            pro.append(bar(view, rows.get(f"accuracy_pro{suffix}")))
            anti.append(bar(view, rows.get(f"accuracy_anti{suffix}")))
    if not groups:
        return
    fig = plots.bar_figure(groups, {"pro-stereotypical": pro, "anti-stereotypical": anti},
                           "WinoMT: accuracy by gender and stereotype", "accuracy (gold gender detected)",
                           ylim=(0, 1.05), colours=STEREOTYPE_COLOURS)
    view.figure(fig, "WinoMT accuracy by gold gender × stereotype at the headline checkpoints; ΔS = pro − anti "
                     "(error bars: 95% interval)")



# the probes this module draws, by name (mtdebias.report.views.view_of)
VIEWS = {"winomt.v1": View(figure=winomt_figure)}

__all__ = ["winomt_figure"]
