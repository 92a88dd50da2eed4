"""A translator that reports how far a probe's decoding has come.

A probe hands its translator all its sources in one ``translate`` (or ``sample``) call, which
can run for hours on an LLM and says nothing meanwhile. :class:`ProgressTranslator` passes them
on in chunks and counts the sentences done, so :func:`mtdebias.progress.progress` shows items
done / total with a rate and an ETA (a bar on a terminal, a line every
``MTDEBIAS_PROGRESS_SECONDS`` elsewhere). Every other attribute is the wrapped translator's.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

from ..progress import progress

CHUNKED = ("translate", "sample")  # the calls that take a list of sources and decode each one


def chunk_size(total: int) -> int:
    """Sentences per call: about 1/20 of the whole (a step of the progress every 5%), at least
    4 and at most 64, so a batched model still gets batches worth running. It depends on the
    count only, never on timing, so the same sources are always batched the same way."""
    return max(4, min(64, -(-total // 20)))


class ProgressTranslator:
    """``translator`` with its ``translate``/``sample`` calls split into chunks and counted."""

    def __init__(self, translator: Any, desc: str):
        self._translator = translator
        self._desc = desc

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._translator, name)
        if name in CHUNKED and callable(attribute):
            return functools.partial(self._chunked, attribute)
        return attribute

    def _chunked(self, method: Callable[..., list], sources: Sequence[str], *args: Any, **kwargs: Any) -> list:
        sources = list(sources)
        size = chunk_size(len(sources))
        if len(sources) <= size:  # one call: nothing to count
            return list(method(sources, *args, **kwargs))
        out: list = []
        with progress(total=len(sources), desc=self._desc, unit="sentence") as bar:
            for start in range(0, len(sources), size):
                part = sources[start:start + size]
                out += method(part, *args, **kwargs)
                bar.update(len(part))
        return out


__all__ = ["ProgressTranslator", "chunk_size"]
