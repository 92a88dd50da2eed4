"""A translator that reports how far a probe's decoding has come, and keeps what it decoded.

A probe hands its translator all its sources in one ``translate`` (or ``sample``, ``score``,
``respond``) call, which can run for hours on an LLM and says nothing meanwhile.
:class:`ProgressTranslator` passes them on in chunks and counts the sentences done, so
:func:`mtdebias.progress.progress` shows items done / total with a rate and an ETA (a bar on a
terminal, a line every ``MTDEBIAS_PROGRESS_SECONDS`` elsewhere). Given a journal (the run
store's :class:`~mtdebias.store.runs.DecodeJournal`), each chunk's outputs are stored as soon as they
are decoded and a chunk already stored is not decoded again, so a killed evaluation resumes at
its last chunk; the ETA then counts only the chunks decoded now. Every other attribute is the
wrapped translator's.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

from ..progress import progress
from ..signature import hash_json
from .base import Scored, declared

# the calls that take a list of sources (score: and a parallel list of targets) and decode each one
CHUNKED = ("translate", "sample", "score", "respond")
# sentences in the first call, and in the largest: hf-causal's greedy loop runs up to 256 rows a
# step and is 1.2x as fast on Gemma 3 with 256 as with 64 (docs/released-models.md); a killed run
# loses at most one call's sentences
FIRST, LARGEST = 8, 256


def chunks(total: int) -> list[tuple[int, int]]:
    """(start, end) of each call: 8 sentences, then twice as many each time up to 256, so the first
    rate and ETA come after a few sentences (an LLM takes seconds each) while a batched model
    still gets batches worth running. They depend on the count only, never on timing, so the
    same sources are always batched the same way."""
    out, start, size = [], 0, FIRST
    while start < total:
        out.append((start, min(start + size, total)))
        start, size = start + size, min(size * 2, LARGEST)
    return out


class ProgressTranslator:
    """``translator`` with its chunked calls (:data:`CHUNKED`) split into chunks and counted, and
    with ``journal`` (``get(key)``/``put(key, record)``) each chunk's outputs kept and reused."""

    def __init__(self, translator: Any, desc: str, journal: Any = None):
        self._translator = declared(translator)
        self._desc = desc
        self._journal = journal
        self._replayed_truncations = 0  # cut inputs of replayed chunks, which the model did not see now

    def __getattr__(self, name: str) -> Any:
        if name == "truncated_inputs":  # the probe's meta counts them whether decoded now or before a kill
            return self._translator.truncated_inputs + self._replayed_truncations
        attribute = getattr(self._translator, name)
        if name in CHUNKED and callable(attribute):
            return functools.partial(self._chunked, name, attribute)
        return attribute

    def _chunked(self, name: str, method: Callable[..., list], sources: Sequence[str], *args: Any,
                 **kwargs: Any) -> list:
        sources = list(sources)
        parallel = [sources]
        if name == "score":  # targets run beside the sources, chunk for chunk
            if args:
                parallel.append(list(args[0]))
                args = args[1:]
            else:
                parallel.append(list(kwargs.pop("targets")))
        spans = chunks(len(sources))
        if self._journal is None and len(sources) <= FIRST:  # one call: nothing to count or keep
            return list(method(*parallel, *args, **kwargs))
        keys = [hash_json([name, [part[start:end] for part in parallel], list(args), kwargs])
                for start, end in spans]
        stored = [self._journal.get(key) if self._journal is not None else None for key in keys]
        done = sum(end - start for (start, end), record in zip(spans, stored) if record is not None)
        out: list = []
        with progress(total=len(sources), desc=self._desc, unit="sentence", initial=done,
                      enabled=len(sources) > FIRST) as bar:
            for (start, end), key, record in zip(spans, keys, stored):
                if record is not None:
                    out += [_decode(name, item) for item in record["outputs"]]
                    self._replayed_truncations += record.get("truncated", 0)
                    continue
                before = self._translator.truncated_inputs
                outputs = list(method(*[part[start:end] for part in parallel], *args, **kwargs))
                if self._journal is not None:
                    self._journal.put(key, {"outputs": [_encode(name, item) for item in outputs],
                                            "truncated": self._translator.truncated_inputs - before})
                out += outputs
                bar.update(end - start)
        return out


def _encode(name: str, output: Any) -> Any:
    """One output as JSON: a :class:`Scored` as its fields (floats round-trip exactly), text as is."""
    if name == "score":
        return {"total": output.total, "tokens": list(output.tokens), "pieces": list(output.pieces)}
    return output


def _decode(name: str, stored: Any) -> Any:
    if name == "score":
        return Scored(stored["total"], tuple(stored["tokens"]), tuple(stored["pieces"]))
    return stored


__all__ = ["ProgressTranslator", "chunks"]
