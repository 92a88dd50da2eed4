"""GGUF files as a model source: checked, then converted once into a float folder transformers opens.

A GGUF file (llama.cpp's format: quantized weights, the tokenizer and, for chat models, the chat
template, in one file) is read through transformers' GGUF support, which dequantizes every tensor
with the ``gguf`` library. That takes from seconds (SmolLM2-135M) to a minute or more (Gemma 3
270M, 262k-row embedding), so the result is saved once as an ordinary float32 checkpoint folder
and reused:

* the folder is keyed by the file's content hash (``<file>.hf-<sha12>/`` beside the file when its
  folder is writable, else ``$MTDEBIAS_GGUF_CACHE`` or ``~/.cache/mtdebias/gguf/``), so an edited
  file is converted again and a renamed one is not;
* signatures name the GGUF, not the folder: ``gguf:<sha12>`` (:func:`gguf_identity`);
* it is written under a temporary name and renamed into place, under a lock, so two processes
  converting the same file at once convert it once and an interrupted conversion leaves nothing
  that looks finished (a killed one's temporary folder is removed by the next conversion);
* what transformers cannot read (an architecture or a tensor type it has no converter for) is
  refused from the file's header, before any tensor is read.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..errors import CheckpointError, InputError

GGUF_MAGIC = b"GGUF"
# tensor types stored unquantized, which the reader copies as they are
_PLAIN_TYPES = {"F32", "F16", "BF16", "F64", "I8", "I16", "I32", "I64"}


@dataclass(frozen=True)
class GGUFHeader:
    """What the file's header says, read without loading a tensor."""

    path: Path
    architecture: str
    name: str
    tensor_types: frozenset[str]
    has_chat_template: bool


def is_gguf(path: str | Path) -> bool:
    """Whether ``path`` is a file that starts with the GGUF magic."""
    path = Path(path)
    if not path.is_file():
        return False
    with open(path, "rb") as handle:
        return handle.read(4) == GGUF_MAGIC


def read_header(path: str | Path) -> GGUFHeader:
    """The architecture, name, tensor types and chat-template presence of a GGUF file."""
    path = Path(path)
    if not is_gguf(path):
        raise InputError("not a GGUF file (it does not start with the GGUF magic bytes)", path=path,
                         hint="pass a .gguf file written by llama.cpp's converter")
    try:
        from gguf import GGUFReader
    except ImportError:
        raise InputError("reading a GGUF file needs the gguf package", path=path,
                         hint="pip install --no-deps gguf (with --no-deps: its dependencies would replace numpy)") \
            from None
    try:
        reader = GGUFReader(path)
    except Exception as exc:  # the reader raises ValueError, struct errors, IndexError on damaged files
        raise CheckpointError(f"{path}: GGUF header could not be read ({type(exc).__name__}: "
                              f"{str(exc).splitlines()[0][:200] if str(exc) else ''}); the file may be truncated") from exc
    fields = reader.fields

    def text(key: str) -> str:
        field = fields.get(key)
        return str(field.contents()) if field is not None else ""

    return GGUFHeader(path=path, architecture=text("general.architecture"), name=text("general.name"),
                      tensor_types=frozenset(t.tensor_type.name for t in reader.tensors),
                      has_chat_template="tokenizer.chat_template" in fields)


def check_readable(header: GGUFHeader) -> None:
    """Refuse, before any work, a file transformers' GGUF reader cannot turn into a model."""
    from transformers.modeling_gguf_pytorch_utils import GGUF_SUPPORTED_ARCHITECTURES

    architectures = sorted(a for a in GGUF_SUPPORTED_ARCHITECTURES if a not in ("general", "tokenizer"))
    if header.architecture not in architectures:
        raise InputError(f"GGUF architecture {header.architecture!r} cannot be read by transformers "
                         f"(it reads {', '.join(architectures)})", path=header.path,
                         hint="use the original checkpoint folder, or a llama.cpp backend for this file")
    import gguf.quants

    known = {t.name for t in gguf.GGMLQuantizationType if t in gguf.quants._type_traits} | _PLAIN_TYPES
    unknown = sorted(header.tensor_types - known)
    if unknown:
        raise InputError(f"GGUF tensor type(s) {', '.join(unknown)} cannot be dequantized by the gguf library "
                         "installed here", path=header.path,
                         hint="upgrade gguf (pip install --no-deps -U gguf), or use another quantization of the model")


def gguf_identity(path: str | Path) -> str:
    """How signatures name a GGUF model: its content hash (cached by stat)."""
    from ..signature import hash_checkpoint_cached

    return f"gguf:{hash_checkpoint_cached(Path(path))}"


def converted_dir(path: str | Path, kind: str = "hf") -> Path:
    """Where the conversion of ``path`` lives (whether or not it exists yet): ``kind`` ``hf`` is
    the float folder, ``ct2`` the CTranslate2 model made from it (:mod:`.translators.ct2_causal`)."""
    from ..signature import hash_checkpoint_cached

    path = Path(path).expanduser().resolve()
    name = f"{path.name}.{kind}-{hash_checkpoint_cached(path)}"
    if os.environ.get("MTDEBIAS_GGUF_CACHE"):
        return Path(os.environ["MTDEBIAS_GGUF_CACHE"]).expanduser() / name
    if os.access(path.parent, os.W_OK):
        return path.parent / name
    return Path("~/.cache/mtdebias/gguf").expanduser() / name


def float_folder(path: str | Path, progress: bool = True) -> Path:
    """The converted float32 checkpoint folder of a GGUF file, converting it on first use."""
    path = Path(path).expanduser()
    target = converted_dir(path)
    if (target / "config.json").is_file():
        return target
    header = read_header(path)
    check_readable(header)
    return build_once(target, "config.json", lambda staging: _convert(header, staging, target, progress))


def build_once(target: Path, marker: str, write: Callable[[Path], None]) -> Path:
    """``target``, built by ``write(staging)`` unless it holds ``marker`` already. The build runs
    in a temporary folder renamed into place, under a lock: two processes building the same
    target at once build it once, and a build that fails or is killed leaves nothing that looks
    finished (a killed one's temporary folder is removed by the next build)."""
    if (target / marker).is_file():
        return target
    from ..store.atomic import clean_stale_temporaries, temporary_dir
    from ..store.locking import FileLock

    target.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(target.parent / f".{target.name}.lock"):
        if (target / marker).is_file():  # another process built it while we waited
            return target
        # a build killed mid-way (SIGKILL, the OOM killer) left its staging folder, as big as the
        # model; only temporaries named as mtdebias names them, of writers that ended on this host, go
        clean_stale_temporaries(target.parent, recursive=False)
        staging = temporary_dir(target)
        try:
            write(staging)
            os.replace(staging, target)
        finally:
            if staging.exists():
                import shutil

                shutil.rmtree(staging, ignore_errors=True)
    return target


def _convert(header: GGUFHeader, staging: Path, target: Path, progress: bool) -> None:
    started = time.monotonic()
    if progress:
        print(f"converting {header.path.name} ({header.architecture}, {header.name or 'unnamed'}) to a float32 "
              f"folder, once: {target}", file=sys.stderr, flush=True)
    try:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        # transformers' own bars (one per tensor group, ~40 updates) are the CLI's to silence
        # (mtdebias.cli), not switched off here for every caller of the library
        folder, name = str(header.path.parent), header.path.name
        tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
        model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name)
        # the GGUF quantizer marks the model as not serializable; its weights are plain float
        # tensors by now, so the marks are dropped and the model saved as any checkpoint
        model.hf_quantizer = None
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
        model.save_pretrained(staging)
        tokenizer.save_pretrained(staging)
    except Exception as exc:
        if isinstance(exc, OSError):
            raise
        raise CheckpointError(f"{header.path}: GGUF conversion failed ({type(exc).__name__}: "
                              f"{str(exc).splitlines()[0][:300] if str(exc) else ''})") from exc
    if progress:
        print(f"converted {header.path.name} in {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
