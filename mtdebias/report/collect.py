"""Read what a run stored (results, training log, best checkpoints) for a report.

Nothing here knows a probe: the report plots every stored metric, and each probe's own section
reads what it stored (see :mod:`mtdebias.report.views.page`).
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Collection, Sequence

from ..errors import InputError
from ..store.runs import RunStore, checkpoint_step, checkpoint_suffix, parse_run_name


TRAINING_LOG = "training log (dev set)"  # the signature of a quality score read from the training log


def _natural(name: str) -> tuple:
    """``checkpoint2.pt`` before ``checkpoint10.pt`` (fairseq's epoch checkpoints)."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name))


def metric_key(probe: str, metric: str, label: str | None = None) -> str:
    """``probe.v1:accuracy``; ``probe.v1@fr:accuracy`` when a suite gave the probe its own
    label (one probe run for two languages is two metrics, not one with clashing signatures)."""
    default = probe.split(".", 1)[0]
    return f"{probe}@{label}:{metric}" if label and label not in (probe, default) else f"{probe}:{metric}"


def row_key(row: dict[str, Any]) -> str:
    return metric_key(row["probe"], row["metric"], row.get("label"))


def finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


@dataclass
class RunData:
    name: str
    dir: Path
    results: list[dict[str, Any]]
    log: list[dict[str, Any]]
    best: dict[str, Any] = field(default_factory=dict)

    @property
    def store(self) -> RunStore:
        return RunStore(self.dir)

    @property
    def variant(self) -> str:
        return parse_run_name(self.name)[0]

    @property
    def seed(self) -> int | None:
        return parse_run_name(self.name)[1]

    def checkpoints(self) -> list[str]:
        """Checkpoints with stored results, in training order (unnumbered names last)."""
        names = {r["checkpoint"] for r in self.results}
        return sorted(names, key=lambda n: (checkpoint_step(n) is None, checkpoint_step(n) or 0, _natural(n)))

    def step_of(self, checkpoint: str) -> int | None:
        step = checkpoint_step(checkpoint)
        if step is None:
            for row in self.log:
                if row.get("checkpoint") == checkpoint and isinstance(row.get("step"), int):
                    return row["step"]
        return step

    def pick(self, at: str = "last") -> dict[str, str]:
        """{suffix: checkpoint} chosen for headline tables: "" is the trained model itself, others
        derived copies (``debiased``). ``at`` is "last" or "best:<dev_loss|bleu|chrf>" (best.json)."""
        by_suffix: dict[str, list[str]] = {}
        for name in self.checkpoints():
            by_suffix.setdefault(checkpoint_suffix(name), []).append(name)
        chosen = {suffix: names[-1] for suffix, names in by_suffix.items()}
        if at.startswith("best:"):
            entry = self.best.get(at.split(":", 1)[1])
            base = entry.get("checkpoint") if isinstance(entry, dict) else None
            if base:
                for suffix, names in by_suffix.items():
                    wanted = base + (f"-{suffix}" if suffix else "")
                    if wanted in names:
                        chosen[suffix] = wanted
        elif at != "last":
            raise InputError(f"unknown checkpoint choice {at!r}", hint="use 'last' or 'best:bleu', 'best:chrf', "
                                                                       "'best:dev_loss'")
        return chosen

    def rows_at(self, checkpoint: str) -> list[dict[str, Any]]:
        return [r for r in self.results if r["checkpoint"] == checkpoint]

    def quality(self, checkpoint: str, probes: Collection[str], metrics: Sequence[str]) -> dict[str, dict[str, Any]]:
        """{"bleu": {"value", "signature", "n", "ci"}, "chrf": ...} at ``checkpoint``: a stored
        result of one of the translation-quality ``probes`` when there is one, else the training
        log's validation score of the same name (signature "training log (dev set)", no n: the
        log does not keep how many sentences its dev set had); a stored result names its suite label."""
        out: dict[str, dict[str, Any]] = {}
        for row in self.rows_at(checkpoint):
            if row["probe"] in probes and row["metric"] in metrics and finite(row["value"]):
                out.setdefault(row["metric"], {"value": float(row["value"]), "signature": row["signature"],
                                               "n": row.get("n"), "ci": row.get("ci"), "label": row.get("label")})
        for row in self.log:
            if row.get("checkpoint") == checkpoint:
                for name in metrics:
                    if name not in out and finite(row.get(name)):
                        out[name] = {"value": float(row[name]), "signature": TRAINING_LOG, "n": None, "ci": None}
        return out


def distinct_runs(run_dirs: Sequence[str | Path]) -> tuple[list[Path], list[str]]:
    """``run_dirs`` with each run once, in the order given, and a note on each repeat dropped: two
    paths to one folder (the same path twice, ``runs/../runs/x``, a link ``runs/latest`` beside
    the run it names, as ``runs/*`` gives) would be averaged as two seeds of one variant."""
    seen: dict[str, Path] = {}
    repeats = []
    for run_dir in map(Path, run_dirs):
        real = os.path.realpath(run_dir)  # unlike Path.resolve, no error on a link loop: load_run names it
        if real in seen:
            repeats.append(f"{run_dir}: the same run as {seen[real]}, given before; it is reported once")
        else:
            seen[real] = run_dir
    return list(seen.values()), repeats


def load_run(run_dir: str | Path, check: Callable[[dict], str | None] | None = None) -> RunData:
    """Everything a report needs from one run directory; result rows with impossible values
    (``check``: the metric's declared range) are named in a warning and left out."""
    path = Path(run_dir)
    if not path.is_dir():
        raise InputError("not a run directory", path=path, hint="pass the directory `mtdebias train` created")
    store = RunStore(path)
    results = [r for r in store.all_results(check) if "metric" in r and "probe" in r]
    log = store.read_log()
    if not results and not log:
        raise InputError("no stored results and no training log", path=path,
                         hint="run `mtdebias eval` on this run first")
    return RunData(path.name, path, results, log, store.read_best())
