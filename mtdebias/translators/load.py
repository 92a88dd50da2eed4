"""Turn a checkpoint path into a translator: the one place that picks the backend.

* a fairseq model (a ``.pt`` file, a fairseq save directory, or a ``fairseq.toml`` naming the
  parts; see :func:`mtdebias.translators.fairseq.find_spec`) → :class:`FairseqTranslator`;
* anything else → a ``transformers`` checkpoint directory → :class:`HFTranslator`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from .fairseq import FairseqSpec, find_spec


def load_translator(checkpoint: str | Path, **kwargs: Any):
    """The translator for ``checkpoint``; ``kwargs`` go to the backend (e.g. ``device``)."""
    checkpoint = Path(checkpoint)
    spec = find_spec(checkpoint)
    if spec is not None:
        return _fairseq(spec, checkpoint, **kwargs)
    from .hf import HFTranslator

    return HFTranslator(checkpoint, **kwargs)


def translator_factory(target: str | Path) -> Callable[[Path], Any]:
    """A loader for the checkpoints found under ``target``: a fairseq model file keeps its
    parts (dictionaries, subword model) for every checkpoint it lists, wherever it lives."""
    spec = find_spec(Path(target))
    if spec is None:
        return load_translator
    return lambda checkpoint: _fairseq(spec, Path(checkpoint))


def _fairseq(spec: FairseqSpec, checkpoint: Path, **kwargs: Any):
    from .fairseq import FairseqTranslator

    for key in ("src_lang", "tgt_lang"):  # M2M100/NLLB options; a fairseq pair is fixed by its task
        if kwargs.pop(key, None) is not None:
            from ..errors import InputError

            raise InputError(f"{key} applies to M2M100/NLLB checkpoints, not to fairseq models",
                             hint="set source_lang/target_lang in fairseq.toml instead")
    chosen = checkpoint if checkpoint.suffix == ".pt" else None
    return FairseqTranslator.from_spec(spec, chosen, **kwargs)
