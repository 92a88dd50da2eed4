"""The openai translator against a real OpenAI-compatible server started here on 127.0.0.1
(tests/openai_server.py: a tiny chat model behind /v1/chat/completions): translation, sampling,
scoring, retries, a server killed mid-run, a malformed response, and every probe through a suite."""

from __future__ import annotations

import json
import os

import pytest

from mtdebias.errors import MtdebiasError
from mtdebias.translators.hf_causal import HFCausalTranslator
from mtdebias.translators.openai_api import OpenAITranslator
from openai_server import TinyChatServer

SOURCES = ["The red dog sleeps.", "The old cow waits.", "The big horse sings.", "The small fish eats.",
           "The green mouse runs."]


def _client(url, **options):
    return OpenAITranslator.from_spec(f"tiny@{url}", tgt_lang="de", backoff=0.01, **options)


def test_translate_sample_and_score_agree_with_the_model_itself(tiny_llm, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-not-to-be-stored")
    local = HFCausalTranslator(tiny_llm, tgt_lang="de", device="cpu")
    with TinyChatServer(tiny_llm) as server:
        client = _client(server.url)
        assert client.translate(SOURCES[:2]) == local.translate(SOURCES[:2], beam=1)
        samples = client.sample(SOURCES[:1], n=4, temperature=1.0)
        assert len(samples[0]) == 4
        scored = client.score(SOURCES[:2], ["Der rote Hund schläft.", "Die alte Kuh wartet."])
        expected = local.score(SOURCES[:2], ["Der rote Hund schläft.", "Die alte Kuh wartet."])
        # the server scores the translation as the assistant's message; the local model adds the end of turn
        for got, want in zip(scored, expected):
            assert got.total == pytest.approx(want.total - want.tokens[-1], abs=1e-3)
        assert client.usage["requests"] == 2 + 1 + 4 and client.usage["prompt_tokens"] > 0  # score: 2 chats + 2 prefixes
    signature = client.signature()
    assert "sk-secret" not in signature and "sampling=openai-n-temperature" in signature


def test_429_then_200_is_retried_with_backoff(tiny_llm):
    with TinyChatServer(tiny_llm) as server:
        server.script = [429, 503]
        client = _client(server.url, concurrency=1)
        assert len(client.translate(SOURCES[:1])) == 1
        assert client.usage["retries"] == 2 and client.usage["requests"] == 1 and server.requests == 1


def test_sampling_from_a_server_that_ignores_n_asks_once_per_sample_with_its_own_seed(tiny_llm, tmp_path):
    with TinyChatServer(tiny_llm) as server:
        server.ignore_n = True  # llama.cpp's server answers n=4 with one choice
        client = _client(server.url, cache_dir=tmp_path)
        samples = client.sample(SOURCES[:2], n=4, temperature=1.0, seed=7)
        assert [len(s) for s in samples] == [4, 4]
        assert sorted(server.seeds) == [7, 7, 8, 8, 9, 9, 10, 10]  # each sample its own seed
        assert client.usage["requests"] == 8
        assert client.served_models == {"tiny"}
        # the same call again is answered from the cache, sample for sample
        again = _client(server.url, cache_dir=tmp_path).sample(SOURCES[:2], n=4, temperature=1.0, seed=7)
        assert again == samples and server.requests == 8


def test_malformed_response_is_a_clear_error_and_nothing_is_stored(tiny_llm, tmp_path):
    with TinyChatServer(tiny_llm) as server:
        server.malformed = True
        client = _client(server.url, cache_dir=tmp_path)
        with pytest.raises(MtdebiasError, match="malformed response .*nothing of it was stored"):
            client.translate(SOURCES[:1])
    assert not (tmp_path / "responses.jsonl").exists() or (tmp_path / "responses.jsonl").read_text() == ""


def test_a_server_killed_mid_run_resumes_from_the_cache_without_resending(tiny_llm, tmp_path):
    with TinyChatServer(tiny_llm) as server:
        server.die_after = 2
        client = _client(server.url, cache_dir=tmp_path, concurrency=1, retries=1)
        with pytest.raises(MtdebiasError, match="no answer after 2 tries"):
            client.translate(SOURCES)
    assert len((tmp_path / "responses.jsonl").read_text().splitlines()) == 2
    with TinyChatServer(tiny_llm) as fresh:
        client = _client(fresh.url, cache_dir=tmp_path, concurrency=1)
        first = client.translate(SOURCES)
        assert fresh.requests == 3 and client.usage["cached"] == 2  # the two answered before are not resent
        again = _client(fresh.url, cache_dir=tmp_path).translate(SOURCES)
        assert fresh.requests == 3 and again == first


def test_every_probe_runs_through_a_suite_on_the_server(tiny_llm, tmp_path, monkeypatch):
    from mtdebias.evaluation.runner import evaluate
    from mtdebias.signature import Signature
    from mtdebias.store.runs import RunStore
    from test_hf_causal import _probe_data

    monkeypatch.chdir(tmp_path)
    suite, overrides = _probe_data(tmp_path)
    with TinyChatServer(tiny_llm) as server:
        spec = f"openai:tiny@{server.url}"
        outcome = evaluate([spec], suite, {**overrides, "tgt_lang": "de"}, translator_options={"backoff": 0.01})
        assert outcome.failed == {} and len(outcome.scored) == 7, outcome.failed
        sent = server.requests
        assert evaluate([spec], suite, {**overrides, "tgt_lang": "de"}).scored == []  # all stored
        assert server.requests == sent
    store, (checkpoint,) = RunStore.for_translator(spec)
    rows = RunStore(tmp_path / store.dir).results(checkpoint)
    assert {r["label"] for r in rows} == {"winomt", "name_gender", "gest", "gest_pref", "wsd_bias", "ambiguity",
                                          "gest_choice"}
    assert all(Signature.parse(r["signature"]).model.startswith(f"openai:tiny@{server.url}:prompt-") for r in rows)
    assert all(r["meta"]["api_usage"]["requests"] + r["meta"]["api_usage"]["cached"] > 0 for r in rows)
    assert (tmp_path / store.dir / "responses" / "responses.jsonl").is_file()
    assert "sk-" not in json.dumps(rows)
