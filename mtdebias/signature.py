"""Signatures: every reported number says how it was made.

A signature is a sacrebleu-style string such as::

    winomt.v1|mtdebias:0.1.0|data:3f2a9c1d04e2|model:9b1c77aa0f3e|decode:beam=5|seed:1

Two numbers are comparable only when their signatures agree on everything but the model
(see :func:`comparable`). Hashes are the first 12 hex digits of a SHA-256.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from . import __version__

HASH_CHARS = 12
_CHUNK = 1 << 20


def hash_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:HASH_CHARS]


def hash_text(text: str) -> str:
    return hash_bytes(text.encode("utf-8"))


def hash_lines(lines: Iterable[str]) -> str:
    digest = hashlib.sha256()
    for line in lines:
        digest.update(line.encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()[:HASH_CHARS]


def hash_json(obj: Any) -> str:
    return hash_text(json.dumps(obj, sort_keys=True, ensure_ascii=False, default=str))


def hash_file(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()[:HASH_CHARS]


# Files that make a checkpoint what it is; optimizer state and logs are deliberately left out
# so that a resumed run's checkpoint hashes like the uninterrupted one.
_MODEL_FILE_SUFFIXES = (".safetensors", ".bin", ".json", ".spm", ".model", ".vocab")
# tokenizer_config.json and generation_config.json are left out too: transformers writes
# load-time details into them (e.g. "is_local"), so a re-saved copy would hash differently.
# adapter.safetensors (a LoRA run's adapters, train/lora.py) is training state like optimizer.pt:
# the model a checkpoint holds is model.safetensors, with the adapters merged in.
_IGNORED = {"trainer_state.json", "tokenizer_config.json", "debias_report.json",
            "generation_config.json", "adapter.safetensors"}


def hash_checkpoint(path: str | Path) -> str:
    """Content hash of a checkpoint directory (weights, config, tokenizer), or of a file."""
    path = Path(path)
    if path.is_file():
        return hash_file(path)
    digest = hashlib.sha256()
    for item in sorted(path.rglob("*")):
        if not item.is_file() or item.name in _IGNORED or not item.name.endswith(_MODEL_FILE_SUFFIXES):
            continue
        digest.update(str(item.relative_to(path)).encode())
        with open(item, "rb") as handle:
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
    return digest.hexdigest()[:HASH_CHARS]


_HASH_CACHE: dict[tuple, str] = {}


def hash_checkpoint_cached(path: str | Path) -> str:
    """:func:`hash_checkpoint`, remembered for as long as no model file changes (name, size and
    mtime of every file it reads): looking at a scored checkpoint again reads no weights."""
    path = Path(path)
    if path.is_file():
        stat = path.stat()
        files: tuple = ((path.name, stat.st_size, stat.st_mtime_ns),)
    else:
        files = tuple((str(item.relative_to(path)), s.st_size, s.st_mtime_ns)
                      for item in sorted(path.rglob("*"))
                      if item.is_file() and item.name not in _IGNORED and item.name.endswith(_MODEL_FILE_SUFFIXES)
                      for s in (item.stat(),))
    key = (str(path.resolve()), files)
    if key not in _HASH_CACHE:
        _HASH_CACHE[key] = hash_checkpoint(path)
    return _HASH_CACHE[key]


@dataclass(frozen=True)
class Signature:
    """How a number was made. ``settings`` holds decoding/sampling and method options."""

    method: str
    data: str = "-"
    model: str = "-"
    settings: Mapping[str, Any] = field(default_factory=dict)
    seed: int | None = None
    version: str = __version__

    def __str__(self) -> str:
        settings = ",".join(f"{k}={_fmt(v)}" for k, v in sorted(self.settings.items())) or "-"
        seed = "-" if self.seed is None else str(self.seed)
        return (f"{self.method}|mtdebias:{self.version}|data:{self.data}|model:{self.model}"
                f"|settings:{settings}|seed:{seed}")

    @classmethod
    def parse(cls, text: str) -> "Signature":
        fields = dict(part.split(":", 1) for part in text.split("|")[1:])
        settings: dict[str, Any] = {}
        if fields.get("settings", "-") != "-":
            for item in fields["settings"].split(","):
                key, _, value = item.partition("=")
                settings[key] = value
        seed = fields.get("seed", "-")
        return cls(method=text.split("|", 1)[0], data=fields.get("data", "-"),
                   model=fields.get("model", "-"), settings=settings,
                   seed=None if seed == "-" else int(seed), version=fields.get("mtdebias", "?"))

    def without_model(self) -> str:
        """The signature with the model field blanked: equal values mean comparable numbers."""
        return str(Signature(self.method, self.data, "*", self.settings, self.seed, self.version))


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value).replace("|", "/").replace(",", ";")


def comparable(a: str | Signature, b: str | Signature) -> bool:
    """Numbers from two models may be compared when everything but the model matches."""
    sa = a if isinstance(a, Signature) else Signature.parse(a)
    sb = b if isinstance(b, Signature) else Signature.parse(b)
    return sa.without_model() == sb.without_model()
