"""Turn a checkpoint name into a translator: the one place that picks the backend.

The name is resolved once (:func:`.source.resolve`: folder, hub id, GGUF file or fairseq model),
then handed to the backend:

* a fairseq model (a ``.pt`` file, a fairseq save directory, or a ``fairseq.toml`` naming the
  parts; see :func:`mtdebias.translators.fairseq.find_spec`) → :class:`FairseqTranslator`;
* a transformers checkpoint (folder or hub id) is opened with the chosen backend:
  ``hf`` → :class:`HFTranslator`, ``ct2`` → :class:`~mtdebias.translators.ct2.CT2Translator`
  (CTranslate2 for beam search and scores; sampling stays on transformers);
* a GGUF file holds a decoder-only LM, which is asked to translate by a prompt: it is refused
  here with the spec that scores it (``hf-causal:FILE``), and so is a decoder-only model folder
  (a checkpoint of a ``model.kind = "causal"`` run: :func:`mtdebias.runner.causal_loader` opens those).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from ..errors import ConfigError
from .backends import BACKENDS, COMPUTE_TYPES, check_backend  # noqa: F401  (re-exported for callers)
from .fairseq import FairseqSpec, find_spec
from .source import ModelSource, resolve


def load_translator(checkpoint: str | Path | ModelSource, backend: str = "hf", compute_type: str = "default",
                    **kwargs: Any):
    """The translator for ``checkpoint``; ``kwargs`` go to the backend (e.g. ``device``)."""
    check_backend(backend, compute_type)
    source = checkpoint if isinstance(checkpoint, ModelSource) else resolve(checkpoint, what="checkpoint")
    if source.kind == "fairseq":
        if backend != "hf":
            raise ConfigError(f"backend {backend!r} applies to transformers checkpoints; {source.name} is a "
                              "fairseq model", hint="drop --backend for fairseq models")
        return _fairseq(source.fairseq, source.path, **kwargs)
    if source.kind == "gguf":
        raise ConfigError(f"{source.name} is a GGUF file: a decoder-only language model, asked to translate by a "
                          "prompt", hint=f"name it as hf-causal:{source.name}")
    from .source import is_causal_checkpoint

    if is_causal_checkpoint(source.path):
        raise ConfigError(f"{source.name} is a decoder-only language model, asked to translate by a prompt",
                          hint=f"name it as hf-causal:{source.name} (with the prompt options it was trained "
                               "with); `mtdebias eval RUN` opens a causal run's checkpoints so")
    if backend == "ct2":
        from .ct2 import CT2Translator

        if kwargs.get("device") is None:
            kwargs.pop("device", None)
        return CT2Translator(source.path, compute_type=compute_type, **kwargs)
    from .hf import HFTranslator

    # a hub model by its commit, a folder by its content hash
    identity = source.identity if source.kind == "hub" else f"hf:{source.identity}"
    return HFTranslator(source.path, identity=identity, **kwargs)


def translator_factory(target: str | Path, backend: str = "hf", compute_type: str = "default",
                       languages: dict[str, str] | None = None) -> Callable[[Path], Any]:
    """A loader for the checkpoints found under ``target``: a fairseq model file keeps its
    parts (dictionaries, subword model) for every checkpoint it lists, wherever it lives.
    ``languages`` (``src_lang``/``tgt_lang``) reach multilingual transformers checkpoints
    (M2M100, NLLB), which need them; a fairseq pair is fixed by its task."""
    spec = find_spec(Path(target))  # a run directory is no model: only a fairseq target names its parts
    if spec is None:
        check_backend(backend, compute_type)
        return lambda checkpoint: load_translator(checkpoint, backend, compute_type, **(languages or {}))
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
