"""fairseq as an optional dependency: the import check, its command-line tools, checkpoint safety.

fairseq is never imported at module level anywhere in mtdebias: everything that needs it calls
:func:`require_fairseq` first, which says how to install it when it is missing. The original
``fairseq`` package does not import on Python 3.11; ``fairseq-fixed`` (a maintained fork) does.

**Checkpoint safety.** torch ≥ 2.6 loads with ``weights_only=True``, which refuses the
``argparse.Namespace`` / OmegaConf objects fairseq pickles into its checkpoints.
:func:`trusted_fairseq_globals` allow-lists exactly those configuration classes (no code
objects, no arbitrary callables) for the duration of a load. Any other global in a checkpoint
is refused with an error naming it. This is still unpickling: load only checkpoints you trust.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from pathlib import Path
from typing import Iterator, Sequence

from ..errors import CheckpointError, InputError

INSTALL_HINT = ("install it with `make install-fairseq` (builds the fairseq-fixed fork from source, "
                "about 2.5 min on 2 cores; see README 'fairseq')")


class FairseqMissing(InputError):
    """fairseq is needed for this and is not installed."""


def fairseq_available() -> bool:
    try:
        import fairseq  # noqa: F401
    except ImportError:
        return False
    return True


def require_fairseq(what: str = "this") -> None:
    """Stop with a clear message (before any work) when fairseq cannot be imported."""
    try:
        import fairseq  # noqa: F401
    except ImportError as exc:
        raise FairseqMissing(f"{what} needs fairseq, which is not installed ({exc})", hint=INSTALL_HINT) from None


def _config_classes() -> list:
    """The classes fairseq writes into checkpoints' configuration (fairseq 0.9–0.12 layouts)."""
    import argparse
    import collections
    import typing

    # plain builtin types appear as OmegaConf nodes' declared types (ref_type/object_type)
    classes: list = [argparse.Namespace, collections.defaultdict, collections.OrderedDict, typing.Any,
                     dict, list, tuple, set, int, float, str, bool]
    try:
        from omegaconf import DictConfig, ListConfig, nodes
        from omegaconf.base import ContainerMetadata, Metadata
    except ImportError:  # pragma: no cover - omegaconf comes with fairseq
        return classes
    classes += [DictConfig, ListConfig, ContainerMetadata, Metadata]
    classes += [getattr(nodes, name) for name in ("AnyNode", "StringNode", "IntegerNode", "FloatNode",
                                                  "BooleanNode", "EnumNode", "ValueNode")
                if hasattr(nodes, name)]
    return classes


def _qualified(obj) -> str:
    return f"{obj.__module__}.{obj.__qualname__}" if hasattr(obj, "__qualname__") else str(obj)


@contextlib.contextmanager
def trusted_fairseq_globals(checkpoint: str | Path) -> Iterator[None]:
    """Allow fairseq's configuration classes in ``torch.load(weights_only=True)`` while inside.

    The checkpoint's pickle is inspected first: a global outside the allow-list stops the load
    with a :class:`CheckpointError` naming it, rather than being loaded or silently allowed.
    """
    import torch

    allowed = _config_classes()
    names = {_qualified(c) for c in allowed} | {"typing.Any"}
    try:
        unsafe = torch.serialization.get_unsafe_globals_in_checkpoint(str(checkpoint))
    except Exception as exc:  # not a zip checkpoint, truncated file, …
        raise CheckpointError(f"{checkpoint}: not a readable torch checkpoint ({exc})") from None
    refused = sorted(set(unsafe) - names)
    if refused:
        raise CheckpointError(
            f"{checkpoint}: holds Python objects outside fairseq's configuration classes "
            f"({', '.join(refused)}); refused by weights-only loading. If you trust the file, "
            "re-save its 'model' and 'cfg' entries with a plain dict configuration")
    with torch.serialization.safe_globals(allowed):
        yield


def run_fairseq_cli(tool: str, arguments: Sequence[str], log: str | Path | None = None) -> None:
    """Run a fairseq command-line tool (``preprocess``, ``train``, …) with this Python.

    ``python -m fairseq_cli.TOOL`` instead of the ``fairseq-TOOL`` script: the script may be
    missing from PATH (a venv not activated) or belong to another installation.
    """
    require_fairseq(f"fairseq-{tool}")
    command = [sys.executable, "-m", f"fairseq_cli.{tool}", *map(str, arguments)]
    result = subprocess.run(command, capture_output=True, text=True)
    if log is not None:
        Path(log).write_text(result.stdout + result.stderr, encoding="utf-8")
    if result.returncode != 0:
        tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-15:])
        raise InputError(f"fairseq-{tool} failed (exit {result.returncode}):\n{tail}",
                         hint=f"the full log is in {log}" if log else None)
