"""What a report says of each metric it shows: a label for its column and a definitions panel.

Both are read from the probe's own declaration (:class:`mtdebias.probes.base.MetricSpec`: label,
definition, direction, source, interval; a :class:`~mtdebias.probes.base.Headline` may name a
metric more precisely), never from a list kept here, so a probe (a plugin's too) that declares a
metric has declared what its reader is told.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from ..probes.base import DIRECTION, metric_label
from .tables import Table

NOT_DECLARED = "not declared by the probe"


def split_key(key: str) -> tuple[str, str, str]:
    """``probe.v1@label:metric`` → (probe.v1, label or "", metric)."""
    probe, _, metric = key.partition(":")
    name, _, label = probe.partition("@")
    return name, label, metric


def key_label(key: str, probes: Mapping[str, type]) -> str:
    """The column header of a stored metric key: the probe's label for the metric (the suite
    label in brackets where a suite gave one), else the metric's name with its probe's."""
    name, suite_label, metric = split_key(key)
    cls = probes.get(name)
    label = metric_label(cls, metric) if cls is not None else ""
    return (label or f"{metric} ({name})") + (f" [{suite_label}]" if suite_label else "")


def spec_of(cls: Any, metric: str) -> Any:
    return next((s for s in getattr(cls, "specs", ()) if s.matches(metric)), None)


def missing_definitions(cls: Any) -> list[str]:
    """The headline and quality metrics of a probe class whose spec lacks a label, a definition
    or a source (every shipped probe has none: tests/test_report_tables.py)."""
    missing = []
    for headline in (*cls.headline, *cls.quality):
        spec = spec_of(cls, headline.metric)
        lacking = ["spec"] if spec is None else [f for f in ("definition", "source") if not getattr(spec, f)]
        if not metric_label(cls, headline.metric):
            lacking.append("label")
        if lacking:
            missing.append(f"{cls.name}:{headline.metric} ({', '.join(lacking)})")
    return missing


def definitions_table(keys: Iterable[str], probes: Mapping[str, type]) -> Table:
    """One row per metric of ``keys`` (``probe:metric``, a suite's label ignored: one definition
    serves every language), in order: label, definition, direction, source, interval."""
    rows, seen = [], set()
    for key in keys:
        name, _, metric = split_key(key)
        if (name, metric) in seen:
            continue
        seen.add((name, metric))
        cls = probes.get(name)
        spec = spec_of(cls, metric) if cls is not None else None
        rows.append({"metric": key_label(f"{name}:{metric}", probes), "key": f"{name}:{metric}",
                     "definition": (spec.definition if spec is not None else "") or NOT_DECLARED,
                     "better": DIRECTION.get(spec.better, spec.better) if spec is not None else NOT_DECLARED,
                     "source": (spec.source if spec is not None else "") or NOT_DECLARED,
                     "interval": (spec.interval if spec is not None else "") or NOT_DECLARED})
    return Table("definitions", "Definitions", ["metric", "key", "definition", "better", "source", "interval"], rows,
                 "What each headline number is, which way is better, where it is defined and how its 95% interval "
                 "is computed ('key': the probe and metric name in the CSV/JSON exports).")
