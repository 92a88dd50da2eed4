"""Output paths the user names (eval --attempts, augment --out, annotate --out, data … --out) never
take a run's files, an input, a folder where a file goes or a file where a folder goes, and
replace only a file the command wrote (mtdebias/store/outputs.py; the audit after issue 40, cases c05
to c08, c36, c37, c49). Every refusal comes before any work: the work is made to fail the test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mtdebias.store import atomic
from mtdebias.cli import main
from mtdebias.errors import InputError
from toy import toy_corpus

LOG_ROWS = '{"step": 1, "loss": 3.2}\n{"step": 2, "loss": 2.9}\n'


@pytest.fixture(scope="module")
def ws(tmp_path_factory) -> Path:
    """A corpus, its annotation, and a run folder with a training log (the files the audit lost)."""
    ws = tmp_path_factory.mktemp("outputs")
    src, tgt = toy_corpus(30, seed=4)
    (ws / "dev.en").write_text("\n".join(src) + "\n")
    (ws / "dev.de").write_text("\n".join(tgt) + "\n")
    from mtdebias.augment import annotate_corpus

    annotate_corpus(ws / "dev.en", ws / "dev.de", ws / "ann", "en", "de", two_sided=False)
    run = ws / "runs" / "bad"
    (run / "checkpoints").mkdir(parents=True)
    (run / "recipe.toml").write_text('[data]\nsrc_lang = "en"\ntgt_lang = "de"\n')
    (run / "log.jsonl").write_text(LOG_ROWS)
    return ws


def _snapshot(folder: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None) for p in sorted(folder.rglob("*"))}


def _refused(argv: list[str], capsys, *expected: str) -> str:
    rc = main(argv)
    err = capsys.readouterr().err
    assert rc == 2, f"exit {rc}: {err[-1500:]}"
    assert "Traceback" not in err and err.count("error:") == 1, err[-1500:]
    for text in expected:
        assert text in err, f"{text!r} not in {err[-1500:]}"
    return err


@pytest.fixture
def no_probe(monkeypatch):
    import mtdebias.evaluation.runner as runner

    def never(*args, **kwargs):
        raise AssertionError("the probe ran")

    monkeypatch.setattr(runner, "evaluate_probe", never)


def _eval(ws: Path, attempts: Path | str) -> list[str]:
    return ["eval", "--probe", "quality", "--src", str(ws / "dev.en"), "--ref", str(ws / "dev.de"),
            "--translations", str(ws / "dev.de"), "--attempts", str(attempts)]


def test_c07_attempts_never_replace_a_runs_training_log(ws, capsys, no_probe):
    before = _snapshot(ws / "runs")
    _refused(_eval(ws, ws / "runs" / "bad" / "log.jsonl"), capsys, "file of a run", "log.jsonl")
    assert _snapshot(ws / "runs") == before


def test_c08_attempts_never_replace_an_input(ws, tmp_path, capsys, no_probe):
    before = (ws / "dev.en").read_bytes()
    _refused(_eval(ws, ws / "dev.en"), capsys, "an input of this command", "dev.en")
    (tmp_path / "link.en").symlink_to(ws / "dev.en")  # the same file by another name
    _refused(_eval(ws, tmp_path / "link.en"), capsys, "an input of this command")
    (tmp_path / "hard.en").hardlink_to(ws / "dev.en")
    _refused(_eval(ws, tmp_path / "hard.en"), capsys, "an input of this command")
    assert (ws / "dev.en").read_bytes() == before


def test_attempts_never_replace_a_file_eval_did_not_write(ws, tmp_path, capsys, no_probe):
    notes = tmp_path / "notes.jsonl"
    notes.write_text("my notes, not JSON\n")
    _refused(_eval(ws, notes), capsys, "did not write", str(notes))
    assert notes.read_text() == "my notes, not JSON\n"


def test_attempts_rerun_replaces_its_own_log(ws, tmp_path):
    log = tmp_path / "attempts.jsonl"
    assert main(_eval(ws, log)) == 0
    first = log.read_text()
    assert first and all(isinstance(json.loads(line), dict) for line in first.splitlines())
    assert main(_eval(ws, log)) == 0
    assert log.read_text() == first


def test_c37_augment_never_replaces_a_runs_log(ws, capsys):
    before = _snapshot(ws / "runs")
    _refused(["augment", str(ws / "ann"), "--epoch", "0", "--joint", "--out", str(ws / "runs" / "bad" / "log.jsonl")],
             capsys, "file of a run")
    assert _snapshot(ws / "runs") == before


def test_augment_replaces_its_own_output_and_nothing_else(ws, tmp_path, capsys):
    joint = tmp_path / "aug.txt"
    argv = ["augment", str(ws / "ann"), "--epoch", "0", "--joint", "--out", str(joint)]
    assert main(argv) == 0 and main(argv) == 0  # the rerun replaces what the first run wrote
    prefix = tmp_path / "aug"
    argv = ["augment", str(ws / "ann"), "--epoch", "0", "--out-prefix", str(prefix)]
    assert main(argv) == 0 and main(argv) == 0
    (tmp_path / "aug.tgt").write_text("one line where the pair had many\n")  # no longer the pair it wrote
    _refused(argv, capsys, "the .src side would replace a file this command did not write")
    _refused(["augment", str(ws / "ann"), "--epoch", "0", "--joint", "--out", str(ws / "dev.en")], capsys,
             "did not write", "dev.en")


def test_c36_annotate_never_writes_into_a_run_folder(ws, capsys, monkeypatch):
    import mtdebias.augment.annotate as annotate

    monkeypatch.setattr(annotate, "annotate_corpus", lambda *a, **k: pytest.fail("the annotation ran"))
    before = _snapshot(ws / "runs")
    _refused(["annotate", "--src", str(ws / "dev.en"), "--tgt", str(ws / "dev.de"), "--src-lang", "en",
              "--tgt-lang", "de", "--out", str(ws / "runs" / "bad")], capsys, "is a run folder")
    _refused(["annotate", "--src", str(ws / "dev.en"), "--tgt", str(ws / "dev.de"), "--src-lang", "en",
              "--tgt-lang", "de", "--out", str(ws / "dev.en")], capsys, "an input of this command")
    assert _snapshot(ws / "runs") == before


def test_c06_data_synth_never_writes_into_a_run_folder(ws, capsys):
    before = _snapshot(ws / "runs")
    _refused(["data", "synth", "--tgt-lang", "de", "--size", "20", "--out", str(ws / "runs" / "bad")], capsys,
             "is a run folder")
    assert _snapshot(ws / "runs") == before


def test_c49_data_synth_refuses_a_file_at_its_folder(ws, capsys):
    before = (ws / "dev.en").read_bytes()
    _refused(["data", "synth", "--tgt-lang", "de", "--size", "20", "--out", str(ws / "dev.en")], capsys,
             "is a file; it names a folder")
    assert (ws / "dev.en").read_bytes() == before


def test_data_synth_reruns_into_its_folder_but_keeps_the_users_files(tmp_path, capsys):
    out = tmp_path / "synth"
    argv = ["data", "synth", "--tgt-lang", "de", "--size", "20", "--dev-size", "5", "--test-size", "5", "--out",
            str(out)]
    assert main(argv) == 0 and main(argv) == 0
    other = tmp_path / "mine"
    other.mkdir()
    (other / "train.en").write_text("my corpus\n")
    _refused([*argv[:-1], str(other)], capsys, "already holds 'train.en'")
    assert (other / "train.en").read_text() == "my corpus\n"


def test_c05_data_candidates_refuses_a_folder_and_foreign_files(ws, tmp_path, capsys):
    before = _snapshot(ws / "runs")
    _refused(["data", "candidates", "--per-gender", "5", "--out", str(ws / "runs" / "bad")], capsys,
             "would replace a run folder")
    assert _snapshot(ws / "runs") == before
    mine = tmp_path / "names.tsv"
    mine.write_text("PERSON\tfemale\tAnn\tAnn\t1\n")
    _refused(["data", "candidates", "--per-gender", "5", "--out", str(mine)], capsys, "did not write")
    ours = tmp_path / "candidates.tsv"
    argv = ["data", "candidates", "--per-gender", "5", "--out", str(ours)]
    assert main(argv) == 0 and main(argv) == 0


def test_atomic_writes_refuse_a_folder_or_a_file_in_the_way(tmp_path):
    (tmp_path / "folder").mkdir()
    (tmp_path / "folder" / "kept").write_text("x")
    with pytest.raises(InputError, match="a folder stands where this file is to be written") as caught:
        atomic.write_text(tmp_path / "folder", "text")
    assert caught.value.path == str(tmp_path / "folder")
    assert (tmp_path / "folder" / "kept").read_text() == "x"
    (tmp_path / "train.en").write_text("corpus\n")
    with pytest.raises(InputError, match="train.en is a file, where a folder of this path must be"):
        atomic.write_text(tmp_path / "train.en" / "dev.en", "text")
    assert (tmp_path / "train.en").read_text() == "corpus\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder", "train.en"]  # no temporary left
