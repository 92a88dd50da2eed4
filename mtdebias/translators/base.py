"""The translator protocol: the three calls probes need, a signature, and the optional parts.

* ``translate``: one output per source (beam search for models).
* ``sample``: ``n`` outputs per source, ε-sampling (Hewitt et al. 2022) for models.
* ``score``: forced-decoding log-probabilities of given targets (teacher forcing).
* ``signature``: what identifies the system (model hash and backend), for result signatures.

Backends that cannot do a call (a file of fixed translations cannot sample) raise
:class:`UnsupportedCall`, so probes can say plainly what a backend lacks.

What some backends have beyond that is declared, typed, on :class:`BaseTranslator` (every
built-in backend derives from it), with the value of a backend that lacks it: ``respond`` (an
LLM answering a question), the inputs cut to the model's positions, an API's ``usage`` and
``served_models``, and a file's ``missing`` sources and ``mismatched_lines``. An object written to
the bare protocol (a plugin's, a test's) is read through :func:`declared`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Protocol, Sequence, runtime_checkable

from ..errors import MtdebiasError
from ..signature import hash_text


# ε of ε-sampling (Hewitt et al. 2022), the one default every backend, probe and command uses.
# The uncertainty paper samples 128 translations per source but does not state ε; 0.02 is the
# value Freitag et al. (2023) recommend for ε-sampling in MT.
DEFAULT_EPSILON = 0.02


class UnsupportedCall(MtdebiasError):
    """A backend was asked for a call it cannot serve (e.g. sampling from a file)."""


def source_seed(seed: int, source: str) -> int:
    """The seed of one source's samples, for every backend: a function of the seed and the text
    only, so a source draws the same samples whichever sources it is asked with (and a resumed
    run draws the same ones)."""
    return int(hash_text(f"{seed}\t{source}"), 16) % (2**31 - 1)


@dataclass(frozen=True)
class Scored:
    """Log-probability (natural log) of one target under a model, by teacher forcing.

    ``tokens`` holds one log-probability per target piece, end-of-sentence included;
    ``total`` is their sum.
    """

    total: float
    tokens: tuple[float, ...]
    pieces: tuple[str, ...]

    @property
    def mean(self) -> float:
        return self.total / max(len(self.tokens), 1)


@runtime_checkable
class Translator(Protocol):
    def translate(self, sources: Sequence[str], beam: int = 5) -> list[str]: ...

    def sample(self, sources: Sequence[str], n: int = 128, epsilon: float = DEFAULT_EPSILON,
               temperature: float = 1.0, seed: int = 0) -> list[list[str]]: ...

    def score(self, sources: Sequence[str], targets: Sequence[str]) -> list[Scored]: ...

    def signature(self) -> str:
        """Identity of the system, e.g. ``hf:9b1c77aa0f3e`` or ``file:3f2a9c1d04e2``."""
        ...


class BaseTranslator:
    """The optional parts of a translator, declared with the value of a backend that lacks them;
    a backend that has one sets or defines it."""

    #: an LLM's answer to each prompt, asked as it is (``gest_choice`` asks questions); None: cannot answer
    respond: Callable[..., list[str]] | None = None
    #: how many sources, over all calls so far, were longer than the model's positions and cut to fit
    truncated_inputs: int = 0
    #: which sources (0-based) of the last call were cut
    last_truncated: Sequence[int] = ()
    #: an API's counts so far (requests, cache hits, retries, tokens); None: not an API
    usage: dict[str, int] | None = None
    #: the models an API server said answered (it may swap them)
    served_models: frozenset[str] | set[str] = frozenset()
    #: a file's sources asked for and not found in it (given "" with allow_missing)
    missing: Sequence[str] = ()
    #: a file's lines (1-based) whose source differs from the one asked for, matched by line number
    mismatched_lines: Sequence[int] = ()


class _Bare(BaseTranslator):
    """An object written to the bare protocol (the three calls and a signature), read with the
    optional parts it has and the declared defaults for the others: the one place that looks."""

    def __init__(self, inner: Any):
        self._inner = inner

    def __getattr__(self, name: str) -> Any:  # its calls, and anything else it has
        return getattr(self._inner, name)

    def _part(name: str, default: Any) -> property:  # noqa: N805  (builds the properties below)
        return property(lambda self: getattr(self._inner, name, default))

    respond = _part("respond", None)
    truncated_inputs = _part("truncated_inputs", 0)
    last_truncated = _part("last_truncated", ())
    usage = _part("usage", None)
    served_models = _part("served_models", frozenset())
    missing = _part("missing", ())
    mismatched_lines = _part("mismatched_lines", ())
    del _part


def declared(translator: Any) -> BaseTranslator:
    """``translator`` with every optional part declared: itself when it derives from
    :class:`BaseTranslator`, else read through an adapter with the defaults for what it lacks."""
    return translator if isinstance(translator, BaseTranslator) else _Bare(translator)
