"""Failures a new user met trying the CLI (issue 26, item 7): each ends in one clear message (exit
2, the path, line or key named, no traceback) or in a counted, reported outcome.

Tests run as root here, where file modes stop no write: an unwritable place is a path below a
regular file (refused to root too), or a folder made read-only by refusing, in this process,
every call that would write below it (:func:`read_only`); as a user, the same cases run on a
real ``chmod 555`` folder."""

from __future__ import annotations

import builtins
import errno
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mtdebias.cli import main
from toy import toy_corpus
from test_bad_inputs import RECIPE

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""), "OMP_NUM_THREADS": "1"}

def _recipe(runs: Path) -> str:
    """The bad-input tests' recipe (its corpus paths are relative: the recipe goes in ``ws``)."""
    return RECIPE.replace("{ws}/runs", str(runs))


SUITE = """
[[probe]]
type = "quality"
src = "{src}"
ref = "{ref}"
beam = 1
"""


@pytest.fixture(scope="module")
def ws(tmp_path_factory, tiny_checkpoint) -> Path:
    """A corpus, a regular file to put paths under, an annotation folder, and a copy of the tiny
    en→de run with the recipe a trained run keeps (data.tgt_lang = "de")."""
    ws = tmp_path_factory.mktemp("cli")
    src, tgt = toy_corpus(60, seed=2)
    (ws / "train.en").write_text("\n".join(src) + "\n")
    (ws / "train.de").write_text("\n".join(tgt) + "\n")
    (ws / "afile").write_text("a regular file, not a folder\n")
    (ws / "suite.toml").write_text(SUITE.format(src=ws / "train.en", ref=ws / "train.de"))
    from mtdebias.augment import annotate_corpus

    annotate_corpus(ws / "train.en", ws / "train.de", ws / "ann", "en", "de", two_sided=False)
    run = ws / "run"
    shutil.copytree(tiny_checkpoint.parent.parent, run)
    (run / "recipe.toml").write_text('[data]\nsrc_lang = "en"\ntgt_lang = "de"\n')
    return ws


def _checkpoint(ws: Path) -> Path:
    return next((ws / "run" / "checkpoints").glob("step-*"))


def _fill(argv: list[str], ws: Path) -> list[str]:
    return [a.replace("{ws}", str(ws)).replace("{ckpt}", str(_checkpoint(ws))) for a in argv]


def _clear_error(rc: int, err: str, *expected: str) -> None:
    assert rc == 2, f"exit code {rc}; stderr: {err[-1500:]}"
    assert "Traceback" not in err, err[-3000:]
    assert "error:" in err, err[-1500:]
    for text in expected:
        assert text in err, f"{text!r} not in: {err[-1500:]}"


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


# --- unwritable output locations ---------------------------------------------------------------

UNDER_A_FILE = {
    "train": ["train", "{ws}/recipe_under_file.toml"],
    "debias": ["debias", "{ckpt}", "--out", "{ws}/afile/debiased"],
    "report": ["report", "{ws}/run", "--out", "{ws}/afile/report.html"],
    "augment": ["augment", "{ws}/ann", "--epoch", "0", "--out", "{ws}/afile/aug"],
    "annotate": ["annotate", "--src", "{ws}/train.en", "--tgt", "{ws}/train.de", "--src-lang", "en",
                 "--tgt-lang", "de", "--out", "{ws}/afile/ann"],
    "eval --attempts": ["eval", "{ckpt}", "--probe", "quality", "--src", "{ws}/train.en", "--ref", "{ws}/train.de",
                        "--attempts", "{ws}/afile/attempts.jsonl"],
}


@pytest.mark.parametrize("verb", list(UNDER_A_FILE))
def test_an_output_path_below_a_file_is_refused_before_any_work(verb, ws, capsys):
    (ws / "recipe_under_file.toml").write_text(_recipe(ws / "afile" / "runs"))
    rc = main(_fill(UNDER_A_FILE[verb], ws))
    _clear_error(rc, capsys.readouterr().err, str(ws / "afile"), "is a file", "choose another path")


@pytest.fixture
def read_only(monkeypatch):
    """``read_only(folder, code=EACCES)``: from now on, creating, opening for writing, renaming or
    removing anything below ``folder`` fails with ``code`` (EACCES as for a folder without write
    permission, EPERM as for ``chattr +i``, EROFS as on a read-only mount), root included."""
    roots: dict[Path, int] = {}
    real = {"open": builtins.open, "os_open": os.open, "mkdir": os.mkdir, "replace": os.replace,
            "rename": os.rename, "unlink": os.unlink, "rmdir": os.rmdir}

    def below(path) -> int | None:
        if isinstance(path, int):
            return None
        path = Path(os.fsdecode(path)).absolute()
        return next((code for root, code in roots.items() if path == root or path.is_relative_to(root)), None)

    def refuse(path, code=None):
        code = code or below(path)
        raise OSError(code, f"{os.strerror(code)} (in this test)", os.fsdecode(path))

    def fake_open(file, mode="r", *args, **kwargs):
        if any(c in mode for c in "wax+") and below(file):
            refuse(file)
        return real["open"](file, mode, *args, **kwargs)

    def fake_os_open(path, flags, mode=0o777, *, dir_fd=None):
        if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND) and below(path):
            refuse(path)
        return real["os_open"](path, flags, mode, dir_fd=dir_fd)

    def guard(name):
        def call(path, *args, **kwargs):
            other = args[0] if args and isinstance(args[0], (str, os.PathLike)) else None
            code = below(path) or (below(other) if other is not None else None)
            if code:
                refuse(path, code)
            return real[name](path, *args, **kwargs)
        return call

    monkeypatch.setattr(builtins, "open", fake_open)
    monkeypatch.setattr(io, "open", fake_open)
    monkeypatch.setattr(os, "open", fake_os_open)
    for name in ("mkdir", "replace", "rename", "unlink", "rmdir"):
        monkeypatch.setattr(os, name, guard(name))
    return lambda folder, code=errno.EACCES: roots.update({Path(folder).absolute(): code})


def _read_only_cases(ws: Path) -> dict[str, tuple[list[str], Path]]:
    (ws / "ro").mkdir(exist_ok=True)
    (ws / "ro_recipe.toml").write_text(_recipe(ws / "ro" / "runs"))
    return {
        "eval on a read-only run": (["eval", "{ws}/run", "--suite", "{ws}/suite.toml"], ws / "run"),
        "train into a read-only folder": (["train", "{ws}/ro_recipe.toml"], ws / "ro"),
        "report --out in a read-only folder": (["report", "{ws}/run", "--out", "{ws}/ro/report.html"], ws / "ro"),
        "debias --out in a read-only folder": (["debias", "{ckpt}", "--out", "{ws}/ro/debiased"], ws / "ro"),
        "augment --out in a read-only folder": (["augment", "{ws}/ann", "--epoch", "0", "--out", "{ws}/ro/aug"],
                                                ws / "ro"),
        "annotate --out in a read-only folder": (["annotate", "--src", "{ws}/train.en", "--tgt", "{ws}/train.de",
                                                  "--src-lang", "en", "--tgt-lang", "de", "--out", "{ws}/ro/ann"],
                                                 ws / "ro"),
    }


READ_ONLY_CASES = ["eval on a read-only run", "train into a read-only folder", "report --out in a read-only folder",
                   "debias --out in a read-only folder", "augment --out in a read-only folder",
                   "annotate --out in a read-only folder"]


@pytest.mark.parametrize("case", READ_ONLY_CASES)
def test_a_read_only_output_folder_is_refused_before_any_work(case, ws, read_only, capsys):
    argv, folder = _read_only_cases(ws)[case]
    read_only(folder)
    rc = main(_fill(argv, ws))
    _clear_error(rc, capsys.readouterr().err, str(folder), "cannot write in", "Permission denied",
                 "choose a folder you can write to")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="file modes do not stop root")
def test_a_chmod_read_only_folder_is_refused(ws, tmp_path, capsys):
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        rc = main(["report", str(ws / "run"), "--out", str(folder / "report.html")])
    finally:
        folder.chmod(0o755)
    _clear_error(rc, capsys.readouterr().err, str(folder), "cannot write in")


# --- bytes that are not UTF-8 ------------------------------------------------------------------

def test_invalid_utf8_on_translate_stdin_names_the_line_and_byte(ws):
    proc = subprocess.run([sys.executable, "-m", "mtdebias", "translate", str(_checkpoint(ws)), "--beam", "1"],
                          input=b"The red dog sleeps.\nAnna \xff\xfe is a d\xc3octor.\n", capture_output=True,
                          env=ENV, timeout=300)
    _clear_error(proc.returncode, proc.stderr.decode(), "<stdin>:2", "invalid UTF-8 at byte 5 of the line",
                 "re-encode")
    assert proc.stdout == b""  # refused before the model was loaded, not half-translated


@pytest.mark.parametrize("kind", ["recipe", "suite", "gest csv", "translations csv"])
def test_invalid_utf8_in_any_text_input_names_its_line_and_byte(kind, ws, tmp_path, capsys):
    bad = "caf\xe9".encode("latin-1")
    if kind == "recipe":
        path = ws / "latin1_recipe.toml"
        path.write_bytes(_recipe(tmp_path).encode().replace(b'name = "bad"', b'name = "' + bad + b'"'))
        argv, line = ["train", str(path), "--check"], 3
    elif kind == "suite":
        path = tmp_path / "suite.toml"
        path.write_bytes(b"# " + bad + b"\n" + SUITE.format(src=ws / "train.en", ref=ws / "train.de").encode())
        argv, line = ["eval", str(ws / "run"), "--suite", str(path)], 1
    elif kind == "gest csv":
        path = tmp_path / "gest.csv"
        path.write_bytes(b"sentence,stereotype\nI am " + bad + b",1\n")
        argv, line = ["eval", "--probe", "gest", "--lang", "ru", "--data", str(path), "--translations",
                      str(ws / "train.de")], 2
    else:
        path = tmp_path / "tr.csv"
        path.write_bytes(b"from,to\nThe dog.,Der " + bad + b".\n")
        argv, line = ["eval", "--probe", "quality", "--src", str(ws / "train.en"), "--ref", str(ws / "train.de"),
                      "--translations", str(path)], 2
    rc = main(argv)
    err = capsys.readouterr().err
    _clear_error(rc, err, f"{path}:{line}", "invalid UTF-8 at byte")


# --- Ctrl-C while translating ------------------------------------------------------------------

def test_an_interrupted_translation_keeps_and_counts_the_lines_it_wrote(ws):
    from mtdebias.translators.hf import HFTranslator

    src, _ = toy_corpus(2000, seed=5)
    # Ctrl-C as a terminal delivers it: a test run started in the background (`make test &` from a
    # script) ignores SIGINT, and a child would inherit that and translate to the end
    proc = subprocess.Popen([sys.executable, "-m", "mtdebias", "translate", str(_checkpoint(ws)), "--beam", "2",
                             "--device", "cpu"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=ENV,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    proc.stdin.write(("\n".join(src) + "\n").encode())
    proc.stdin.close()
    proc.stdin = None  # closed: communicate() must not flush it
    first = proc.stdout.readline()  # the first chunk is out (and flushed): now press Ctrl-C
    assert first, proc.stderr.read().decode()[-2000:]
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=300)
    rest, err = proc.stdout.read(), proc.stderr.read().decode()  # read(), not communicate(): it would skip
    # what readline() has buffered
    out = (first + rest).decode().splitlines()
    assert proc.returncode == 130, err[-2000:]
    assert "Traceback" not in err and "rerun the same command" not in err
    assert 0 < len(out) < len(src)
    assert f"the first {len(out)} of {len(src)} lines were translated and written" in err
    assert f"tail -n +{len(out) + 1}" in err
    # the lines printed are the translations of the first lines, in input order
    head = HFTranslator(_checkpoint(ws), device="cpu").translate(src[:64], beam=2)
    assert out[:64] == head[:len(out[:64])]


# --- a closed stdout, SIGTERM, a run store made unwritable mid-run (issue 40) ----------------

def _quiet(err: str) -> None:
    assert "Traceback" not in err and "Exception ignored" not in err, err[-3000:]


def _translating(ws: Path, src: list[str], beam: int) -> tuple[subprocess.Popen, bytes]:
    """`mtdebias translate` on ``src`` in a child, once its first line is out: (child, that line)."""
    proc = subprocess.Popen([sys.executable, "-m", "mtdebias", "translate", str(_checkpoint(ws)), "--beam", str(beam),
                             "--device", "cpu"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=ENV)
    proc.stdin.write(("\n".join(src) + "\n").encode())
    proc.stdin.close()
    proc.stdin = None  # closed: communicate() must not flush it
    first = proc.stdout.readline()
    assert first, proc.stderr.read().decode()[-2000:]
    return proc, first


def test_translate_into_a_reader_that_stops_ends_quietly_with_141(ws):
    """`mtdebias translate CKPT < in | head -1`: the reader goes after the first line."""
    proc, _ = _translating(ws, toy_corpus(640, seed=5)[0], beam=1)
    proc.stdout.close()  # as head -1 exits: the next chunk meets a pipe without a reader
    proc.stdout = None
    err = proc.communicate(timeout=300)[1].decode()
    assert proc.returncode == 141, err[-2000:]
    _quiet(err)


def test_eval_json_into_a_pipe_without_reader_ends_quietly_with_141(ws):
    """`mtdebias eval … --json | true`: nobody reads; the JSON is printed at the very end (before,
    the failure came at exit, as "Exception ignored … BrokenPipeError" and status 120)."""
    read, write = os.pipe()
    os.close(read)  # the reader is gone before anything is written
    try:
        proc = subprocess.run([sys.executable, "-m", "mtdebias", "eval", "--probe", "quality", "--src",
                               str(ws / "train.en"), "--ref", str(ws / "train.de"), "--translations",
                               str(ws / "train.de"), "--json"], stdout=write, stderr=subprocess.PIPE, env=ENV,
                              timeout=300)
    finally:
        os.close(write)
    err = proc.stderr.decode()
    assert proc.returncode == 141, err[-2000:]
    _quiet(err)


def test_a_broken_pipe_that_is_not_stdout_is_no_quiet_exit(ws, monkeypatch):
    """A server's socket that breaks is a failure, not a reader that has had enough."""
    import mtdebias.commands.eval as eval_command

    def broken(args):
        raise BrokenPipeError(errno.EPIPE, "Broken pipe")

    monkeypatch.setattr(eval_command, "run", broken)
    monkeypatch.setattr("mtdebias.cli._stdout_closed", lambda: False)
    with pytest.raises(BrokenPipeError):
        main(["eval", "--probe", "quality"])


def test_sigterm_while_translating_keeps_and_counts_the_lines_it_wrote(ws):
    src, _ = toy_corpus(640, seed=5)
    proc, first = _translating(ws, src, beam=2)
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=300)
    out = (first + proc.stdout.read()).decode().splitlines()
    err = proc.stderr.read().decode()
    assert proc.returncode == 143, err[-2000:]
    _quiet(err)
    assert 0 < len(out) < len(src)
    assert f"stopped by SIGTERM: the first {len(out)} of {len(src)} lines were translated and written" in err


TWO_PROBES = SUITE + SUITE.replace('type = "quality"', 'type = "quality"\nlabel = "second"').replace("beam = 1",
                                                                                                  "beam = 2")


def _scored_run(ws: Path, tmp_path: Path) -> tuple[Path, Path]:
    run = tmp_path / "run"
    shutil.copytree(ws / "run", run)
    suite = tmp_path / "suite.toml"
    suite.write_text(TWO_PROBES.format(src=ws / "train.en", ref=ws / "train.de"))
    return run, suite


def test_sigterm_during_eval_stops_with_one_line_and_keeps_what_was_stored(ws, tmp_path, monkeypatch, capsys):
    import mtdebias.evaluation.runner as runner
    from mtdebias.store.runs import RunStore

    run, suite = _scored_run(ws, tmp_path)
    real, calls = runner.evaluate_probe, []

    def terminated_at_the_second(probe, translator):
        calls.append(probe)
        if len(calls) == 2:
            # the CLI's handler, not the default action (which would end this test process)
            assert callable(signal.getsignal(signal.SIGTERM))
            signal.raise_signal(signal.SIGTERM)
        return real(probe, translator)

    monkeypatch.setattr(runner, "evaluate_probe", terminated_at_the_second)
    assert main(["eval", str(run), "--suite", str(suite)]) == 143
    err = capsys.readouterr().err
    _quiet(err)
    assert "mtdebias eval: stopped by SIGTERM; nothing half-written was left" in err
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # put back when the command ended
    checkpoint = _checkpoint(ws).name
    assert {row["label"] for row in RunStore(run).results(checkpoint)} == {"quality"}  # the first is kept
    assert not list(run.rglob("*.tmp"))
    monkeypatch.setattr(runner, "evaluate_probe", real)
    assert main(["eval", str(run), "--suite", str(suite)]) == 0
    assert "1 scored, 1 already stored, 0 failed" in capsys.readouterr().out


def _chattr(flag: str, path: Path) -> bool:
    return shutil.which("chattr") is not None and subprocess.run(["chattr", flag, str(path)],
                                                                 capture_output=True).returncode == 0


@pytest.mark.parametrize("code, where", [(errno.EPERM, "eval"), (errno.EACCES, "eval"), (errno.EROFS, "eval"),
                                         (errno.EIO, "eval"), (errno.EPERM, "claims"), (errno.EPERM, "chattr")])
def test_a_results_folder_made_unwritable_mid_run_is_one_line(code, where, ws, tmp_path, read_only, monkeypatch,
                                                              capsys):
    """`chattr +i RUN/eval/step-N` (EPERM; for real where chattr works, as root on ext4), a chmod
    (EACCES), a remount (EROFS) or a failing disk (EIO) after eval's own check: the next write
    below it, the run store's own (results, logs) or a lock's (claims), names the file and what
    to do; a rerun goes on."""
    import mtdebias.evaluation.runner as runner
    from mtdebias.store.runs import RunStore

    if where == "chattr" and not (_chattr("+i", tmp_path) and _chattr("-i", tmp_path)):
        pytest.skip("chattr +i needs root and a file system that has it")
    run, suite = _scored_run(ws, tmp_path)
    store, checkpoint = RunStore(run), _checkpoint(ws).name
    locked = store.eval_dir(checkpoint) / (".claims" if where == "claims" else "")
    real = runner.evaluate_probe

    def then_locked(probe, translator):
        result = real(probe, translator)
        if where == "chattr":
            assert _chattr("+i", locked)
        else:
            read_only(locked, code)
        return result

    monkeypatch.setattr(runner, "evaluate_probe", then_locked)
    try:
        rc = main(["eval", str(run), "--suite", str(suite)])
    finally:
        if where == "chattr":
            _chattr("-i", locked)
    err = capsys.readouterr().err
    action = "access" if where == "claims" else "write"  # a lock's open is no sure write
    _clear_error(rc, err, f"cannot {action} {locked}{os.sep}", os.strerror(code), "chattr -i",
                 "rerun the same command")
    assert ".tmp" not in err  # the file meant, not the temporary beside it
    assert err.count("error:") == 1, err
    monkeypatch.undo()
    assert main(["eval", str(run), "--suite", str(suite)]) == 0
    assert {row["label"] for row in store.results(checkpoint)} == {"quality", "second"}


def test_attempts_naming_a_folder_is_refused_before_the_probe_runs(ws, tmp_path, monkeypatch, capsys):
    import mtdebias.evaluation.runner as runner

    def never(*args):
        raise AssertionError("the probe ran")

    monkeypatch.setattr(runner, "evaluate_probe", never)
    folder = tmp_path / "logs"
    folder.mkdir()
    argv = ["eval", "--probe", "quality", "--src", str(ws / "train.en"), "--ref", str(ws / "train.de"),
            "--translations", str(ws / "train.de"), "--attempts"]
    rc = main([*argv, str(folder)])
    _clear_error(rc, capsys.readouterr().err, str(folder), "--attempts: the per-item log would replace a folder",
                 f"--attempts {folder / 'attempts.jsonl'}")
    assert list(folder.iterdir()) == []


# --- silent wrong results ----------------------------------------------------------------------

def test_a_probe_language_the_checkpoint_does_not_translate_into_is_refused(ws, capsys):
    from mtdebias.evaluation.runner import check_target_language

    rc = main(["eval", str(_checkpoint(ws)), "--probe", "wsd_bias", "--lang", "ru"])
    _clear_error(rc, capsys.readouterr().err, "--lang ru", "translates into 'de'", "data.tgt_lang",
                 "pass --lang de")
    check_target_language(_checkpoint(ws), "de")  # its own language passes
    check_target_language(ws / "run", "de")


LONG = "The red dog sleeps and the small cat eats. " * 500  # ~20,000 characters, far over 64 positions


def test_truncated_inputs_are_counted_warned_and_recorded(ws, tmp_path, capsys, monkeypatch):
    from mtdebias.store.runs import RunStore
    from mtdebias.translators.hf import HFTranslator

    translator = HFTranslator(_checkpoint(ws), device="cpu")
    translator.translate(["The red dog sleeps.", LONG, "The cat eats."], beam=1)
    assert (translator.truncated_inputs, translator.last_truncated) == (1, [1])

    # translate: a warning naming the line
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"The red dog sleeps.\n{LONG}\n"))
    assert main(["translate", str(_checkpoint(ws)), "--beam", "1", "--device", "cpu"]) == 0
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) == 2
    assert "1 input line(s) longer than the model's positions were cut" in captured.err
    assert "(line(s) 2)" in captured.err

    # a single probe: warned and in the JSON (stored in the run: a copy, not the module's run, and
    # another copy for the suite below, which would otherwise find the result stored)
    (tmp_path / "src.en").write_text(f"The red dog sleeps.\n{LONG}\nThe cat eats.\n")
    (tmp_path / "ref.de").write_text("Der rote Hund schläft.\nDer Hund.\nDie Katze frisst.\n")
    shutil.copytree(ws / "run", tmp_path / "single" / "run")
    assert main(["eval", str(_checkpoint(tmp_path / "single")), "--probe", "quality", "--src", str(tmp_path / "src.en"),
                 "--ref", str(tmp_path / "ref.de"), "--option", "beam=1", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["truncated_inputs"] == 1
    assert "1 input(s) longer than the model's positions were cut" in captured.err

    # a suite: recorded beside the metrics in the stored results
    run = tmp_path / "run"
    shutil.copytree(ws / "run", run)
    (tmp_path / "suite.toml").write_text(SUITE.format(src=tmp_path / "src.en", ref=tmp_path / "ref.de"))
    assert main(["eval", str(run), "--suite", str(tmp_path / "suite.toml")]) == 0
    assert "were cut to fit (recorded as meta.truncated_inputs" in capsys.readouterr().err
    rows = RunStore(run).all_results()
    assert rows and all(row["meta"]["truncated_inputs"] == 1 for row in rows)


# --- orphans -----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def gender_checkpoint(tmp_path_factory) -> Path:
    from toy import train_tiny_checkpoint
    from test_debias import gender_corpus

    return train_tiny_checkpoint(tmp_path_factory.mktemp("gender"), pairs=gender_corpus(), steps=60, vocab_size=150)


def test_a_killed_debias_leaves_a_folder_the_next_run_removes(gender_checkpoint, tmp_path, capsys):
    from test_debias import WORDS, gender_corpus

    src, ref = gender_corpus(200, seed=9)
    (tmp_path / "dev.en").write_text("\n".join(src) + "\n")
    (tmp_path / "dev.de").write_text("\n".join(ref) + "\n")
    (tmp_path / "words.txt").write_text("\n".join(WORDS) + "\n")
    out = tmp_path / "out"
    argv = ["debias", str(gender_checkpoint), "--out", str(out), "--words", str(tmp_path / "words.txt"),
            "--dev-src", str(tmp_path / "dev.en"), "--dev-ref", str(tmp_path / "dev.de"), "--beam", "5"]
    proc = subprocess.Popen([sys.executable, "-m", "mtdebias", *argv], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=ENV)
    deadline = time.monotonic() + 240
    while not list(tmp_path.glob(".out.*")) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    proc.kill()
    err = proc.communicate()[1].decode()
    left = list(tmp_path.glob(".out.*"))
    assert left, f"no temporary folder seen before the process ended: {err[-1500:]}"
    assert str(proc.pid) in left[0].name  # its owner is in its name
    running = tmp_path / left[0].name.replace(f"-{proc.pid}.", f"-{os.getpid()}.")
    running.mkdir()  # a debias still at work: left alone
    assert main(argv[:6]) == 0
    assert (out / "debias_report.json").is_file()
    assert not left[0].exists()
    assert running.is_dir()


def _report_set(out: Path) -> dict[str, bytes]:
    files = [out, out.with_suffix(".md"), *sorted(out.with_name(out.stem + "_tables").iterdir())]
    return {str(f.relative_to(out.parent)): f.read_bytes() for f in files}


def test_a_report_is_replaced_as_one_set_and_killed_reports_leave_nothing_for_good(tmp_path, monkeypatch, capsys):
    from mtdebias.store.atomic import _HOST
    from mtdebias.report import build as report_build
    from test_report import make_run

    run = make_run(tmp_path / "runs", "base-seed1", shift=0.0)
    out = tmp_path / "site" / "report.html"
    assert main(["report", str(run), "--out", str(out), "--title", "first"]) == 0
    first = _report_set(out)
    # a report killed while writing its parts: before, the new HTML stood beside the old Markdown
    # and tables; now the old set stays whole
    real_markdown = report_build._markdown

    def killed(*args, **kwargs):
        real_markdown(*args, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(report_build, "_markdown", killed)
    assert main(["report", str(run), "--out", str(out), "--title", "second"]) == 130
    assert _report_set(out) == first
    assert sorted(p.name for p in out.parent.iterdir()) == ["report.html", "report.md", "report_figures", "report_tables"]
    monkeypatch.undo()
    # leftovers of reports killed for good (a SIGKILL runs no cleanup) go at the next report
    dead = _dead_pid()
    (out.parent / f".report.html.{_HOST}-{dead}.0123abcd.tmp").write_text("half a page")
    (out.parent / f".report.html.{_HOST}-{dead}.4567abcd.tmp").mkdir()
    assert main(["report", str(run), "--out", str(out), "--title", "third"]) == 0
    assert sorted(p.name for p in out.parent.iterdir()) == ["report.html", "report.md", "report_figures", "report_tables"]
    assert "third" in out.read_text()
    capsys.readouterr()


# --- smaller cases -----------------------------------------------------------------------------

def test_a_gest_csv_without_to_says_which_columns_it_needs(ws, tmp_path, capsys):
    path = tmp_path / "gest.csv"
    path.write_text("from,translation\nI am tired.,Я устала.\n")
    rc = main(["eval", "--probe", "gest", "--lang", "ru", "--translations", str(path)])
    _clear_error(rc, capsys.readouterr().err, f"{path}:1", "needs the header 'from,to'", "missing 'to'")
    assert "source ||| translation" not in capsys.readouterr().err


def test_a_top_level_recipe_key_is_told_which_table_it_belongs_under(ws, tmp_path, capsys):
    path = ws / "toplevel_seed.toml"
    path.write_text("seed = 3\n" + _recipe(tmp_path))
    rc = main(["train", str(path), "--check"])
    _clear_error(rc, capsys.readouterr().err, str(path), "'seed = 3' stands outside any table",
                 "it belongs under [run]")


def test_eval_on_a_folder_that_is_neither_run_nor_checkpoint_says_so(ws, tmp_path, capsys):
    folder = tmp_path / "photos"
    folder.mkdir()
    (folder / "a.txt").write_text("x")
    rc = main(["eval", str(folder), "--suite", str(ROOT / "eval" / "quick.toml")])
    err = capsys.readouterr().err
    _clear_error(rc, err, str(folder), "neither a run directory nor a checkpoint", "recipe.toml",
                 "config.json")
    assert "tgt_lang" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["photos"]  # no photos.mtdebias/ beside it
