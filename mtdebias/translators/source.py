"""A model name, classified once: where the model is, what kind of name it is, what signatures
call it and which kind of the translator registry opens it — one :class:`ModelSource`.

:func:`mtdebias.translators.load.classify` is the one classifier every command calls (``eval``,
``translate``; ``ablate`` and ``--watch`` through the runner); what it returns is what every later
step reads — the run store's places (:func:`mtdebias.evaluation.runner.locate`), request keys, the loader
(:func:`~mtdebias.translators.load.open_translator`) — so no layer looks at the name again. The
kinds of name are recognised here (:func:`resolve`, :func:`find_spec`) and there, and nowhere else:

* ``spec``: ``KIND:REST`` for any kind of the translator registry (:mod:`.specs`: ``hf-causal:MODEL``,
  ``openai:MODEL@URL``, ``apertium:en-es``, ``file:TRANSLATIONS`` …); where the rest names a model
  (``hf``, ``ct2``, ``fairseq``, ``hf-causal``, ``ct2-causal``, ``llamacpp``) it is resolved with the spec
  (:attr:`ModelSource.model`);
* ``run``: a run directory of ``mtdebias train``, or a checkpoint inside one (a decoder-only
  run's open with ``hf-causal``);
* ``fairseq``: a ``.pt`` file, a fairseq save folder or a ``fairseq.toml`` (see
  :func:`find_spec`);
* ``gguf``: a ``.gguf`` file, or a folder holding exactly one and no ``config.json`` — opened
  through its converted float folder (:mod:`mtdebias.models.gguf_model`), named by the file's hash;
* ``folder``: a transformers checkpoint folder, named by its content hash — or, when the folder
  is a snapshot of the Hugging Face cache, by its repository and commit;
* ``hub``: an id ``org/name`` or ``org/name@REV``, resolved through the local cache
  (:mod:`mtdebias.models.hub`; nothing is downloaded unless a command asks for it).

Backends receive the :class:`ModelSource` and open :meth:`ModelSource.folder` (or, for fairseq,
:attr:`ModelSource.fairseq`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any, Sequence

from ..errors import ConfigError, InputError
from ..textio import parse_toml, read_text

KINDS = ("spec", "run", "folder", "hub", "gguf", "fairseq")
# backends that open transformers checkpoint folders (the --backend choice); the others are named by spec or path
FOLDER_BACKENDS = ("hf", "ct2")


@dataclass(frozen=True)
class ModelSource:
    name: str  # as the user wrote it
    kind: str  # one of KINDS
    path: Path  # the folder, the .gguf file, or the fairseq target
    repo_id: str | None = None  # hub models (and folders inside the hub cache)
    commit: str | None = None
    fairseq: Any = None  # the FairseqSpec of a fairseq model
    named: str | None = None  # an identity given rather than computed (a model in training has none to hash)
    backend: str = "hf"  # the kind of the translator registry that opens it (a folder's: the --backend chosen)
    rest: str = ""  # a spec's text after KIND:
    model: "ModelSource | None" = None  # the model a spec's rest names, where it names one (hf-causal:MODEL)

    @cached_property  # (a frozen dataclass may cache: the value goes to the instance's __dict__)
    def identity(self) -> str:
        """What signatures call the model: ``hub:org/name@<sha12>``, ``gguf:<sha12>`` or the
        folder's content hash (a fairseq model: its first checkpoint's)."""
        from ..signature import hash_checkpoint_cached

        if self.named is not None:
            return self.named
        if self.kind == "spec":
            return self.model.identity if self.model is not None else self.rest
        if self.repo_id and self.commit:
            return f"hub:{self.repo_id}@{self.commit[:12]}"
        if self.kind == "gguf":
            from ..models.gguf_model import gguf_identity

            return gguf_identity(self.path)
        return hash_checkpoint_cached(self.fairseq.checkpoints[0] if self.kind == "fairseq" else self.path)

    def at(self, checkpoint: Path) -> "ModelSource":
        """One checkpoint of this model (a run's, or a fairseq save's ``.pt`` file): the same kind
        and backend, at ``checkpoint``."""
        if Path(checkpoint) == self.path:
            return self
        return replace(self, name=str(checkpoint), path=Path(checkpoint))

    def with_backend(self, backend: str) -> "ModelSource":
        """A transformers folder opened with ``backend`` (``hf`` or ``ct2``); any other source as it is
        (a fairseq model is refused another backend than the default)."""
        if self.kind == "fairseq" and backend != "hf":
            raise ConfigError(f"backend {backend!r} applies to transformers checkpoints; {self.name} is a "
                              "fairseq model", hint="drop --backend for fairseq models")
        return replace(self, backend=backend) if self.backend in FOLDER_BACKENDS else self

    @property
    def decoder_only(self) -> bool:
        """A decoder-only LM asked to translate by a prompt (an ``hf-causal``, ``ct2-causal``,
        ``llamacpp`` or ``openai`` spec, a causal run or one of its checkpoints, or such a checkpoint
        elsewhere): the targets whose probes decode greedily unless asked for a beam."""
        if self.backend in DECODER_ONLY:
            return True
        return self.kind in ("folder", "hub") and self.path.is_dir() and is_causal_checkpoint(self.path)

    def checkpoint(self) -> Path:
        """The encoder-decoder transformers folder the ``hf`` and ``ct2`` backends open; a GGUF file
        or a decoder-only folder is refused with the spec that scores it (asked by a prompt)."""
        if self.kind == "gguf":
            raise ConfigError(f"{self.name} is a GGUF file: a decoder-only language model, asked to translate by a "
                              "prompt", hint=f"name it as hf-causal:{self.name}")
        path = self.folder()
        if is_causal_checkpoint(path):
            raise ConfigError(f"{self.name} is a decoder-only language model, asked to translate by a prompt",
                              hint=f"name it as hf-causal:{self.name} (with the prompt options it was trained "
                                   "with); `mtdebias eval RUN` opens a causal run's checkpoints so")
        return path

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
            spec = find_spec(path)
            if spec is not None:
                return ModelSource(text, "fairseq", path, fairseq=spec, backend="fairseq")
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
    return "causal" if source.kind == "gguf" else _config_kind(source.path, f"{what} = {init}")


def _config_kind(folder: Path, what: str) -> str:
    from transformers import AutoConfig

    try:
        config = AutoConfig.from_pretrained(folder)
    except Exception as exc:  # transformers raises many types for a missing or unknown config
        raise ConfigError(f"{what}: no readable config.json ({type(exc).__name__}: "
                          f"{str(exc).splitlines()[0][:200]})", hint="name a transformers model folder, a hub id "
                                                                     "or a .gguf file") from exc
    return "seq2seq" if getattr(config, "is_encoder_decoder", False) else "causal"


def is_causal_checkpoint(folder: Path) -> bool:
    """A transformers model folder whose config says it holds a decoder-only LM (e.g. a
    checkpoint of a ``model.kind = "causal"`` run)."""
    return (folder / "config.json").is_file() and _config_kind(folder, f"checkpoint = {folder}") == "causal"


DECODER_ONLY = ("hf-causal", "ct2-causal", "llamacpp", "openai")


# -- fairseq models: where a model's parts are (reading them needs no fairseq) ---------------------
SPEC_FILE = "fairseq.toml"
SPEC_KEYS = {"checkpoints", "data", "sentencepiece", "bpe_codes", "moses_escape", "source_lang",
             "target_lang", "results"}
_NUMBERED = re.compile(r"checkpoint(\d+)\.pt$|checkpoint_(\d+)_(\d+)\.pt$")
_SPM_NAMES = ("sentencepiece.bpe.model", "spm.model", "sentencepiece.model")
_BPE_NAMES = ("bpecodes", "bpe.codes", "codes", "code")


@dataclass
class FairseqSpec:
    """Where a fairseq model's parts are. ``checkpoints``: the .pt files, in training order."""

    checkpoints: list[Path]
    data: Path | None = None  # None: the data directory recorded in the checkpoint
    sentencepiece: Path | None = None
    bpe_codes: Path | None = None
    moses_escape: bool = True
    source_lang: str | None = None
    target_lang: str | None = None
    results: Path | None = None
    origin: Path | None = field(default=None, compare=False)  # the TOML or directory it came from

    def results_dir(self) -> Path:
        """Where ``mtdebias eval`` stores results: ``results``, else beside the checkpoints."""
        if self.results is not None:
            return self.results
        folder = self.checkpoints[0].parent
        return folder.parent / f"{folder.name}.mtdebias"


def checkpoint_order(path: Path) -> tuple:
    """Epoch checkpoints (``checkpoint3.pt``) by epoch, update checkpoints by update, others last."""
    match = _NUMBERED.search(path.name)
    if match is None:
        return (1, 0, 0, path.name)
    if match.group(1) is not None:
        return (0, int(match.group(1)), 0, path.name)
    return (0, int(match.group(2)), int(match.group(3)), path.name)


def list_checkpoints(folder: Path) -> list[Path]:
    """fairseq's saved checkpoints in a save directory. ``checkpoint_last``/``checkpoint_best``
    copy a numbered one, so they are listed only when there is no numbered checkpoint."""
    found = sorted(folder.glob("*.pt"))
    numbered = [p for p in found if _NUMBERED.search(p.name)]
    return sorted(numbered or found, key=checkpoint_order)


def load_spec_file(path: Path) -> FairseqSpec:
    """Read a ``fairseq.toml``; paths in it are relative to the file."""
    data = parse_toml(read_text(path), path)
    unknown = sorted(set(data) - SPEC_KEYS)
    if unknown:
        raise InputError(f"unknown key(s) {', '.join(unknown)}", path=path,
                         hint=f"a fairseq model file takes {', '.join(sorted(SPEC_KEYS))}")
    base = path.parent

    def located(key: str) -> Path | None:  # (not this module's resolve: a path in the file)
        value = data.get(key)
        if value is None:
            return None
        if not isinstance(value, str):
            raise InputError(f"'{key}' must be a path string", path=path)
        resolved = Path(os.path.normpath(base / Path(value).expanduser()))
        if key != "results" and not resolved.exists():
            raise InputError(f"'{key}' = {value!r}: {resolved} does not exist", path=path)
        return resolved

    where = located("checkpoints") or base
    checkpoints = list_checkpoints(where) if where.is_dir() else [where]
    if not checkpoints:
        raise InputError(f"no *.pt checkpoint in {where}", path=path, hint="set checkpoints = FILE or FOLDER")
    spec = FairseqSpec(checkpoints=checkpoints, data=located("data"), sentencepiece=located("sentencepiece"),
                       bpe_codes=located("bpe_codes"), moses_escape=bool(data.get("moses_escape", True)),
                       source_lang=data.get("source_lang"), target_lang=data.get("target_lang"),
                       results=located("results"), origin=path)
    if spec.sentencepiece is not None and spec.bpe_codes is not None:
        raise InputError("both 'sentencepiece' and 'bpe_codes' given", path=path, hint="name one subword model")
    return spec


def _find_subword(folders: Sequence[Path]) -> dict[str, Path]:
    for folder in folders:
        for name in _SPM_NAMES:
            if (folder / name).is_file():
                return {"sentencepiece": folder / name}
        for name in _BPE_NAMES:
            if (folder / name).is_file():
                return {"bpe_codes": folder / name}
    return {}


def find_spec(target: Path) -> FairseqSpec | None:
    """The fairseq model ``target`` names, or None when it is not one.

    ``target`` may be a ``fairseq.toml`` (or any TOML with a ``checkpoints`` key), a directory
    holding one, a fairseq save directory (``*.pt``) whose dictionaries and subword model sit in
    it (or, for the dictionaries, in the data directory recorded in the checkpoint), or one
    ``.pt`` file with the same around it.
    """
    target = Path(target)
    if target.is_file() and target.suffix == ".toml":
        return load_spec_file(target)
    if target.is_dir() and (target / SPEC_FILE).is_file():
        return load_spec_file(target / SPEC_FILE)
    if target.is_file() and target.suffix == ".pt":
        if (target.parent / SPEC_FILE).is_file():
            spec = load_spec_file(target.parent / SPEC_FILE)
            return FairseqSpec(**{**spec.__dict__, "checkpoints": [target]})
        folder, checkpoints = target.parent, [target]
    elif target.is_dir() and not (target / "config.json").exists() and list_checkpoints(target):
        folder, checkpoints = target, list_checkpoints(target)
    else:
        return None
    dicts = [d for d in (folder, folder.parent) if list(d.glob("dict.*.txt"))]
    return FairseqSpec(checkpoints=checkpoints, data=dicts[0] if dicts else None,
                       **_find_subword([folder, folder.parent, *dicts]), origin=target)
