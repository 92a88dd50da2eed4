"""The audit's follow-up to issue 40: what stands at a path of the run store or a cache is checked
before it is used. A reader opens only a regular file (a folder, a FIFO, a socket is one clear
error, never a traceback or a hang), an append never goes through a link, a file or a link where
a folder of the store belongs is refused, ``report`` counts each run once, and ``translate`` with
its standard output closed says so."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mtdebias.errors import InputError
from mtdebias.store.locking import FileLock
from mtdebias.report import build_report
from mtdebias.report.collect import distinct_runs
from mtdebias.evaluation.runner import evaluate
from mtdebias.store.runs import RunStore
from test_cli_failures import _clear_error
from test_locks import ENV, PRECIOUS, _link_to_precious, _refused, _run_with_checkpoint, _suite

STEP = "step-0000001"
ROW = {"signature": "s", "metric": "m", "value": 1.0}


def _no_model(path):
    pytest.fail("a model was loaded before the check")


def _one_line(exc: pytest.ExceptionInfo, *expected: str) -> None:
    text = str(exc.value)
    assert "\n" not in text
    for part in expected:
        assert part in text, text


# ------------------------------------------------------------------------ readers: regular files only

def test_a_folder_where_results_jsonl_belongs_is_refused_before_any_model_is_loaded(tmp_path):
    run = _run_with_checkpoint(tmp_path)
    results = RunStore(run).results_file(STEP)
    results.mkdir(parents=True)  # c23: before the fix IsADirectoryError from textio, a traceback
    with pytest.raises(InputError) as exc:
        evaluate([run], _suite(tmp_path, 1), make_translator=_no_model)
    _one_line(exc, f"{results}: the results file is a folder, not a regular file", "move it out of the way")
    assert results.is_dir()


@pytest.mark.timeout(60)  # before the fix each of these reads waited for a writer for ever
def test_a_fifo_where_a_store_file_belongs_is_refused_not_waited_on(tmp_path):
    store = RunStore(_run_with_checkpoint(tmp_path))
    store.eval_dir(STEP).mkdir(parents=True)
    os.mkfifo(store.results_file(STEP))  # c43
    with pytest.raises(InputError) as exc:
        store.results(STEP)
    _one_line(exc, "results.jsonl: this is a named pipe (FIFO), not a regular file")
    with pytest.raises(InputError, match="the results file is a named pipe"):
        evaluate([store.dir], _suite(tmp_path, 1), make_translator=_no_model)
    for path, read in ((store.dir / "best.json", store.read_best), (store.dir / "log.jsonl", store.read_log),
                       (store.eval_dir(STEP) / "q.anova.json", lambda: store.read_tables(STEP, "anova")),
                       (store.attempts_path(STEP, "q"), lambda: store.read_attempts(STEP, "q"))):
        os.mkfifo(path)
        with pytest.raises(InputError, match="a named pipe"):
            read()


@pytest.mark.timeout(60)
def test_report_on_a_run_whose_results_file_is_a_fifo_is_one_line(tmp_path, capsys):
    from mtdebias.cli import main

    store = RunStore(_run_with_checkpoint(tmp_path))
    store.eval_dir(STEP).mkdir(parents=True)
    os.mkfifo(store.results_file(STEP))
    rc = main(["report", str(store.dir), "--out", str(tmp_path / "rep" / "report.html")])
    _clear_error(rc, capsys.readouterr().err, f"{store.results_file(STEP)}: this is a named pipe (FIFO)")


# ------------------------------------------------------------------------ writers: never through a link

def test_the_response_cache_is_never_appended_through_a_link(tmp_path):
    from mtdebias.translators.openai_api import OpenAITranslator

    cache = tmp_path / "cache"
    client = OpenAITranslator.from_spec("tiny@http://127.0.0.1:9/v1", tgt_lang="de", cache_dir=cache)
    link = cache / "responses.jsonl"
    precious = _link_to_precious(tmp_path, link)  # c35: before the fix a cache line was appended to it
    with pytest.raises(InputError) as exc:
        client._store("key", {"choices": [{"message": {"content": "Hallo"}}]})
    _refused(exc, link, precious)
    # a link found when the cache is opened is refused there, before any request is sent
    with pytest.raises(InputError) as exc:
        OpenAITranslator.from_spec("tiny@http://127.0.0.1:9/v1", tgt_lang="de", cache_dir=cache)
    _refused(exc, link, precious)


@pytest.mark.timeout(60)
def test_a_fifo_or_a_file_where_the_response_cache_belongs_is_refused(tmp_path):
    from mtdebias.translators.openai_api import OpenAITranslator

    cache = tmp_path / "cache"
    cache.mkdir()
    os.mkfifo(cache / "responses.jsonl")
    with pytest.raises(InputError, match="responses.jsonl: the response cache is a named pipe"):
        OpenAITranslator.from_spec("tiny@http://127.0.0.1:9/v1", tgt_lang="de", cache_dir=cache)
    taken = tmp_path / "taken"
    taken.write_text(PRECIOUS)
    with pytest.raises(InputError, match="taken: this is a file where the folder of cached responses belongs"):
        OpenAITranslator.from_spec("tiny@http://127.0.0.1:9/v1", tgt_lang="de", cache_dir=taken)
    assert taken.read_text() == PRECIOUS


def test_the_training_log_is_never_appended_through_a_link(tmp_path):
    store = RunStore(tmp_path / "run")
    link = store.dir / "log.jsonl"
    precious = _link_to_precious(tmp_path, link)
    with pytest.raises(InputError) as exc:
        store.log({"step": 1, "loss": 2.0})
    _refused(exc, link, precious)


def test_the_watch_log_is_never_appended_through_a_link(tmp_path):
    from mtdebias.experiments.pipeline import _start_watcher

    store = RunStore(tmp_path / "run")
    precious = _link_to_precious(tmp_path, store.watch_log)
    with pytest.raises(InputError) as exc:
        _start_watcher(None, store)  # refused before the recipe is looked at, or a watcher started
    _refused(exc, store.watch_log, precious)


# ------------------------------------------------------------------------ the store's folders

def test_a_file_where_eval_belongs_is_refused_before_any_model_is_loaded(tmp_path):
    run = _run_with_checkpoint(tmp_path)
    (run / "eval").write_text(PRECIOUS)  # c29: before the fix NotADirectoryError in locking, a traceback
    with pytest.raises(InputError) as exc:
        evaluate([run], _suite(tmp_path, 1), make_translator=_no_model)
    _one_line(exc, f"{run / 'eval'}: this is a file where a folder of the run's results belongs",
              "move it out of the way")
    with pytest.raises(InputError, match="eval: this is a file where"):
        RunStore(run).add_results(STEP, [ROW])
    assert (run / "eval").read_text() == PRECIOUS


def test_a_lock_below_a_file_names_the_file(tmp_path):
    (tmp_path / "eval").write_text(PRECIOUS)
    with pytest.raises(InputError) as exc:
        FileLock(tmp_path / "eval" / STEP / ".results.lock").acquire()
    _one_line(exc, f"{tmp_path / 'eval'}: this is a file where a folder belongs")
    assert (tmp_path / "eval").read_text() == PRECIOUS


def test_a_claims_folder_that_is_a_link_is_refused(tmp_path):
    run = _run_with_checkpoint(tmp_path)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text(PRECIOUS)
    claims = RunStore(run).claims_dir(STEP)
    claims.parent.mkdir(parents=True)
    claims.symlink_to(mine)  # c28: before the fix the claim lock files were made in the user's folder
    with pytest.raises(InputError) as exc:
        evaluate([run], _suite(tmp_path, 1), make_translator=_no_model)
    _one_line(exc, f"{claims}: this is a symbolic link where a folder of lock files belongs", f"rm {claims}")
    with pytest.raises(InputError, match="symbolic link"):
        RunStore(run).claim(STEP, "request").acquire(blocking=False)
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"]


# ------------------------------------------------------------------------ report counts each run once

def test_each_run_is_counted_once_however_it_is_named(tmp_path):
    runs = tmp_path / "runs"
    (runs / "bad-seed1").mkdir(parents=True)
    (runs / "latest").symlink_to("bad-seed1")
    (runs / "other-seed1").mkdir()
    given = [runs / "bad-seed1", runs / "latest", runs / "other-seed1", runs / ".." / "runs" / "bad-seed1",
             runs / "bad-seed1"]
    kept, repeats = distinct_runs(given)
    assert kept == [runs / "bad-seed1", runs / "other-seed1"]
    assert repeats == [f"{given[k]}: the same run as {given[0]}, given before; it is reported once" for k in (1, 3, 4)]


def test_a_report_of_one_run_given_three_times_has_one_run(tmp_path, capsys):
    from test_report import make_run

    from mtdebias.cli import main

    run = make_run(tmp_path / "runs", "bad", shift=0.0)
    again = tmp_path / "runs" / ".." / "runs" / "bad"
    with pytest.warns(UserWarning, match="the same run as"):  # c48: before the fix one run made 3 "seeds"
        summary = build_report([run, run, again], tmp_path / "r.html", metrics=["winomt*:accuracy"])
    rows = json.loads((summary.tables_dir / "headline.json").read_text())["rows"]
    assert len(rows) == 1 and rows[0]["runs"] == 1
    assert main(["report", str(run), str(again), "--out", str(tmp_path / "cli" / "r.html")]) == 0
    assert f"warning: {again}: the same run as {run}, given before; it is reported once\n" in capsys.readouterr().err
    rows = json.loads((tmp_path / "cli" / "r_tables" / "headline.json").read_text())["rows"]
    assert len(rows) == 1 and rows[0]["runs"] == 1


# ------------------------------------------------------------------------ translate, stdout closed

def test_translate_with_standard_output_closed_is_one_line(tmp_path):
    shell = f'echo "The red dog sleeps." | "{sys.executable}" -m mtdebias translate {tmp_path / "no-model"} >&-'
    proc = subprocess.run(["sh", "-c", shell], env=ENV, capture_output=True, text=True, timeout=120)
    # c27: before the fix AttributeError ('NoneType' has no 'write'), a traceback with exit 1
    _clear_error(proc.returncode, proc.stderr, "standard output is closed", "(>&-)")
