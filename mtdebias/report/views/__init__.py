"""The report's views of the shipped probes: one module per probe family (the folder of the
probe under :mod:`mtdebias.probes`), each with a ``VIEWS`` table naming, per probe of the family,
its figure (under "Figures per probe") and its section (its other plots and tables). Both are
drawn from what the run store holds through a :class:`ReportView`; nothing is recomputed.

The report finds a probe's view by the probe's name (:func:`view_of`): a probe that has none
gets its headline metrics as bars; a probe shipped in another package (an entry point) may
give its class ``report_figure(view, labels)`` and ``report_section(view, labels)`` class
methods instead, since it cannot add a module here.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from typing import Any, Callable, Protocol, Sequence


class ReportView(Protocol):
    """What the report gives a probe's section (built by :mod:`mtdebias.report`): the runs, the
    checkpoints chosen for the headline, stored rows, attempts and tables, and a page to add to."""

    probe: str  # the probe's versioned name, whose stored rows results() reads
    runs: Sequence[Any]  # RunData: name, checkpoints(), step_of(), rows_at()

    def picked(self) -> list[tuple[Any, str]]: ...  # (run, checkpoint) shown in the headline

    def run_label(self, run: Any, checkpoint: str) -> str: ...

    def results(self, run: Any, checkpoint: str, label: str) -> list[dict[str, Any]]: ...

    def attempts(self, run: Any, checkpoint: str, label: str) -> list[dict[str, Any]] | None: ...

    def stored_table(self, run: Any, checkpoint: str, label: str, kind: str) -> Any: ...

    def heading(self, text: str, level: int = 2) -> None: ...

    def paragraph(self, text: str, css: str | None = None) -> None: ...

    def warning(self, text: str) -> None: ...

    def figure(self, figure: Any, caption: str) -> None: ...  # a matplotlib Figure (or PNG bytes)

    def table(self, name: str, title: str, columns: list[str], rows: list[dict[str, Any]], note: str = "",
              collapsed: str | None = None, summary: bool = False) -> None: ...

    def shown(self, label: str) -> str: ...  # a suite label worth showing ("" for the probe's own name)

    def finite(self, value: Any) -> bool: ...

    def interval(self, row: dict[str, Any]) -> tuple[float, float] | None: ...  # a stored row's 95% interval


Draw = Callable[[ReportView, Sequence[str]], None]


@dataclass(frozen=True)
class View:
    """What the report draws of one probe beyond its metrics against training step."""

    figure: Draw | None = None  # its figure (None: its headline metrics as bars)
    section: Draw | None = None  # its own plots and tables (None: nothing more)


PROBES_PACKAGE = "mtdebias.probes."


def view_of(name: str, probe: type) -> View:
    """The view of the probe registered as ``name`` (its class ``probe``): the entry of ``name``
    in the ``VIEWS`` of the family module named like the probe's folder under mtdebias/probes,
    or a plugin class's own ``report_figure``/``report_section``."""
    module = probe.__module__
    if not module.startswith(PROBES_PACKAGE):
        return View(getattr(probe, "report_figure", None), getattr(probe, "report_section", None))
    family = f"{__name__}.{module[len(PROBES_PACKAGE):].split('.')[0]}"
    if importlib.util.find_spec(family) is None:
        return View()
    views: dict[str, View] = getattr(importlib.import_module(family), "VIEWS", {})
    return views.get(name, View())


__all__ = ["ReportView", "View", "view_of"]
