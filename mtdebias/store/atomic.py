"""Atomic file writes: a reader sees the old file or the new one, never half of one.

Results are written to a temporary file in the same directory, flushed, fsynced and renamed
over the target, so an interrupted run leaves nothing half-written behind.

The temporary file is created with mode 0666 filtered by the process umask (as ``open`` would
create the target), and its name carries the writer's host and process id: ``.NAME.HOST-PID.RANDOM.tmp``.
A process killed mid-write leaves such a file behind; :func:`clean_stale_temporaries` removes
the ones whose writer is no longer running. A write that fails on a full disk removes its
temporary and raises :class:`~mtdebias.errors.DiskFull` naming the target.
"""

from __future__ import annotations

import errno
import glob
import hashlib
import json
import os
import re
import secrets
import shutil
import socket
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence, TextIO


@contextmanager
def atomic_open(path: str | Path, mode: str = "w", encoding: str | None = "utf-8") -> Iterator[TextIO]:
    """Open a temporary sibling of ``path`` for writing; rename it over ``path`` on success."""
    from ..errors import disk_full_as

    path = Path(path)
    _check_target(path)
    with disk_full_as(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = _create_temporary(path)
    with disk_full_as(path):  # the old file (or none) stays: the rerun writes it again
        try:
            with os.fdopen(fd, mode, encoding=None if "b" in mode else encoding) as handle:
                yield handle
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise


def _check_target(path: Path) -> None:
    """A folder at ``path``, or a file where one of its folders must be, as an InputError naming it:
    the write could only end in IsADirectoryError or FileExistsError once the data was written,
    and a file is never renamed over a folder (it would take what the folder holds)."""
    from ..errors import InputError

    if path.is_dir() and not path.is_symlink():  # a link to a folder is replaced as a link
        raise InputError("a folder stands where this file is to be written; refused", path=path,
                         hint="name a file, not a folder, or move the folder away")
    above = file_above(path)
    if above is not None:
        raise InputError(f"{above} is a file, where a folder of this path must be", path=path,
                         hint="choose another path, or move the file away")


def file_above(path: str | Path) -> Path | None:
    """The file standing where a folder of ``path`` must be (``train.en/x`` → ``train.en``), if any."""
    for parent in Path(path).absolute().parents:
        if os.path.lexists(parent):
            return None if parent.is_dir() else parent
    return None


def _create_temporary(path: Path) -> tuple[int, str]:
    # os.open applies the umask to 0o666 like a plain open() would; mkstemp would force 0600
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    while True:
        tmp = str(_owned_sibling(path, "tmp"))
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue


# a folder may be shared between machines (NFS): only this host's writers can be checked
_HOST = hashlib.sha1(socket.gethostname().encode()).hexdigest()[:6]
# .NAME.HOST-PID.RANDOM.KIND beside NAME: what it stands for and who wrote it, so a cleaner can tell
# a dead writer's leftovers (KIND tmp: a temporary; old: a replaced folder set aside) from a live one's
_OWNED = r"^\.(?P<name>.+)\.(?P<host>[0-9a-f]{6})-(?P<pid>\d+)\.[0-9a-f]{8}\."
_TEMPORARY = re.compile(_OWNED + r"tmp$")
_ASIDE = re.compile(_OWNED + r"old$")


def _owned_sibling(target: Path, kind: str) -> Path:
    """A new name beside ``target`` carrying this host and process (see :data:`_OWNED`)."""
    return target.parent / f".{target.name}.{_HOST}-{os.getpid()}.{secrets.token_hex(4)}.{kind}"


def target_of(path: str | Path) -> Path:
    """The file a temporary of :func:`atomic_open` stands in for (``path`` itself when it is none),
    so that an error names what the user asked to write, not ``.NAME.HOST-PID.RANDOM.tmp``."""
    path = Path(path)
    found = _TEMPORARY.match(path.name)
    return path.with_name(found["name"]) if found else path


def process_running(pid: int) -> bool:
    """Whether process ``pid`` of this host is alive (the owner check of temporaries and locks)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, owned by someone else
        return True
    return True


def clean_stale_temporaries(folder: str | Path, recursive: bool = True) -> list[Path]:
    """Delete temporaries of :func:`atomic_open` and :func:`temporary_dir` whose writing process
    has ended (it was killed mid-write); returns what was deleted. Temporaries of running writers
    (and of other hosts, which cannot be checked) are left alone."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    removed = []
    for candidate in sorted(folder.rglob(".*.tmp") if recursive else folder.glob(".*.tmp")):
        match = _TEMPORARY.match(candidate.name)
        if (match is None or match["host"] != _HOST or candidate.is_symlink()
                or any(candidate.is_relative_to(r) for r in removed) or process_running(int(match["pid"]))):
            continue
        try:
            if candidate.is_dir():
                shutil.rmtree(candidate)
            else:
                candidate.unlink()
            removed.append(candidate)
        except FileNotFoundError:  # another cleaner was faster
            continue
    return removed


def temporary_dir(target: str | Path) -> Path:
    """A new empty folder beside ``target`` to build it (or a set of files) in before renaming
    into place; named like :func:`atomic_open`'s temporaries, so a writer killed mid-way leaves
    something :func:`clean_stale_temporaries` removes (mkdtemp's names say nothing of an owner)."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    while True:
        tmp = _owned_sibling(target, "tmp")
        try:
            tmp.mkdir()
            return tmp
        except FileExistsError:
            continue


def replace_folder(new: str | Path, target: str | Path) -> None:
    """Rename the complete folder ``new`` (a :func:`temporary_dir` of ``target``) to ``target``,
    replacing the folder there; whether it may be replaced is the caller's to check.

    The old folder is renamed aside (``.NAME.HOST-PID.RANDOM.old``), the new one into place, and
    only then is the old one removed, so a kill at any moment leaves the old folder or the new one
    at ``target``, or, between the two renames, the old one aside for :func:`restore_replaced` to
    put back. Removing the old folder first would lose it to a kill before the rename, and the
    next writer would then delete the new copy as a stale temporary. The aside is not named like
    a temporary for the same reason: :func:`clean_stale_temporaries` must never take the only copy."""
    new, target = Path(new), Path(target)
    if not os.path.lexists(target):
        os.replace(new, target)
        return
    while True:
        aside = _owned_sibling(target, "old")
        if not os.path.lexists(aside):
            break
    os.replace(target, aside)
    os.replace(new, target)
    shutil.rmtree(aside)


def restore_replaced(target: str | Path) -> list[Path]:
    """Finish a :func:`replace_folder` of ``target`` whose process ended mid-way: its aside goes
    back to ``target`` when nothing stands there (the kill came between the two renames), and is
    removed when ``target`` is in place (the new folder). Asides of running writers (and of other
    hosts, which cannot be checked) are left alone. Returns the asides restored or removed."""
    target = Path(target)
    done = []
    if not target.parent.is_dir():
        return done
    for aside in sorted(target.parent.glob(f".{glob.escape(target.name)}.*.old")):
        match = _ASIDE.match(aside.name)
        if (match is None or match["name"] != target.name or match["host"] != _HOST or aside.is_symlink()
                or not aside.is_dir() or process_running(int(match["pid"]))):
            continue
        if os.path.lexists(target):
            shutil.rmtree(aside, ignore_errors=True)
        else:
            os.replace(aside, target)
        done.append(aside)
    return done


def replace_together(staging: Path, names: Sequence[str], folder: Path) -> None:
    """Move the entries ``names`` (files or folders) of ``staging`` over their namesakes in
    ``folder``, in that order, then remove ``staging``. Every move is one rename, so the set is
    mixed only between two renames (microseconds, not the time it took to write the files);
    put the entry readers open first (an HTML page) last. A folder replaced is first renamed
    into ``staging``, so none of its old files survive beside the new ones.

    A folder is only ever replaced by a folder: a file written over a folder (``report --out
    runs``) would delete everything in it, so that raises :class:`IsADirectoryError` before
    anything moves. Whether a folder may be replaced by another is the caller's to check.
    A file (or a link) where a folder goes is removed first: a rename cannot put a folder there."""
    for name in names:
        final = folder / name
        if final.is_dir() and not final.is_symlink() and not (staging / name).is_dir():
            raise IsADirectoryError(errno.EISDIR, "a folder is never replaced by a file", str(final))
    for name in names:
        final = folder / name
        if final.is_dir() and not final.is_symlink():
            os.replace(final, staging / f"{name}.old")
        elif (staging / name).is_dir() and os.path.lexists(final):
            os.unlink(final)
        os.replace(staging / name, final)
    shutil.rmtree(staging, ignore_errors=True)


def write_text(path: str | Path, text: str) -> None:
    with atomic_open(path) as handle:
        handle.write(text)


def write_bytes(path: str | Path, data: bytes) -> None:
    with atomic_open(path, "wb") as handle:
        handle.write(data)


def write_json(path: str | Path, obj: Any) -> None:
    with atomic_open(path) as handle:
        json.dump(obj, handle, ensure_ascii=False, indent=2, sort_keys=True)
        handle.write("\n")


# What json.dumps(ensure_ascii=False) leaves raw and a reader, an editor or a terminal can misread:
# DEL and the C1 controls (U+0085 is a line break to str.splitlines, U+009B starts a terminal
# escape), the Unicode line and paragraph separators, and lone surrogates (which UTF-8 cannot
# encode). JSON's other controls are escaped by json.dumps already.
_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def json_line(row: Any) -> str:
    """``row`` as one line of a JSON-lines file, ending in "\\n": the one writer rule of every
    JSON-lines store (results, attempts, the training log, the response cache). Text stays
    readable (no ASCII escaping of accents or scripts), but every character in _UNSAFE is
    written as a \\uXXXX escape, so the line holds no byte that a line reader splits on or a
    terminal obeys, and reads back as the same text. Those characters can only stand inside JSON
    strings there (the syntax around them is ASCII), where an escape means the same."""
    text = json.dumps(row, ensure_ascii=False, sort_keys=True)
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n"


def write_jsonl(path: str | Path, rows: Iterable[Any]) -> None:
    with atomic_open(path) as handle:
        for row in rows:
            handle.write(json_line(row))


def read_jsonl(path: str | Path) -> list[Any]:
    return [row for _, row in enumerate_jsonl(path)]


def enumerate_jsonl(path: str | Path) -> list[tuple[int, Any]]:
    """(line number, parsed row) of each non-blank line; a line that is not JSON is an InputError
    naming it. A missing file has no rows.

    Lines end at "\\n" only (U+2028 or U+0085 inside a string is text), and control characters
    are left to the JSON parser: it refuses the C0 ones raw inside strings, and accepts a raw DEL
    or C1 control there, which files written before :func:`json_line` escaped them may hold."""
    path = Path(path)
    if not path.exists():
        return []
    from ..errors import InputError
    from ..textio import iter_raw_lines  # invalid UTF-8: an InputError naming the line

    rows = []
    for number, line in iter_raw_lines(path):
        if line.strip():
            try:
                rows.append((number, json.loads(line)))
            except (json.JSONDecodeError, RecursionError) as exc:
                why = exc.msg if isinstance(exc, json.JSONDecodeError) else "nested too deeply"
                raise InputError(f"not valid JSON: {why}", path=path, line=number,
                                 hint="delete the damaged line or the file to recompute it") from None
    return rows


def check_writable(folder: str | Path, what: str) -> None:
    """Fail before any work when nothing can be written in ``folder`` (created later if missing).

    The test creates and removes a file in the folder, or in its nearest existing parent when it
    does not exist yet: permission bits say nothing about a read-only mount, an ACL or root."""
    from ..errors import InputError

    folder = Path(folder).absolute()
    existing = folder
    while not os.path.lexists(existing) and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise InputError(f"{what}: cannot create a folder here, {existing} is a file", path=folder,
                         hint="choose another path")
    try:
        fd, probe = _create_temporary(existing / "write-test")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise InputError(f"{what}: cannot write in {existing} ({exc.strerror or exc})", path=folder,
                         hint="choose a folder you can write to, or fix its permissions") from None
