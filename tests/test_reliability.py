"""Issue 34's failure cases outside the HTTP translator (those are in test_openai_failures.py):
a full disk (locks that cannot leak, writes that leave nothing half-written, exit 2 with "disk
full: <path>", a rerun that resumes), impossible values read back from the store, and a hub
snapshot whose file links outside the cache. A full disk is simulated by making the write calls
raise ENOSPC, so nothing but Python is needed."""

from __future__ import annotations

import errno
import json
import os
import threading
import time
from pathlib import Path

import pytest

from mtdebias.store import atomic, locking
from mtdebias.cli import main
from mtdebias.errors import DiskFull, InputError
from mtdebias.store.locking import FileLock, LockTimeout
from mtdebias.store.runs import RunStore


def _enospc(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


# --------------------------------------------------------------------------- locks


def test_a_lock_whose_owner_record_cannot_be_written_is_given_up_not_leaked(tmp_path, monkeypatch):
    path = tmp_path / ".responses.lock"
    before = _open_fds()
    with monkeypatch.context() as patch:
        patch.setattr(locking.os, "pwrite", _enospc)
        with pytest.raises(DiskFull, match=f"disk full: {path}"):
            FileLock(path).acquire()
    assert _open_fds() == before  # the handle was closed
    # before the fix the lock stayed held by the open handle and every other waiter hung
    other = FileLock(path, timeout=1)
    assert other.acquire(blocking=False)
    other.release()


def test_ctrl_c_after_the_lock_is_taken_releases_it(tmp_path, monkeypatch):
    path = tmp_path / "x.lock"

    def interrupted(*args):
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(locking.os, "ftruncate", interrupted)
        with pytest.raises(KeyboardInterrupt):
            FileLock(path).acquire()
    lock = FileLock(path)
    assert lock.acquire(blocking=False)
    lock.release()


def test_waiting_for_a_lock_has_a_deadline_and_names_the_holder(tmp_path):
    holder = FileLock(tmp_path / "x.lock")
    holder.acquire()
    try:
        started = time.monotonic()
        with pytest.raises(LockTimeout, match=rf"still locked by process {os.getpid()} on .* after 0 s"):
            FileLock(tmp_path / "x.lock", timeout=0.3).acquire()
        assert time.monotonic() - started < 2
    finally:
        holder.release()
    assert locking.DEFAULT_TIMEOUT == FileLock(tmp_path / "y.lock").timeout  # no lock waits forever by default


def test_a_lock_with_no_owner_record_says_so_at_its_deadline(tmp_path):
    import fcntl

    path = tmp_path / "x.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)  # held, nothing written: what a holder stuck on a full disk leaves
    try:
        with pytest.raises(LockTimeout, match="recorded no owner"):
            FileLock(path, timeout=0.2).acquire()
    finally:
        os.close(fd)


# --------------------------------------------------------------------------- atomic writes, store, CLI


def test_a_full_disk_during_an_atomic_write_keeps_the_old_file_and_names_the_target(tmp_path, monkeypatch):
    target = tmp_path / "results.jsonl"
    atomic.write_jsonl(target, [{"a": 1}])
    with monkeypatch.context() as patch:
        patch.setattr(atomic.os, "fsync", _enospc)
        with pytest.raises(DiskFull, match=f"disk full: {target}"):
            atomic.write_jsonl(target, [{"a": 2}])
    assert atomic.read_jsonl(target) == [{"a": 1}]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.jsonl"]  # no temporary left


def test_store_results_on_a_full_disk_then_a_rerun_resumes(tmp_path, monkeypatch):
    store = RunStore(tmp_path / "run")
    row = {"probe": "quality.v1", "signature": "s", "metric": "bleu", "value": 20.0, "request": "r"}
    with monkeypatch.context() as patch:
        patch.setattr(atomic.os, "fsync", _enospc)
        with pytest.raises(DiskFull):
            store.add_results("step-1", [row])
    assert store.results("step-1") == []  # nothing half-written is taken for a result
    lock = FileLock(store.eval_dir("step-1") / ".results.lock")
    assert lock.acquire(blocking=False)  # not leaked
    lock.release()
    store.add_results("step-1", [row])
    assert store.results("step-1") == [row]


def test_a_response_cache_append_on_a_full_disk_leaves_whole_lines(tmp_path, monkeypatch):
    from mtdebias.translators.openai_api import OpenAITranslator

    translator = OpenAITranslator("tiny", "http://127.0.0.1:9/v1", tgt_lang="de", cache_dir=tmp_path)
    reply = {"choices": [{"message": {"content": "Hallo."}}]}
    translator._store("k1", reply)
    with monkeypatch.context() as patch:
        patch.setattr(os, "fsync", _enospc)
        with pytest.raises(DiskFull, match="responses.jsonl"):
            translator._store("k2", reply)
    translator._store("k3", reply)
    lines = (tmp_path / "responses.jsonl").read_text().splitlines()
    assert [json.loads(line)["key"] for line in lines] == ["k1", "k3"]


def test_report_out_on_a_full_disk_is_exit_2_with_the_path(tmp_path, monkeypatch, capsys):
    from test_report import make_run

    run = make_run(tmp_path / "runs", "base-seed1", shift=0.0)
    out = tmp_path / "site" / "report.html"
    monkeypatch.setattr(atomic.os, "fsync", _enospc)
    assert main(["report", str(run), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"error: disk full: {out}" in err and "Traceback" not in err
    assert not out.parent.exists() or sorted(out.parent.iterdir()) == []


def test_any_other_write_on_a_full_disk_is_exit_2_not_a_traceback(monkeypatch, capsys):
    import mtdebias.commands.report as report_command

    def full(args):
        raise OSError(errno.ENOSPC, "No space left on device", "/somewhere/file")

    monkeypatch.setattr(report_command, "run", full)
    assert main(["report", "x"]) == 2
    assert "error: disk full: /somewhere/file" in capsys.readouterr().err


# --------------------------------------------------------------------------- impossible stored values


@pytest.mark.parametrize("bad", ["1e308", "NaN", "Infinity", '"20"'])
def test_an_impossible_stored_value_is_named_and_not_reported(tmp_path, bad):
    from mtdebias.report import build_report
    from test_report import make_run

    run = make_run(tmp_path / "runs", "base-seed1", shift=0.0)
    results = run / "eval" / "step-0000300" / "results.jsonl"
    lines = results.read_text().splitlines()
    line = next(k for k, text in enumerate(lines) if '"metric": "bleu"' in text)
    lines[line] = lines[line].replace('"value": 20.0', f'"value": {bad}')
    assert f'"value": {bad}' in lines[line]
    results.write_text("\n".join(lines) + "\n")
    with pytest.warns(UserWarning, match=rf"results.jsonl:{line + 1}: bleu = .* this row is not reported"):
        build_report([run], tmp_path / "report.html")
    html = (tmp_path / "report.html").read_text()
    assert "1e+308" not in html and "1e308" not in html and ">nan<" not in html.lower()


class _Echo:
    """A translator that copies its input (BLEU 100 against the sources themselves)."""

    def translate(self, sources, beam=5):
        return list(sources)

    def signature(self):
        return "echo"


def test_eval_does_not_call_an_impossible_stored_value_already_stored(tmp_path, capsys):
    from mtdebias.probes.quality.probe import QualityProbe
    from mtdebias.evaluation.runner import EvalOutcome, evaluate_checkpoint
    from mtdebias.evaluation.suite import ProbeSpec

    sources = ["The dog sleeps.", "The cat runs."]
    store = RunStore(tmp_path / "run")
    checkpoint = store.checkpoint_path("step-0000001")
    checkpoint.mkdir(parents=True)
    probe = [(ProbeSpec("quality.v1"), QualityProbe(sources, sources, "de"))]
    evaluate_checkpoint(checkpoint, probe, store, EvalOutcome(), make_translator=lambda _: _Echo(), model="m")
    results = store.eval_dir(checkpoint) / "results.jsonl"
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    assert {r["metric"]: r["value"] for r in rows}["bleu"] == pytest.approx(100)
    results.write_text("".join(json.dumps({**r, "value": 1e308} if r["metric"] == "bleu" else r) + "\n" for r in rows))
    outcome = EvalOutcome()
    evaluate_checkpoint(checkpoint, probe, store, outcome, make_translator=lambda _: _Echo(), model="m")
    assert outcome.skipped == [] and outcome.scored == ["step-0000001: quality"]
    assert "results.jsonl:1: bleu = 1e+308 is outside its range [0, 100]" in capsys.readouterr().err
    assert {r["metric"]: r["value"] for r in store.results(checkpoint)}["bleu"] == pytest.approx(100)


# --------------------------------------------------------------------------- hub snapshots


def test_a_hub_snapshot_file_linking_outside_the_cache_is_refused(tmp_path, monkeypatch):
    from mtdebias.models.hub import check_snapshot_links, resolve_model

    cache = tmp_path / "hub"
    repo = cache / "models--org--model"
    snapshot = repo / "snapshots" / ("a" * 40)
    (repo / "blobs").mkdir(parents=True)
    snapshot.mkdir(parents=True)
    (repo / "blobs" / "123").write_text("{}")
    (snapshot / "config.json").symlink_to("../../blobs/123")  # how huggingface_hub lays it out
    check_snapshot_links(snapshot)  # fine
    secret = tmp_path / "secret.txt"
    secret.write_text("not a model file")
    (snapshot / "tokenizer.json").symlink_to(secret)
    with pytest.raises(InputError, match="tokenizer.json.*links outside the Hugging Face cache"):
        check_snapshot_links(snapshot)
    with pytest.raises(InputError, match="links outside"):
        resolve_model(snapshot)  # the snapshot folder given as a path
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("a" * 40)
    with pytest.raises(InputError, match="links outside"):
        resolve_model("org/model")


# --------------------------------------------------------------------------- text reaching C extensions

_ALIGN = """
import sys
from mtdebias.align.aligners import align_pairs
from mtdebias.errors import InputError
src = ["the doctor asked the nurse to help her .", "the cat sleeps ."] * 10
tgt = ["der arzt bat die krankenschwester ihr zu helfen .", "die katze schläft ."] * 10
src[0] = {bad}
try:
    align_pairs(src, tgt, "en", "de")
except InputError as exc:
    print(exc)
    sys.exit(2)
"""


@pytest.mark.parametrize("bad, message", [(repr("the doc\x00tor asked ."), "pair 1 to align, source .*control character U\\+0000"),
                                          ('" ".join(["word"] * 200_000)', "pair 1 to align has a side of 200000 words")])
def test_text_that_crashed_the_aligner_is_refused_before_it_runs(bad, message):
    import re
    import subprocess
    import sys

    # in a child process: before the check, both inputs killed fast_align with SIGSEGV (exit 139)
    done = subprocess.run([sys.executable, "-c", _ALIGN.format(bad=bad)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
    assert done.returncode == 2, done.stderr[-2000:]
    assert re.search(message, done.stdout)


def test_a_crash_inside_fast_align_is_an_error_not_the_end_of_the_process(monkeypatch):
    from mtdebias.align import aligners
    from mtdebias.errors import MtdebiasError

    # whatever input still crashes the C extension: decoding runs in a child process
    monkeypatch.setattr(aligners, "_ALIGN_IN_CHILD", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)")
    with pytest.raises(MtdebiasError, match=r"fast_align decoding crashed \(SIGSEGV\)"):
        aligners.align_pairs(["the cat sleeps ."] * 5, ["die katze schläft ."] * 5, "en", "de")


def test_long_pairs_can_be_skipped_and_counted_instead():
    from mtdebias.align.aligners import align_pairs

    src = ["the cat sleeps .", " ".join(["word"] * 1500)] + ["the dog runs ."] * 10
    tgt = ["die katze schläft .", "wort"] + ["der hund läuft ."] * 10
    out = align_pairs(src, tgt, "en", "de", too_long="skip")
    assert [a.too_long for a in out[:3]] == [False, True, False]
    assert out[1].links == [] and out[0].links


def test_a_winomt_line_with_a_nul_byte_is_refused_with_file_and_line(tmp_path, capsys):
    from mtdebias.probes.winomt.probe import load_winomt

    path = tmp_path / "winomt.tsv"
    path.write_bytes(b"male\t1\tThe doctor asked the nurse.\tdoctor\nfemale\t1\tThe nur\x00se left.\tnurse\n")
    with pytest.raises(InputError, match=rf"{path}:2: control character U\+0000 at column 17"):
        load_winomt(path)
