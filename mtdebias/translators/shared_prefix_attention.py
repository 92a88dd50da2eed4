"""Attention over a prompt prefix that every row of a batch shares, read once for the batch.

With prefix sharing (hf-causal's ``share_prefix``) every row of a greedy batch starts with the
same few-shot prefix, 70 tokens of Gemma 3's WinoMT prompts and 197 of SmolLM2's. Copied into
each row's key/value cache, it is read again for every row at every step: on SmolLM2 a third of
a decoding step is attention, most of it over the prefix. Here the prefix's keys and values are
kept once (:class:`.reserved_cache.ReservedCache` with ``separate_prefix``) and attention is
split in two, as softmax allows:

* every query of every row against the prefix, as one batch of queries over one set of keys (no
  mask: the prefix comes before every token of every row);
* each row's queries against its own keys, with the model's mask;

and the two outputs are merged by their log-sum-exps, ``o = (e^{l₁}·o₁ + e^{l₂}·o₂) / (e^{l₁} + e^{l₂})``.
This is the same attention in another order of float32 sums (the same kind of difference a
batch of another composition makes), so it keeps the route's signature; greedy output is
checked against ``generate()`` in tests/test_greedy_causal.py.

The model runs it as a transformers attention function, :data:`NAME`, which is ``sdpa`` itself
unless a call passes the prefix (``shared_prefix``: per layer, its keys and values).
"""

from __future__ import annotations

import torch
from transformers import AttentionInterface
from transformers.integrations.sdpa_attention import sdpa_attention_forward
from transformers.masking_utils import AttentionMaskInterface, sdpa_mask

NAME = "mtdebias_shared_prefix"


def _attention(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, mask, scale):
    """Attention and its log-sum-exp per query: query (rows, heads, L, d) against key and value
    (rows, heads, T, d) with the same heads; a query that may see no key has output 0 and
    log-sum-exp −inf (the kernel writes 0 for both)."""
    blank = None
    if mask is not None:
        if mask.dtype != torch.bool:
            mask = mask > float("-inf")
        blank = ~mask.any(dim=-1)
        # the kernel takes an additive mask of the query's type
        mask = torch.zeros(mask.shape, dtype=query.dtype, device=query.device).masked_fill_(~mask, float("-inf"))
    out, lse = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(
        query, key, value, 0.0, False, attn_mask=mask, scale=scale)[:2]
    if blank is not None and bool(blank.any()):
        lse = lse.masked_fill(blank.expand(lse.shape), float("-inf"))
    return out, lse


def _causal(length: int, keys: int, device) -> torch.Tensor:
    """The causal mask of the last ``length`` of ``keys`` positions, (1, 1, length, keys)."""
    return (torch.arange(length, device=device)[:, None] + (keys - length)
            >= torch.arange(keys, device=device)[None, :]).view(1, 1, length, keys)


def shared_prefix_attention(module, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, attention_mask,
                            dropout: float = 0.0, scaling: float | None = None, shared_prefix=None, **kwargs):
    """A transformers attention function: ``sdpa`` without ``shared_prefix``; with it, the layer's
    prefix keys and values (1, kv heads, P, d) attended once for the batch and merged with the
    rows' own attention. Returns (rows, L, heads, d) as ``sdpa`` does."""
    if shared_prefix is None:
        return sdpa_attention_forward(module, query, key, value, attention_mask, dropout=dropout, scaling=scaling,
                                      **kwargs)
    prefix_key, prefix_value = shared_prefix[module.layer_idx]
    rows, heads, length, width = query.shape
    kv_heads = key.shape[1]
    group = heads // kv_heads
    # every query of the batch against the prefix: the rows become query positions of one row
    grouped = query.reshape(rows, kv_heads, group * length, width)
    as_one = grouped.transpose(0, 1).reshape(1, kv_heads, rows * group * length, width)
    shared_out, shared_lse = _attention(as_one, prefix_key, prefix_value, None, scaling)
    shared_out = shared_out.reshape(kv_heads, rows, group * length, width).transpose(0, 1)
    shared_lse = shared_lse.reshape(kv_heads, rows, group * length).transpose(0, 1)
    # each row against its own keys: the query heads of a key head become its query positions
    mask = attention_mask
    if mask is None and length > 1:  # sdpa left it out for is_causal: the same pattern, explicit
        mask = _causal(length, key.shape[2], query.device)
    if mask is not None and mask.shape[1] != 1:
        raise ValueError(f"an attention mask per head ({tuple(mask.shape)}) is not supported")
    if mask is not None and length > 1:
        mask = mask.repeat(1, 1, group, 1)  # query position r·L + l is query head r's position l
    own_out, own_lse = _attention(grouped, key, value, mask, scaling)
    # a query whose own keys are all padding has weight 0 there: it takes the prefix alone
    top = torch.maximum(shared_lse, own_lse)
    shared_weight, own_weight = torch.exp(shared_lse - top), torch.exp(own_lse - top)
    merged = (shared_weight.unsqueeze(-1) * shared_out + own_weight.unsqueeze(-1) * own_out) \
        / (shared_weight + own_weight).unsqueeze(-1)
    merged = merged.reshape(rows, heads, length, width)
    return merged.transpose(1, 2).contiguous(), None


def use_shared_prefix_attention(model) -> bool:
    """Run ``model`` (on ``sdpa``, on the CPU) through :func:`shared_prefix_attention`, which is
    ``sdpa`` unless a call passes ``shared_prefix``; False, and nothing changed, for another
    attention, another device or soft-capped attention logits (Gemma 2), which ``sdpa`` refuses."""
    config = model.config
    if model.device.type != "cpu" or getattr(config.get_text_config(), "attn_logit_softcapping", None):
        return False
    if config._attn_implementation == NAME:
        return True
    if config._attn_implementation != "sdpa":
        return False
    AttentionInterface.register(NAME, shared_prefix_attention)
    AttentionMaskInterface.register(NAME, sdpa_mask)
    model.set_attn_implementation(NAME)
    return True
