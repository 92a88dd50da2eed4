"""Progress of long steps (training epochs, annotation shards, evaluation, augmentation).

On a terminal, a tqdm bar. Anywhere else (a log file, a pipe, a batch job) a bar is either
nothing (tqdm's ``disable=None``) or a stream of carriage returns, so there a step prints a plain
line instead, at a steady interval: where it is, its rate and the time left::

    epoch 3/10: 412/1200 batch (34%), 6.1 batch/s, ETA 2m09s, loss=3.112

The interval is ``MTDEBIAS_PROGRESS_SECONDS`` (default 30 s; 0 prints every update). Lines go
to stderr, where warnings go, so a command's stdout stays its result. A step of unknown length
(one probe's decoding) gets :func:`heartbeat` instead: a line at the same interval with the
time it has run.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from contextlib import contextmanager
from typing import Any, Iterable, Iterator, TextIO

DEFAULT_INTERVAL = 30.0
INTERVAL_ENV = "MTDEBIAS_PROGRESS_SECONDS"


def interval() -> float:
    """Seconds between plain progress lines."""
    value = os.environ.get(INTERVAL_ENV)
    try:
        return max(0.0, float(value)) if value else DEFAULT_INTERVAL
    except ValueError:
        return DEFAULT_INTERVAL


def is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or unusual stream
        return False


def duration(seconds: float) -> str:
    """``75`` → ``1m15s``; ``4000`` → ``1h06m``."""
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


class PlainProgress:
    """The part of tqdm's interface the package uses (``update``, ``set_postfix``, ``close``,
    iteration, ``with``), printing a plain line at most every :func:`interval` seconds and one
    when a step that lasted at least that long ends. ``announce``: also a line at the first
    update, and one at the end however short the step: for a step a reader waits on (a training
    epoch), whose first rate and ETA are worth seeing before the interval has passed."""

    def __init__(self, iterable: Iterable[Any] | None = None, *, total: int | None = None, desc: str = "",
                 unit: str = "it", initial: int = 0, stream: TextIO | None = None, every: float | None = None,
                 announce: bool = False):
        self.iterable, self.desc, self.unit = iterable, desc, unit
        if total is None and iterable is not None and hasattr(iterable, "__len__"):
            total = len(iterable)  # type: ignore[arg-type]
        self.total, self.n, self.initial = total, initial, initial
        self.stream = stream or sys.stderr
        self.every = interval() if every is None else every
        self.started = self.last = time.monotonic()
        self.postfix: dict[str, Any] = {}
        self.closed = False
        self.announce, self.printed = announce, False

    def __iter__(self) -> Iterator[Any]:
        for item in self.iterable or ():
            yield item
            self.update(1)
        self.close()

    def __enter__(self) -> "PlainProgress":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def update(self, n: int = 1) -> None:
        self.n += n
        now = time.monotonic()
        if now - self.last >= self.every or (self.announce and not self.printed):
            self.last = now
            self.print_line()

    def set_postfix(self, **values: Any) -> None:
        self.postfix = values

    def line(self) -> str:
        elapsed = time.monotonic() - self.started
        done = self.n - self.initial
        rate = done / elapsed if elapsed > 0 else 0.0
        where = f"{self.n}/{self.total} {self.unit}" if self.total else f"{self.n} {self.unit}"
        if self.total:
            where += f" ({100 * self.n / self.total:.0f}%)"
        parts = [where, f"{rate:.3g} {self.unit}/s" if rate >= 0.01 else f"{duration(elapsed)} elapsed"]
        if self.total and rate > 0 and self.n < self.total:
            parts.append(f"ETA {duration((self.total - self.n) / rate)}")
        parts += [f"{key}={value}" for key, value in self.postfix.items()]
        return f"{self.desc}: {', '.join(parts)}" if self.desc else ", ".join(parts)

    def print_line(self) -> None:
        self.printed = True
        print(self.line(), file=self.stream, flush=True)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        elapsed = time.monotonic() - self.started
        # a step shorter than the interval stays quiet, unless it announced itself
        if self.n > self.initial and (elapsed >= self.every or self.announce):
            print(f"{self.desc + ': ' if self.desc else ''}{self.n}"
                  f"{'/' + str(self.total) if self.total else ''} {self.unit} in {duration(elapsed)}",
                  file=self.stream, flush=True)


def progress(iterable: Iterable[Any] | None = None, *, total: int | None = None, desc: str = "", unit: str = "it",
             initial: int = 0, leave: bool = True, enabled: bool = True, stream: TextIO | None = None,
             announce: bool = False) -> Any:
    """A tqdm bar on a terminal, a :class:`PlainProgress` elsewhere (``announce``: see there);
    with ``enabled`` false (a worker process, another rank than the first) one that shows nothing."""
    stream = stream or sys.stderr
    if enabled and not is_terminal(stream):
        return PlainProgress(iterable, total=total, desc=desc, unit=unit, initial=initial, stream=stream,
                             announce=announce)
    from tqdm.auto import tqdm

    return tqdm(iterable, total=total, desc=desc, unit=unit, initial=initial, leave=leave, file=stream,
                disable=not enabled)


@contextmanager
def heartbeat(desc: str, stream: TextIO | None = None, every: float | None = None) -> Iterator[None]:
    """While the block runs, a line every :func:`interval` seconds saying it still runs and for how
    long (off a terminal only: there, whatever bars the step has show it). The first line comes
    when the block starts, so a reader knows what the silence is."""
    stream = stream or sys.stderr
    if is_terminal(stream):
        yield
        return
    every = interval() if every is None else every
    started = time.monotonic()
    print(f"{desc}: started", file=stream, flush=True)
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(max(every, 0.05)):
            print(f"{desc}: running, {duration(time.monotonic() - started)} elapsed", file=stream, flush=True)

    thread = threading.Thread(target=beat, name="mtdebias-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        print(f"{desc}: done in {duration(time.monotonic() - started)}", file=stream, flush=True)


__all__ = ["progress", "heartbeat", "PlainProgress", "interval", "duration", "INTERVAL_ENV"]
