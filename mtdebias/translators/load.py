"""From a model name to a translator: the name classified once (:func:`classify`), then opened by
the backend its classification chose (:func:`open_translator`), through the one translator
registry (:mod:`.specs`: every backend's kind and ``from_spec``).

* a spec ``KIND:REST`` opens with that kind (a model its rest names was resolved with the spec);
* a transformers checkpoint (folder, hub id, or a run's checkpoint) with the backend chosen for
  it: ``hf`` → :class:`~.hf.HFTranslator`, ``ct2`` → :class:`~.ct2.CT2Translator` (CTranslate2
  for beam search and scores; sampling stays on transformers);
* a fairseq model (a ``.pt`` file, a fairseq save directory, or a ``fairseq.toml`` naming the
  parts; see :func:`~.source.find_spec`) → :class:`~.fairseq.FairseqTranslator`;
* a checkpoint of a decoder-only run (``model.kind = "causal"``) → ``hf-causal``, with the
  prompt options of its recipe (:func:`mtdebias.evaluation.runner.causal_loader`);
* a GGUF file, or a decoder-only folder outside a run, holds an LM asked to translate by a
  prompt: it is refused with the spec that scores it (``hf-causal:FILE``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .backends import BACKENDS, COMPUTE_TYPES, check_backend  # noqa: F401  (re-exported for callers)
from .base import BaseTranslator
from .source import ModelSource, resolve
from .specs import check_translator_options, is_spec, prepare_spec, split_spec, translator_class


def classify(name: str | Path | ModelSource, *, revision: str | None = None, what: str = "model",
             download: bool = False, runs: bool = True, options: dict[str, Any] | None = None,
             given_as: str = "") -> ModelSource:
    """The one classification of a model name (see :mod:`.source`); a name already classified is
    returned as it is. ``download``: a hub id (also a spec's) missing from the cache may be
    fetched — commands say so, loaders never do. ``runs``: the name may be a run directory
    (``eval``), not only a model (``translate``). A spec's kind is checked (did-you-mean), its
    ``options`` (given by the flag ``given_as``) too, and its model resolved and checked (a GGUF's
    architecture, the engine it needs) before any work."""
    if isinstance(name, ModelSource):
        return name
    text = str(name)
    if is_spec(text):
        kind, rest = split_spec(text)
        check_translator_options(text, options or {}, given_as=given_as)  # before a download
        model = prepare_spec(text, download=download)
        return ModelSource(text, "spec", model.path if model else Path(rest), backend=kind, rest=rest, model=model)
    path = Path(text).expanduser()
    if runs and revision is None:
        from ..store.runs import RunStore

        if RunStore.is_run_target(path):
            return ModelSource(text, "run", path, backend="hf-causal" if _causal_run(path) else "hf")
        if not path.exists() and path.suffix.lower() != ".gguf":
            from ..models.hub import looks_like_hub_id

            if not looks_like_hub_id(text):
                RunStore.locate(path)  # says what was expected, with the nearest name beside it
    return resolve(text, revision=revision, what=what, download=download)


def _causal_run(target: Path) -> bool:
    """Whether the run ``target`` belongs to fine-tunes a decoder-only LM (``model.kind = "causal"``)."""
    from ..store.runs import RunStore
    from ..textio import parse_toml

    recipe = RunStore.locate(target)[0].recipe_file
    if not recipe.exists():
        return False
    return parse_toml(recipe.read_text(encoding="utf-8"), recipe).get("model", {}).get("kind") == "causal"


def open_translator(source: ModelSource, checkpoint: Path | None = None, **options: Any) -> BaseTranslator:
    """The translator of a classified name (of one of its checkpoints: ``checkpoint``), by its
    backend's ``from_spec``; ``options`` go there (``device``, ``src_lang`` …). Every class the
    registry holds declares the optional parts of the protocol (:class:`~.base.BaseTranslator`)."""
    if checkpoint is not None:
        source = source.at(checkpoint)
    if source.kind == "spec":
        check_translator_options(source.name, options)
        return translator_class(source.backend).from_spec(source.model or source.rest, **options)
    return translator_class(source.backend).from_spec(source, **options)


def load_translator(checkpoint: str | Path | ModelSource, backend: str = "hf", compute_type: str = "default",
                    **kwargs: Any) -> BaseTranslator:
    """The translator for a checkpoint named by its path or hub id (never downloaded here), opened
    with ``backend``; ``kwargs`` go to the backend (e.g. ``device``)."""
    check_backend(backend, compute_type)
    source = classify(checkpoint, what="checkpoint", runs=False).with_backend(backend)
    return open_translator(source, **({"compute_type": compute_type} if source.backend == "ct2" else {}), **kwargs)
