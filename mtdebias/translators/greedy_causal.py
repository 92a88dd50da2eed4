"""Greedy decoding of a decoder-only model in one loop that drops finished rows.

``model.generate`` keeps every row of a batch until the longest reply ends: in a batch of 64
translations whose replies run 10 to 31 tokens with one of 64, most steps compute rows that have
finished. Here a row leaves the batch, and the key/value cache, the step it emits a stop token,
and the output layer is asked only for its argmax (:class:`.screened_argmax.ScreenedArgmax` where
the model's output layer is a plain matrix). The tokens chosen are ``generate(do_sample=False)``'s
with no logits processor, which is how hf-causal configures it (``_own_generation_settings``).
"""

from __future__ import annotations

from typing import Callable, Sequence

import torch

from ..models.model import cache_argument
from .screened_argmax import ScreenedArgmax


def output_argmax(model, screened: bool) -> Callable[[torch.Tensor], torch.Tensor]:
    """The argmax of the model's output layer over final hidden states (rows × hidden).

    ``screened``: through :class:`ScreenedArgmax` when the layer is a bias-free matrix on the CPU
    and no final-logit soft-capping applies (a monotone cap leaves the argmax alone but may make
    two capped logits equal, and generate's argmax would see the tie); otherwise the layer itself.
    The screen's error bound assumes float32 accumulation, which CUDA's bfloat16 matrix products
    do not promise (and on a GPU the full layer is cheap)."""
    layer = model.get_output_embeddings()
    capped = getattr(model.config.get_text_config(), "final_logit_softcapping", None)
    if (screened and isinstance(layer, torch.nn.Linear) and layer.bias is None and not capped
            and layer.weight.device.type == "cpu"):
        return ScreenedArgmax(layer.weight.detach())

    def full(hidden: torch.Tensor) -> torch.Tensor:
        logits = layer(hidden)
        if capped:
            logits = torch.tanh(logits / capped) * capped
        return logits.float().argmax(dim=-1)
    return full


@torch.inference_mode()
def greedy_causal(model, input_ids: torch.Tensor, attention_mask: torch.Tensor, positions: torch.Tensor, *,
                  max_new_tokens: int, stop_ids: Sequence[int], argmax: Callable[[torch.Tensor], torch.Tensor],
                  cache=None) -> list[list[int]]:
    """The greedy continuation of each (left-padded) prompt, its stop token kept when it ends on one.

    ``cache``: the key/value cache of tokens that come before ``input_ids`` in every row (a shared
    prompt prefix), which ``attention_mask`` then covers; ``positions``: the positions of
    ``input_ids`` (real tokens counted, padding not)."""
    body = model.base_model
    key = cache_argument(body)
    rows = input_ids.shape[0]
    replies: list[list[int]] = [[] for _ in range(rows)]
    live = torch.arange(rows)  # the original row of each batch row
    stops = torch.tensor(sorted(set(stop_ids)), dtype=torch.long)
    mask = attention_mask
    extra = {key: cache} if cache is not None else {}
    out = body(input_ids=input_ids, attention_mask=mask, position_ids=positions, use_cache=True, **extra)
    cache, position = out[key], positions[:, -1:] + 1
    hidden = out.last_hidden_state[:, -1]
    for step in range(max_new_tokens):
        tokens = argmax(hidden).cpu()
        for row, token in zip(live.tolist(), tokens.tolist()):
            replies[row].append(token)
        going = ~torch.isin(tokens, stops)
        if step == max_new_tokens - 1 or not bool(going.any()):
            break
        if not bool(going.all()):
            kept = going.nonzero().squeeze(1)
            live, tokens = live[kept], tokens[kept]
            device_kept = kept.to(mask.device)
            mask, position = mask.index_select(0, device_kept), position.index_select(0, device_kept)
            cache.batch_select_indices(device_kept)
        mask = torch.cat([mask, mask.new_ones((mask.shape[0], 1))], dim=1)
        out = body(input_ids=tokens.unsqueeze(1).to(mask.device), attention_mask=mask, position_ids=position,
                   use_cache=True, **{key: cache})
        cache, position = out[key], position + 1
        hidden = out.last_hidden_state[:, -1]
    return replies
