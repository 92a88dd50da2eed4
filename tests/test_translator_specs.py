"""Translators named by a spec (apertium:en-es, hf-causal:MODEL, openai:MODEL@URL): chosen the
same way on every command and in a suite's [translator] table, checked before any work, stored
under runs/translators/ with request keys that include their options (a prompt is an option)."""

from __future__ import annotations

import io
import shutil

import pytest

from mtdebias.cli import main
from mtdebias.errors import ConfigError
from mtdebias.translators.base import UnsupportedCall
from mtdebias.translators.load import classify
from mtdebias.translators.specs import identity as spec_identity, is_spec, spec_from_table, split_spec



def identity(spec: str, options: dict | None = None) -> str:
    """The request identity of a spec, classified as a command classifies it."""
    return spec_identity(classify(spec), options)


HAS_APERTIUM = shutil.which("apertium") is not None


def test_specs_are_parsed_and_checked_with_did_you_mean(tmp_path):
    assert is_spec("apertium:en-es") and is_spec("openai:gpt-4o-mini@http://127.0.0.1:8000/v1")
    assert not is_spec("runs/x") and not is_spec("Helsinki-NLP/opus-mt-en-de")
    odd = tmp_path / "a:b"
    odd.mkdir()
    assert not is_spec(str(odd))  # an existing folder with a colon is a folder
    assert split_spec("hf-causal:org/model") == ("hf-causal", "org/model")
    with pytest.raises(ConfigError, match="did you mean 'apertium'"):
        split_spec("apertiun:en-es")
    assert spec_from_table({"kind": "openai", "model": "m", "url": "http://h/v1", "temperature": 0}) == (
        "openai:m@http://h/v1", {"temperature": 0})
    assert spec_from_table({"kind": "apertium", "pair": "en-es"}) == ("apertium:en-es", {})
    assert identity("apertium:en-es", {"a": 1}) != identity("apertium:en-es", {"a": 2})


def test_a_kind_over_a_local_file_is_named_by_the_file_content(tmp_path, monkeypatch):
    """A translator kind whose spec names a local file (a lexicon) is identified by what the file
    holds, so stored results are not reused for an edited file and are for a moved one."""
    from mtdebias.translators import specs

    monkeypatch.setitem(specs.KINDS, "lexicon", "nowhere:Never")  # identity() imports nothing of the kind
    first = tmp_path / "a.tsv"
    first.write_text("dog\tHund\n", encoding="utf-8")
    before = identity(f"lexicon:{first}")
    moved = tmp_path / "b.tsv"
    moved.write_text("dog\tHund\n", encoding="utf-8")
    assert identity(f"lexicon:{moved}") == before
    first.write_text("dog\tHund\ncat\tKatze\n", encoding="utf-8")
    assert identity(f"lexicon:{first}") != before
    assert identity("lexicon:no-such-file.tsv").startswith("translator:lexicon:no-such-file.tsv:")


def test_unknown_kind_on_the_command_line_and_in_a_suite(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("The dog sleeps.\n"))
    assert main(["translate", "apertiun:en-es"]) == 2
    err = capsys.readouterr().err
    assert "did you mean 'apertium'" in err and "Traceback" not in err
    suite = tmp_path / "s.toml"
    suite.write_text('[translator]\nkind = "apertiun"\npair = "en-es"\n[[probe]]\ntype = "name_gender"\nlang = "es"\n')
    assert main(["eval", "--suite", str(suite)]) == 2
    err = capsys.readouterr().err
    assert str(suite) in err and "did you mean 'apertium'" in err


@pytest.mark.skipif(not HAS_APERTIUM, reason="apertium is not installed (make apertium)")
def test_apertium_translates_line_by_line_and_refuses_what_it_cannot_do():
    from mtdebias.translators.apertium import ApertiumTranslator

    translator = ApertiumTranslator.from_spec("en-es", src_lang="en", tgt_lang="es")
    out = translator.translate(["The doctor said that she was late.", "", "The nurse is tired."])
    assert out[0] == "El doctor dijo que era tarde." and out[1] == "" and out[2].endswith("está cansado.")
    assert translator.signature().startswith("apertium:eng-spa@apertium-")
    with pytest.raises(UnsupportedCall, match="cannot sample"):
        translator.sample(["x"], n=2)
    with pytest.raises(UnsupportedCall, match="no probabilities"):
        translator.score(["x"], ["y"])
    # installed pairs are named the way the spec was written (en-es, not Apertium's eng-spa)
    with pytest.raises(ConfigError, match="installed: .*en-es"):
        ApertiumTranslator.from_spec("en-xx")
    with pytest.raises(ConfigError, match="installed: .*eng-spa"):
        ApertiumTranslator.from_spec("eng-xxx")
    # an uninstalled pair is never advised (issue 43: "use apertium:en-de" named a pair not there)
    with pytest.raises(ConfigError, match="no installed pair translates en→de") as refused:
        ApertiumTranslator.from_spec("en-es", src_lang="en", tgt_lang="de")
    assert "use apertium:en-de" not in str(refused.value)


@pytest.mark.skipif(not HAS_APERTIUM, reason="apertium is not installed (make apertium)")
def test_suite_with_a_translator_table_scores_apertium_once(tmp_path, monkeypatch):
    from mtdebias.store.runs import RunStore

    monkeypatch.chdir(tmp_path)
    suite = tmp_path / "s.toml"
    suite.write_text('[translator]\nkind = "apertium"\npair = "en-es"\n'
                     '[[probe]]\ntype = "name_gender"\nlang = "es"\nnames_limit = 10\nbeam = 1\nresamples = 0\n')
    assert main(["eval", "--suite", str(suite)]) == 0
    store, (checkpoint,) = RunStore.for_translator("apertium:en-es")
    rows = RunStore(tmp_path / store.dir).results(checkpoint)
    assert rows and all("model:apertium:eng-spa@apertium-" in r["signature"] for r in rows)
    assert all("translator:apertium:en-es:" in r["request"] for r in rows)
    assert main(["eval", "--suite", str(suite)]) == 0  # stored: nothing is translated again


def test_hf_causal_by_spec_in_a_suite_rescored_when_its_prompt_changes(tiny_llm, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    suite = tmp_path / "s.toml"
    suite.write_text('[[probe]]\ntype = "name_gender"\nlang = "de"\nnames_limit = 2\nbeam = 1\nresamples = 0\n')
    spec = f"hf-causal:{tiny_llm}"
    args = ["eval", "--translator", spec, "--suite", str(suite), "--set", "tgt_lang=de", "--set", "src_lang=en"]
    assert main(args) == 0
    assert "1 scored" in capsys.readouterr().out
    assert main(args) == 0
    assert "1 already stored" in capsys.readouterr().out
    assert main([*args, "--translator-option", "system=Translate literally."]) == 0
    assert "1 scored" in capsys.readouterr().out  # another prompt is another system
