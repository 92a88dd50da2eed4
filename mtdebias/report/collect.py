"""Read what a run stored (results, training log, per-item attempts, ANOVA tables) for a report.

Nothing here knows a probe in detail: the report plots every stored metric, and only the
special plots (accuracy bars, positiveness, entropy violins) look for the attempt fields they
need, taking whichever spelling of a field the probe used and skipping what is absent.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..atomic import read_jsonl
from ..errors import InputError
from ..store import RunStore

_STEP = re.compile(r"step-0*(\d+)(.*)$")
_FAIRSEQ_UPDATES = re.compile(r"checkpoint_\d+_(\d+)\.pt$")  # fairseq's --save-interval-updates names
_SEED = re.compile(r"^(?P<variant>.+)-seed(?P<seed>\d+)$")


def checkpoint_step(name: str) -> int | None:
    """400 for ``step-0000400``, ``step-0000400-debiased`` and fairseq's ``checkpoint_3_400.pt``;
    None for other names."""
    match = _STEP.match(name) or _FAIRSEQ_UPDATES.match(name)
    return int(match.group(1)) if match else None


def _natural(name: str) -> tuple:
    """``checkpoint2.pt`` before ``checkpoint10.pt`` (fairseq's epoch checkpoints)."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name))


def checkpoint_suffix(name: str) -> str:
    """What a derived checkpoint adds to its step name: ``debiased`` for ``step-0000400-debiased``."""
    match = _STEP.match(name)
    return match.group(2).lstrip("-_") if match else ""


def run_variant(run_name: str) -> tuple[str, int | None]:
    """``("inlp", 2)`` for a run named ``inlp-seed2``; ``(name, None)`` without a seed suffix."""
    match = _SEED.match(run_name)
    return (match.group("variant"), int(match.group("seed"))) if match else (run_name, None)


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
    def variant(self) -> str:
        return run_variant(self.name)[0]

    @property
    def seed(self) -> int | None:
        return run_variant(self.name)[1]

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
        folder = self.dir / "eval" / checkpoint
        names = []
        for row in self.rows_at(checkpoint):
            if row["probe"].startswith(probe_prefix):
                names += [n for n in (row.get("label"), row["probe"]) if n and n not in names]
        for name in names:
            if (folder / f"{name}.attempts.jsonl").exists():
                return read_jsonl(folder / f"{name}.attempts.jsonl")
        for path in sorted(folder.glob(f"{probe_prefix}*.attempts.jsonl")):
            return read_jsonl(path)
        return []

    def anova(self, checkpoint: str) -> list[dict[str, Any]]:
        """ANOVA rows stored at ``checkpoint``: ``anova.json`` or an ``anova`` entry of a probe's meta."""
        path = self.dir / "eval" / checkpoint / "anova.json"
        if path.exists():
            try:
                return _anova_rows(json.loads(path.read_text(encoding="utf-8")))
            except json.JSONDecodeError as exc:
                raise InputError(f"not valid JSON: {exc.msg}", path=path, line=exc.lineno,
                                 hint="delete the file and rerun `mtdebias eval` to recompute it") from exc
        for row in self.rows_at(checkpoint):
            meta = row.get("meta") or {}
            if isinstance(meta, dict) and meta.get("anova"):
                return _anova_rows(meta["anova"])
        return []

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
    best_path = path / "best.json"
    best = {}
    if best_path.exists():
        try:
            best = json.loads(best_path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise InputError(f"not valid JSON: {exc.msg}", path=best_path, line=exc.lineno,
                             hint="delete it; training rewrites it at the next checkpoint") from exc
    return RunData(path.name, path, results, log, best if isinstance(best, dict) else {})
