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

**never through a link**: a lock file is opened with ``O_NOFOLLOW`` and must be a regular file
with one name. Locking writes the owner record over the file's start, so a lock path that is a
symbolic link (or a hard link) to a file of the user's would empty that file; such a path is an
:class:`~mtdebias.errors.InputError` naming it, before anything is written.

**heartbeat** (``heartbeat=`` seconds): a holder touches its lock file that often while it holds
it, and a waiter given ``abandoned_after=`` treats a held lock whose file has not been touched for
that long as abandoned and breaks it like a stale one. That ends the wait for a holder that is
alive but stopped (SIGSTOP, a frozen host), which the stale-lock rule cannot see; it is only for
locks whose work may safely be done twice (evaluation claims: results replace each other by
signature). The clocks of the hosts sharing the folder must agree to well within the deadline.
"""

from __future__ import annotations

import errno
import fcntl
import logging
import os
import socket
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from .atomic import process_running
from ..errors import InputError, MtdebiasError, disk_full_as
from ..textio import open_regular

log = logging.getLogger(__name__)


class LockTimeout(MtdebiasError):
    """A lock stayed held by a running process for longer than the caller would wait."""


# Locks guarding a read-modify-write or an append are held for milliseconds: a wait this long
# means the holder is stuck, and saying so (and who it is) beats waiting forever.
DEFAULT_TIMEOUT = 600.0


# O_NONBLOCK: a FIFO put where a lock file belongs must not hang the open; it is refused after
_OPEN_FLAGS = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


def _describe(owner: tuple[str, int, float | None] | None) -> str:
    if owner is None:
        return "another process (it recorded no owner: it may be stuck, e.g. on a full disk)"
    since = "" if owner[2] is None else f" since {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime(owner[2]))}"
    return f"process {owner[1]} on {owner[0]}{since}"


def _open_lock_file(path: Path) -> int:
    """A descriptor of the regular lock file at ``path``, created if missing; never through a link."""
    with disk_full_as(path):
        fd = open_regular(path, _OPEN_FLAGS, what="a lock file",
                          hint="move it out of the way: the lock file is made again as a plain file")
    if os.fstat(fd).st_nlink > 1:
        os.close(fd)
        raise InputError("a lock file has another name too (a hard link); locking writes over it, so it is not "
                         "used", path=path, hint="move it out of the way: the lock file is made again as a plain file")
    return fd


def check_lock_folder(folder: Path, what: str = "a folder of lock files") -> None:
    """Refuse a file, or a symbolic link, standing where a folder the store makes (``.claims``,
    ``eval/``, ``responses/``) is to be made: a file would stop the work halfway with a traceback,
    and through a link the store's files would land in a folder of the user's."""
    if os.path.islink(folder):
        raise InputError(f"this is a symbolic link where {what} belongs; mtdebias makes that folder itself "
                         "and never writes through a link", path=folder,
                         hint=f"remove the link (rm {folder}): the folder is made again when needed")
    if os.path.lexists(folder) and not folder.is_dir():
        raise InputError(f"this is a file where {what} belongs", path=folder,
                         hint="move it out of the way (nothing of mtdebias's is in it): the folder is "
                              "made again when needed")


class FileLock:
    """An exclusive lock on ``path`` (created on first use, never deleted on release: deleting a
    lock file other processes may be waiting on would let two of them hold "the" lock)."""

    def __init__(self, path: str | Path, timeout: float | None = DEFAULT_TIMEOUT, poll: float = 0.05,
                 heartbeat: float | None = None, abandoned_after: float | None = None):
        self.path = Path(path)
        self.timeout = timeout
        self.poll = poll
        self.heartbeat = heartbeat
        self.abandoned_after = abandoned_after
        self.taken_over: str | None = None  # the holder whose abandoned lock this one broke, described
        self._fd: int | None = None
        self._beating: threading.Event | None = None
        self._beat_thread: threading.Thread | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self, blocking: bool = True) -> bool:
        """Take the lock; with ``blocking=False`` return False at once when another holds it."""
        if self._fd is not None:
            raise RuntimeError(f"{self.path} is already held by this FileLock")
        self._make_folder()
        started = time.monotonic()
        delay = self.poll
        while True:
            fd = _open_lock_file(self.path)
            try:
                state = self._try_lock(fd)
            except BaseException:
                os.close(fd)  # whatever failed after the open (a full disk, Ctrl-C): no handle is left behind
                raise
            if state == "held":
                self._fd = fd
                self._start_heartbeat()
                return True
            os.close(fd)
            if state == "retry":
                continue
            owner, info = state
            if owner is not None and owner[0] == socket.gethostname() and not process_running(owner[1]):
                self._break_stale(info.st_ino, f"its owner, process {owner[1]}, has ended; a process it "
                                               "forked still held the file")
                continue
            silent = time.time() - info.st_mtime
            # only a recorded owner: a holder between its flock and its record leaves the file
            # with the time of the last release, which says nothing of the holder
            if owner is not None and self.abandoned_after is not None and silent > self.abandoned_after:
                if self._break_stale(info.st_ino, f"held by {_describe(owner)}, whose heartbeat stopped "
                                                  f"{silent:.0f} s ago"):
                    self.taken_over = f"{_describe(owner)} (no heartbeat for {silent:.0f} s)"
                continue
            if not blocking:
                return False
            if self.timeout is not None and time.monotonic() - started > self.timeout:
                raise LockTimeout(f"{self.path}: still locked by {_describe(owner)} after {self.timeout:.0f} s",
                                  ) from None
            time.sleep(delay)
            delay = min(delay * 1.5, 0.5)

    def _make_folder(self) -> None:
        folder = self.path.parent
        if os.path.lexists(folder) and not folder.is_dir():
            check_lock_folder(folder, "the folder of a lock file")
        try:
            with disk_full_as(folder):
                folder.mkdir(parents=True, exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            # a file stands where a folder above the lock belongs (a run's eval/ made a file)
            blocking = next((p for p in reversed((folder, *folder.parents)) if os.path.lexists(p) and not p.is_dir()),
                            None)
            if blocking is not None:
                check_lock_folder(blocking, "a folder")
            raise

    def holder(self) -> str | None:
        """Who holds the lock now, described (process, host, since when, last heartbeat), or None
        when it is free; takes nothing."""
        if not self.path.is_file():
            return None
        fd = _open_lock_file(self.path)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    raise
                silent = time.time() - os.fstat(fd).st_mtime
                beat = f", last heartbeat {silent:.0f} s ago" if self.heartbeat or self.abandoned_after else ""
                return _describe(self._owner(fd)) + beat
            fcntl.flock(fd, fcntl.LOCK_UN)
            return None
        finally:
            os.close(fd)

    def _try_lock(self, fd: int) -> "str | tuple[tuple[str, int, float | None] | None, os.stat_result]":
        """``"held"`` (``fd`` now holds the lock and names its owner), ``"retry"`` (the file was
        replaced: open it again) or, when another process holds the lock, (its recorded owner or
        None, the file's stat). Only the caller closes ``fd``."""
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise
            return self._owner(fd), os.fstat(fd)
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

    def _start_heartbeat(self) -> None:
        if not self.heartbeat:
            return
        fd, stop = self._fd, threading.Event()

        def beat() -> None:
            while not stop.wait(self.heartbeat):
                try:
                    os.utime(fd)  # by descriptor: never the file a breaker may have put at the path since
                except OSError:
                    return  # a holder that cannot touch its file looks abandoned, as it should
        self._beating = stop
        self._beat_thread = threading.Thread(target=beat, name=f"heartbeat {self.path.name}", daemon=True)
        self._beat_thread.start()

    def release(self) -> None:
        if self._fd is None:
            return
        if self._beating is not None:  # stopped before the descriptor it touches is closed
            self._beating.set()
            self._beat_thread.join()
            self._beating = self._beat_thread = None
        fd, self._fd = self._fd, None
        try:
            os.ftruncate(fd, 0)  # no owner: a later waiter does not mistake this lock for stale
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def _owner(self, fd: int) -> tuple[str, int, float | None] | None:
        try:
            parts = os.pread(fd, 200, 0).decode("utf-8", "replace").split()
            since = float(parts[2]) if len(parts) > 2 else None
            return parts[0], int(parts[1]), since
        except (OSError, IndexError, ValueError):
            return None  # being written this instant, or emptied at release: not stale

    def _break_stale(self, inode: int, why: str) -> bool:
        """Remove the lock file found held by a holder that will never release it; True when
        this call removed it."""
        # Two waiters may find the same stale lock: the second must not delete the fresh file the
        # first has just locked, so removal happens under a guard lock and only if the file is
        # still the one found stale.
        guard = _open_lock_file(Path(f"{self.path}.break"))
        try:
            fcntl.flock(guard, fcntl.LOCK_EX)
            try:
                if os.stat(self.path).st_ino != inode:
                    return False
                self.path.unlink()
            except FileNotFoundError:
                return False
            log.warning("%s: broke a stale lock (%s)", self.path, why)
            return True
        finally:
            os.close(guard)

    def __enter__(self) -> "FileLock":
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()


@contextmanager
def output_lock(folder: str | Path) -> Iterator[None]:
    """Hold an exclusive lock on ``folder`` itself while a command checks and replaces its output
    there (a report's set, a debiased checkpoint), so two writers onto one path cannot interleave
    their renames. The folder is locked rather than a lock file beside the output: a lock file
    would stay behind in the user's folder for good, and the lock is held for a check and a few
    renames only (a kill drops it with the process)."""
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError as exc:
            # NFS emulates flock with byte-range locks, which want a descriptor open for writing (a
            # folder has none): there the command goes on unlocked. The check right before the
            # renames still stands; only two writers racing onto one path are not kept apart.
            if exc.errno not in (errno.EBADF, errno.ENOLCK, errno.EINVAL, errno.EOPNOTSUPP):
                raise
        yield
    finally:
        os.close(fd)  # closing the last descriptor releases the lock
