"""Issue 40's lock cases: no lock follows a link onto a file of the user's (results, claims, the
response cache, the GGUF cache, the run folder, the stale-lock guard), one trainer per run folder,
evaluation claims with a heartbeat (a stopped evaluator is named, worked around and then taken
over), a ``.claims`` that is a file, and the temporary folder a killed GGUF conversion leaves."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mtdebias.models import gguf_model
from mtdebias.store.atomic import _HOST
from mtdebias.cli import main
from mtdebias.errors import InputError
from mtdebias.store.locking import FileLock
from mtdebias.evaluation.runner import evaluate
from mtdebias.store.runs import RunStore
from test_bad_inputs import RECIPE
from test_cli_failures import _clear_error, _dead_pid
from test_model_source import _write_gguf, needs_gguf
from toy import toy_corpus

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""), "OMP_NUM_THREADS": "1"}
PRECIOUS = "a file of the user's that no lock may empty\n"


def _link_to_precious(tmp_path: Path, link: Path) -> Path:
    """``link`` made a symbolic link to a file outside the run: what the audit planted."""
    precious = tmp_path / "precious"
    precious.write_text(PRECIOUS)
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(precious)
    return precious


def _refused(exc: pytest.ExceptionInfo, link: Path, precious: Path) -> None:
    assert str(link) in str(exc.value) and "symbolic link" in str(exc.value) and "\n" not in str(exc.value)
    assert precious.read_text() == PRECIOUS  # before the fix: 0 bytes (or the owner record)
    assert link.is_symlink()


# ------------------------------------------------------------------------ links, per store

def test_the_results_lock_never_follows_a_link(tmp_path):
    store = RunStore(tmp_path / "run")
    link = store.eval_dir("step-0000001") / ".results.lock"
    precious = _link_to_precious(tmp_path, link)
    with pytest.raises(InputError) as exc:
        store.add_results("step-0000001", [{"signature": "s", "metric": "m", "value": 1.0}])
    _refused(exc, link, precious)
    assert not store.results_file("step-0000001").exists()  # refused before anything was written


def test_a_claim_never_follows_a_link(tmp_path):
    claim = RunStore(tmp_path / "run").claim("step-0000001", "request:quality")
    precious = _link_to_precious(tmp_path, claim.path)
    with pytest.raises(InputError) as exc:
        claim.acquire(blocking=False)
    _refused(exc, claim.path, precious)


def test_the_response_cache_lock_never_follows_a_link(tmp_path):
    from mtdebias.translators.openai_api import OpenAITranslator

    cache = tmp_path / "run" / "responses"
    client = OpenAITranslator.from_spec("tiny@http://127.0.0.1:9/v1", tgt_lang="de", cache_dir=cache)
    link = cache / ".responses.lock"
    precious = _link_to_precious(tmp_path, link)
    with pytest.raises(InputError) as exc:
        client._store("key", {"choices": [{"message": {"content": "Hallo"}}]})  # what every reply goes through
    _refused(exc, link, precious)


@needs_gguf
def test_the_gguf_cache_lock_never_follows_a_link(tmp_path):
    (tmp_path / "m").mkdir()
    path = _write_gguf(tmp_path / "m" / "model.gguf")
    target = gguf_model.converted_dir(path)
    link = target.parent / f".{target.name}.lock"
    precious = _link_to_precious(tmp_path, link)
    with pytest.raises(InputError) as exc:
        gguf_model.float_folder(path, progress=False)
    _refused(exc, link, precious)


def test_the_stale_lock_guard_never_follows_a_link(tmp_path):
    lock = FileLock(tmp_path / "x.lock")
    lock.path.write_text("")
    link = Path(f"{lock.path}.break")
    precious = _link_to_precious(tmp_path, link)
    with pytest.raises(InputError) as exc:
        lock._break_stale(lock.path.stat().st_ino, "its owner has ended")
    _refused(exc, link, precious)
    assert lock.path.exists()  # nothing broken under a guard it could not take


def test_a_hard_link_a_fifo_or_a_folder_where_a_lock_belongs_is_refused(tmp_path):
    precious = tmp_path / "precious"
    precious.write_text(PRECIOUS)
    os.link(precious, tmp_path / "hard.lock")
    with pytest.raises(InputError, match="hard.lock: a lock file has another name too"):
        FileLock(tmp_path / "hard.lock").acquire()
    assert precious.read_text() == PRECIOUS
    os.mkfifo(tmp_path / "fifo.lock")  # opened without O_NONBLOCK for reading this would hang
    with pytest.raises(InputError, match="fifo.lock: a lock file is a named pipe \\(FIFO\\), not a regular file"):
        FileLock(tmp_path / "fifo.lock").acquire()
    (tmp_path / "dir.lock").mkdir()
    with pytest.raises(InputError, match="dir.lock: cannot use this path as a lock file"):
        FileLock(tmp_path / "dir.lock").acquire()


def test_a_claims_entry_that_is_a_file_is_one_clear_error(tmp_path):
    run = _run_with_checkpoint(tmp_path)
    suite = _suite(tmp_path, 1)
    claims = RunStore(run).eval_dir("step-0000001") / ".claims"
    claims.parent.mkdir(parents=True)
    claims.write_text("not a folder\n")
    with pytest.raises(InputError) as exc:  # before the fix: FileExistsError, a traceback
        evaluate([run], suite, make_translator=lambda path: pytest.fail("a model was loaded before the check"))
    assert str(exc.value).startswith(f"{claims}: this is a file where a folder of lock files belongs")
    assert "move it out of the way" in str(exc.value)
    assert claims.read_text() == "not a folder\n"


# ------------------------------------------------------------------------ one trainer per run

RUN_LOCK_HOLDER = """
import sys, time
from mtdebias.store.runs import RunStore
lock = RunStore(sys.argv[1]).run_lock()
assert lock.acquire(blocking=False)
print("holding", flush=True)
time.sleep(300)
"""


def _train_workspace(tmp_path: Path) -> Path:
    src, tgt = toy_corpus(40, seed=3)
    (tmp_path / "train.en").write_text("\n".join(src) + "\n")
    (tmp_path / "train.de").write_text("\n".join(tgt) + "\n")
    recipe = tmp_path / "recipe.toml"
    recipe.write_text(RECIPE.replace("{ws}/runs", str(tmp_path / "runs")))
    return recipe


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_second_train_of_a_run_being_trained_stops_at_once_naming_the_holder(tmp_path, capsys):
    recipe = _train_workspace(tmp_path)
    run = tmp_path / "runs" / "bad"
    (run / "checkpoints" / "step-0000004").mkdir(parents=True)
    (run / "checkpoints" / "step-0000004" / "trainer_state.json").write_text("{}")
    (run / "log.jsonl").write_text('{"step": 4, "loss": 1.0}\n')
    holder = subprocess.Popen([sys.executable, "-c", RUN_LOCK_HOLDER, str(run)], env=ENV, stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout.readline() == "holding\n"
        before = _snapshot(run)
        rc = main(["train", str(recipe)])
        err = capsys.readouterr().err
        # before the fix the second trainer went on into the same folder (here: trained it)
        _clear_error(rc, err, f"{run} is being trained by process {holder.pid} on ", " since ",
                     "choose another run.name")
        assert _snapshot(run) == before  # no log row, checkpoint or recipe of the second trainer
    finally:
        holder.kill()
        holder.wait()


def test_an_ablate_reaching_a_run_being_trained_names_the_holder(tmp_path, capfd):
    from mtdebias.experiments.ablation import expand, validate_variants
    from mtdebias.recipe import load_recipe

    recipe = _train_workspace(tmp_path)
    [variant] = expand(load_recipe(recipe))
    [resolved] = validate_variants(recipe, [variant])
    holder = subprocess.Popen([sys.executable, "-c", RUN_LOCK_HOLDER, str(resolved.run_dir)], env=ENV,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "holding\n"
        rc = main(["ablate", str(recipe)])
        err = capfd.readouterr().err  # the variant's `train` child writes to the same stderr
        _clear_error(rc, err, f"{resolved.run_dir} is being trained by process {holder.pid} on ",
                     f"variants failed: {variant.run_name}")
        assert not (resolved.run_dir / "log.jsonl").exists()
    finally:
        holder.kill()
        holder.wait()


def test_the_run_folder_lock_never_follows_a_link(tmp_path, capsys):
    recipe = _train_workspace(tmp_path)
    link = tmp_path / "runs" / "bad" / ".train.lock"
    precious = _link_to_precious(tmp_path, link)
    rc = main(["train", str(recipe)])
    _clear_error(rc, capsys.readouterr().err, str(link), "symbolic link", f"rm {link}")
    assert precious.read_text() == PRECIOUS
    assert sorted(p.name for p in link.parent.iterdir()) == [".train.lock"]  # nothing of the run was made


# ------------------------------------------------------------------------ claims with a heartbeat

class Echo:
    def translate(self, sources, beam=1):
        return list(sources)

    def signature(self):
        return "scripted:echo"


def _run_with_checkpoint(tmp_path: Path, checkpoints: int = 1) -> Path:
    run = tmp_path / "run"
    for step in range(1, checkpoints + 1):
        (run / "checkpoints" / f"step-000000{step}").mkdir(parents=True)
        (run / "checkpoints" / f"step-000000{step}" / "trainer_state.json").write_text("{}")
    return run


def _suite(tmp_path: Path, probes: int) -> Path:
    (tmp_path / "t.en").write_text("a b c\nd e f\n")
    (tmp_path / "t.de").write_text("a b c\nd e x\n")
    suite = tmp_path / "suite.toml"
    suite.write_text("".join(f'[[probe]]\ntype = "quality"\nlabel = "q{k}"\nsrc = "{tmp_path}/t.en"\n'
                             f'ref = "{tmp_path}/t.de"\nbeam = {k + 1}\n\n' for k in range(probes)))
    return suite


CLAIM_HOLDER = """
import sys, time
from pathlib import Path
from mtdebias.evaluation.runner import evaluate

class Stuck:  # claims the suite's first probe, then never finishes it
    def translate(self, sources, beam=1):
        Path(sys.argv[3]).write_text("")
        time.sleep(300)
    def signature(self):
        return "scripted:echo"

evaluate([Path(sys.argv[1])], Path(sys.argv[2]), make_translator=lambda path: Stuck())
"""


@pytest.mark.timeout(120)  # before the fix claims had no deadline: this evaluation waited for ever
def test_a_stopped_evaluator_is_named_worked_around_then_taken_over(tmp_path, monkeypatch, capsys):
    deadline = 2.0  # seconds without a heartbeat; the holder beats every 0.2 s
    monkeypatch.setenv("MTDEBIAS_CLAIM_DEADLINE", str(deadline))
    run, suite = _run_with_checkpoint(tmp_path, checkpoints=2), _suite(tmp_path, 2)
    started = tmp_path / "holder-started"
    holder = subprocess.Popen([sys.executable, "-c", CLAIM_HOLDER, str(run), str(suite), str(started)],
                              env={**ENV, "MTDEBIAS_CLAIM_DEADLINE": str(deadline)})
    try:
        for _ in range(1200):
            if started.exists() or holder.poll() is not None:
                break
            time.sleep(0.05)
        assert started.exists(), "the holder never claimed its probe"
        [claim_file] = (RunStore(run).eval_dir("step-0000001") / ".claims").iterdir()
        # a live holder beats its heartbeat: its claim is never taken however long it computes
        time.sleep(deadline * 1.5)
        assert not FileLock(claim_file, abandoned_after=deadline).acquire(blocking=False)

        class StopsTheHolder(Echo):  # the holder is suspended (SIGSTOP) while this one does other work
            def translate(self, sources, beam=1):
                os.kill(holder.pid, signal.SIGSTOP)
                return super().translate(sources, beam)

        outcome = evaluate([run], suite, make_translator=lambda path: StopsTheHolder())
        err = capsys.readouterr().err
        # named, and all other work done first (the other checkpoint too); then the abandoned
        # claim taken over and computed
        assert outcome.scored == ["step-0000001: q1", "step-0000002: q0", "step-0000002: q1", "step-0000001: q0"]
        assert f"step-0000001: q0 is being computed by process {holder.pid} on " in err
        assert "doing the rest first" in err and " since " in err
        assert f"took over the abandoned claim of process {holder.pid} on " in err
        assert err.index("doing the rest first") < err.index("took over")
        for step in ("step-0000001", "step-0000002"):  # each result once
            rows = RunStore(run).results(run / "checkpoints" / step)
            assert sorted((r["label"], r["metric"]) for r in rows if r["metric"] in ("bleu", "chrf")) == [
                ("q0", "bleu"), ("q0", "chrf"), ("q1", "bleu"), ("q1", "chrf")]
            assert len(rows) == 16  # each label's valid_rate and invalid.* once too
    finally:
        holder.kill()
        holder.wait()


def test_a_claim_deadline_that_is_not_a_number_is_one_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("MTDEBIAS_CLAIM_DEADLINE", "5m")
    with pytest.raises(InputError, match=r"MTDEBIAS_CLAIM_DEADLINE='5m' is not a positive number of seconds"):
        evaluate([_run_with_checkpoint(tmp_path)], _suite(tmp_path, 1),
                 make_translator=lambda path: pytest.fail("a model was loaded before the check"))


# ------------------------------------------------------------------------ GGUF temporaries

@needs_gguf
def test_a_killed_gguf_conversion_leaves_nothing_the_next_one_keeps(tmp_path, monkeypatch):
    (tmp_path / "m").mkdir()
    path = _write_gguf(tmp_path / "m" / "model.gguf")
    target = gguf_model.converted_dir(path)
    # what a conversion killed for good (SIGKILL runs no cleanup) leaves: its staging folder
    killed = target.parent / f".{target.name}.{_HOST}-{_dead_pid()}.0123abcd.tmp"
    killed.mkdir()
    (killed / "model.safetensors").write_bytes(b"\0" * 4096)
    running = target.parent / f".{target.name}.{_HOST}-{os.getpid()}.4567abcd.tmp"  # a live converter's
    running.mkdir()

    def convert(header, staging, target, progress):  # the conversion itself is tested in test_model_source.py
        (staging / "config.json").write_text(json.dumps({"model_type": "llama"}))

    monkeypatch.setattr(gguf_model, "check_readable", lambda header: None)
    monkeypatch.setattr(gguf_model, "_convert", convert)
    assert gguf_model.float_folder(path, progress=False) == target
    assert not killed.exists()
    assert running.is_dir()
