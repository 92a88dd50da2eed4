"""Run folders that always describe their contents, checkpoints that are verified on resume,
disk-full saves, dropped input that is counted, and file hygiene (issue 15, cases 1, 4, 6, 7, 9)."""

from __future__ import annotations

import errno
import json
import logging
import os
import shutil
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from mtdebias.errors import CheckpointError, ConfigError
from mtdebias.recipe import load_recipe, schema
from mtdebias.store.runs import RunStore
from toy import toy_corpus

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}

RECIPE = """
[run]
name = "r"
dir = "{runs}"
seed = {seed}
[data]
train_src = "train.en"
train_tgt = "train.de"
src_lang = "en"
tgt_lang = "de"
[tokenizer]
vocab_size = {vocab}
[train]
epochs = 1
max_steps = 2
max_tokens = 512
warmup_steps = 2
validate_bleu = false
"""


@pytest.fixture
def corpus_dir(tmp_path):
    src, tgt = toy_corpus(120, seed=5)
    (tmp_path / "train.en").write_text("\n".join(src) + "\n")
    (tmp_path / "train.de").write_text("\n".join(tgt) + "\n")
    return tmp_path


def _recipe(folder: Path, vocab: int = 150, seed: int = 1, extra: str = ""):
    path = folder / f"r{vocab}-{seed}.toml"
    path.write_text(RECIPE.format(runs=folder / "runs", vocab=vocab, seed=seed) + extra)
    return load_recipe(path)


# --- case 1: a run folder never holds a recipe that does not describe its contents -----------

def test_changed_recipe_before_the_first_checkpoint_rebuilds_the_tokenizer(corpus_dir, caplog):
    from mtdebias.experiments.pipeline import build_model_and_tokenizer, prepare_run
    from mtdebias.textio import read_parallel
    from mtdebias.models.tokenizer import vocab_sizes

    corpus = read_parallel(corpus_dir / "train.en", corpus_dir / "train.de")
    first = _recipe(corpus_dir, vocab=150)
    store = prepare_run(first)
    _, tokenizer = build_model_and_tokenizer(first, corpus.sources, corpus.targets, store)
    small = vocab_sizes(tokenizer)[0]
    # the first attempt dies here (no checkpoint); the rerun asks for fewer pieces
    second = _recipe(corpus_dir, vocab=60)
    with caplog.at_level(logging.WARNING):
        store = prepare_run(second)
    assert "tokenizer.vocab_size = 60 (the run has 150)" in caplog.text
    _, tokenizer = build_model_and_tokenizer(second, corpus.sources, corpus.targets, store)
    assert vocab_sizes(tokenizer)[0] < small  # rebuilt, not the stale one
    assert json.loads((store.dir / "tokenizer" / "mtdebias_tokenizer.json").read_text())["vocab_size"] == 60


def test_resume_under_a_training_relevant_change_is_refused_and_others_are_allowed(corpus_dir):
    from mtdebias.experiments.pipeline import prepare_run

    store = prepare_run(_recipe(corpus_dir, vocab=150))
    (store.dir / "checkpoints" / "step-0000002").mkdir(parents=True)
    (store.dir / "checkpoints" / "step-0000002" / "trainer_state.json").write_text("{}")
    with pytest.raises(ConfigError, match=r"holds checkpoints trained under another recipe: "
                                          r"tokenizer.vocab_size = 60 \(the run has 150\)"):
        prepare_run(_recipe(corpus_dir, vocab=60))
    # training longer (or scoring with a suite) changes nothing already trained: resumable
    longer = _recipe(corpus_dir, vocab=150, extra="")
    raw = (corpus_dir / "r150-1.toml").read_text().replace("max_steps = 2", "max_steps = 9")
    (corpus_dir / "r150-1.toml").write_text(raw)
    longer = load_recipe(corpus_dir / "r150-1.toml")
    store = prepare_run(longer)
    assert "max_steps = 9" in (store.dir / "recipe.toml").read_text()


# --- case 9: failed starts, umask, stale temporaries ------------------------------------------

def test_a_failed_start_folder_counts_as_empty(corpus_dir):
    from mtdebias.experiments.pipeline import prepare_run

    store = prepare_run(_recipe(corpus_dir, seed=1))  # then the start fails: only the two records exist
    assert sorted(p.name for p in store.dir.iterdir()) == ["environment.json", "recipe.toml"]
    store = prepare_run(_recipe(corpus_dir, seed=2))
    assert json.loads((store.dir / "environment.json").read_text())["seed"] == 2
    assert "seed = 2" in (store.dir / "recipe.toml").read_text()


@pytest.mark.parametrize("umask", [0o022, 0o002, 0o077])
def test_atomic_writes_honour_the_umask(tmp_path, umask):
    from mtdebias.store.atomic import write_text

    old = os.umask(umask)
    try:
        write_text(tmp_path / "x.txt", "hello\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "x.txt").stat().st_mode) == 0o666 & ~umask


KILLED_WRITER = """
import os, signal, sys
from mtdebias.store.atomic import atomic_open
with atomic_open(sys.argv[1]) as handle:
    handle.write("half a row")
    handle.flush()
    os.kill(os.getpid(), signal.SIGKILL)
"""


def test_temporaries_of_a_killed_evaluator_are_cleaned_on_the_next_start(tmp_path):
    from mtdebias.store.atomic import atomic_open
    from mtdebias.evaluation.runner import evaluate

    run = tmp_path / "run"
    (run / "checkpoints" / "step-0000001").mkdir(parents=True)
    (run / "checkpoints" / "step-0000001" / "trainer_state.json").write_text("{}")
    results = run / "eval" / "step-0000001" / "results.jsonl"
    proc = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(results)], env=ENV)
    assert proc.returncode == -signal.SIGKILL
    stale = list(results.parent.glob(".*.tmp"))
    assert len(stale) == 1
    other = results.parent / "notes.tmp"  # not ours: left alone
    other.write_text("x")
    with atomic_open(results.parent / "live.jsonl"):  # a running writer's: left alone
        (live,) = results.parent.glob(".live.jsonl.*.tmp")
        (tmp_path / "t.en").write_text("a b\n")
        (tmp_path / "t.de").write_text("a b\n")
        (tmp_path / "s.toml").write_text(f'[[probe]]\ntype = "quality"\nsrc = "{tmp_path}/t.en"\n'
                                         f'ref = "{tmp_path}/t.de"\nbeam = 1\n')

        class Echo:
            def translate(self, sources, beam=1):
                return list(sources)

            def signature(self):
                return "scripted:echo"

        outcome = evaluate([run], tmp_path / "s.toml", make_translator=lambda path: Echo())
        assert live.exists()
    assert outcome.scored == ["step-0000001: quality"]
    assert not stale[0].exists()
    assert other.exists()


# --- cases 6 and 7: damaged checkpoints, disk full --------------------------------------------

def _trainer(run: Path, tok_dir: Path, **config):
    from mtdebias.models.model import build_model, marian_config
    from mtdebias.recipe.schema import TrainConfig
    from mtdebias.models.tokenizer import load_tokenizer, vocab_sizes
    from mtdebias.train.trainer import StaticPairs, Trainer

    src, tgt = toy_corpus(120, seed=5)
    tokenizer = load_tokenizer(tok_dir)
    model = build_model(marian_config("tiny", *vocab_sizes(tokenizer), max_positions=64, dropout=0.0), 1)
    settings = dict(epochs=1, max_steps=4, max_tokens=512, warmup_steps=2, save_every_steps=2,
                    validate_bleu=False, log_every_steps=1)
    settings.update(config)
    return Trainer(config=TrainConfig(**settings), run_dir=run, model=model, tokenizer=tokenizer,
                   source=StaticPairs(src, tgt), seed=3)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A run with checkpoints at steps 2 and 4, and its tokenizer."""
    from mtdebias.models.tokenizer import train_tokenizer

    folder = tmp_path_factory.mktemp("trained")
    src, tgt = toy_corpus(120, seed=5)
    train_tokenizer(src, tgt, folder / "tok", vocab_size=120)
    trainer = _trainer(folder / "run", folder / "tok")
    trainer.train()
    assert [c.name for c in RunStore(folder / "run").checkpoints()] == ["step-0000002", "step-0000004"]
    return folder


def _truncate(path: Path):
    path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 3])


DAMAGE = {
    "model.safetensors": lambda c: _truncate(c / "model.safetensors"),
    "optimizer.pt": lambda c: _truncate(c / "optimizer.pt"),
    "trainer_state.json": lambda c: (c / "trainer_state.json").write_text('{"step": 4, "epo'),
}


@pytest.mark.parametrize("part", sorted(DAMAGE))
def test_resume_falls_back_to_the_newest_intact_checkpoint(trained, tmp_path, part, caplog):
    run = tmp_path / "run"
    shutil.copytree(trained / "run", run)
    DAMAGE[part](run / "checkpoints" / "step-0000004")
    trainer = _trainer(run, trained / "tok")
    with caplog.at_level(logging.WARNING):
        assert trainer.resume()
    assert trainer.state.step == 2
    assert f"checkpoint step-0000004 is damaged ({part}" in caplog.text
    assert "resuming from step-0000002" in caplog.text
    assert (run / "checkpoints" / ".step-0000004.damaged").is_dir()  # kept aside for a post-mortem
    trainer.train()  # and training writes step 4 again
    assert [c.name for c in RunStore(run).checkpoints()] == ["step-0000002", "step-0000004"]
    fresh = _trainer(run, trained / "tok")
    assert fresh.resume() and fresh.state.step == 4


def _foreign_optimizer(checkpoint: Path, groups: bool) -> None:
    """Another model's optimizer.pt: of another layout (groups) or of other parameter sizes."""
    if groups:
        other = torch.nn.Linear(3, 2)
        optimizer = torch.optim.AdamW(other.parameters())
        other(torch.ones(1, 3)).sum().backward()
        optimizer.step()
        torch.save(optimizer.state_dict(), checkpoint / "optimizer.pt")
        return
    state = torch.load(checkpoint / "optimizer.pt", weights_only=True)
    for entry in state["state"].values():  # a model of the same build and other sizes (a bigger vocabulary)
        entry["exp_avg"] = torch.zeros(*[n + 1 for n in entry["exp_avg"].shape])
    torch.save(state, checkpoint / "optimizer.pt")


FOREIGN = {
    "optimizer.pt of another layout": ("optimizer.pt", lambda c: _foreign_optimizer(c, groups=True)),
    "optimizer.pt of other sizes": ("optimizer.pt", lambda c: _foreign_optimizer(c, groups=False)),
    "scheduler.pt of another schedule": ("scheduler.pt", lambda c: torch.save(
        {"step_size": 10, "gamma": 0.5, "base_lrs": [1e-3], "last_epoch": 4}, c / "scheduler.pt")),
    "rng_state_0.pt of another kind": ("rng_state_0.pt", lambda c: torch.save(
        {"torch": torch.zeros(3, dtype=torch.uint8)}, c / "rng_state_0.pt")),
}


@pytest.mark.parametrize("case", sorted(FOREIGN))
def test_a_training_state_from_another_model_is_set_aside_like_a_damaged_one(case, trained, tmp_path, caplog):
    """Before, load_state_dict (or the first step) failed on every rerun and the checkpoint stayed."""
    part, plant = FOREIGN[case]
    run = tmp_path / "run"
    shutil.copytree(trained / "run", run)
    plant(run / "checkpoints" / "step-0000004")
    trainer = _trainer(run, trained / "tok")
    with caplog.at_level(logging.WARNING):
        assert trainer.resume()
    assert trainer.state.step == 2
    assert f"checkpoint step-0000004 is damaged ({part} does not fit this run" in caplog.text
    assert (run / "checkpoints" / ".step-0000004.damaged").is_dir()
    trainer.train()  # and the rerun goes on: step 4 is written again
    assert [c.name for c in RunStore(run).checkpoints()] == ["step-0000002", "step-0000004"]


def test_with_no_fitting_checkpoint_left_training_starts_over_untouched(trained, tmp_path, caplog):
    run = tmp_path / "run"
    shutil.copytree(trained / "run", run)
    for checkpoint in RunStore(run).checkpoints():
        _foreign_optimizer(checkpoint, groups=False)
    trainer = _trainer(run, trained / "tok")
    fresh = {k: v.clone() for k, v in trainer.unwrapped.state_dict().items()}
    with caplog.at_level(logging.WARNING):
        assert not trainer.resume()
    assert "resuming from the start (no intact checkpoint is left)" in caplog.text
    assert trainer.state.step == 0
    # nothing of the set-aside checkpoints was applied: the model is the one a new run starts with
    assert all(torch.equal(fresh[k], v) for k, v in trainer.unwrapped.state_dict().items())
    assert RunStore(run).checkpoints() == []


def test_disk_full_while_saving_says_so_and_keeps_the_previous_checkpoint(trained, tmp_path, monkeypatch):
    run = tmp_path / "run"
    shutil.copytree(trained / "run", run)
    shutil.rmtree(run / "checkpoints" / "step-0000004")
    trainer = _trainer(run, trained / "tok")
    assert trainer.resume() and trainer.state.step == 2
    real_save = torch.save

    def full_disk(obj, f, *args, **kwargs):
        if str(f).endswith("optimizer.pt"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_save(obj, f, *args, **kwargs)

    monkeypatch.setattr(torch, "save", full_disk)
    with pytest.raises(CheckpointError, match=r"no space left on device while writing checkpoint .*step-0000004 "
                                              r"\(the previous checkpoint step-0000002 is intact\)"):
        trainer.train()
    assert [c.name for c in RunStore(run).checkpoints()] == ["step-0000002"]
    assert not list((run / "checkpoints").glob(".*.tmp"))  # the half-written folder is gone


def test_pytorch_write_failure_on_a_full_disk_is_reported_as_disk_full(trained, tmp_path, monkeypatch):
    """PyTorch's zip writer says only 'file write failed': the free space decides."""
    run = tmp_path / "run"
    shutil.copytree(trained / "run", run)
    shutil.rmtree(run / "checkpoints" / "step-0000004")
    trainer = _trainer(run, trained / "tok")
    assert trainer.resume()

    def failed(obj, f, *args, **kwargs):
        raise RuntimeError("[enforce fail at inline_container.cc:603] . unexpected pos 64 vs 0 "
                           "PytorchStreamWriter failed writing file data/0: file write failed")

    monkeypatch.setattr(torch, "save", failed)
    monkeypatch.setattr(shutil, "disk_usage", lambda p: shutil._ntuple_diskusage(10**9, 10**9 - 4096, 4096))
    with pytest.raises(CheckpointError, match="no space left on device"):
        trainer.train()


def _fresh_trainer_at_step_2(trained, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(trained / "run", run)
    shutil.rmtree(run / "checkpoints" / "step-0000004")
    trainer = _trainer(run, trained / "tok")
    assert trainer.resume()
    return run, trainer


def test_a_full_disk_is_told_by_free_space_whatever_pytorch_says(trained, tmp_path, monkeypatch):
    """PyTorch 2.x words a lost ENOSPC as "unexpected pos …" (no "write failed"), and removing the
    half-written folder frees the space before anyone looks: free space is measured first."""
    run, trainer = _fresh_trainer_at_step_2(trained, tmp_path)
    half_written = run / "checkpoints" / ".step-0000004.tmp"

    def failed(obj, f, *args, **kwargs):
        raise RuntimeError("[enforce fail at inline_container.cc:672] . unexpected pos 5503104 vs 5502992")

    def usage(path):  # full while the half-written checkpoint exists, roomy once it is gone
        free = 4096 if half_written.exists() else 10**9
        return shutil._ntuple_diskusage(2 * 10**9, 2 * 10**9 - free, free)

    monkeypatch.setattr(torch, "save", failed)
    monkeypatch.setattr(shutil, "disk_usage", usage)
    with pytest.raises(CheckpointError, match="no space left on device"):
        trainer.train()
    assert not half_written.exists()


def test_enospc_anywhere_in_the_exception_chain_is_a_full_disk(trained, tmp_path, monkeypatch):
    run, trainer = _fresh_trainer_at_step_2(trained, tmp_path)

    def failed(obj, f, *args, **kwargs):
        try:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        except OSError as exc:
            raise RuntimeError("serialisation failed") from exc

    monkeypatch.setattr(torch, "save", failed)
    monkeypatch.setattr(shutil, "disk_usage", lambda p: shutil._ntuple_diskusage(10**12, 10**9, 10**12 - 10**9))
    with pytest.raises(CheckpointError, match="no space left on device"):
        trainer.train()


def test_another_write_failure_with_room_left_is_not_called_a_full_disk(trained, tmp_path, monkeypatch):
    run, trainer = _fresh_trainer_at_step_2(trained, tmp_path)

    def failed(obj, f, *args, **kwargs):
        raise RuntimeError("PytorchStreamWriter failed writing file data/0: file write failed")

    monkeypatch.setattr(torch, "save", failed)
    monkeypatch.setattr(shutil, "disk_usage", lambda p: shutil._ntuple_diskusage(10**12, 10**9, 10**12 - 10**9))
    with pytest.raises(CheckpointError, match="could not write checkpoint .*file write failed"):
        trainer.train()


def test_an_error_number_other_than_enospc_is_reported_as_itself_on_a_nearly_full_disk(trained, tmp_path,
                                                                                        monkeypatch):
    run, trainer = _fresh_trainer_at_step_2(trained, tmp_path)

    def failed(obj, f, *args, **kwargs):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(f))

    monkeypatch.setattr(torch, "save", failed)
    monkeypatch.setattr(shutil, "disk_usage", lambda p: shutil._ntuple_diskusage(10**9, 10**9 - 4096, 4096))
    with pytest.raises(CheckpointError, match="could not write checkpoint .*Permission denied"):
        trainer.train()


# --- case 4: dropped input is counted ---------------------------------------------------------

def test_dropped_training_pairs_are_counted_in_the_log_and_the_summary(corpus_dir, caplog):
    from mtdebias.experiments.pipeline import run_recipe

    src = (corpus_dir / "train.en").read_text().splitlines()
    tgt = (corpus_dir / "train.de").read_text().splitlines()
    src[3], tgt[3] = "", ""  # line 4: empty
    src[6], tgt[9] = "", "  "  # lines 7 and 10: one side blank
    src[11] = "The red dog sleeps " + "very " * 100 + "long."  # line 12: over max_line_chars
    (corpus_dir / "train.en").write_text("\n".join(src) + "\n")
    (corpus_dir / "train.de").write_text("\n".join(tgt) + "\n")
    recipe = _recipe(corpus_dir, extra="")
    raw = (corpus_dir / "r150-1.toml").read_text().replace('tgt_lang = "de"', 'tgt_lang = "de"\nmax_line_chars = 200')
    (corpus_dir / "r150-1.toml").write_text(raw)
    recipe = load_recipe(corpus_dir / "r150-1.toml")
    with caplog.at_level(logging.WARNING):
        store = run_recipe(recipe)
    summary = json.loads((store.dir / "data_summary.json").read_text())
    assert summary["lines"] == 120 and summary["pairs"] == 116
    assert summary["dropped"] == {"empty": {"count": 1, "first_lines": [4]},
                                  "one_sided": {"count": 2, "first_lines": [7, 10]},
                                  "too_long": {"count": 1, "first_lines": [12]}}
    assert "4 of 120 line pairs left out: 1 empty (line 4), 2 one_sided (lines 7, 10), 1 too_long (line 12)" \
        in caplog.text
    inputs = [row for row in store.read_log() if "input" in row]
    assert len(inputs) == 1 and inputs[0]["input"]["dropped"] == summary["dropped"]


def test_annotation_counts_what_it_skips_and_caps_long_lines(tmp_path):
    from mtdebias.augment import annotate_corpus

    pairs = [("Anna Berger visits Thomas Weber today.", "Anna Berger besucht Thomas Weber heute."),
             ("", "leer"), ("", ""),
             ("Peter sees " + "the house and " * 300 + "the car.", "Peter sieht das Haus."),
             ("Laura sees the car again.", "Laura sieht das Auto wieder.")]
    (tmp_path / "c.en").write_text("".join(s + "\n" for s, _ in pairs))
    (tmp_path / "c.de").write_text("".join(t + "\n" for _, t in pairs))
    summary = annotate_corpus(tmp_path / "c.en", tmp_path / "c.de", tmp_path / "out", "en", "de",
                              two_sided=False, max_chars=1000, gender_of=lambda name: "unknown")
    assert summary["skipped"] == {"one_sided": {"count": 1, "first_lines": [2]},
                                  "empty": {"count": 1, "first_lines": [3]},
                                  "too_long": {"count": 1, "first_lines": [4]}}
    lines = [json.loads(x)["line"] for x in (tmp_path / "out" / "annotated.jsonl").read_text().splitlines()]
    assert lines == [1, 5]


# --- case 8: out-of-range values built in code fail at construction, not mid-training ---------

@pytest.mark.parametrize("build, message", [
    (lambda: schema.TrainConfig(lr=-1), "train.lr = -1"),
    (lambda: schema.TrainConfig(beam=0), "train.beam = 0"),
    (lambda: schema.ModelConfig(dropout=5), "model.dropout = 5"),
    (lambda: schema.TokenizerConfig(vocab_size=-5),
     "tokenizer.vocab_size = -5"),
])
def test_configs_built_in_code_are_range_checked(build, message):
    with pytest.raises(ConfigError, match=message):
        build()


class _Payload:
    """Unpickling this runs code: it creates ``marker`` (what a malicious shared run could do)."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (Path(self.marker),))


def test_resume_never_runs_code_from_a_training_state_file(trained, tmp_path, caplog):
    """rng_state/optimizer/scheduler files are loaded weights-only: one holding another Python
    object is refused, naming it, and the resume falls back to the previous checkpoint."""
    run = tmp_path / "run"
    shutil.copytree(trained / "run", run)
    marker = tmp_path / "code-ran"
    torch.save({"python": _Payload(marker)}, run / "checkpoints" / "step-0000004" / "rng_state_0.pt")
    trainer = _trainer(run, trained / "tok")
    with caplog.at_level(logging.WARNING):
        assert trainer.resume()
    assert not marker.exists()
    assert trainer.state.step == 2
    assert "refused without loading it" in caplog.text and "pathlib" in caplog.text
