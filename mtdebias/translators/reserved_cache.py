"""A key/value cache whose rows have room reserved for the whole reply, for batched greedy decoding.

transformers' ``DynamicCache`` grows every layer by concatenation, so each decoding step copies
all keys and values cached so far: about a quarter of a 200-row Gemma 3 step on a CPU. Here each
layer's keys and values live in one buffer sized for the prompt and the longest reply allowed; a
step writes its column in place and the attention reads a view of the filled columns.

The buffer also lets a batch read its prompts in groups of similar length
(:func:`.greedy_causal.greedy_causal`): :meth:`ReservedCache.rows` is a cache over a range of
rows that writes into the same buffers, so every group's keys land in the batch's cache without
a copy. A row's layout is then ``[shared prefix][its group's padding and prompt][padding up to the
batch's longest group][reply]``, the prefix left out where it is kept once for the batch
(``separate_prefix``); the attention mask hides both paddings and position ids count
real tokens only, so no real token moves. That holds while no row reaches a sliding-window
layer's window, where padding counts as window slots: callers reserve no more than the window
(:func:`reservable`).
"""

from __future__ import annotations

import torch
from transformers.cache_utils import Cache, CacheLayerMixin


class ReservedLayer(CacheLayerMixin):
    """One layer's keys and values, (rows, heads, reserved tokens, head size), filled to ``length``."""

    def __init__(self, keys: torch.Tensor, values: torch.Tensor, length: int, sliding: bool):
        super().__init__()
        self.keys, self.values, self.length = keys, values, length
        self.is_sliding = sliding  # the mask builders pick a layer of each kind by this flag
        self.is_initialized = True

    def lazy_initialization(self, key_states: torch.Tensor, value_states: torch.Tensor) -> None:
        raise AssertionError("a reserved layer is created filled")

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args, **kwargs):
        end = self.length + key_states.shape[-2]
        if end > self.keys.shape[-2]:
            raise ValueError(f"{end} tokens in a cache with room for {self.keys.shape[-2]}")
        self.keys[:, :, self.length:end] = key_states
        self.values[:, :, self.length:end] = value_states
        self.length = end
        return self.keys[:, :, :end], self.values[:, :, :end]

    def get_mask_sizes(self, query_length: int) -> tuple[int, int]:
        return self.length + query_length, 0

    def get_seq_length(self) -> int:
        return self.length

    def get_max_length(self) -> int:
        return self.keys.shape[-2]

    def batch_select_indices(self, indices: torch.Tensor) -> None:
        """Keep the rows ``indices``, copying only the filled columns."""
        for name in ("keys", "values"):
            old = getattr(self, name)
            new = old.new_empty((len(indices),) + tuple(old.shape[1:]))
            new[:, :, :self.length] = old[:, :, :self.length].index_select(0, indices)
            setattr(self, name, new)


class ReservedCache(Cache):
    """A model's cache for ``rows`` rows of up to ``room`` tokens after ``prefix`` (a batch-1
    cache of the model, or None). The prefix is copied into every row, or with
    ``separate_prefix`` kept once in :attr:`shared` (per layer, its keys and values) for
    :mod:`.shared_prefix_attention`, and the rows hold what follows it."""

    def __init__(self, model, rows: int, room: int, prefix: Cache | None = None, separate_prefix: bool = False):
        heads, head_dim = key_value_heads(model)
        parameter = next(model.parameters())
        shared = prefix.get_seq_length() if prefix is not None and not separate_prefix else 0
        self.shared = ([(layer.keys, layer.values) for layer in prefix.layers]
                       if prefix is not None and separate_prefix else None)
        layers = []
        for index, kind in enumerate(layer_kinds(model)):
            # zeros: padding columns are read (and masked); garbage there could be NaN, and 0·NaN is NaN
            keys, values = (torch.zeros(rows, heads, room, head_dim, dtype=parameter.dtype, device=parameter.device)
                            for _ in range(2))
            if shared:
                keys[:, :, :shared] = prefix.layers[index].keys
                values[:, :, :shared] = prefix.layers[index].values
            layers.append(ReservedLayer(keys, values, shared, kind == "sliding_attention"))
        super().__init__(layers=layers)

    def rows(self, start: int, stop: int) -> Cache:
        """A cache over rows ``start:stop`` at this cache's length, writing into its buffers."""
        return Cache(layers=[ReservedLayer(layer.keys[start:stop], layer.values[start:stop], layer.length,
                                           layer.is_sliding) for layer in self.layers])

    def advance(self, tokens: int) -> None:
        """Count ``tokens`` more columns as filled (written through :meth:`rows` views)."""
        for layer in self.layers:
            layer.length += tokens


LAYER_KINDS = ("full_attention", "sliding_attention")  # what a ReservedLayer stands in for


def key_value_heads(model) -> tuple[int, int]:
    """(key/value heads, head size) of a decoder-only model's attention layers."""
    config = model.config.get_text_config()
    heads = config.num_attention_heads
    kv_heads = getattr(config, "num_key_value_heads", None) or heads
    return kv_heads, getattr(config, "head_dim", None) or config.hidden_size // heads


def layer_kinds(model) -> list[str]:
    """Each layer's kind (``layer_types``; a model without them has full attention throughout)."""
    config = model.config.get_text_config()
    return list(getattr(config, "layer_types", None) or [LAYER_KINDS[0]] * config.num_hidden_layers)


def within_window(model, tokens: int) -> bool:
    """Whether rows of ``tokens`` cache slots stay inside every sliding-window layer's window, so
    that where a row's padding sits changes nothing a layer sees."""
    window = getattr(model.config.get_text_config(), "sliding_window", None)
    return not window or tokens < window - 1


def reservable(model, tokens: int) -> bool:
    """Whether rows of ``tokens`` cache slots may use a :class:`ReservedCache`: every layer is an
    attention layer of a kind above, and every row stays inside every window, since a reserved
    row holds padding in its middle."""
    return set(layer_kinds(model)) <= set(LAYER_KINDS) and within_window(model, tokens)
