"""Training on several processes: the epoch is split over ranks without loss or repetition, and
real 2-process CPU runs (gloo, launched by torchrun as a user would; ~30 s together) train, checkpoint once,
match a one-process run with the same global batch, and resume after SIGKILL bit for bit."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from mtdebias.train.distributed import asked_processes, launch_summary
from mtdebias.train.trainer import shard_batches


@pytest.mark.parametrize("processes", [1, 2, 3])
@pytest.mark.parametrize("n_batches", [0, 1, 2, 5, 6, 7])
def test_each_batch_goes_to_exactly_one_rank_and_ranks_step_together(processes, n_batches):
    batches = [[i] for i in range(n_batches)]
    shares = [shard_batches(batches, processes, rank) for rank in range(processes)]
    assert len({len(share) for share in shares}) == 1  # equal step counts
    taken = [b[0] for share in shares for b in share if b is not None]
    assert sorted(taken) == list(range(n_batches))  # the one-process epoch, no duplicate


def test_switched_epoch_split_over_two_ranks_is_the_one_process_epoch(tmp_path):
    """Each rank builds the epoch's switched pairs itself (same seed and epoch → same pairs and
    batches); their shares together are the one-process epoch, each example once."""
    from mtdebias.augment import SwitchEntity, annotate_lists
    from mtdebias.synth import generate
    from mtdebias.models.tokenizer import train_tokenizer
    from mtdebias.train.batching import encode_pairs, make_batches

    corpus = generate("de", size=200, seed=2, dev_size=10, test_size=10)
    sources, targets = corpus.sources("train"), corpus.targets("train")
    annotate_lists(sources, targets, tmp_path / "ann", "en", "de", two_sided=False, name_locale="en")
    tokenizer = train_tokenizer(sources, targets, tmp_path / "tok", vocab_size=400)

    def epoch_pairs(rank: int | None, epoch: int) -> list[tuple[str, str]]:
        src, tgt = SwitchEntity(tmp_path / "ann", seed=5, p=1.0).pairs(epoch)  # a fresh one per rank
        batches = make_batches(encode_pairs(tokenizer, src, tgt, 256), 1024, 1, epoch)
        share = batches if rank is None else [b for b in shard_batches(batches, 2, rank) if b is not None]
        return [(src[i], tgt[i]) for b in share for i in b]

    for epoch in (0, 1):
        whole = epoch_pairs(None, epoch)
        split = epoch_pairs(0, epoch) + epoch_pairs(1, epoch)
        assert sorted(split) == sorted(whole) and len(split) == len(whole) == len(sources)
    assert epoch_pairs(None, 0) != epoch_pairs(None, 1)  # switching differs between epochs


def test_launch_summary_says_what_the_launch_gave():
    class State:
        def __init__(self, n, backend=None):
            self.num_processes, self.backend, self.process_index = n, backend, 0
            self.distributed_type = "DistributedType.MULTI_CPU" if n > 1 else "DistributedType.NO"

    assert launch_summary(State(2, "gloo")) == "distributed: 2 processes, backend gloo (MULTI_CPU), rank 0"
    assert launch_summary(State(1), parent_cmdline=["python", "-m", "mtdebias"]) is None
    accelerate = ["/venv/bin/python", "/venv/bin/accelerate", "launch", "--cpu", "--num_processes", "2", "-m", "x"]
    assert asked_processes(accelerate) == 2
    assert asked_processes(["/venv/bin/accelerate", "launch", "--num-processes=4", "t.py"]) == 4
    warning = launch_summary(State(1), parent_cmdline=accelerate)
    assert warning.startswith("warning: the launch asked for 2 processes but this run has 1")


# --------------------------------------------------------------------------- real launches

RECIPE = """
[run]
name = "{name}"
dir = "{runs}"
seed = 3
[data]
train_src = "train.en"
train_tgt = "train.de"
dev_src = "dev.en"
dev_tgt = "dev.de"
src_lang = "en"
tgt_lang = "de"
[tokenizer]
vocab_size = 200
[model]
dropout = 0.0
[train]
epochs = {epochs}
max_tokens = 512
grad_accum = {grad_accum}
warmup_steps = 5
lr = 2e-3
validate_bleu = false
log_every_steps = 1
save_every_steps = {save_every}
"""


def _write(folder: Path, name: str, epochs: int = 1, grad_accum: int = 1, save_every: int = 0) -> Path:
    from toy import toy_corpus

    if not (folder / "train.en").exists():
        src, tgt = toy_corpus(400, seed=4)
        (folder / "train.en").write_text("\n".join(src) + "\n")
        (folder / "train.de").write_text("\n".join(tgt) + "\n")
        (folder / "dev.en").write_text("\n".join(src[:20]) + "\n")
        (folder / "dev.de").write_text("\n".join(tgt[:20]) + "\n")
    path = folder / f"{name}.toml"
    path.write_text(RECIPE.format(name=name, runs=folder / "runs", epochs=epochs, grad_accum=grad_accum,
                                  save_every=save_every))
    return path


def _torchrun(recipe: Path, processes: int = 2, **popen) -> subprocess.Popen:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    return subprocess.Popen([sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", str(processes),
                             "--master_port", str(29500 + os.getpid() % 1000), "-m", "mtdebias", "train",
                             str(recipe)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, **popen)


def _finish(proc: subprocess.Popen, timeout: int = 600) -> tuple[str, str]:
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err[-3000:]
    return out, err


def _dev_loss(run: Path) -> float:
    rows = [json.loads(line) for line in (run / "log.jsonl").read_text().splitlines()]
    return [r["dev_loss"] for r in rows if "dev_loss" in r][-1]


def test_two_processes_train_checkpoint_once_and_match_one_process(tmp_path):
    """2 ranks × 1 micro-batch per step = 1 process × 2 accumulated micro-batches: same pairs per
    step, same averaged gradient; with dropout off the dev loss agrees to float round-off."""
    from mtdebias.cli import main

    two = _torchrun(_write(tmp_path, "two"))
    out, err = _finish(two)
    assert err.splitlines()[0] == "distributed: 2 processes, backend gloo (MULTI_CPU), rank 0"
    assert out.count("run directory:") == 1  # one summary, from the main process
    run = tmp_path / "runs" / "two"
    checkpoints = sorted(p.name for p in (run / "checkpoints").iterdir())
    assert len(checkpoints) == 1
    state = json.loads((run / "checkpoints" / checkpoints[0] / "trainer_state.json").read_text())
    assert state["num_processes"] == 2
    assert sorted(p.name for p in (run / "checkpoints" / checkpoints[0]).glob("rng_state_*.pt")) == [
        "rng_state_0.pt", "rng_state_1.pt"]
    assert main(["train", str(_write(tmp_path, "one", grad_accum=2))]) == 0
    one = tmp_path / "runs" / "one"
    assert abs(_dev_loss(run) - _dev_loss(one)) < 1e-3 * _dev_loss(one)  # tolerance: 0.1 % (float sums)


def test_sigkill_mid_epoch_then_relaunch_resumes_bit_identically(tmp_path):
    reference = _torchrun(_write(tmp_path, "ref", epochs=2, save_every=5))
    _finish(reference)
    killed = _torchrun(_write(tmp_path, "cut", epochs=2, save_every=5))
    checkpoints = tmp_path / "runs" / "cut" / "checkpoints"
    deadline = time.time() + 300
    while time.time() < deadline and not (checkpoints.is_dir() and any(
            (p / "trainer_state.json").exists() for p in checkpoints.iterdir())):
        time.sleep(0.2)
    os.killpg(killed.pid, signal.SIGKILL)  # the whole group: launcher and both ranks
    killed.wait()
    first = sorted(checkpoints.iterdir())
    _finish(_torchrun(_write(tmp_path, "cut", epochs=2, save_every=5)))
    from safetensors.torch import load_file

    last = lambda run: sorted(p for p in (tmp_path / "runs" / run / "checkpoints").iterdir() if p.name.startswith("step-"))[-1]
    assert last("cut").name == last("ref").name and len(first) < len(list(checkpoints.iterdir()))
    a, b = load_file(str(last("ref") / "model.safetensors")), load_file(str(last("cut") / "model.safetensors"))
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
