"""The fairseq backend's parts that do not need fairseq: finding a model's parts, epoch lists,
checkpoint order, and the message when fairseq is missing. These run in the default suite."""

from __future__ import annotations

import builtins

import pytest

from mtdebias.models import fairseq_env
from mtdebias.augment.fairseq_shards import parse_epochs
from mtdebias.errors import InputError
from mtdebias.report.collect import checkpoint_step
from mtdebias.translators.source import find_spec, list_checkpoints


@pytest.fixture
def no_fairseq(monkeypatch):
    """Make ``import fairseq`` fail as it does where fairseq is not installed."""
    real_import = builtins.__import__

    def refuse(name, globals=None, locals=None, fromlist=(), level=0):
        absolute = level == 0  # `from .fairseq import …` inside mtdebias is not the fairseq package
        if absolute and (name == "fairseq" or name.startswith(("fairseq.", "fairseq_cli"))):
            raise ImportError(f"No module named '{name}'")
        return real_import(name, globals, locals, fromlist, level)

    monkeypatch.setattr(builtins, "__import__", refuse)


def _save_dir(tmp_path):
    folder = tmp_path / "checkpoints"
    folder.mkdir()
    for name in ("checkpoint10.pt", "checkpoint2.pt", "checkpoint_best.pt", "checkpoint_last.pt"):
        (folder / name).write_bytes(b"")
    return folder


def test_parse_epochs():
    assert parse_epochs("1-3,5,7-8") == [1, 2, 3, 5, 7, 8]
    assert parse_epochs("4") == [4]
    for bad in ("3-1", "0-2", "x", "1-"):
        with pytest.raises(InputError, match="--epochs"):
            parse_epochs(bad)


def test_checkpoints_in_training_order_copies_left_out(tmp_path):
    folder = _save_dir(tmp_path)
    assert [p.name for p in list_checkpoints(folder)] == ["checkpoint2.pt", "checkpoint10.pt"]
    for name in ("checkpoint2.pt", "checkpoint10.pt"):
        (folder / name).unlink()
    # only the copies left: they are the checkpoints then
    assert [p.name for p in list_checkpoints(folder)] == ["checkpoint_best.pt", "checkpoint_last.pt"]
    # update-numbered checkpoints carry their step for the report's x axis
    assert checkpoint_step("checkpoint_3_400.pt") == 400 and checkpoint_step("checkpoint3.pt") is None


def test_spec_file_resolves_relative_paths_and_checks_keys(tmp_path):
    folder = _save_dir(tmp_path)
    data = tmp_path / "data-bin" / "epoch1"
    data.mkdir(parents=True)
    (tmp_path / "data-bin" / "spm.model").write_bytes(b"")
    (folder / "fairseq.toml").write_text('data = "../data-bin/epoch1"\nsentencepiece = "../data-bin/spm.model"\n'
                                         'source_lang = "en"\ntarget_lang = "fr"\n', encoding="utf-8")
    spec = find_spec(folder)
    assert spec.data == data and spec.sentencepiece == tmp_path / "data-bin" / "spm.model"
    assert [p.name for p in spec.checkpoints] == ["checkpoint2.pt", "checkpoint10.pt"]
    assert (spec.source_lang, spec.target_lang) == ("en", "fr")
    assert spec.results_dir() == tmp_path / "checkpoints.mtdebias"
    # one .pt picks up the fairseq.toml beside it
    assert find_spec(folder / "checkpoint2.pt").checkpoints == [folder / "checkpoint2.pt"]
    (folder / "fairseq.toml").write_text('data = "../missing"\n', encoding="utf-8")
    with pytest.raises(InputError, match="'data' = '../missing'"):
        find_spec(folder)
    (folder / "fairseq.toml").write_text('dat = "x"\n', encoding="utf-8")
    with pytest.raises(InputError, match="unknown key"):
        find_spec(folder)
    # a transformers checkpoint or a run directory is not a fairseq model
    hf = tmp_path / "hf"
    hf.mkdir()
    (hf / "config.json").write_text("{}", encoding="utf-8")
    assert find_spec(hf) is None and find_spec(tmp_path / "nothing") is None


def test_missing_fairseq_says_how_to_install(no_fairseq, tmp_path, capsys):
    with pytest.raises(fairseq_env.FairseqMissing, match="make install-fairseq"):
        fairseq_env.require_fairseq("a fairseq checkpoint")
    assert not fairseq_env.fairseq_available()
    from mtdebias.cli import main
    from mtdebias.translators.load import load_translator

    folder = _save_dir(tmp_path)
    with pytest.raises(fairseq_env.FairseqMissing, match="make install-fairseq"):
        load_translator(folder / "checkpoint2.pt")
    annotated = tmp_path / "ann"
    annotated.mkdir()
    assert main(["augment", str(annotated), "--format", "fairseq", "--epochs", "1-2", "--spm-vocab", "100",
                 "--out", str(tmp_path / "out")]) != 0
    assert "make install-fairseq" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
