"""Whatever text a translator or server returns is stored and read back identically (issue 40):
every JSON-lines store (results, attempts, the training log, samples, the response cache)
writes the characters a line reader or a terminal misreads (DEL, C1 controls, U+2028/U+2029,
lone surrogates) escaped, readers split at "\\n" alone, a cache line cut by a kill costs only
that reply, and `mtdebias translate` never lets a reply drive the terminal or break its lines."""

from __future__ import annotations

import io
import json
import re
import sys

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from mtdebias.store import atomic
from mtdebias.cli import main
from mtdebias.store.runs import RunStore
from mtdebias.translators.openai_api import OpenAITranslator
from mtdebias.uncertainty.entropy import Deduped, SampleCache
from openai_server import ScriptedServer, completion, send

# what a line reader, str.splitlines or a terminal takes for something else than text
TRICKY = "\x00\x07\x0b\x0c\x1b\x1c\x1d\x1e\x7f\x80\x85\x9b\x9f\u2028\u2029\ud800\udfff\ufeff\t\r\n\"\\"
TEXT = st.text(st.one_of(st.characters(), st.sampled_from(TRICKY)), max_size=40).filter(
    # a high surrogate then a low one is read back as the one character the pair encodes: JSON
    # cannot tell the two apart (and no decoded text holds such a pair)
    lambda text: not re.search("[\ud800-\udbff][\udc00-\udfff]", text))
BUDGETS = [pytest.param(30, id="quick"), pytest.param(500, id="many", marks=pytest.mark.slow)]


def _client(url, cache_dir, **options):
    return OpenAITranslator.from_spec(f"tiny@{url}", tgt_lang="de", backoff=0.01, cache_dir=cache_dir, timeout=5,
                                      retries=1, **options)


def _safe_bytes(path):
    """Whether the file holds none of the bytes a reader or terminal misreads (UTF-8 of DEL, C1,
    U+2028/9) and each line is one JSON value."""
    data = path.read_bytes()
    text = data.decode("utf-8")
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]", text), text
    return all(json.loads(line) is not None for line in text.split("\n")[:-1])


@pytest.mark.parametrize("budget", BUDGETS)
def test_any_text_round_trips_through_results_attempts_and_the_training_log(tmp_path_factory, budget):
    @settings(max_examples=budget, deadline=None, database=None, derandomize=budget < 100,
              suppress_health_check=list(HealthCheck))
    @given(TEXT, TEXT)
    def round_trip(text, key):
        store = RunStore(tmp_path_factory.mktemp("run") / "run")
        row = {"probe": "quality.v1", "signature": text, "metric": "bleu", "value": 20.0, "request": "r",
               "meta": {key: [text, {"nested": text}]}}
        store.add_results("step-0000001", [row])
        assert store.results("step-0000001") == [row]
        attempts = [{"source": text, "hypothesis": text + key}, {key: text}]
        store.write_attempts("step-0000001", "quality.v1", attempts)
        assert store.read_attempts("step-0000001", "quality.v1") == attempts
        logged = [{"step": 1, "note": text}, {"step": 2, key: text}]
        for entry in logged:
            store.log(entry)
        assert store.read_log() == logged
        store.truncate_log(1)  # a resume rewrites the log: the same text again
        assert store.read_log() == logged[:1]
        samples = SampleCache(store.dir / "samples.jsonl")  # the ambiguity probe's deduplicated samples
        samples.put(key, text, {"n": 2}, Deduped((text, key), (1, 1)))
        samples.save()
        assert SampleCache(store.dir / "samples.jsonl").get(key) == Deduped((text, key), (1, 1))
        for path in (store.results_file("step-0000001"), store.attempts_path("step-0000001", "quality.v1"),
                     store.dir / "log.jsonl", store.dir / "samples.jsonl"):
            assert _safe_bytes(path)

    round_trip()


@pytest.mark.parametrize("budget", BUDGETS)
def test_any_reply_round_trips_through_the_response_cache_and_hits_on_a_rerun(tmp_path_factory, budget):
    reply = {}

    def answer(handler, body):
        text = reply["text"]
        ascii_only = reply["ascii"] or re.search("[\ud800-\udfff]", text)  # UTF-8 cannot carry a lone surrogate
        send(handler, json.dumps({"model": "tiny", "choices": [{"message": {"content": text}}]},
                                 ensure_ascii=bool(ascii_only)).encode())

    with ScriptedServer(answer) as server:
        @settings(max_examples=budget, deadline=None, database=None, derandomize=budget < 100,
                  suppress_health_check=list(HealthCheck))
        @given(TEXT, st.booleans())
        def round_trip(text, ascii_only):
            assume(text.strip())
            reply.update(text=text, ascii=ascii_only)
            cache = tmp_path_factory.mktemp("cache")
            assert _client(server.url, cache).translate(["The dog sleeps."]) == [text.strip()]
            asked = server.requests
            again = _client(server.url, cache)
            assert again.translate(["The dog sleeps."]) == [text.strip()]
            assert server.requests == asked and again.usage["cached"] == 1  # from the cache, not sent again
            assert _safe_bytes(cache / "responses.jsonl")

        round_trip()


# --------------------------------------------------------------------------- the audit's cases


def test_a_del_in_a_stored_row_keeps_the_run_readable(tmp_path):
    """Case 1: one DEL from a translator made every later report and eval of the run exit 2."""
    store = RunStore(tmp_path / "run")
    rows = [{"probe": "quality.v1", "signature": "s", "metric": "bleu", "value": 20.0, "request": "r",
             "example": "Der Hund\x7f schläft.\u0085"}]
    store.add_results("step-0000001", rows)
    store.write_attempts("step-0000001", "quality.v1", [{"hypothesis": "a\x7fb\x9bc"}])
    assert b"\x7f" not in store.results_file("step-0000001").read_bytes()
    assert "schläft" in store.results_file("step-0000001").read_text()  # text stays readable, not \u-escaped
    assert store.results("step-0000001") == rows
    assert store.read_attempts("step-0000001", "quality.v1") == [{"hypothesis": "a\x7fb\x9bc"}]


def test_a_run_stored_before_the_fix_with_a_raw_del_still_reports(tmp_path, capsys):
    from test_report import make_run

    run = make_run(tmp_path / "runs", "base-seed1", shift=0.0)
    results = run / "eval" / "step-0000300" / "results.jsonl"
    lines = results.read_text().split("\n")
    lines[0] = lines[0].replace('"probe": "', '"note": "raw \x7f and \x85 and \u2028 in text", "probe": "', 1)
    assert "\x7f" in lines[0]
    results.write_text("\n".join(lines))
    assert main(["report", str(run), "--out", str(tmp_path / "report.html")]) == 0
    assert "control character" not in capsys.readouterr().err
    assert atomic.read_jsonl(results)[0]["note"] == "raw \x7f and \x85 and \u2028 in text"


def test_a_raw_control_character_between_json_values_is_still_refused_with_the_line(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_bytes(b'{"a": 1}\n{"a": "tab\x01"}\n')  # C0 inside a string: JSON's own rule refuses it
    from mtdebias.errors import InputError

    with pytest.raises(InputError, match=r"results.jsonl:2: not valid JSON: Invalid control character"):
        atomic.read_jsonl(path)


def test_a_reply_with_a_line_separator_is_a_cache_hit_on_a_rerun(tmp_path):
    """Case 2: splitlines() cut the cached line at U+2028, so the request was sent on every rerun."""
    with ScriptedServer(lambda handler, body: send(handler, completion("Erste\u2028Zweite\x85Dritte"))) as server:
        assert _client(server.url, tmp_path).translate(["The dog sleeps."]) == ["Erste\u2028Zweite\x85Dritte"]
        # a cache written before the fix holds the separators raw: it hits as well
        (tmp_path / "responses.jsonl").write_text(
            (tmp_path / "responses.jsonl").read_text().replace("\\u2028", "\u2028").replace("\\u0085", "\x85"))
        assert "\u2028" in (tmp_path / "responses.jsonl").read_text()
        rerun = _client(server.url, tmp_path)
        assert rerun.translate(["The dog sleeps."]) == ["Erste\u2028Zweite\x85Dritte"]
        assert server.requests == 1 and rerun.usage["cached"] == 1


def test_a_cache_line_cut_by_a_kill_costs_only_that_reply(tmp_path):
    """Case 3: the next reply was appended to the cut line, and lost with it."""
    def echo(handler, body):
        send(handler, completion(body["messages"][-1]["content"][-3:]))  # the source, which ends the prompt

    with ScriptedServer(echo) as server:
        first = _client(server.url, tmp_path)
        assert first.translate(["one", "two"]) == ["one", "two"]
        cache = tmp_path / "responses.jsonl"
        whole = cache.read_bytes()
        cache.write_bytes(whole + whole.split(b"\n")[0][:25])  # a third append, killed mid-line
        second = _client(server.url, tmp_path)
        with pytest.warns(UserWarning, match=r"responses.jsonl: its last line was cut short .* sent again"):
            assert second.translate(["one", "two", "six"]) == ["one", "two", "six"]
        assert second.usage["cached"] == 2 and server.requests == 3
        third = _client(server.url, tmp_path)  # each complete reply hits, the one after the cut too
        assert third.translate(["one", "two", "six"]) == ["one", "two", "six"]
        assert third.usage["cached"] == 3 and server.requests == 3
    lines = cache.read_bytes().split(b"\n")
    assert lines[2] == whole.split(b"\n")[0][:25] and lines[-1] == b""  # the cut line set apart, not deleted


def test_a_cache_line_still_being_appended_elsewhere_is_not_read(tmp_path):
    cache = tmp_path / "responses.jsonl"
    whole = atomic.json_line({"key": "k", "response": {"choices": [{"message": {"content": "x"}}]}})
    cache.write_text(whole.rstrip("\n"))  # another evaluator's append, its "\n" not written yet
    assert OpenAITranslator("tiny", "http://127.0.0.1:9/v1", tgt_lang="de", cache_dir=tmp_path)._cache == {}
    cache.write_text(whole + '{"key": 5}\n["no"]\n{"key": "j", "response": "not a completion"}\n')
    assert list(OpenAITranslator("tiny", "http://127.0.0.1:9/v1", tgt_lang="de", cache_dir=tmp_path)._cache) == ["k"]


def test_translate_writes_a_replys_control_characters_visibly_one_line_per_source(monkeypatch, capsys):
    """Case 7: NUL and ESC from a server reached the terminal through `mtdebias translate`."""
    reply = "Der \x1b[2J\x1b]0;owned\x07Hund\x00 schläft.\nA note.\u2028More\x85\ttab\x9b1m\ud800"

    def answer(handler, body):
        send(handler, json.dumps({"choices": [{"message": {"content": reply}}]}).encode())

    with ScriptedServer(answer) as server:
        monkeypatch.setattr(sys, "stdin", io.StringIO("The dog sleeps.\nThe cat runs.\n"))
        assert main(["translate", f"openai:tiny@{server.url}", "--tgt-lang", "de"]) == 0
    out = capsys.readouterr().out
    line = r"Der \x1b[2J\x1b]0;owned\x07Hund\x00 schläft. A note. More " + "\ttab" + r"\x9b1m\ud800"
    assert out == f"{line}\n{line}\n"


class _Odd:
    """A translator whose replies hold DEL, a C1 control and a line separator."""

    def translate(self, sources, beam=5):
        return [f"{s}\x7f\x85\u2028" for s in sources]

    def signature(self):
        return "odd"


def test_eval_twice_with_a_translator_replying_del_stores_and_reads_its_attempts(tmp_path):
    """Case 1 end to end: the first eval stored the reply raw, the second refused the run."""
    from mtdebias.probes.quality.probe import QualityProbe
    from mtdebias.evaluation.runner import EvalOutcome, evaluate_checkpoint
    from mtdebias.evaluation.suite import ProbeSpec

    sources = ["The dog sleeps.", "The cat runs."]
    store = RunStore(tmp_path / "run")
    checkpoint = store.checkpoint_path("step-0000001")
    checkpoint.mkdir(parents=True)
    probe = [(ProbeSpec("quality.v1"), QualityProbe(sources, sources, "de"))]
    for _ in range(2):  # the second finds the results stored, so reads them
        outcome = EvalOutcome()
        evaluate_checkpoint(checkpoint, probe, store, outcome, make_translator=lambda _: _Odd(), model="m")
        assert outcome.failed == {}
    assert outcome.skipped == ["step-0000001: quality"]
    [label] = store.attempt_labels(checkpoint)
    hypotheses = [a.get("hypothesis") for a in store.read_attempts(checkpoint, label)]
    assert hypotheses == [f"{s}\x7f\x85\u2028" for s in sources]
