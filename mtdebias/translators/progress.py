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
FIRST, LARGEST = 8, 64  # sentences in the first call, and in the largest


def chunks(total: int) -> list[tuple[int, int]]:
    """(start, end) of each call: 8 sentences, then twice as many each time up to 64, so the first
    rate and ETA come after a few sentences (an LLM takes seconds each) while a batched model
    still gets batches worth running. They depend on the count only, never on timing, so the
    same sources are always batched the same way."""
    out, start, size = [], 0, FIRST
    while start < total:
        out.append((start, min(start + size, total)))
        start, size = start + size, min(size * 2, LARGEST)
    return out


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
        if len(sources) <= FIRST:  # one call: nothing to count
            return list(method(sources, *args, **kwargs))
        out: list = []
        with progress(total=len(sources), desc=self._desc, unit="sentence") as bar:
            for start, end in chunks(len(sources)):
                out += method(sources[start:end], *args, **kwargs)
                bar.update(end - start)
        return out


__all__ = ["ProgressTranslator", "chunks"]
