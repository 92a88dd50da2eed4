"""What an interrupted-then-resumed training run must equal: the uninterrupted run it mirrors."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import torch
from safetensors.torch import load_file

from mtdebias.store import RunStore


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
