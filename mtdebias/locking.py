"""Inter-process file locks (``fcntl.flock``) with a stale-lock rule.

Two evaluators of one run (two ``eval`` processes, or inline evaluation beside ``eval --watch``)
write the same ``results.jsonl``; without a lock their read-modify-write cycles lose rows. The
kernel drops a ``flock`` when its holder exits, so a killed process does not leave a lock held
— unless a child forked while it held the lock keeps the open file (a probe's worker pool, a
subprocess that inherited the descriptor). The lock file therefore records its owner
(``host pid time``):

**stale-lock rule**: a lock that is held while its recorded owner, on this host, is no longer
running is stale. The waiter removes the lock file and locks a fresh one; whoever still holds
the old file holds a lock nobody else asks for. A lock whose owner is on another host (a shared
file system) is never broken: only a timeout ends that wait.

**no leaked lock**: whatever fails after the lock is taken (writing the owner record on a full
disk, Ctrl-C) gives the lock up and closes its file before the error goes on, and a wait has a
deadline (:data:`DEFAULT_TIMEOUT` unless the caller sets another) after which
:class:`LockTimeout` names the holder. A full disk is :class:`~mtdebias.errors.DiskFull`.
"""

from __future__ import annotations

import errno
import fcntl
import logging
import os
import socket
import time
from pathlib import Path

from .atomic import process_running
from .errors import MtdebiasError, disk_full_as

log = logging.getLogger(__name__)


class LockTimeout(MtdebiasError):
    """A lock stayed held by a running process for longer than the caller would wait."""


# Locks guarding a read-modify-write or an append are held for milliseconds: a wait this long
# means the holder is stuck, and saying so (and who it is) beats waiting forever.
DEFAULT_TIMEOUT = 600.0


def _describe(owner: tuple[str, int] | None) -> str:
    if owner is None:
        return "another process (it recorded no owner: it may be stuck, e.g. on a full disk)"
    return f"process {owner[1]} on {owner[0]}"


class FileLock:
    """An exclusive lock on ``path`` (created on first use, never deleted on release: deleting a
    lock file other processes may be waiting on would let two of them hold "the" lock)."""

    def __init__(self, path: str | Path, timeout: float | None = DEFAULT_TIMEOUT, poll: float = 0.05):
        self.path = Path(path)
        self.timeout = timeout
        self.poll = poll
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self, blocking: bool = True) -> bool:
        """Take the lock; with ``blocking=False`` return False at once when another holds it."""
        if self._fd is not None:
            raise RuntimeError(f"{self.path} is already held by this FileLock")
        with disk_full_as(self.path.parent):
            self.path.parent.mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        delay = self.poll
        while True:
            with disk_full_as(self.path):
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o666)
            try:
                state = self._try_lock(fd)
            except BaseException:
                os.close(fd)  # whatever failed after the open (a full disk, Ctrl-C): no handle is left behind
                raise
            if state == "held":
                self._fd = fd
                return True
            os.close(fd)
            if state == "retry":
                continue
            owner, inode = state
            if owner is not None and owner[0] == socket.gethostname() and not process_running(owner[1]):
                self._break_stale(owner, inode)
                continue
            if not blocking:
                return False
            if self.timeout is not None and time.monotonic() - started > self.timeout:
                raise LockTimeout(f"{self.path}: still locked by {_describe(owner)} after {self.timeout:.0f} s",
                                  ) from None
            time.sleep(delay)
            delay = min(delay * 1.5, 0.5)

    def _try_lock(self, fd: int) -> "str | tuple[tuple[str, int] | None, int]":
        """``"held"`` (``fd`` now holds the lock and names its owner), ``"retry"`` (the file was
        replaced: open it again) or, when another process holds the lock, (its recorded owner or
        None, the file's inode). Only the caller closes ``fd``."""
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise
            return self._owner(fd), os.fstat(fd).st_ino
        # the file may have been removed as stale between our open and our lock: then we hold
        # a lock on a file nobody else will open; start over on the current one
        try:
            same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
        except FileNotFoundError:
            same = False
        if not same:
            return "retry"
        with disk_full_as(self.path):
            try:
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"{socket.gethostname()} {os.getpid()} {time.time():.0f}\n".encode(), 0)
            except BaseException:
                # a lock without its owner record is never broken as stale; give it up rather than hold it
                fcntl.flock(fd, fcntl.LOCK_UN)
                raise
        return "held"

    def release(self) -> None:
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            os.ftruncate(fd, 0)  # no owner: a later waiter does not mistake this lock for stale
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def _owner(self, fd: int) -> tuple[str, int] | None:
        try:
            parts = os.pread(fd, 200, 0).decode("utf-8", "replace").split()
            return parts[0], int(parts[1])
        except (OSError, IndexError, ValueError):
            return None  # being written this instant, or emptied at release: not stale

    def _break_stale(self, owner: tuple[str, int], inode: int) -> None:
        # Two waiters may find the same stale lock: the second must not delete the fresh file the
        # first has just locked, so removal happens under a guard lock and only if the file is
        # still the one found stale.
        guard = os.open(f"{self.path}.break", os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o666)
        try:
            fcntl.flock(guard, fcntl.LOCK_EX)
            try:
                if os.stat(self.path).st_ino != inode:
                    return
                self.path.unlink()
            except FileNotFoundError:
                return
            log.warning("%s: broke a stale lock (its owner, process %d, has ended; a process it "
                        "forked still held the file)", self.path, owner[1])
        finally:
            os.close(guard)

    def __enter__(self) -> "FileLock":
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()
