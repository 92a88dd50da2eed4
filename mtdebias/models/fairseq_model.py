"""Where a fairseq model's parts are: the checkpoints (``checkpointN.pt``), the data directory
whose ``dict.<src>.txt`` / ``dict.<tgt>.txt`` map pieces to ids, and the subword model the data
was encoded with — named in a small TOML file (``fairseq.toml``) or found by looking in a
directory (:func:`find_spec`). Reading them needs no fairseq: the name of a model is classified
(:mod:`mtdebias.translators.source`) without importing the backend that opens it
(:mod:`mtdebias.translators.fairseq`)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from ..errors import InputError
from ..textio import parse_toml, read_text

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

    def resolve(key: str) -> Path | None:
        value = data.get(key)
        if value is None:
            return None
        if not isinstance(value, str):
            raise InputError(f"'{key}' must be a path string", path=path)
        resolved = Path(os.path.normpath(base / Path(value).expanduser()))
        if key != "results" and not resolved.exists():
            raise InputError(f"'{key}' = {value!r}: {resolved} does not exist", path=path)
        return resolved

    where = resolve("checkpoints") or base
    checkpoints = list_checkpoints(where) if where.is_dir() else [where]
    if not checkpoints:
        raise InputError(f"no *.pt checkpoint in {where}", path=path, hint="set checkpoints = FILE or FOLDER")
    spec = FairseqSpec(checkpoints=checkpoints, data=resolve("data"), sentencepiece=resolve("sentencepiece"),
                       bpe_codes=resolve("bpe_codes"), moses_escape=bool(data.get("moses_escape", True)),
                       source_lang=data.get("source_lang"), target_lang=data.get("target_lang"),
                       results=resolve("results"), origin=path)
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
