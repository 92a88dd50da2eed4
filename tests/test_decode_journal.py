"""A probe's decoded batches are kept in the run store while it runs (DecodeJournal), so an
evaluation killed mid-probe resumes at its last batch and gives the uninterrupted result."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mtdebias.store.runs import RunStore
from mtdebias.translators.base import Scored
from mtdebias.translators.progress import ProgressTranslator, chunks

SOURCES = [f"Sentence number {k}." for k in range(40)]  # chunks of 8, 16 and 16


class Killed(Exception):
    pass


class Counting:
    """Upper-cases sources, scores by length; counts the sources each call decodes, and raises
    :class:`Killed` at call ``die_at`` (1-based), as a kill would stop the probe there."""

    def __init__(self, die_at: int | None = None):
        self.calls: list[int] = []
        self.die_at = die_at
        self.truncated_inputs = 0

    def _count(self, n: int) -> None:
        self.calls.append(n)
        if len(self.calls) == self.die_at:
            raise Killed

    def translate(self, sources, beam=5):
        self._count(len(sources))
        self.truncated_inputs += sum(len(s) > 18 for s in sources)  # as a model cuts long inputs
        return [s.upper() for s in sources]

    def score(self, sources, targets):
        self._count(len(sources))
        return [Scored(-len(t) / 3, (-math.inf, -len(s) / 7), ("a", "é")) for s, t in zip(sources, targets)]

    def respond(self, prompts, max_new_tokens=16):
        self._count(len(prompts))
        return [f"(a) {p}" for p in prompts]

    def signature(self):
        return "counting"


def journal(tmp_path: Path, request: str = "request-1"):
    return RunStore(tmp_path / "run").decode_journal("translator", request)


def test_a_killed_decoding_resumes_at_its_last_batch_with_the_same_outputs(tmp_path):
    reference = Counting()
    full = ProgressTranslator(reference, "eval").translate(SOURCES, beam=1)
    dying = Counting(die_at=3)
    with pytest.raises(Killed):
        ProgressTranslator(dying, "eval", journal(tmp_path)).translate(SOURCES, beam=1)
    assert len(journal(tmp_path)) == 2  # the two batches decoded before the kill were kept
    again = Counting()
    wrapped = ProgressTranslator(again, "eval", journal(tmp_path))
    assert wrapped.translate(SOURCES, beam=1) == full
    assert again.calls == [16]  # only the batch the kill interrupted is decoded again
    # the replayed batches' cut inputs still count in the probe's meta: 14 of the stored 24 ("… 10." on)
    assert again.truncated_inputs == 16 and wrapped.truncated_inputs == reference.truncated_inputs == 30
    # another call (other options) is another batch, never a stored one
    other = Counting()
    ProgressTranslator(other, "eval", journal(tmp_path)).translate(SOURCES, beam=2)
    assert other.calls == [end - start for start, end in chunks(40)]


def test_scores_and_answers_replay_exactly(tmp_path):
    targets = [s[::-1] for s in SOURCES]
    first = Counting()
    scored = ProgressTranslator(first, "eval", journal(tmp_path)).score(SOURCES, targets)
    answers = ProgressTranslator(first, "eval", journal(tmp_path)).respond(SOURCES[:5], max_new_tokens=4)
    replay = Counting()
    wrapped = ProgressTranslator(replay, "eval", journal(tmp_path))
    assert wrapped.score(SOURCES, targets=targets) == scored  # floats (−inf too) and pieces round-trip
    assert wrapped.respond(SOURCES[:5], max_new_tokens=4) == answers
    assert replay.calls == []
    assert first.calls == [8, 16, 16, 5]  # score is chunked with its targets, like translate


def test_the_journal_is_per_request_and_dropped(tmp_path):
    ProgressTranslator(Counting(), "eval", journal(tmp_path)).translate(SOURCES)
    assert len(journal(tmp_path)) == 3 and len(journal(tmp_path, "request-2")) == 0
    journal(tmp_path).drop()
    assert len(journal(tmp_path)) == 0
    assert not list((tmp_path / "run").rglob("*.json"))


def test_a_damaged_batch_is_decoded_again(tmp_path):
    ProgressTranslator(Counting(), "eval", journal(tmp_path)).translate(SOURCES)
    damaged = sorted((tmp_path / "run").rglob("*.json"))[0]
    damaged.write_text('{"record": ', encoding="utf-8")  # as an editor or a disk might leave it
    again = Counting()
    assert ProgressTranslator(again, "eval", journal(tmp_path)).translate(SOURCES) == [s.upper() for s in SOURCES]
    assert len(again.calls) == 1


def test_a_translator_without_respond_still_lacks_it():
    class Plain:
        def translate(self, sources, beam=5):
            return list(sources)

    assert getattr(ProgressTranslator(Plain(), "eval"), "respond", None) is None


def _eval(folder: Path, tiny_llm: Path, calls: Path, kill_at: int | None) -> subprocess.CompletedProcess:
    suite = folder.parent / "suite.toml"
    suite.write_text('[suite]\nname = "resume"\n\n[[probe]]\ntype = "winomt.v1"\nlabel = "winomt_de"\nlang = "de"\n'
                     'data = "{shipped}/templates/winomt_synth_en.txt"\npro = ""\nanti = ""\nbeam = 1\nlimit = 40\n'
                     'resamples = 40\n', encoding="utf-8")
    folder.mkdir(exist_ok=True)
    env = {**os.environ, "MTDEBIAS_TEST_CALLS": str(calls), "MTDEBIAS_TEST_KILL_AT": str(kill_at or ""),
           "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    return subprocess.run([sys.executable, str(Path(__file__).with_name("kill_mid_probe.py")), "eval",
                           f"hf-causal:{tiny_llm}", "--suite", str(suite), "--translator-option", "device=cpu",
                           "--translator-option", "max_new_tokens=16"],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=600)


def _stored(folder: Path, tiny_llm: Path) -> tuple[list[str], str]:
    """The stored result rows (as JSON text: an undefined metric's NaN equals itself there) and attempts."""
    relative, (checkpoint,) = RunStore.for_translator(f"hf-causal:{tiny_llm}")  # under the eval's folder
    store, checkpoint = RunStore(folder / relative.dir), folder / checkpoint
    rows = [json.dumps({k: row[k] for k in ("signature", "metric", "value", "ci", "n", "request")}, sort_keys=True)
            for row in store.results(checkpoint)]
    return sorted(rows), store.attempts_path(checkpoint, "winomt_de").read_text(encoding="utf-8")


def test_an_eval_killed_mid_probe_resumes_and_stores_the_uninterrupted_result(tiny_llm, tmp_path):
    ref = _eval(tmp_path / "ref", tiny_llm, tmp_path / "ref.calls", None)
    assert ref.returncode == 0, ref.stderr[-2000:]
    cut = _eval(tmp_path / "cut", tiny_llm, tmp_path / "cut.calls", 3)
    assert cut.returncode == -9  # SIGKILL in the third batch: no result stored, two batches kept
    assert (tmp_path / "cut.calls").read_text().split() == ["8", "16", "16"]
    resumed = _eval(tmp_path / "cut", tiny_llm, tmp_path / "resumed.calls", None)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert "resuming: 2 batch(es)" in resumed.stderr
    assert (tmp_path / "resumed.calls").read_text().split() == ["16"]  # only the killed batch again
    assert _stored(tmp_path / "cut", tiny_llm) == _stored(tmp_path / "ref", tiny_llm)
    assert not list((tmp_path / "cut").rglob(".decoded/*/*.json"))  # dropped once the result was stored
