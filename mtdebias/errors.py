"""User-facing errors.

Every error a user can cause by bad input is an :class:`InputError` that names the file, the
line (when there is one) and what to do about it. The CLI prints these without a traceback.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


# the most characters of one value (a key, an option's value, a line) an error message shows: a
# 30 MB key in a suite is named by its start and its length, not printed whole into a terminal or log
SHOWN = 200
# the most characters of a whole message (what the CLI prints): a backstop for any value a message
# echoes without passing it through :func:`shown` first
MESSAGE = 4000


def shorten(text: str, limit: int = SHOWN) -> str:
    """``text`` cut to about ``limit`` characters, saying how long it was."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"


def shown(value: object, limit: int = SHOWN) -> str:
    """``repr(value)`` for an error message, shortened like :func:`shorten`; a long string is
    cut before it is quoted (no 30 MB copy is made to print 200 characters of it)."""
    if isinstance(value, str) and len(value) > limit:
        return f"{value[:limit]!r}… ({len(value):,} characters)"
    return shorten(repr(value), limit)


class MtdebiasError(Exception):
    """Base class of the errors the CLI reports as one clean message."""


class InputError(MtdebiasError):
    """Bad input: names the file, the line and the remedy."""

    def __init__(self, message: str, *, path: str | Path | None = None, line: int | None = None,
                 hint: str | None = None):
        message, hint = shorten(message, MESSAGE), None if hint is None else shorten(hint, MESSAGE)
        self.message = message
        self.path = None if path is None else str(path)
        self.line = line
        self.hint = hint
        where = ""
        if self.path is not None:
            where = shorten(self.path, MESSAGE) + (f":{line}" if line is not None else "") + ": "
        text = where + message
        if hint:
            text += f" ({hint})"
        super().__init__(text)


class ConfigError(InputError):
    """A recipe or suite that does not validate."""


class CheckpointError(MtdebiasError):
    """A checkpoint directory that is missing, incomplete or corrupt."""


class DiskFull(MtdebiasError):
    """A write failed because the file system is full (ENOSPC) or over quota (EDQUOT)."""

    def __init__(self, path: str | Path):
        self.path = str(path)
        super().__init__(f"disk full: {self.path} (free some space, or point the run folder elsewhere, "
                         "then rerun the same command: finished work is kept and the rest resumes)")


class NotWritable(MtdebiasError):
    """A write failed in a way a rerun alone will not cure: a folder made read-only (permissions,
    ``chattr +i``, a read-only mount) or a failing device. Every write is atomic, so nothing
    half-written was left. ``action``: "write", or "access" where the failed call may have been a
    read."""

    def __init__(self, path: str | Path, exc: OSError, action: str = "write"):
        self.path = str(path)
        super().__init__(f"cannot {action} {self.path}: {exc.strerror or exc} (fix the permissions of it or its "
                         "folder (chmod or chown, chattr -i, a read-write mount) or choose another place, then "
                         "rerun the same command: work already stored is kept)")


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill``, a batch scheduler's stop): the CLI turns it into this, so that it stops the
    work exactly as Ctrl-C does (every ``except KeyboardInterrupt`` path runs), but exits 143."""


def interrupted_status(exc: KeyboardInterrupt) -> int:
    """The exit status of a command stopped by ``exc``: 128 + the signal, as a shell reports it."""
    return 143 if isinstance(exc, Terminated) else 130


def disk_full(exc: BaseException) -> bool:
    """Whether ``exc`` is an OSError saying the disk (or the user's quota) is full."""
    import errno

    return isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT)


def not_writable(exc: BaseException) -> bool:
    """Whether ``exc`` says a place cannot be used as things stand: permissions, an immutable
    folder (``chattr +i``), a read-only mount. Retrying will not help; the user must change the
    place or choose another."""
    import errno

    return isinstance(exc, OSError) and exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS)


@contextmanager
def disk_full_as(path: str | Path) -> Iterator[None]:
    """Inside the block, a full-disk OSError becomes :class:`DiskFull` naming ``path`` (exit 2 and
    one message, not a traceback); every other error passes as it is."""
    try:
        yield
    except OSError as exc:
        if disk_full(exc):
            raise DiskFull(path) from None
        raise
