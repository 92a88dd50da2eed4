"""`mtdebias eval --probe …` on files of precomputed translations, and `mtdebias translate`."""

import json
import subprocess
import sys

import pytest

from mtdebias.cli import main
from mtdebias.errors import InputError
from mtdebias.translators.file import FileTranslator


def test_winomt_probe_on_shared_aws_translations(shared_data, capsys, tmp_path):
    data = shared_data / "winomt"
    head = (data / "en.txt").read_text(encoding="utf-8").splitlines()[:200]
    (tmp_path / "en.txt").write_text("\n".join(head) + "\n", encoding="utf-8")
    attempts = tmp_path / "attempts.jsonl"
    code = main(["eval", "--probe", "winomt", "--lang", "de", "--data", str(tmp_path / "en.txt"),
                 "--pro", "", "--anti", "", "--translations", str(data / "translations-aws" / "en-de.txt"),
                 "--allow-missing", "--attempts", str(attempts), "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["signature"].startswith("winomt.v1|") and "model:file:" in out["signature"]
    accuracy = out["metrics"]["accuracy"]["value"]
    assert 0.4 < accuracy < 0.9  # a commercial system on WinoMT German: well above chance, far from perfect
    rows = [json.loads(line) for line in attempts.read_text().splitlines()]
    assert len(rows) == 200
    judged = [r for r in rows if r["validity"]["valid"]]  # the gate's rejects are left out of the rates
    undetected = [r for r in judged if r["detected"] == "undetected"]
    assert out["metrics"]["undetected_rate"]["value"] == pytest.approx(len(undetected) / len(judged))
    assert all(r["evidence"] for r in undetected)  # every undetected case says why


def test_file_translator_missing_sources(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("a ||| A\nb ||| B\n")
    with pytest.raises(InputError, match="no translation for source sentence 'c'"):
        FileTranslator(path).translate(["a", "c"])
    lenient = FileTranslator(path, allow_missing=True)
    assert lenient.translate(["a", "c"]) == ["A", ""] and lenient.missing == ["c"]
    bad = tmp_path / "bad.txt"
    bad.write_text("a ||| A\nno separator here\n")
    with pytest.raises(InputError) as info:
        FileTranslator(bad)
    assert info.value.line == 2


def test_translate_command_reads_stdin(tiny_checkpoint):
    result = subprocess.run([sys.executable, "-m", "mtdebias", "translate", str(tiny_checkpoint), "--beam", "2"],
                            input="The red dog sleeps.\nThe old cow waits.\n", capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.splitlines()
    assert len(lines) == 2 and lines[0].startswith("Der")


def test_uncached_hub_name_offline_is_a_clean_error_with_the_fetch_command(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    assert main(["translate", "Helsinki-NLP/opus-mt-en-de@v2"]) == 2
    err = capsys.readouterr().err
    assert "not in the Hugging Face cache" in err and "Traceback" not in err
    assert "`hf download Helsinki-NLP/opus-mt-en-de --revision v2`" in err


def test_mt_gender_file_scores_without_allow_missing_and_warns(shared_data, capsys):
    # mt_gender's en-de.txt was made from an en.txt that differs on lines 2121-2122
    data = shared_data / "winomt"
    code = main(["eval", "--probe", "winomt", "--lang", "de", "--data", str(data / "en.txt"),
                 "--translations", str(data / "translations-aws" / "en-de.txt"),
                 "--option", "resamples=0", "--json"])
    assert code == 0
    captured = capsys.readouterr()
    assert "line(s) 2121, 2122" in captured.err and "gave these no translation" in captured.err
    assert "data check: 6 duplicate row(s)" in captured.err
    metrics = json.loads(captured.out)["metrics"]
    # the two lines given no translation are empty replies, left out of the gender metrics
    assert metrics["accuracy"]["n"] == 3886 - 32 and metrics["invalid.empty"]["value"] == 2
    assert metrics["invalid.not_translation"]["value"] == 32  # the German adequacy check (tests/test_adequacy.py)


def test_an_undefined_metric_prints_as_undefined_with_n_and_why():
    """A ΔH below its floor is NaN in the result: the printout says "undefined (n=…; why)", not
    "nan", and --json writes null with the same reason (JSON has no NaN)."""
    from mtdebias.commands.eval import _lines, _summary

    metrics = [{"metric": "delta_h_se", "value": float("nan"), "ci": None, "n": 90},
               {"metric": "delta_h_ge", "value": -0.25, "ci": [-0.4, -0.1], "n": 90}]
    summary = _summary("ambiguity.v1", "sig", metrics, 0)
    text = _lines(summary)
    assert "delta_h_se               undefined (n=90; H̄_unamb under a tenth of H̄_amb (ΔH < −9)" in text
    assert "nan" not in text and "-0.2500  [-0.4000, -0.1000]" in text
    printed = json.loads(json.dumps(summary, allow_nan=False))["metrics"]
    assert printed["delta_h_se"]["value"] is None and printed["delta_h_se"]["undefined"].startswith("n=90; H̄_unamb")
    assert printed["delta_h_ge"] == metrics[1]


def test_the_report_delta_table_says_why_a_delta_h_on_enough_items_is_undefined():
    # 90 items, above min_items 10: the floor, not the count, left it undefined
    from mtdebias.report.views.ambiguity import delta_cell
    from mtdebias.signature import Signature

    sig = str(Signature("ambiguity.v1", "0123456789ab", "m", {"min_items": 10}, 0))
    assert delta_cell({"metric": "delta_h_se", "value": float("nan"), "n": 90, "signature": sig}) == \
        "undefined (n = 90; H̄_unamb under a tenth of H̄_amb (ΔH < −9))"
    assert delta_cell({"metric": "delta_i_se", "value": float("nan"), "n": 3, "signature": sig}) == \
        "undefined (n = 3 < 10)"


def test_only_without_a_suite_is_refused_naming_the_flag(tmp_path, capsys):
    (tmp_path / "src.en").write_text("The dog.\n")
    rc = main(["eval", "--probe", "quality", "--src", str(tmp_path / "src.en"), "--ref", str(tmp_path / "src.en"),
               "--translations", str(tmp_path / "src.en"), "--only", "quality"])
    err = capsys.readouterr().err
    assert rc == 2 and "--only picks probes of a suite by label" in err and "give --suite" in err
    assert "Traceback" not in err


def test_a_mistyped_only_label_fails_with_a_did_you_mean_before_the_target_is_looked_up(tmp_path, capsys):
    (tmp_path / "suite.toml").write_text('[suite]\nname = "s"\n\n[[probe]]\ntype = "quality"\nlabel = "bible_es"\n'
                                         'src = "a.en"\nref = "a.es"\n')
    rc = main(["eval", str(tmp_path / "no-such-run"), "--suite", str(tmp_path / "suite.toml"), "--only", "bible_e"])
    err = capsys.readouterr().err
    assert rc == 2 and "--only bible_e: suite s has no probe labelled bible_e" in err
    assert "did you mean bible_es?" in err and "no-such-run" not in err and "Traceback" not in err
