"""Greedy decoding of a decoder-only model in one loop that drops finished rows.

``model.generate`` keeps every row of a batch until the longest reply ends: in a batch of 64
translations whose replies run 10 to 31 tokens with one of 64, most steps compute rows that have
finished. Here a row leaves the batch, and the key/value cache, once finished rows are an eighth
of the batch (:data:`DROP_SHARE`), and the output layer is asked only for its argmax
(:class:`.screened_argmax.ScreenedArgmax` where the model's output layer is a plain matrix). The
tokens chosen are ``generate(do_sample=False)``'s with no logits processor, which is how
hf-causal configures it (``_own_generation_settings``).

Where a :class:`.reserved_cache.ReservedCache` may hold the batch (``reserve``), the cache is
written in place rather than regrown every step, and the prompts are read in groups of similar
length (:func:`prompt_groups`) rather than all padded to the longest: in 200 WinoMT prompts after
Gemma 3's shared few-shot prefix, 3,472 real tokens padded to 5,400 in one call. A shared prompt
prefix is attended once for the batch (:mod:`.shared_prefix_attention`) rather than copied into
every row, where the model's attention allows it.
"""

from __future__ import annotations

from typing import Callable, Sequence

import torch

from ..models.model import cache_argument
from .hf import left_padded
from .reserved_cache import ReservedCache
from .screened_argmax import ScreenedArgmax
from .shared_prefix_attention import use_shared_prefix_attention

# A model call's fixed cost in prompt token rows: a call reads every weight once whatever its
# size. On Gemma 3 270M (2 CPU threads) a one-row decoding step costs what about 28 rows of a
# prompt cost in a 200-row call, so a group of prompts is split off when that saves more padding.
CALL_ROWS = 32
# Finished rows stay in the batch (their output unused) until they are this share of it: dropping
# copies every layer's cache once, keeping costs each finished row its share of every step.
DROP_SHARE = 1 / 8


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


def prompt_groups(lengths: Sequence[int], call_rows: int = CALL_ROWS) -> list[tuple[int, int]]:
    """Ranges ``(start, stop)`` of prompts sorted by ascending length, one model call each, that
    minimise the padded token rows read plus ``call_rows`` a call (dynamic programming over where
    the ranges end)."""
    if any(a > b for a, b in zip(lengths, lengths[1:])):
        raise ValueError("prompt lengths must be sorted ascending")
    best, cut = [0] + [0] * len(lengths), [0] * (len(lengths) + 1)
    for stop in range(1, len(lengths) + 1):
        best[stop], cut[stop] = min((best[start] + (stop - start) * lengths[stop - 1] + call_rows, start)
                                    for start in range(stop))
    ranges, stop = [], len(lengths)
    while stop:
        ranges.append((cut[stop], stop))
        stop = cut[stop]
    return ranges[::-1]


@torch.inference_mode()
def greedy_causal(model, rows: Sequence[Sequence[int]], *, pad_id: int, max_new_tokens: int,
                  stop_ids: Sequence[int], argmax: Callable[[torch.Tensor], torch.Tensor], prefix=None,
                  reserve: bool = True) -> list[list[int]]:
    """The greedy continuation of each prompt in ``rows``, its stop token kept when it ends on one.

    ``prefix``: the batch-1 key/value cache of tokens that come before every row (a shared prompt
    prefix; ``rows`` then hold what follows it), attended once for the batch where the model
    runs :mod:`.shared_prefix_attention` and copied into every row otherwise. ``reserve``: decode
    in a :class:`ReservedCache` (the caller checks :func:`.reserved_cache.reservable`);
    otherwise in the model's own cache, with every prompt padded to the longest and no prefix."""
    if prefix is not None and not reserve:
        raise ValueError("a shared prefix needs a reserved cache")
    body, device = model.base_model, model.device
    key = cache_argument(body)
    order = sorted(range(len(rows)), key=lambda i: len(rows[i]))
    rows = [rows[i] for i in order]
    shared = prefix.get_seq_length() if prefix is not None else 0
    separate = prefix is not None and use_shared_prefix_attention(model)
    columns = 0 if separate else shared  # prefix columns in each row's cache and mask
    width = len(rows[-1])
    mask = torch.zeros((len(rows), columns + width + max_new_tokens), dtype=torch.long, device=device)
    position = torch.tensor([[shared + len(r)] for r in rows], device=device)  # each row's next position
    extra = {}
    if reserve:
        cache = ReservedCache(model, len(rows), mask.shape[1], prefix, separate_prefix=separate)
        extra = {"shared_prefix": cache.shared} if separate else {}
        hidden = []
        for start, stop in prompt_groups([len(r) for r in rows]):
            ids, group_mask, positions = left_padded(rows[start:stop], pad_id, device, columns=columns,
                                                     offset=shared - columns)
            mask[start:stop, :group_mask.shape[1]] = group_mask
            out = body(input_ids=ids, attention_mask=group_mask, position_ids=positions, use_cache=True,
                       **{key: cache.rows(start, stop)}, **extra)
            hidden.append(out.last_hidden_state[:, -1])
        cache.advance(width)
        hidden = torch.cat(hidden)
    else:
        ids, mask[:, :width], positions = left_padded(rows, pad_id, device)
        out = body(input_ids=ids, attention_mask=mask[:, :width], position_ids=positions, use_cache=True)
        cache, hidden = out[key], out.last_hidden_state[:, -1]
    filled = columns + width
    replies: list[list[int]] = [[] for _ in rows]
    live = torch.arange(len(rows))  # the sorted row of each batch row
    done = torch.zeros(len(rows), dtype=torch.bool)
    stops = torch.tensor(sorted(set(stop_ids)), dtype=torch.long)
    for step in range(max_new_tokens):
        going = (~done).nonzero().squeeze(1)
        tokens = torch.full((len(live),), stops[0])
        tokens[going] = argmax(hidden[going.to(device)] if len(going) < len(live) else hidden).cpu()
        for row, token in zip(live[going].tolist(), tokens[going].tolist()):
            replies[row].append(token)
        done |= torch.isin(tokens, stops)
        if step == max_new_tokens - 1 or bool(done.all()):
            break
        if int(done.sum()) >= DROP_SHARE * len(live):
            kept = (~done).nonzero().squeeze(1)
            live, tokens, done = live[kept], tokens[kept], done[kept]
            device_kept = kept.to(device)
            mask, position = mask.index_select(0, device_kept), position.index_select(0, device_kept)
            cache.batch_select_indices(device_kept)
        mask[:, filled] = 1
        filled += 1
        out = body(input_ids=tokens.unsqueeze(1).to(device), attention_mask=mask[:, :filled], position_ids=position,
                   use_cache=True, **{key: cache}, **extra)
        cache, position = out[key], position + 1
        hidden = out.last_hidden_state[:, -1]
    ordered: list[list[int]] = [[] for _ in rows]
    for sorted_row, row in enumerate(order):
        ordered[row] = replies[sorted_row]
    return ordered
