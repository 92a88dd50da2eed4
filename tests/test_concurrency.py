"""Several processes on one run: the result store's lock, work splitting, the stale-lock rule."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mtdebias.store.locking import FileLock, LockTimeout
from mtdebias.store.runs import RunStore

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}

WRITER = """
import sys
from mtdebias.store.runs import RunStore
store, name = RunStore(sys.argv[1]), sys.argv[2]
for i in range(int(sys.argv[3])):
    store.add_results(sys.argv[1] + "/checkpoints/step-0000001",
                      [{"signature": f"{name}-{i}", "metric": "m", "value": float(i)}])
"""


def test_concurrent_writers_lose_no_rows(tmp_path):
    """Four processes each add 75 rows, one call per row, to one checkpoint: all 300 are kept
    (without the lock, read-modify-write cycles overwrite each other's rows)."""
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), f"w{k}", "75"], env=ENV,
                              stderr=subprocess.PIPE) for k in range(4)]
    for proc in procs:
        assert proc.wait(timeout=240) == 0, proc.stderr.read().decode()[-2000:]
    rows = RunStore(tmp_path).results(tmp_path / "checkpoints" / "step-0000001")
    assert len(rows) == 300
    assert {r["signature"] for r in rows} == {f"w{k}-{i}" for k in range(4) for i in range(75)}


EVALUATOR = """
import json, sys, time
from pathlib import Path
from mtdebias.evaluation.runner import evaluate

class Slow:
    def translate(self, sources, beam=1):
        time.sleep(0.4)  # long enough for the other evaluator to reach the same probe
        return list(sources)
    def signature(self):
        return "scripted:echo"

# start together (imports take unequal time on a busy machine): a file barrier
Path(sys.argv[3] + ".ready").write_text("")
while len(list(Path(sys.argv[3]).parent.glob("*.ready"))) < 2:
    time.sleep(0.05)
outcome = evaluate([Path(sys.argv[1])], Path(sys.argv[2]), make_translator=lambda path: Slow())
Path(sys.argv[3]).write_text(json.dumps({"scored": outcome.scored, "skipped": outcome.skipped}))
"""


def test_two_evaluators_split_the_work_and_lose_nothing(tmp_path):
    run = tmp_path / "run"
    for step in ("step-0000001", "step-0000002"):
        (run / "checkpoints" / step).mkdir(parents=True)
        (run / "checkpoints" / step / "trainer_state.json").write_text("{}")
    (tmp_path / "t.en").write_text("a b c\nd e f\n")
    (tmp_path / "t.de").write_text("a b c\nd e x\n")
    (tmp_path / "outs").mkdir()
    probes = "".join(f'[[probe]]\ntype = "quality"\nlabel = "q{k}"\nsrc = "{tmp_path}/t.en"\n'
                     f'ref = "{tmp_path}/t.de"\nbeam = {k + 1}\n\n' for k in range(6))
    (tmp_path / "suite.toml").write_text(probes)
    procs = [subprocess.Popen([sys.executable, "-c", EVALUATOR, str(run), str(tmp_path / "suite.toml"),
                               str(tmp_path / "outs" / f"out{k}.json")], env=ENV, stderr=subprocess.PIPE)
             for k in range(2)]
    for proc in procs:
        assert proc.wait(timeout=240) == 0, proc.stderr.read().decode()[-2000:]
    outs = [json.loads((tmp_path / "outs" / f"out{k}.json").read_text()) for k in range(2)]
    wanted = {f"{step}: q{k}" for step in ("step-0000001", "step-0000002") for k in range(6)}
    scored = [set(o["scored"]) for o in outs]
    assert scored[0] | scored[1] == wanted  # everything computed ...
    assert not scored[0] & scored[1]  # ... once
    assert scored[0] and scored[1]  # and both took a share
    store = RunStore(run)
    for step in ("step-0000001", "step-0000002"):
        rows = store.results(run / "checkpoints" / step)
        assert sorted((r["label"], r["metric"]) for r in rows if r["metric"] in ("bleu", "chrf")) == sorted(
            (f"q{k}", m) for k in range(6) for m in ("bleu", "chrf"))


HOLDER = """
import os, sys, time
from mtdebias.store.locking import FileLock
lock = FileLock(sys.argv[1])
lock.acquire()
child = os.fork()
if child == 0:  # inherits the open lock file, and with it the lock
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 1)
    os.dup2(null, 2)
    time.sleep(60)
    os._exit(0)
print(child, flush=True)
os._exit(0)  # the recorded owner ends; its forked child still holds the lock
"""


def test_lock_left_held_by_a_forked_child_of_a_dead_owner_is_broken(tmp_path, caplog):
    path = tmp_path / "x.lock"
    proc = subprocess.run([sys.executable, "-c", HOLDER, str(path)], env=ENV, capture_output=True, text=True,
                          timeout=60)
    grandchild = int(proc.stdout.split()[0])
    try:
        lock = FileLock(path, timeout=20)
        started = time.monotonic()
        with caplog.at_level("WARNING"):
            assert lock.acquire(blocking=False)
        assert time.monotonic() - started < 5
        assert "stale lock" in caplog.text
        # a second lock on the same path now waits for this holder, as a lock should
        assert not FileLock(path).acquire(blocking=False)
        lock.release()
        assert FileLock(path).acquire(blocking=False)
    finally:
        os.kill(grandchild, signal.SIGKILL)


def test_a_live_owner_is_waited_for_and_a_timeout_names_it(tmp_path):
    path = tmp_path / "y.lock"
    holder = FileLock(path)
    holder.acquire()
    try:
        script = ("import sys\nfrom mtdebias.store.locking import FileLock, LockTimeout\n"
                  "try:\n    FileLock(sys.argv[1], timeout=0.5).acquire()\nexcept LockTimeout as e:\n"
                  "    print(e)\n    sys.exit(3)\n")
        proc = subprocess.run([sys.executable, "-c", script, str(path)], env=ENV, capture_output=True, text=True,
                              timeout=60)
        assert proc.returncode == 3
        assert f"still locked by process {os.getpid()}" in proc.stdout
    finally:
        holder.release()
