"""A model name, resolved once: where the model is, what kind of source it is, what signatures call it.

Users name models four ways; each is recognised here and nowhere else:

* ``fairseq``: a ``.pt`` file, a fairseq save folder or a ``fairseq.toml`` (see
  :func:`~mtdebias.translators.fairseq.find_spec`);
* ``gguf``: a ``.gguf`` file, or a folder holding exactly one and no ``config.json`` — opened
  through its converted float folder (:mod:`mtdebias.models.gguf_model`), named by the file's hash;
* ``folder``: a transformers checkpoint folder, named by its content hash — or, when the folder
  is a snapshot of the Hugging Face cache, by its repository and commit;
* ``hub``: an id ``org/name`` or ``org/name@REV``, resolved through the local cache
  (:mod:`mtdebias.models.hub`; nothing is downloaded unless a command asks for it).

Backends receive a :class:`ModelSource` and open :meth:`ModelSource.folder` (or, for fairseq,
:attr:`ModelSource.fairseq`), so a name is looked at once per command, not by every layer it
passes through.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from ..errors import ConfigError, InputError

KINDS = ("folder", "hub", "gguf", "fairseq")


@dataclass(frozen=True)
class ModelSource:
    name: str  # as the user wrote it
    kind: str  # one of KINDS
    path: Path  # the folder, the .gguf file, or the fairseq target
    repo_id: str | None = None  # hub models (and folders inside the hub cache)
    commit: str | None = None
    fairseq: Any = None  # the FairseqSpec of a fairseq model
    named: str | None = None  # an identity given rather than computed (a model in training has none to hash)

    @cached_property  # (a frozen dataclass may cache: the value goes to the instance's __dict__)
    def identity(self) -> str:
        """What signatures call the model: ``hub:org/name@<sha12>``, ``gguf:<sha12>`` or the
        folder's content hash (a fairseq model: its first checkpoint's)."""
        from ..signature import hash_checkpoint_cached

        if self.named is not None:
            return self.named
        if self.repo_id and self.commit:
            return f"hub:{self.repo_id}@{self.commit[:12]}"
        if self.kind == "gguf":
            from ..models.gguf_model import gguf_identity

            return gguf_identity(self.path)
        return hash_checkpoint_cached(self.fairseq.checkpoints[0] if self.kind == "fairseq" else self.path)

    def folder(self, progress: bool = True) -> Path:
        """A folder transformers opens: the model's own, or a GGUF file's converted copy."""
        if self.kind == "fairseq":
            raise InputError(f"{self.name} is a fairseq model, not a transformers checkpoint", path=self.path,
                             hint="score it with the fairseq backend (eval/translate recognise it by its path)")
        if self.kind == "gguf":
            from ..models.gguf_model import float_folder

            return float_folder(self.path, progress=progress)
        return self.path


def _single_gguf(folder: Path) -> Path | None:
    """The one ``.gguf`` file of a folder that is not itself a transformers checkpoint."""
    if (folder / "config.json").exists():
        return None
    found = sorted(folder.glob("*.gguf"))
    if len(found) > 1:
        raise InputError(f"the folder holds {len(found)} GGUF files ({', '.join(p.name for p in found[:4])})",
                         path=folder, hint="name the .gguf file itself")
    return found[0] if found else None


def resolve(name: str | Path, *, revision: str | None = None, what: str = "model", download: bool = False,
            fairseq: bool = True) -> ModelSource:
    """The :class:`ModelSource` of a model name; a clear error for a name that is none of the four
    kinds. ``download``: whether a hub id missing from the cache may be fetched (commands that
    name a model say so; loaders never do). ``fairseq=False`` for callers that only open
    transformers models (a decoder-only LLM is never a fairseq save)."""
    from ..models.hub import check_snapshot_links, resolve_model, snapshot_id

    text = str(name)
    path = Path(text).expanduser()
    if path.exists() and revision is None:
        if fairseq:
            from .fairseq import find_spec

            spec = find_spec(path)
            if spec is not None:
                return ModelSource(text, "fairseq", path, fairseq=spec)
        if path.is_file() and path.suffix.lower() == ".gguf":
            return ModelSource(text, "gguf", path)
        if path.is_dir():
            single = _single_gguf(path)
            if single is not None:
                return ModelSource(text, "gguf", single)
            found = snapshot_id(path)
            if found:  # a folder inside the hub cache is that hub model
                check_snapshot_links(path)
                repo_id = found.removeprefix("hub:").partition("@")[0]
                return ModelSource(text, "hub", path, repo_id=repo_id, commit=path.name)
            return ModelSource(text, "folder", path)
        raise InputError(f"expected a {what} folder, a .gguf file or a fairseq model, found another file",
                         path=path, hint="pass the folder that holds config.json, or a .gguf file")
    resolved = resolve_model(text, revision, what, download)
    if resolved.repo_id:
        return ModelSource(text, "hub", resolved.path, repo_id=resolved.repo_id, commit=resolved.commit)
    return ModelSource(text, "folder", resolved.path)


def model_kind(init: str | Path, what: str = "model.init") -> str:
    """``causal`` or ``seq2seq``: what the model ``init`` names is, read from its config (a GGUF
    file always holds a decoder-only LM), without loading its weights."""
    source = resolve(init, what=what, fairseq=False)
    if source.kind == "gguf":
        return "causal"
    from transformers import AutoConfig

    try:
        config = AutoConfig.from_pretrained(source.path)
    except Exception as exc:  # transformers raises many types for a missing or unknown config
        raise ConfigError(f"{what} = {init}: no readable config.json ({type(exc).__name__}: "
                          f"{str(exc).splitlines()[0][:200]})", hint="name a transformers model folder, a hub id "
                                                                     "or a .gguf file") from exc
    return "seq2seq" if getattr(config, "is_encoder_decoder", False) else "causal"


def is_causal_checkpoint(folder: Path) -> bool:
    """A transformers model folder whose config says it holds a decoder-only LM (e.g. a
    checkpoint of a ``model.kind = "causal"`` run)."""
    return (folder / "config.json").is_file() and model_kind(folder, what="checkpoint") == "causal"
