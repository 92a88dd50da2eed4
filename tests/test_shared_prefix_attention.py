"""Attention over a shared prefix read once (mtdebias/translators/shared_prefix_attention.py)
must equal attention over the prefix copied into every row, with padding, causal prompts,
grouped key/value heads and one-token decoding steps; greedy output on real models is checked
in tests/test_greedy_causal.py."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch
from torch.nn import functional as F

from mtdebias.translators.shared_prefix_attention import shared_prefix_attention, use_shared_prefix_attention


def copied_prefix_attention(query, key, value, mask, prefix_key, prefix_value, scale):
    """The reference: the prefix in every row, one softmax, (rows, L, heads, d)."""
    rows, heads, length, _ = query.shape
    group = heads // key.shape[1]
    keys = torch.cat([prefix_key.expand(rows, -1, -1, -1), key], dim=2).repeat_interleave(group, dim=1)
    values = torch.cat([prefix_value.expand(rows, -1, -1, -1), value], dim=2).repeat_interleave(group, dim=1)
    own = mask if mask is not None else torch.ones(length, key.shape[2]).tril(key.shape[2] - length).bool()[None, None]
    full = torch.cat([torch.ones(rows, 1, length, prefix_key.shape[2], dtype=torch.bool),
                      own.expand(rows, 1, length, key.shape[2])], dim=3)
    return F.scaled_dot_product_attention(query, keys, values, attn_mask=full, scale=scale).transpose(1, 2)


@pytest.mark.parametrize("group", [1, 4])
@pytest.mark.parametrize("length,padded", [(1, False), (1, True), (5, True), (5, False)])
def test_the_prefix_attended_once_is_the_prefix_copied_into_every_row(group, length, padded):
    g = torch.Generator().manual_seed(group * 10 + length)
    rows, kv_heads, width, shared, own = 3, 2, 16, 7, 9 if length == 1 else 5
    query = torch.randn(rows, kv_heads * group, length, width, generator=g)
    key, value = (torch.randn(rows, kv_heads, own, width, generator=g) for _ in range(2))
    prefix_key, prefix_value = (torch.randn(1, kv_heads, shared, width, generator=g) for _ in range(2))
    mask = None
    if padded:  # row 1 starts with two padding tokens, causal after that
        mask = torch.ones(length, own).tril(own - length).bool()[None, None].repeat(rows, 1, 1, 1)
        mask[1, :, :, :2] = False
    module = SimpleNamespace(layer_idx=0, num_key_value_groups=group, is_causal=True)
    out, _ = shared_prefix_attention(module, query, key, value, mask, scaling=0.25,
                                     shared_prefix=[(prefix_key, prefix_value)])
    expected = copied_prefix_attention(query, key, value, mask, prefix_key, prefix_value, 0.25)
    assert out.shape == (rows, length, kv_heads * group, width)
    assert torch.allclose(out, expected, atol=1e-5), float((out - expected).abs().max())
    assert not out.isnan().any()


def test_a_query_whose_own_keys_are_all_padding_takes_the_prefix_alone():
    g = torch.Generator().manual_seed(0)
    query = torch.randn(1, 2, 3, 8, generator=g)
    key, value = (torch.randn(1, 2, 3, 8, generator=g) for _ in range(2))
    prefix_key, prefix_value = (torch.randn(1, 2, 4, 8, generator=g) for _ in range(2))
    mask = torch.tensor([[False, False, False], [False, True, False], [False, True, True]])[None, None]
    module = SimpleNamespace(layer_idx=0, num_key_value_groups=1, is_causal=True)
    out, _ = shared_prefix_attention(module, query, key, value, mask, scaling=None,
                                     shared_prefix=[(prefix_key, prefix_value)])
    alone = F.scaled_dot_product_attention(query[:, :, :1], prefix_key, prefix_value).transpose(1, 2)
    assert torch.allclose(out[:, :1], alone, atol=1e-6)


def test_only_a_cpu_sdpa_model_without_soft_capping_is_switched(tiny_llm):
    from mtdebias.translators.hf_causal import HFCausalTranslator

    model = HFCausalTranslator(tiny_llm, tgt_lang="de", device="cpu").model
    config = model.config.get_text_config()
    config.attn_logit_softcapping = 50.0
    assert not use_shared_prefix_attention(model) and model.config._attn_implementation == "sdpa"
    config.attn_logit_softcapping = None
    assert use_shared_prefix_attention(model) and model.config._attn_implementation == "mtdebias_shared_prefix"
    model.set_attn_implementation("eager")
    assert not use_shared_prefix_attention(model)
