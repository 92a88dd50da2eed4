"""Progress off a terminal: plain lines at a steady interval (position, rate, time left), from
one helper every long step uses; a terminal keeps tqdm's bars."""

from __future__ import annotations

import io
import re
import os
import shutil
import subprocess
import sys
from pathlib import Path

from mtdebias import progress as progress_module
from mtdebias.progress import PlainProgress, duration, heartbeat, progress

ROOT = Path(__file__).resolve().parents[1]


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_plain_line_says_where_how_fast_and_how_long_still(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(progress_module.time, "monotonic", clock)
    out = io.StringIO()
    bar = PlainProgress(total=120, desc="epoch 1/3", unit="batch", initial=20, stream=out, every=30)
    clock.now += 10
    bar.update(20)  # 10 s after the start: no line yet (every 30 s)
    assert out.getvalue() == ""
    clock.now += 30
    bar.set_postfix(loss="3.112")
    bar.update(40)  # 80 of 120 after 40 s: 60 batches in 40 s = 1.5/s; 40 left → 27 s
    assert out.getvalue() == "epoch 1/3: 80/120 batch (67%), 1.5 batch/s, ETA 27s, loss=3.112\n"
    clock.now += 5
    bar.update(40)
    bar.close()
    assert out.getvalue().splitlines()[-1] == "epoch 1/3: 120/120 batch in 45s"
    assert [duration(s) for s in (59, 75, 4000)] == ["59s", "1m15s", "1h06m"]


def test_a_terminal_gets_a_tqdm_bar_and_a_pipe_plain_lines():
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    from tqdm import tqdm

    assert isinstance(progress(total=3, stream=Terminal()), tqdm)
    assert isinstance(progress(total=3, stream=io.StringIO()), PlainProgress)
    with heartbeat("eval x", stream=Terminal()):
        pass  # nothing printed where bars show the work
    out = io.StringIO()
    with heartbeat("eval x", stream=out, every=0.01):
        import time

        time.sleep(0.2)
    lines = out.getvalue().splitlines()
    assert lines[0] == "eval x: started" and lines[-1] == "eval x: done in 0s"
    assert any(line.startswith("eval x: running, ") for line in lines[1:-1])


def test_eval_off_a_terminal_prints_progress_lines(tiny_checkpoint, tmp_path):
    (tmp_path / "src.en").write_text("The red dog sleeps.\nThe cat runs.\n", encoding="utf-8")
    (tmp_path / "ref.de").write_text("Der rote Hund schläft.\nDie Katze läuft.\n", encoding="utf-8")
    (tmp_path / "suite.toml").write_text('[suite]\nname = "tiny"\n\n[[probe]]\ntype = "quality.v1"\n'
                                         'src = "src.en"\nref = "ref.de"\nbeam = 1\n', encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MTDEBIAS_PROGRESS_SECONDS": "0", "HF_HUB_OFFLINE": "1"}
    run = tmp_path / "run"  # a copy: the session's tiny run keeps no results of this test
    shutil.copytree(tiny_checkpoint.parents[1], run)
    done = subprocess.run([sys.executable, "-m", "mtdebias", "eval", str(run), "--suite",
                           str(tmp_path / "suite.toml")], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    name = tiny_checkpoint.name
    lines = done.stderr.splitlines()
    assert f"eval {name}: quality: started" in lines
    assert any(line.startswith(f"eval {name}: quality: done in ") for line in lines)
    assert "suite tiny: 1/1 checkpoint (100%), " in done.stderr
    assert any(line.startswith("suite tiny: 1/1 checkpoint in ") for line in lines)
    assert "\r" not in done.stderr  # no bar redrawn in a log


def test_an_announced_step_prints_its_first_rate_and_its_end_however_short(monkeypatch):
    clock = Clock()
    monkeypatch.setattr(progress_module.time, "monotonic", clock)
    out = io.StringIO()
    bar = PlainProgress(total=40, desc="epoch 1/2", unit="batch", stream=out, every=30, announce=True)
    clock.now += 2
    bar.update(4)  # the first update: a line at once, with the rate and the time left
    clock.now += 2
    bar.update(4)  # then the interval again
    assert out.getvalue() == "epoch 1/2: 4/40 batch (10%), 2 batch/s, ETA 18s\n"
    bar.update(32)
    bar.close()
    assert out.getvalue().splitlines()[-1] == "epoch 1/2: 40/40 batch in 4s"


def test_a_tiny_training_run_shows_its_first_epoch(tmp_path, capsys, monkeypatch):
    """issue 43: an epoch shorter than the progress interval printed nothing at all."""
    from toy import toy_corpus, train_tiny_checkpoint

    monkeypatch.delenv(progress_module.INTERVAL_ENV, raising=False)
    train_tiny_checkpoint(tmp_path / "run", pairs=toy_corpus(40, seed=1), steps=2)
    err = capsys.readouterr().err
    assert re.search(r"^epoch 1/1000: 1/1 batch \(100%\), [\d.]+ batch/s$", err, re.M), err
    assert "epoch 2/1000" not in err  # the first epoch only: later ones keep the interval
