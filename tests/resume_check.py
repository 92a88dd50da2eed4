"""What an interrupted-then-resumed training run must equal: the uninterrupted run it mirrors."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Callable

import torch
from safetensors.torch import load_file

from mtdebias.store.runs import RunStore


def assert_resumed_like_uninterrupted(store: RunStore, reference: RunStore, killed_at: str) -> None:
    """The same checkpoints, bit-identical last weights, and every logged step exactly once."""
    assert [c.name for c in store.checkpoints()] == [c.name for c in reference.checkpoints()]
    a = load_file(str(reference.latest_checkpoint() / "model.safetensors"))
    b = load_file(str(store.latest_checkpoint() / "model.safetensors"))
    assert a.keys() == b.keys()
    assert all(torch.equal(a[k], b[k]) for k in a), f"weights differ after resuming from {killed_at}"
    steps = [r["step"] for r in store.read_log() if "loss" in r]
    assert steps == [r["step"] for r in reference.read_log() if "loss" in r]
    assert steps == sorted(set(steps))


def kill_after_checkpoints(proc: subprocess.Popen, store: RunStore, count: int = 2, wait: float = 240) -> str:
    """SIGKILL a training process once ``count`` checkpoints exist; the name of the last one written."""
    deadline = time.time() + wait
    while len(store.checkpoints()) < count and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert proc.poll() is None, "training finished before it could be interrupted"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    return store.latest_checkpoint().name


def kill_and_resume(start: Callable[[Path, bool], subprocess.Popen], folder: Path) -> tuple[RunStore, RunStore]:
    """Train once uninterrupted (``folder/ref``) and once killed after two checkpoints and resumed
    (``folder/cut``), with ``start(run_dir, slow)`` launching a training process (``slow``: one
    that pauses at each checkpoint, so the kill lands between two); checks that the resumed run
    equals the uninterrupted one. Returns (resumed store, reference store)."""
    reference = start(folder / "ref", False)
    assert reference.wait(timeout=300) == 0, reference.stderr.read().decode()[-2000:]
    proc = start(folder / "cut", True)
    store = RunStore(folder / "cut")
    killed_at = kill_after_checkpoints(proc, store)
    resumed = start(folder / "cut", False)
    assert resumed.wait(timeout=300) == 0, resumed.stderr.read().decode()[-2000:]
    assert_resumed_like_uninterrupted(store, RunStore(folder / "ref"), killed_at)
    return store, RunStore(folder / "ref")
