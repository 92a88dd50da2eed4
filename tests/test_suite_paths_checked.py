"""A suite's data paths are checked before training: ``train --check`` and the start of ``train``
resolve every file the recipe's eval suite will read, print each with the key that made it, and
stop (exit 2, nothing trained) when one is missing — e.g. eval/quick.toml's
``{data_dir}/test.{src_lang}`` beside one's own training data."""

from __future__ import annotations

from pathlib import Path

from mtdebias.cli import main

ROOT = Path(__file__).resolve().parents[1]

RECIPE = """
[run]
name = "own"
dir = "runs"
[data]
train_src = "corpus/train.en"
train_tgt = "corpus/train.de"
src_lang = "en"
tgt_lang = "de"
[tokenizer]
vocab_size = 100
[train]
epochs = 1
max_tokens = 512
validate_bleu = false
[eval]
suite = "{suite}"
"""


def _project(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "train.en").write_text("The dog sleeps.\nThe cat runs.\n" * 20, encoding="utf-8")
    (corpus / "train.de").write_text("Der Hund schläft.\nDie Katze läuft.\n" * 20, encoding="utf-8")
    (tmp_path / "recipe.toml").write_text(RECIPE.replace("{suite}", str(ROOT / "eval" / "quick.toml")),
                                          encoding="utf-8")
    return tmp_path


def test_a_suite_naming_a_missing_file_stops_train_before_training(tmp_path, capsys, monkeypatch):
    project = _project(tmp_path)
    monkeypatch.chdir(project)
    for argv in (["train", "recipe.toml", "--check"], ["train", "recipe.toml"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        # the suite, the probe, the key as written and the path it resolved to
        assert "probe 'quality', src = '{data_dir}/test.{src_lang}' → " + str(project / "corpus" / "test.en") in err
        assert "ref = '{data_dir}/test.{tgt_lang}'" in err and "folder of data.train_src" in err
        assert not (project / "runs").exists()  # nothing trained, no run folder made


def test_check_lists_every_file_the_suite_reads(tmp_path, capsys, monkeypatch):
    project = _project(tmp_path)
    monkeypatch.chdir(project)
    for name in ("test.en", "test.de"):
        (project / "corpus" / name).write_text("The dog runs.\n", encoding="utf-8")
    assert main(["train", "recipe.toml", "--check"]) == 0
    out = capsys.readouterr().out
    assert f"probe 'quality', src = '{{data_dir}}/test.{{src_lang}}' → {project / 'corpus' / 'test.en'}" in out
    shipped = ROOT / "mtdebias" / "data" / "templates" / "name_gender_synth_de.tsv"
    assert f"probe 'name_gender', templates = '{{shipped}}/templates/name_gender_synth_{{tgt_lang}}.tsv' → " \
           f"{shipped}" in out


def test_files_the_synthetic_corpus_writes_are_not_missing(capsys):
    """quickstart.toml's test split does not exist until the run generates its corpus."""
    assert main(["train", str(ROOT / "recipes" / "quickstart.toml"), "--check",
                 "--set", 'data.train_src="/nonexistent-mtdebias/train.en"',
                 "--set", 'data.train_tgt="/nonexistent-mtdebias/train.de"']) == 0
    assert "→ /nonexistent-mtdebias/test.en (written by data.synth)" in capsys.readouterr().out
