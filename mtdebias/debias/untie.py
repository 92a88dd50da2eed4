"""Give the encoder its own input-embedding matrix, so debiasing it leaves the decoder alone.

Marian checkpoints usually share one matrix between the encoder input, the decoder input and
the output projection (``share_encoder_decoder_embeddings`` and ``tie_word_embeddings`` in the
config; transformers 5 ties ``model.encoder.embed_tokens.weight``,
``model.decoder.embed_tokens.weight`` and ``lm_head.weight`` to ``model.shared.weight`` through
``_tied_weights_keys``). Editing that matrix in place would change what the decoder reads and
writes. Untying copies the matrix for the encoder and rewrites the config so the checkpoint
saves and re-loads untied with ``from_pretrained``:

* Marian: ``share_encoder_decoder_embeddings = False``. The model then has separate encoder and
  decoder tables (``decoder_vocab_size`` = ``vocab_size``), and ``lm_head`` stays tied to the
  decoder table, exactly as before. ``model.shared`` is dropped: an untied Marian has none.
* other encoder-decoders with one ``shared`` table (M2M100, BART-like): the tying of the
  encoder is fixed in the class, so ``tie_word_embeddings = False`` unties all; ``shared``
  (which ``get_input_embeddings`` returns, but the forward pass does not use) becomes a mirror
  copy of the encoder table (:func:`encoder_tables` lists both, so edits go to both), and the
  decoder table and output projection become separate, bit-identical copies of the old matrix.
  Every table is its own tensor: ``save_pretrained`` keeps one of two aliased tensors only.

A decoder-only LM (Llama, Gemma, SmolLM2…) has one input table, read for the prompt and the
reply alike, which Gemma and SmolLM2 tie to the output projection (``tie_word_embeddings``).
Here "the encoder's table" is that input table: untying gives it a copy of its own and sets
``tie_word_embeddings = False``, so the output projection keeps the original tensor, bit-identical.

Untying creates a new parameter: an optimizer built before it does not update the encoder
table. Trainers untie first (``EncoderDebiaser.prepare``) and build the optimizer after.
"""

from __future__ import annotations

import copy
from typing import Any

import torch
from torch import nn

from ..errors import InputError


def is_decoder_only(model: Any) -> bool:
    return not getattr(model.config, "is_encoder_decoder", False)


def encoder_embedding(model: Any) -> nn.Embedding:
    """The table debiasing rewrites: the encoder's input table, or a decoder-only LM's one input table."""
    if is_decoder_only(model):
        embedding = model.get_input_embeddings()
        if not isinstance(embedding, nn.Embedding):
            raise InputError(f"{type(model).__name__}: no token embedding table", hint="a transformers LM has one")
        return embedding
    encoder = model.get_encoder()
    embedding = getattr(encoder, "embed_tokens", None)
    if not isinstance(embedding, nn.Embedding):
        raise InputError(f"{type(model).__name__}: the encoder has no token embedding table "
                         "(embed_tokens)", hint="only encoder-decoder translation models are supported")
    return embedding


def _same_storage(a: torch.Tensor, b: torch.Tensor | None) -> bool:
    return b is not None and a.data_ptr() == b.data_ptr()


def _decoder_side(model: Any) -> dict[str, torch.Tensor]:
    if is_decoder_only(model):  # what the LM writes with: its output projection
        head = model.get_output_embeddings()
        return {} if head is None else {"output projection (lm_head)": head.weight}
    inner = getattr(model, "model", model)
    decoder = inner.get_decoder() if hasattr(inner, "get_decoder") else inner.decoder
    side = {"decoder.embed_tokens": decoder.embed_tokens.weight}
    head = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    if head is not None:
        side["output projection (lm_head)"] = head.weight
    return side


def encoder_shares_weights(model: Any) -> list[str]:
    """Which decoder-side matrices (decoder input table, output projection) are the encoder's."""
    weight = encoder_embedding(model).weight
    return [name for name, other in _decoder_side(model).items() if _same_storage(weight, other)]


def decoder_side_weights(model: Any) -> dict[str, torch.Tensor]:
    """Detached copies of the decoder input table and output projection (for identity checks)."""
    return {name: tensor.detach().clone() for name, tensor in _decoder_side(model).items()}


def _fresh_copy(embedding: nn.Embedding) -> nn.Embedding:
    weight = embedding.weight
    embedding.weight = None  # deepcopy the module (keeps e.g. M2M100's embed_scale) without the matrix
    try:
        clone = copy.deepcopy(embedding)
    finally:
        embedding.weight = weight
    clone.weight = nn.Parameter(weight.detach().clone(), requires_grad=weight.requires_grad)
    return clone


def untie_encoder_embeddings(model: Any) -> bool:
    """Give the encoder a private copy of its embedding matrix; False when it already has one."""
    if not encoder_shares_weights(model):
        return False
    if is_decoder_only(model):
        return _untie_input_embeddings(model)
    base = model.get_encoder()
    inner = getattr(model, "model", model)
    old = encoder_embedding(model)
    new = _fresh_copy(old)
    base.embed_tokens = new
    config = model.config
    if getattr(config, "model_type", "") == "marian":
        config.share_encoder_decoder_embeddings = False
        config.decoder_vocab_size = config.vocab_size
        if hasattr(inner, "shared"):
            del inner.shared
        inner._tied_weights_keys = None
        model._tied_weights_keys = ({"lm_head.weight": "model.decoder.embed_tokens.weight"}
                                    if getattr(config, "tie_word_embeddings", True) else None)
    else:
        config.tie_word_embeddings = False
        if hasattr(inner, "shared"):
            # ``shared`` is what get_input_embeddings returns; it must be its own tensor, or
            # save_pretrained stores only one of two aliases and the other is lost on load.
            inner.shared = _fresh_copy(new)
        decoder = inner.get_decoder() if hasattr(inner, "get_decoder") else inner.decoder
        decoder.embed_tokens = _fresh_copy(decoder.embed_tokens)
        head = model.get_output_embeddings()
        if head is not None and _same_storage(head.weight, old.weight):
            head.weight = nn.Parameter(old.weight.detach().clone(), requires_grad=old.weight.requires_grad)
    return _untied(model, "encoder")


def _untie_input_embeddings(model: Any) -> bool:
    """A decoder-only LM: the input table gets a copy; the output projection keeps its tensor."""
    model.set_input_embeddings(_fresh_copy(model.get_input_embeddings()))
    model.config.tie_word_embeddings = False  # saved so: from_pretrained loads both tables
    return _untied(model, "input")


def _untied(model: Any, which: str) -> bool:
    """After an untie: transformers' record of tied weights made anew, and the untie checked."""
    if hasattr(model, "get_expanded_tied_weights_keys"):
        model.all_tied_weights_keys = model.get_expanded_tied_weights_keys(all_submodels=True)
    if encoder_shares_weights(model):
        raise RuntimeError(f"could not untie the {which} embeddings of {type(model).__name__}")
    return True


def encoder_tables(model: Any) -> list[torch.Tensor]:
    """The encoder's embedding matrix, then any untied mirror of it (M2M100's ``shared``)."""
    weight = encoder_embedding(model).weight
    tables = [weight]
    inner = getattr(model, "model", model)
    shared = getattr(inner, "shared", None)
    if isinstance(shared, nn.Embedding) and not _same_storage(weight, shared.weight):
        if not any(_same_storage(shared.weight, t) for t in _decoder_side(model).values()):
            tables.append(shared.weight)
    return tables
