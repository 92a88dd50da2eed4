"""Hard-debiasing (and INLP/LEACE) of a decoder-only LM's input embeddings, on the tiny Llama fixture
(tests/llm_fixture.py), whose input table is tied to its output projection as Gemma's and SmolLM2's are:
the table is untied, the output projection stays bit-identical, the chosen words' rows lose their
component along the direction, every other row is unchanged, and the copy loads and translates."""

from __future__ import annotations

import pytest
import torch

from mtdebias.debias.apply import debias_checkpoint, debias_model
from mtdebias.debias.untie import encoder_embedding, encoder_shares_weights
from mtdebias.errors import InputError
from mtdebias.signature import Signature
from mtdebias.train.causal import load_causal

# the fixture's vocabulary holds these as one token after a space (Ġdoctor), not alone (d·o·cto·r)
WORDS = ["doctor", "nurse", "teacher"]
PAIRS = [("Kuh", "Hund"), ("Katze", "Vogel"), ("cow", "dog"), ("cat", "horse")]


@pytest.mark.parametrize("method", ["hard", "inlp", "leace"])
def test_input_table_is_untied_and_neutralised_and_the_output_layer_is_bit_identical(tiny_llm, method):
    model, tokenizer = load_causal(tiny_llm)
    assert encoder_shares_weights(model)  # tied, as in Gemma and SmolLM2
    head_before = model.get_output_embeddings().weight.detach().clone()
    table_before = encoder_embedding(model).weight.detach().clone()
    report = debias_model(model, tokenizer, method, WORDS, pairs=PAIRS)

    assert report.untied and report.decoder_unchanged and not encoder_shares_weights(model)
    assert model.config.tie_word_embeddings is False
    assert torch.equal(model.get_output_embeddings().weight, head_before)
    ids = [tokenizer.convert_tokens_to_ids(f"\u0120{w}") for w in WORDS]
    assert sorted(r["id"] for r in report.tokens_changed) == sorted(ids)
    assert report.counts["single_token_words"] == 3 and report.counts["pairs_used"] == 4
    table = encoder_embedding(model).weight.detach()
    untouched = [i for i in range(table.shape[0]) if i not in ids]
    assert torch.equal(table[untouched], table_before[untouched])
    assert not torch.equal(table[ids], table_before[ids])
    if method == "hard":  # projection on the gender direction: from what it was to zero
        assert max(abs(r["relative_projection_before"]) for r in report.tokens_changed) > 1e-3
        assert report.max_abs_relative_projection_after < 1e-6
        assert report.direction["n_pairs"] == 4
    signature = Signature.parse(report.signature)
    assert signature.method == f"debias.{method}" and "table=decoder-only-input" in str(signature)


def test_a_debiased_copy_reloads_untied_and_translates(tiny_llm, tmp_path):
    from transformers import AutoModelForCausalLM

    from mtdebias.translators.hf_causal import HFCausalTranslator

    out = tmp_path / "debiased"
    report = debias_checkpoint(tiny_llm, out, "hard", WORDS, pairs=PAIRS)
    original = AutoModelForCausalLM.from_pretrained(tiny_llm)
    copy = AutoModelForCausalLM.from_pretrained(out)
    assert torch.equal(copy.get_output_embeddings().weight, original.get_output_embeddings().weight)
    assert not encoder_shares_weights(copy)
    ids = [r["id"] for r in report.tokens_changed]
    assert not torch.equal(copy.get_input_embeddings().weight[ids], original.get_input_embeddings().weight[ids])
    assert all(abs(r["relative_projection_after"]) < 1e-6 for r in report.tokens_changed)
    translator = HFCausalTranslator(out, tgt_lang="de", device="cpu")
    assert translator.translate(["The red dog sleeps."], beam=1) == ["Der rote Hund schläft."]
    with pytest.raises(InputError, match="depend on the prompt"):
        debias_checkpoint(tiny_llm, tmp_path / "dev", "hard", WORDS, pairs=PAIRS, dev_src=out / "config.json",
                          dev_ref=out / "config.json")
