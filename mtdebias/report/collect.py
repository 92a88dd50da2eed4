"""Read what a run stored (results, training log, per-item attempts, ANOVA tables) for a report.

Nothing here knows a probe in detail: the report plots every stored metric, and only the
special plots (accuracy bars, positiveness, entropy violins) look for the attempt fields they
need, taking whichever spelling of a field the probe used and skipping what is absent.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..store import RunStore, checkpoint_step, checkpoint_suffix, parse_run_name


def _natural(name: str) -> tuple:
    """``checkpoint2.pt`` before ``checkpoint10.pt`` (fairseq's epoch checkpoints)."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name))


def metric_key(probe: str, metric: str, label: str | None = None) -> str:
    """``winomt.v1:accuracy``; ``winomt.v1@winomt_fr:accuracy`` when a suite gave the probe its own
    label (two WinoMT runs for two languages are two metrics, not one with clashing signatures)."""
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

    def attempts(self, checkpoint: str, probe_prefix: str) -> list[dict[str, Any]]:
        """Attempts of the first probe whose name starts with ``probe_prefix`` at ``checkpoint``.

        The runner names attempt files after the suite label of the probe (``winomt_fr``), which
        the result rows carry; the probe name and a prefix match are the fallbacks."""
        names = []
        for row in self.rows_at(checkpoint):
            if row["probe"].startswith(probe_prefix):
                names += [n for n in (row.get("label"), row["probe"]) if n and n not in names]
        names += [n for n in self.store.attempt_labels(checkpoint) if n.startswith(probe_prefix) and n not in names]
        for name in names:
            if self.store.has_attempts(checkpoint, name):
                return self.store.read_attempts(checkpoint, name)
        return []

    def anova(self, checkpoint: str) -> dict[str, dict[str, Any]]:
        """{probe label: {"rows": [...], "dropped": [...], ...}}: the cue ANOVA tables stored at
        ``checkpoint`` by probes that write one (the ambiguity probe)."""
        out = {}
        for label, record in self.store.read_tables(checkpoint, "anova").items():
            if isinstance(record, dict):
                out[label] = {**record, "rows": _anova_rows(record), "dropped": list(record.get("dropped") or [])}
        return out

    def quality(self, checkpoint: str) -> dict[str, tuple[float, str]]:
        """{"bleu": (value, signature), "chrf": ...} at ``checkpoint``: a stored quality probe
        result when there is one, else the training log's validation score (signature "training log")."""
        out: dict[str, tuple[float, str]] = {}
        for row in self.rows_at(checkpoint):
            if row["probe"].startswith("quality") and row["metric"] in ("bleu", "chrf") and finite(row["value"]):
                out.setdefault(row["metric"], (float(row["value"]), row["signature"]))
        for row in self.log:
            if row.get("checkpoint") == checkpoint:
                for name in ("bleu", "chrf"):
                    if name not in out and finite(row.get(name)):
                        out[name] = (float(row[name]), "training log (dev set)")
        return out


def _anova_rows(obj: Any) -> list[dict[str, Any]]:
    # a list of row dicts (anova_table(...).to_dict("records")), {"rows": [...]} or pandas'
    # "split" orientation {"columns": [...], "data": [[...]]}
    if isinstance(obj, list):
        return [r for r in obj if isinstance(r, dict)]
    if isinstance(obj, dict):
        if isinstance(obj.get("rows"), list):
            return _anova_rows(obj["rows"])
        if isinstance(obj.get("columns"), list) and isinstance(obj.get("data"), list):
            return [dict(zip(obj["columns"], row)) for row in obj["data"]]
    return []


def load_run(run_dir: str | Path) -> RunData:
    """Everything a report needs from one run directory."""
    path = Path(run_dir)
    if not path.is_dir():
        raise InputError("not a run directory", path=path, hint="pass the directory `mtdebias train` created")
    store = RunStore(path)
    results = [r for r in store.all_results() if "metric" in r and "probe" in r]
    log = store.read_log()
    if not results and not log:
        raise InputError("no stored results and no training log", path=path,
                         hint="run `mtdebias eval` on this run first")
    return RunData(path.name, path, results, log, store.read_best())
