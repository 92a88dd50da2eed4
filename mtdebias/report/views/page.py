"""What a probe's own report section sees (:class:`mtdebias.report.views.ReportView`) and how the
report finds the probes behind stored results.

The report knows no probe by name: it asks the registry for the class of every probe whose
results are stored, and that class says what its headline metrics are called, which metrics
measure translation quality, and what it draws of its own.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Callable, Sequence

from ...errors import ConfigError
from ...probes.base import value_problem
from ...probes.registry import PROBES
from ...store.runs import checkpoint_suffix
from ..collect import RunData, finite
from ..tables import Table


def undefined_reason(probe: str, metric: str) -> str:
    """Why a NaN of ``metric`` is undefined, as its probe's spec says it ("" when it says nothing)."""
    spec = next((s for s in getattr(probe_class(probe), "specs", ()) if s.matches(metric)), None)
    return spec.undefined if spec is not None else ""


def probe_class(name: str) -> type | None:
    """The class registered under a stored probe name (``name.v1``), or None for a name this
    version does not know (its numbers are still drawn, it just has no views of its own)."""
    try:
        with warnings.catch_warnings():  # a stored alias is reported where it was named, not here
            warnings.simplefilter("ignore")
            obj = PROBES.load(name)
    except ConfigError:  # a name this version does not register
        return None
    except (ImportError, AttributeError) as error:  # registered but broken (a missing optional dependency)
        warnings.warn(f"probe {name}: its class cannot be loaded ({error}); its headline labels and own "
                      "sections are left out", stacklevel=2)
        return None
    return getattr(obj, "__self__", obj)  # entries name the class's from_options


def stored_value_check() -> Callable[[dict], str | None]:
    """A check of stored rows against their probe's declared metric ranges (for load_run)."""
    classes: dict[str, type | None] = {}

    def check(row: dict) -> str | None:
        name = row.get("probe")
        if not isinstance(name, str):
            return None
        if name not in classes:
            classes[name] = probe_class(name)
        return value_problem(getattr(classes[name], "specs", ()), row.get("metric"), row.get("value"))

    return check


def stored_probes(runs: Sequence[RunData]) -> dict[str, type]:
    """{probe name: class} of every probe with stored results, in the registry's order."""
    names = {row["probe"] for run in runs for row in run.results}
    ordered = [n for n in PROBES.entries if n in names] + sorted(names - set(PROBES.entries))
    return {name: cls for name in ordered if (cls := probe_class(name)) is not None}


def run_label(run: RunData, checkpoint: str) -> str:
    suffix = checkpoint_suffix(checkpoint)
    return run.name + (f" ({suffix})" if suffix else "")


def label_of(row: dict[str, Any]) -> str:
    """The suite label a result row was stored under (the probe name when the suite gave none)."""
    return row.get("label") or row["probe"]


class PageView:
    """A probe's window on the report being built (the builder adds figures and tables)."""

    def __init__(self, builder: Any, probe: str, lead: str | None = None,
                 before: Callable[[], None] | None = None):
        self._builder = builder
        self.probe = probe
        self.runs = builder.runs
        # what is written before the first thing the probe adds (``before``, then the heading
        # ``lead``): nothing when it adds nothing, so no heading stands over an empty section
        self._lead, self._before = lead, before

    def _open(self) -> None:
        if self._before is not None:
            self._before()
            self._before = None
        if self._lead is not None:
            self._builder.doc.heading(self._lead, 3)
            self._lead = None

    # -- what is stored
    def picked(self) -> list[tuple[RunData, str]]:
        return self._builder.picked()

    def run_label(self, run: RunData, checkpoint: str) -> str:
        return run_label(run, checkpoint)

    def results(self, run: RunData, checkpoint: str, label: str) -> list[dict[str, Any]]:
        return [r for r in run.rows_at(checkpoint) if r["probe"] == self.probe and label_of(r) == label]

    def attempts(self, run: RunData, checkpoint: str, label: str) -> list[dict[str, Any]] | None:
        return run.store.read_attempts(checkpoint, label) if run.store.has_attempts(checkpoint, label) else None

    def stored_table(self, run: RunData, checkpoint: str, label: str, kind: str) -> Any:
        return run.store.read_tables(checkpoint, kind).get(label)

    def shown(self, label: str) -> str:
        """A suite label worth showing beside the probe's own name ("" for the default label)."""
        return "" if label in (self.probe, self.probe.split(".", 1)[0]) else label

    @staticmethod
    def finite(value: Any) -> bool:
        return finite(value)

    @staticmethod
    def interval(row: dict[str, Any]) -> tuple[float, float] | None:
        ci = row.get("ci")
        if isinstance(ci, (list, tuple)) and len(ci) == 2 and all(finite(c) and not math.isnan(c) for c in ci):
            return float(ci[0]), float(ci[1])
        return None

    # -- what goes on the page
    def heading(self, text: str, level: int = 2) -> None:
        self._open()
        self._builder.doc.heading(text, level)

    def paragraph(self, text: str, css: str | None = None) -> None:
        self._open()
        self._builder.doc.paragraph(text, css or "")

    def warning(self, text: str) -> None:
        self._open()
        self._builder.warn(text)
        self._builder.doc.warning(text)

    def figure(self, figure: Any, caption: str) -> None:
        """A matplotlib Figure (or PNG bytes), embedded with ``caption`` and written to file."""
        self._open()
        self._builder.add_figure(figure, caption)

    def table(self, name: str, title: str, columns: list[str], rows: list[dict[str, Any]], note: str = "",
              collapsed: str | None = None, summary: bool = False) -> None:
        """``summary``: the table is also part of the report's Markdown summary."""
        self._open()
        table = Table(name, title, columns, rows, note)
        self._builder.add_table(table, collapsed=collapsed)
        if summary:
            self._builder.summary_tables.append(table)


__all__ = ["PageView", "probe_class", "stored_probes", "run_label", "label_of"]
