"""Messages that name the right thing (issue 43): a mistyped path is a missing path, not a hub id;
a GGUF file is a file; a language or an Apertium pair gets the nearest valid one suggested."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from mtdebias.errors import ConfigError, InputError
from mtdebias.models.hub import looks_like_hub_id
from mtdebias.lang.codes import check_language_code, nearest_language
from mtdebias.lang.languages import require
from mtdebias.translators.apertium import _installed_hint
from mtdebias.translators.source import resolve


def _eval(tmp_path, *argv):
    return subprocess.run([sys.executable, "-m", "mtdebias", "eval", *argv], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, env={"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin",
                                                        **_pythonpath()})


def _pythonpath():
    import os

    return {"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {}


def test_a_mistyped_run_folder_is_a_missing_path_with_the_nearest_name(tmp_path, monkeypatch):
    (tmp_path / "runs" / "tiny").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)  # runs/ is a local folder here: runs/tyni is a path
    assert not looks_like_hub_id("runs/tyni") and looks_like_hub_id("Helsinki-NLP/opus-mt-en-de")
    done = _eval(tmp_path, "runs/tyni", "--suite", "none.toml")
    assert done.returncode == 2
    assert "runs/tyni: no such run directory or checkpoint (did you mean runs/tiny?)" in done.stderr
    assert "hf download" not in done.stderr and "Hugging Face" not in done.stderr


@pytest.mark.parametrize("name", ["missing.gguf", "hf-causal:missing.gguf", "hf-causal:sub/missing.gguf"])
def test_a_missing_gguf_file_is_a_missing_file(tmp_path, name):
    (tmp_path / "sub").mkdir()
    done = _eval(tmp_path, name, "--probe", "winomt", "--lang", "de")
    assert done.returncode == 2
    assert "GGUF file does not exist (check the path)" in done.stderr, done.stderr
    assert "hub" not in done.stderr and "directory" not in done.stderr


def test_a_missing_gguf_beside_its_real_name_is_suggested(tmp_path):
    (tmp_path / "gemma-3-270m.gguf").write_bytes(b"")
    with pytest.raises(InputError, match=r"GGUF file does not exist \(did you mean \S*/gemma-3-270m.gguf\?\)"):
        resolve(str(tmp_path / "gemma-3-270.gguf"))


def test_language_codes_suggest_the_language_meant():
    assert nearest_language("sp") == "es" and nearest_language("ger") == "de" and nearest_language("cz") == "cs"
    assert nearest_language("sp", ["de", "fr"]) is None
    with pytest.raises(InputError, match=r"'sp' is not an ISO 639-1 language code \(did you mean 'es'\?\)"):
        check_language_code("sp", "tgt_lang")
    with pytest.raises(ConfigError, match=r"language 'sp' has no target-side gender detector \(did you mean 'es'\? "):
        require("sp", ["detector"], "probe 'winomt'")


def test_apertium_suggests_pairs_in_the_form_specs_take():
    modes = ["eng-spa", "spa-eng", "eng-cat"]
    assert _installed_hint("eng-sp", modes, iso1=True).startswith("did you mean apertium:en-es? installed: en-es, es-en")
    assert "did you mean apertium:eng-spa?" in _installed_hint("eng-sp", modes, iso1=False)


def test_loading_a_marian_model_does_not_advise_sacremoses_nor_draw_loading_bars(tmp_path):
    """issue 43: "Recommended: pip install sacremoses" and transformers' "Loading weights" bar
    printed on every model load by the CLI (the bar also off a terminal, as a run of \\r updates)."""
    from tests.toy import train_tiny_checkpoint, toy_corpus

    checkpoint = train_tiny_checkpoint(tmp_path / "run", pairs=toy_corpus(40, seed=1), steps=2)
    env = {key: value for key, value in os.environ.items() if key != "HF_HUB_DISABLE_PROGRESS_BARS"}
    done = subprocess.run([sys.executable, "-m", "mtdebias", "translate", str(checkpoint), "--beam", "1"],
                          input="The red dog sleeps.\n", capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    assert "sacremoses" not in done.stderr
    assert "Loading weights" not in done.stderr and "\r" not in done.stderr
