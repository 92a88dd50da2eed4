"""`debias --out` never deletes what the user owns (issue 40, audit cases c01-c04, c26, c46).

Every refusal is checked with the model loader replaced by one that fails the test: a refused
--out must stop the command before any work. The debias that does run uses a real tiny checkpoint.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import torch

from mtdebias.store.atomic import _HOST, clean_stale_temporaries, replace_folder, restore_replaced, temporary_dir
from mtdebias.cli import main


@pytest.fixture(scope="module")
def trained_run(tmp_path_factory) -> Path:
    """A run folder (checkpoints/, log.jsonl, tokenizer/) with one trained checkpoint."""
    from test_debias import WORDS, gender_corpus
    from toy import train_tiny_checkpoint

    root = tmp_path_factory.mktemp("debias-out")
    torch.set_num_threads(1)
    train_tiny_checkpoint(root / "tiny", pairs=gender_corpus(200), steps=5, vocab_size=150)
    (root / "words.txt").write_text("\n".join(WORDS) + "\n", encoding="utf-8")
    return root


@pytest.fixture
def runs(trained_run, tmp_path) -> Path:
    """A fresh copy of ``runs/`` holding the run ``tiny`` (whose checkpoint is the source) and a second run."""
    folder = tmp_path / "runs"
    shutil.copytree(trained_run / "tiny", folder / "tiny")
    shutil.copytree(trained_run / "tiny", folder / "bad")
    shutil.copy(trained_run / "words.txt", tmp_path / "words.txt")
    return folder


def _source(runs: Path) -> Path:
    return sorted((runs / "tiny" / "checkpoints").iterdir())[0]  # not a -debiased copy made beside it


def _debias(runs: Path, out: Path | str, *extra: str) -> int:
    return main(["debias", str(_source(runs)), "--out", str(out), "--words", str(runs.parent / "words.txt"), *extra])


def _tree(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (links not followed) with a hash of its bytes."""
    return {str(path.relative_to(folder)): hashlib.sha1(path.read_bytes()).hexdigest()
            for path in sorted(folder.rglob("*")) if path.is_file() and not path.is_symlink()}


@pytest.fixture
def no_work(monkeypatch):
    def loaded(*args, **kwargs):
        raise AssertionError("the model was loaded before --out was refused")

    monkeypatch.setattr("mtdebias.debias.apply._load_any", loaded)
    monkeypatch.setattr("mtdebias.models.hub.local_model_dir", loaded)


@pytest.mark.parametrize("case, target, message", [
    ("c02", lambda r: r, "holds the source checkpoint"),
    ("c01", lambda r: r / "bad", "is a run folder"),
    ("c03", _source, "is the source checkpoint"),
    ("run part", lambda r: r / "bad" / "eval" / "mine", "inside a run's own files"),
    ("run checkpoint", lambda r: next((r / "bad" / "checkpoints").iterdir()), "not a copy debias wrote"),
])
def test_a_run_a_folder_of_runs_or_the_source_is_never_replaced(runs, no_work, capsys, case, target, message):
    before = _tree(runs)
    for extra in ((), ("--overwrite",)):
        assert _debias(runs, target(runs), *extra) == 2, case
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and str(target(runs)) in err
        assert message in err or (not extra and "not empty" in err), err
    assert _tree(runs) == before


def test_a_folder_of_the_users_a_file_or_a_link_is_never_replaced(runs, no_work, tmp_path, capsys):
    mine = tmp_path / "mydir"  # c04
    mine.mkdir()
    (mine / "thesis.tex").write_text("chapter 1\n")
    notes = tmp_path / "notes.txt"  # c26
    notes.write_text("keep me\n")
    link = tmp_path / "LINK"  # c46
    (tmp_path / "target").mkdir()
    (tmp_path / "target" / "notes.txt").write_text("keep me too\n")
    link.symlink_to(tmp_path / "target")
    for out, message in ((mine, "not a copy debias wrote"), (notes, "is a file"), (link, "is a link")):
        assert _debias(runs, out, "--overwrite") == 2
        err = capsys.readouterr().err
        assert message in err and str(out) in err and err.count("\n") == 1, err
    assert (mine / "thesis.tex").read_text() == "chapter 1\n" and notes.read_text() == "keep me\n"
    assert link.is_symlink() and (tmp_path / "target" / "notes.txt").read_text() == "keep me too\n"


def test_overwrite_replaces_an_earlier_copy_and_nothing_added_to_it(runs, tmp_path, capsys):
    """A copy beside the run's checkpoints is allowed and replaced with --overwrite; a file the user
    put into it makes it theirs, and a training checkpoint's debias_report.json (every_epoch
    writes one, without the list of files) does not make that checkpoint replaceable."""
    out = runs / "tiny" / "checkpoints" / "step-0000005-debiased"
    assert _debias(runs, out) == 0
    report = json.loads((out / "debias_report.json").read_text())
    assert set(report["files"]) == {p.name for p in out.iterdir()}
    assert _debias(runs, out) == 2 and "not empty" in capsys.readouterr().err
    (out / "model.safetensors").write_bytes(b"stale")
    assert _debias(runs, out, "--overwrite") == 0
    assert (out / "model.safetensors").read_bytes() != b"stale"
    assert not [p for p in out.parent.iterdir() if p.name.startswith(".")]  # nothing left aside
    (out / "thesis.tex").write_text("mine\n")
    assert _debias(runs, out, "--overwrite") == 2
    assert "'thesis.tex', which debias did not write" in capsys.readouterr().err
    assert (out / "thesis.tex").read_text() == "mine\n"
    training = next((runs / "bad" / "checkpoints").iterdir())
    (training / "debias_report.json").write_text(json.dumps({"method": "hard"}))
    assert _debias(runs, training, "--overwrite") == 2
    assert "not a copy debias wrote" in capsys.readouterr().err
    assert (training / "trainer_state.json").is_file()


def _dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_a_kill_between_the_renames_leaves_the_old_copy_for_the_next_run(tmp_path, monkeypatch):
    """The old folder is renamed aside before the new one goes in; a kill in between leaves it
    aside, where the stale-temporary cleaner does not touch it, and the next writer puts it back."""
    import mtdebias.store.atomic as atomic

    target = tmp_path / "out"
    target.mkdir()
    (target / "weights").write_text("old")
    new = temporary_dir(target)
    (new / "weights").write_text("new")
    real_replace, calls = os.replace, []

    def killed_at_the_second_rename(src, dst):
        calls.append(dst)
        if len(calls) == 2:
            raise KeyboardInterrupt
        real_replace(src, dst)

    monkeypatch.setattr(atomic.os, "replace", killed_at_the_second_rename)
    with pytest.raises(KeyboardInterrupt):
        replace_folder(new, target)
    monkeypatch.setattr(atomic.os, "replace", real_replace)
    assert not target.exists()
    dead = str(_dead_pid())  # the writer's process has ended: its names now say so
    aside = Path(calls[0])
    aside = aside.rename(aside.with_name(aside.name.replace(f"-{os.getpid()}.", f"-{dead}.")))
    new.rename(new.with_name(new.name.replace(f"-{os.getpid()}.", f"-{dead}.")))
    assert [p.name for p in clean_stale_temporaries(tmp_path, recursive=False)] != []  # the new copy: a temporary
    assert (aside / "weights").read_text() == "old"  # the only copy is not
    assert restore_replaced(target) == [aside]
    assert (target / "weights").read_text() == "old" and not aside.exists()


def test_a_finished_replace_removes_what_a_killed_one_left_aside(tmp_path):
    target = tmp_path / "out"
    target.mkdir()
    (target / "weights").write_text("new")
    aside = tmp_path / f".out.{_HOST}-{_dead_pid()}.0123abcd.old"
    aside.mkdir()
    (aside / "weights").write_text("old")
    assert restore_replaced(target) == [aside]
    assert not aside.exists() and (target / "weights").read_text() == "new"


def test_debias_puts_back_a_copy_a_killed_overwrite_left_aside(runs, no_work, tmp_path, capsys):
    """Killed between its renames, a debias --overwrite leaves no --out and the old copy aside:
    the next debias to that --out puts it back before its checks, so the copy is not lost and,
    without --overwrite, is not replaced either."""
    out = tmp_path / "debiased"
    aside = tmp_path / f".debiased.{_HOST}-{_dead_pid()}.0123abcd.old"
    aside.mkdir()
    (aside / "debias_report.json").write_text(json.dumps({"files": ["debias_report.json"]}))
    assert _debias(runs, out) == 2
    assert "not empty" in capsys.readouterr().err
    assert (out / "debias_report.json").is_file() and not aside.exists()
