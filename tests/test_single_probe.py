"""`mtdebias eval TARGET --probe NAME`: stored like a suite's result, reported, reused; greedy for
LLMs; `--limit` as a seeded sample spread over the data; progress with an ETA off a terminal."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from mtdebias.cli import main
from mtdebias.errors import InputError
from mtdebias.probes.base import spread_sample
from mtdebias.probes.winomt.probe import WinoMTProbe
from mtdebias.store.runs import RunStore
from mtdebias.translators.progress import ProgressTranslator
from tests.llm_fixture import DE_PAIRS

PROFESSIONS = ["developer", "mechanic", "nurse", "teacher", "baker", "clerk", "farmer", "writer"]


def _winomt(path: Path, n: int = 40) -> Path:
    """``n`` WinoMT rows; the first half male, the second female (real files are sorted too)."""
    rows = [f"{'male' if i < n // 2 else 'female'}\t1\tThe {PROFESSIONS[i % 8]} saw the guest number {i} "
            f"because {'he' if i < n // 2 else 'she'} was there.\t{PROFESSIONS[i % 8]}" for i in range(n)]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def _lines(probe: WinoMTProbe) -> list[int]:
    return [item.line for item in probe.items()]


def test_limit_is_a_seeded_sample_spread_over_the_data_and_a_setting_of_the_signature(tmp_path):
    data = _winomt(tmp_path / "en.txt")
    lines = _lines(WinoMTProbe.from_options("de", data, limit=8))
    assert lines == _lines(WinoMTProbe.from_options("de", data, limit=8))  # deterministic
    assert len(lines) == 8 and lines == sorted(lines)  # kept in data order
    assert lines != list(range(1, 9)) and max(lines) > 20  # not the head: both halves of a sorted file
    assert _lines(WinoMTProbe.from_options("de", data, limit=8, seed=1)) != lines
    assert _lines(WinoMTProbe.from_options("de", data, limit=100)) == list(range(1, 41))
    assert spread_sample("abcdef", None) == list("abcdef")
    with pytest.raises(InputError, match="limit = 0: keep at least one item"):
        WinoMTProbe.from_options("de", data, limit=0)

    class Named:
        def signature(self):
            return "sys"

    limited = WinoMTProbe.from_options("de", data, limit=8).signature(Named())
    assert "limit=8" in limited and "limit" not in WinoMTProbe.from_options("de", data).signature(Named())


def test_progress_counts_sentences_with_an_eta_off_a_terminal(monkeypatch):
    monkeypatch.setenv("MTDEBIAS_PROGRESS_SECONDS", "0")
    calls = []

    class Upper:
        truncated_inputs = 3

        def translate(self, sources, beam=5):
            calls.append(len(sources))
            return [s.upper() for s in sources]

    stream = io.StringIO()
    monkeypatch.setattr("sys.stderr", stream)
    wrapped = ProgressTranslator(Upper(), "eval ckpt: winomt")
    sources = [f"s{i}" for i in range(100)]
    assert wrapped.translate(sources, beam=1) == [s.upper() for s in sources]  # in order, all of them
    assert wrapped.truncated_inputs == 3 and not hasattr(wrapped, "sample")  # the rest is the translator's
    assert calls == [8, 16, 32, 44]  # small first, for an early ETA; then larger, for batching
    lines = stream.getvalue().splitlines()
    assert any("eval ckpt: winomt: " in line and "/100 sentence" in line and "ETA" in line for line in lines), lines


def test_limit_on_a_suite_samples_the_probes_that_take_one_and_refuses_a_suite_without_any(tmp_path):
    from mtdebias.evaluation.runner import single_suite, with_limit
    from mtdebias.evaluation.suite import load_suite

    data = _winomt(tmp_path / "en.txt")
    (tmp_path / "suite.toml").write_text(f'[[probe]]\ntype = "winomt"\nlang = "de"\ndata = "{data}"\n\n'
                                         '[[probe]]\ntype = "quality"\nsrc = "a.en"\nref = "a.de"\n')
    limited = with_limit(load_suite(tmp_path / "suite.toml"), 8)
    assert [spec.options.get("limit") for spec in limited.probes] == [8, None]
    # a label of its own: it must not supersede the full result stored under "winomt"
    assert [spec.label for spec in limited.probes] == ["winomt-limit8", "quality"]
    assert single_suite("winomt", {"lang": "de", "data": str(data), "limit": 8}).probes[0].label == \
        "winomt-single-limit8"
    (tmp_path / "quality.toml").write_text('[[probe]]\ntype = "quality"\nsrc = "a.en"\nref = "a.de"\n')
    with pytest.raises(InputError, match="--limit 8: no probe of suite quality takes a limit"):
        with_limit(load_suite(tmp_path / "quality.toml"), 8)


def test_limit_on_a_probe_that_takes_none_is_refused_naming_the_flag(tmp_path, capsys):
    (tmp_path / "src.en").write_text("The dog.\n")
    rc = main(["eval", "--probe", "quality", "--src", str(tmp_path / "src.en"), "--ref", str(tmp_path / "src.en"),
               "--translations", str(tmp_path / "src.en"), "--limit", "3"])
    err = capsys.readouterr().err
    assert rc == 2 and "unknown option '--limit'" in err and "Traceback" not in err


def test_a_single_probe_on_an_llm_is_greedy_stored_reported_and_not_decoded_again(tiny_llm, tmp_path, monkeypatch,
                                                                                 capsys):
    from mtdebias.translators.hf_causal import HFCausalTranslator

    monkeypatch.chdir(tmp_path)
    (tmp_path / "src.en").write_text("".join(f"{s}\n" for s, _ in DE_PAIRS))
    # one reference the model does not say: a BLEU of exactly 100 can come out as 100.00000000000004,
    # which the stored-row check does not believe (so it is computed again; a separate issue)
    (tmp_path / "ref.de").write_text("".join(f"{t}\n" for _, t in DE_PAIRS[:-1]) + "Ich bin eine Lehrerin.\n")
    beams = []
    translate = HFCausalTranslator.translate

    def counted(self, sources, beam=5):
        beams.extend([beam] * len(sources))  # one per sentence decoded
        return translate(self, sources, beam=beam)

    monkeypatch.setattr(HFCausalTranslator, "translate", counted)
    argv = ["eval", f"hf-causal:{tiny_llm}", "--probe", "quality", "--lang", "de", "--src", "src.en",
            "--ref", "ref.de", "--translator-option", "device=cpu", "--json"]
    assert main(argv) == 0
    first = capsys.readouterr()
    greedy = [1] * len(DE_PAIRS)
    assert beams == greedy  # greedy: no beam asked for, and the target is a decoder-only LM
    assert "beam 1 (greedy" in first.err
    result = json.loads(first.out)
    assert 50 < result["metrics"]["bleu"]["value"] < 100  # it translates its training sentences

    store, (checkpoint,) = RunStore.for_translator(f"hf-causal:{tiny_llm}")
    rows = store.results(checkpoint)
    assert {row["label"] for row in rows} == {"quality-single"} and rows[0]["signature"] == result["signature"]

    assert main(argv + ["--attempts", "items.jsonl"]) == 0  # the same settings: read back, not decoded
    again = capsys.readouterr()
    assert beams == greedy and json.loads(again.out) == result and "not decoded again" in again.err
    assert len((tmp_path / "items.jsonl").read_text(encoding="utf-8").splitlines()) == len(DE_PAIRS)  # stored ones

    assert main(argv + ["--option", "beam=2"]) == 0  # a beam asked for is used, and is another result
    assert beams == greedy + [2] * len(DE_PAIRS) and "beam 2" in capsys.readouterr().err

    assert main(["report", str(store.dir), "--out", str(tmp_path / "report.html")]) == 0
    capsys.readouterr()
    assert "quality-single" in (tmp_path / "report.html").read_text(encoding="utf-8")
