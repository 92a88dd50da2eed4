"""Marian-architecture Transformers built from a size preset, or loaded from a local checkpoint; and
decoder-only LMs loaded from a folder (the hf-causal translator, causal training and debiasing share it)."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import torch
from transformers import AutoModelForSeq2SeqLM, MarianConfig, PreTrainedModel

from ..errors import CheckpointError, ConfigError
from .hub import local_model_dir
from .tokenizer import EOS_ID, PAD_ID

# how a decoder-only LM may be loaded (hf-causal's dtype option); None: the device decides
DTYPES = {"auto": None, "float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}

# Sizes: "tiny" trains in seconds on a CPU (tests, quickstart); "base" is Transformer-base
# (Vaswani et al. 2017), the size of Opus-MT models.
PRESETS: dict[str, dict[str, Any]] = {
    "tiny": dict(d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                 decoder_attention_heads=4, encoder_ffn_dim=256, decoder_ffn_dim=256),
    "mini": dict(d_model=128, encoder_layers=3, decoder_layers=3, encoder_attention_heads=4,
                 decoder_attention_heads=4, encoder_ffn_dim=512, decoder_ffn_dim=512),
    "small": dict(d_model=256, encoder_layers=3, decoder_layers=3, encoder_attention_heads=4,
                  decoder_attention_heads=4, encoder_ffn_dim=1024, decoder_ffn_dim=1024),
    "base": dict(d_model=512, encoder_layers=6, decoder_layers=6, encoder_attention_heads=8,
                 decoder_attention_heads=8, encoder_ffn_dim=2048, decoder_ffn_dim=2048),
    "big": dict(d_model=1024, encoder_layers=6, decoder_layers=6, encoder_attention_heads=16,
                decoder_attention_heads=16, encoder_ffn_dim=4096, decoder_ffn_dim=4096),
}


def marian_config(preset: str, vocab_size: int, decoder_vocab_size: int | None = None, *,
                  max_positions: int = 256, dropout: float = 0.1, **overrides: Any) -> MarianConfig:
    if preset not in PRESETS:
        raise ValueError(f"unknown model preset {preset!r}; choose one of {', '.join(PRESETS)}")
    shared = decoder_vocab_size in (None, vocab_size)
    params = dict(PRESETS[preset], vocab_size=vocab_size,
                  decoder_vocab_size=vocab_size if shared else decoder_vocab_size,
                  share_encoder_decoder_embeddings=shared, tie_word_embeddings=True,
                  max_position_embeddings=max_positions, dropout=dropout, scale_embedding=True,
                  pad_token_id=PAD_ID, eos_token_id=EOS_ID, forced_eos_token_id=EOS_ID,
                  decoder_start_token_id=PAD_ID, activation_function="swish")
    params.update(overrides)
    return MarianConfig(**params)


def build_model(config: MarianConfig, seed: int) -> PreTrainedModel:
    import torch
    from transformers import MarianMTModel

    torch.manual_seed(seed)
    return MarianMTModel(config)


def load_model(path: str | Path) -> PreTrainedModel:
    """Load any local seq2seq checkpoint; a clear error for a missing or corrupt one."""
    directory = local_model_dir(path, what="checkpoint")
    if not (directory / "config.json").exists():
        raise CheckpointError(f"{directory}: not a checkpoint (no config.json); pass a directory "
                              "written by `mtdebias train` or `save_pretrained`")
    try:
        return AutoModelForSeq2SeqLM.from_pretrained(directory)
    except Exception as exc:  # transformers raises many types for damaged files
        raise CheckpointError(f"{directory}: checkpoint could not be loaded ({type(exc).__name__}: "
                              f"{str(exc).splitlines()[0][:300]}); it may be incomplete or corrupt") from exc


def load_causal_tokenizer(directory: Path):
    """A decoder-only LM's tokenizer, padding on the left (where generation continues from)."""
    from transformers import AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(directory)
    except Exception as exc:
        raise CheckpointError(f"{directory}: tokenizer files missing or unreadable ({exc})") from exc
    tokenizer.padding_side = "left"
    if tokenizer.pad_token_id is None:  # many LLMs ship without one; padding is masked anyway
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer


def load_causal_model(directory: Path, dtype: str, device: str):
    """A decoder-only LM in ``dtype`` (one of :data:`DTYPES`) on ``device``, in eval mode; a clear
    error for an encoder-decoder folder or unreadable files."""
    from transformers import AutoConfig, AutoModelForCausalLM

    try:
        config = AutoConfig.from_pretrained(directory)
    except Exception as exc:
        raise CheckpointError(f"{directory}: no readable config.json ({exc})") from exc
    if getattr(config, "is_encoder_decoder", False):
        raise ConfigError(f"{directory} is an encoder-decoder model, not a decoder-only one",
                          hint="score it with the hf backend")
    chosen = DTYPES[dtype]
    if chosen is None:  # CPUs compute float32 best; a GPU takes the dtype the model was saved in
        chosen = torch.float32 if device == "cpu" else "auto"
    try:
        model = AutoModelForCausalLM.from_pretrained(directory, dtype=chosen)
    except Exception as exc:
        raise CheckpointError(f"{directory}: model could not be loaded ({type(exc).__name__}: "
                              f"{str(exc).splitlines()[0][:300]})") from exc
    return model.to(device).eval()


def cache_argument(model) -> str:
    """The name under which the model's forward takes (and returns) its key/value cache: ``cache``
    in recent transformers, ``past_key_values`` before."""
    return "cache" if "cache" in inspect.signature(type(model).forward).parameters else "past_key_values"
