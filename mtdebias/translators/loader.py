"""Open a local checkpoint with a chosen backend: ``hf`` (transformers) or ``ct2`` (CTranslate2)."""

from __future__ import annotations

import difflib
from pathlib import Path

from ..errors import ConfigError

BACKENDS = ("hf", "ct2")


def check_backend(backend: str, compute_type: str = "default", where: str = "backend") -> None:
    """Refuse an unknown backend or compute type before any model is loaded."""
    if backend not in BACKENDS:
        close = difflib.get_close_matches(backend, BACKENDS, n=1)
        raise ConfigError(f"{where} = {backend!r} is not a backend",
                          hint=f"did you mean '{close[0]}'?" if close else f"choose one of {', '.join(BACKENDS)}")
    if backend == "hf" and compute_type != "default":
        raise ConfigError(f"compute_type = {compute_type!r} applies to the ct2 backend only",
                          hint="drop compute_type, or set backend = \"ct2\"")
    if backend == "ct2":
        from .ct2 import COMPUTE_TYPES

        if compute_type not in COMPUTE_TYPES:
            raise ConfigError(f"compute_type = {compute_type!r} is not one of {', '.join(COMPUTE_TYPES)}")


def open_checkpoint(checkpoint: str | Path, backend: str = "hf", compute_type: str = "default",
                    device: str | None = None, src_lang: str | None = None, tgt_lang: str | None = None):
    check_backend(backend, compute_type)
    if backend == "ct2":
        from .ct2 import CT2Translator

        return CT2Translator(checkpoint, compute_type=compute_type, device=device or "cpu",
                             src_lang=src_lang, tgt_lang=tgt_lang)
    from .hf import HFTranslator

    return HFTranslator(checkpoint, device=device, src_lang=src_lang, tgt_lang=tgt_lang)
