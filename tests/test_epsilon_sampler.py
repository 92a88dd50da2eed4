"""The ε-sampler (:mod:`mtdebias.translators.epsilon_sampler`) against ``generate()`` on a
really trained tiny model: same distribution, the ε cut holds, per-source reproducibility."""

from __future__ import annotations

from collections import Counter

import pytest
import torch
from scipy.stats import chi2_contingency

from mtdebias.translators.base import source_seed
from mtdebias.translators.epsilon_sampler import constraints_for, epsilon_sample
from mtdebias.translators.hf import HFTranslator

SOURCES = ["The red dog sleeps.", "The old cow waits.", "The small bird sings."]


@pytest.fixture(scope="module")
def translator(tiny_checkpoint):
    return HFTranslator(tiny_checkpoint)


def _token_table(translator, samples_a, samples_b, min_count=5):
    """A 2 × k table of piece counts (rare pieces pooled) for a chi-square test of homogeneity."""
    def pieces(samples):
        counts = Counter()
        for per_source in samples:
            for text in per_source:
                counts.update(translator.tokenizer.tokenize(text) + ["</s>"])
        return counts

    a, b = pieces(samples_a), pieces(samples_b)
    common = sorted(t for t in set(a) | set(b) if a[t] + b[t] >= min_count)
    rare_a = sum(v for t, v in a.items() if t not in common)
    rare_b = sum(v for t, v in b.items() if t not in common)
    rare = [[rare_a], [rare_b]] if rare_a + rare_b else [[], []]
    return [[a[t] for t in common] + rare[0], [b[t] for t in common] + rare[1]]


def test_new_sampler_draws_from_the_same_distribution_as_generate(translator):
    """Token frequencies of 300 samples per source from each sampler: homogeneity is not rejected
    (p > 0.001), while the same test does reject a sampler at another temperature."""
    new = translator.sample(SOURCES, n=300, epsilon=0.02, seed=11)
    old = translator.sample_with_generate(SOURCES, n=300, epsilon=0.02, seed=12)
    _, p_same, _, _ = chi2_contingency(_token_table(translator, new, old))
    assert p_same > 1e-3
    hotter = translator.sample(SOURCES, n=300, epsilon=0.02, temperature=2.0, seed=13)
    _, p_hot, _, _ = chi2_contingency(_token_table(translator, new, hotter))
    assert p_hot < 1e-6  # the test has the power to see a real difference


def test_no_sampled_token_is_below_epsilon(translator):
    """Teacher-force every sampled id sequence: each token had p ≥ ε or was the argmax."""
    epsilon = 0.05
    enc = translator._encode(SOURCES)
    drawn = epsilon_sample(translator.model, enc["input_ids"], enc["attention_mask"], [1, 2, 3], n=64,
                           epsilon=epsilon, temperature=1.0, max_new_tokens=translator.max_new_tokens,
                           constraints=constraints_for(translator.model))
    model, eos, start = translator.model, translator.model.config.eos_token_id, translator.model.config.decoder_start_token_id
    checked = 0
    for index, per_source in enumerate(drawn):
        for ids in per_source:
            target = torch.tensor([[start] + ids + [eos]])
            with torch.inference_mode():
                logits = model(input_ids=enc["input_ids"][index:index + 1],
                               attention_mask=enc["attention_mask"][index:index + 1],
                               decoder_input_ids=target[:, :-1]).logits[0]
            probs = torch.softmax(logits.float(), dim=-1)
            for position, token in enumerate(target[0, 1:].tolist()):
                assert probs[position, token] >= epsilon or token == int(probs[position].argmax())
                checked += 1
    assert checked > 500


def test_samples_of_a_source_do_not_depend_on_its_batch(translator):
    alone = [translator.sample([s], n=16, seed=4)[0] for s in SOURCES]
    together = translator.sample(SOURCES, n=16, seed=4)
    assert together == alone
    assert translator.sample(SOURCES[::-1], n=16, seed=4) == alone[::-1]
    assert source_seed(4, SOURCES[0]) != source_seed(5, SOURCES[0])


def test_unsupported_generation_settings_fall_back_to_generate(translator):
    translator.model.generation_config.repetition_penalty = 1.3
    try:
        assert translator.sampler_fallback_reasons == ["repetition_penalty"]
        samples = translator.sample(SOURCES[:1], n=8, seed=1)
        assert samples == translator.sample_with_generate(SOURCES[:1], n=8, seed=1)
    finally:
        translator.model.generation_config.repetition_penalty = None
    assert translator.sampler_fallback_reasons == []
