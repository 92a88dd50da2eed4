"""Reading text corpora with errors that name the file and line.

* invalid UTF-8 → :class:`InputError` with file and line;
* a UTF-8 byte-order mark (what Windows editors put first) is not text: it is dropped, so the
  first line's first word is a word (an entity, a template's id, a TOML key) like any other;
* parallel files of different lengths → error naming both files and counts, before any work;
* empty or whitespace-only lines → skipped on both sides together and counted, as are lines
  over a length cap, with the first line numbers of each kind;
* a control character (NUL, ESC, …; tab and a line's CR/LF are text) → :class:`InputError`
  with file, line and column: such bytes reach C extensions (word aligners, tokenizers, spaCy)
  that crash on them instead of failing, and no sentence holds one.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from .errors import InputError


BOM = "\ufeff"


# C0 controls but tab, LF and CR, and DEL
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _decode(raw: bytes, path: Path, number: int, *, controls: bool = False) -> str:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _invalid_utf8(path, number, exc.start) from None
    if not controls:
        check_control(text, path, number)
    return text.removeprefix(BOM) if number == 1 else text


def check_control(text: str, path: str | Path | None, line: int | None) -> None:
    """Refuse ``text`` holding a control character, naming where (see the module notes)."""
    found = CONTROL.search(text)
    if found:
        char = ord(found.group())
        raise InputError(f"control character U+{char:04X} at column {found.start() + 1}",
                         path=path, line=line,
                         hint=f"remove it (e.g. tr -d '\\{char:03o}' < FILE); text inputs hold sentences, no "
                              "control bytes")


# what str.splitlines breaks a line at: a reply holding one of these is more than one line
LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
# every control character (C0, DEL, C1), the line and paragraph separators, lone surrogates
_HIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def visible(text: str, keep: str = "") -> str:
    """``text`` safe to print on a terminal as one line: each character of _HIDDEN but those in
    ``keep`` written as ``\\xNN`` or ``\\uNNNN`` (as Python's repr writes them), so text from
    outside (a server's reply) cannot move the cursor, clear the screen, set the window title or
    break the line, and a lone surrogate cannot stop the print (UTF-8 cannot encode it)."""
    def escape(found: re.Match) -> str:
        char = found.group()
        return char if char in keep else f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"

    return _HIDDEN.sub(escape, text)


def _invalid_utf8(path: Path, line: int, byte: int) -> InputError:
    return InputError(f"invalid UTF-8 at byte {byte} of the line", path=path, line=line,
                      hint="re-encode it as UTF-8 (e.g. iconv -f latin1 -t utf-8)")


# what a path that is not a regular file holds, as a message names it
_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"))
MOVE_ASIDE = "move it out of the way: mtdebias makes the file again as a plain file"


def open_regular(path: str | Path, flags: int = os.O_RDONLY, mode: int = 0o666, *, what: str = "this",
                 hint: str = MOVE_ASIDE) -> int:
    """A descriptor of the regular file at ``path`` opened with ``flags``, or an InputError naming
    the path, ``what`` it is for and ``hint``. Opened with ``O_NONBLOCK``: a FIFO at the path would
    hang a plain open (until a writer comes, for a reader) and a read; it is refused instead, as is a
    folder, a socket or a device. With ``O_NOFOLLOW`` in ``flags`` (every writer into the store and
    its caches) a symbolic link at the path is refused: a write through it lands in a file of the
    user's. ``O_NONBLOCK`` changes nothing for a regular file, so the descriptor is used as it is."""
    path = Path(path)
    try:
        fd = os.open(path, flags | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0), mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP and flags & os.O_NOFOLLOW:
            raise InputError(f"{what} is a symbolic link; mtdebias never writes through a link (it could lead "
                             "to a file of yours)", path=path,
                             hint=f"remove the link (rm {path}): the file is made again as a plain file") from None
        if exc.errno in (errno.EISDIR, errno.ENXIO, errno.ENOTDIR):
            raise InputError(f"cannot use this path as {what} ({exc.strerror})", path=path, hint=hint) from None
        raise
    kind = os.fstat(fd).st_mode
    if not stat.S_ISREG(kind):
        os.close(fd)
        found = next((name for test, name in _KINDS if test(kind)), "of another kind")
        raise InputError(f"{what} is {found}, not a regular file", path=path, hint=hint)
    return fd


def open_append(path: str | Path, *, what: str, read: bool = False) -> int:
    """A descriptor appending to the regular file at ``path`` (created if missing, also readable
    with ``read``); a link, folder or FIFO at the path is refused (:func:`open_regular`)."""
    flags = (os.O_RDWR if read else os.O_WRONLY) | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW
    return open_regular(path, flags, what=what)


def open_binary(path: str | Path, flags: int = os.O_RDONLY, *, what: str = "this", hint: str = MOVE_ASIDE):
    """``path`` open for reading bytes; anything but a regular file refused (:func:`open_regular`)."""
    return os.fdopen(open_regular(path, flags, what=what, hint=hint), "rb")


def read_bytes(path: str | Path, flags: int = os.O_RDONLY, *, what: str = "this", hint: str = MOVE_ASIDE) -> bytes:
    """The bytes of the regular file at ``path`` (:func:`open_regular`)."""
    with open_binary(path, flags, what=what, hint=hint) as handle:
        return handle.read()


def _require_file(path: str | Path) -> Path:
    """``path`` as a Path, refused with a message when it names no file or no file can have its
    name (a part longer than the file system allows: ``is_file`` swallows only "not there")."""
    path = Path(path)
    try:
        found = path.is_file()
    except OSError as exc:
        raise InputError(f"cannot read this path ({exc.strerror})", path=path, hint="check the path") from None
    if not found:
        raise InputError("file not found", path=path, hint="check the path")
    return path


def read_text(path: str | Path) -> str:
    """A whole file as text (a recipe, a suite, a CSV); invalid UTF-8 raises naming the line and
    the byte within it, as :func:`iter_lines` does."""
    path = _require_file(path)
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8").removeprefix(BOM)
    except UnicodeDecodeError as exc:
        line_start = raw.rfind(b"\n", 0, exc.start) + 1
        raise _invalid_utf8(path, raw.count(b"\n", 0, exc.start) + 1, exc.start - line_start) from None
    found = CONTROL.search(text)
    if found:
        line_start = text.rfind("\n", 0, found.start()) + 1
        check_control(text[line_start:found.end()], path, text.count("\n", 0, found.start()) + 1)
    return text


def parse_toml(text: str, path: str | Path | None, error: type[InputError] = InputError) -> dict[str, Any]:
    """``text`` read as TOML; not TOML, or nested so deep that the parser runs out of stack
    (``a = [[[[…`` a few hundred levels down: a RecursionError, which no real file comes near),
    is one ``error`` naming ``path``."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"not valid TOML: {exc}", path=path) from None
    except RecursionError:
        raise error("not valid TOML: tables or arrays nested too deeply to read", path=path,
                    hint="a recipe or suite needs a few levels at most") from None


def iter_lines(path: str | Path) -> Iterator[str]:
    """Yield lines without their newline; invalid UTF-8 raises with file and line."""
    path = _require_file(path)
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, 1):
            yield _decode(raw, path, number).rstrip("\r\n")


def iter_raw_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """(number, line without its line ending) of a file whose lines are parsed further (JSON
    lines): lines end at "\\n" only, never at the other breaks str.splitlines knows (U+2028,
    U+0085, \\x1c…), and control characters are left to that parser; invalid UTF-8 raises
    with file and line."""
    path = Path(path)
    with open_binary(path) as handle:
        for number, raw in enumerate(handle, 1):  # a binary file splits at b"\n" alone
            yield number, _decode(raw, path, number, controls=True).rstrip("\r\n")


def iter_tsv(path: Path, header: tuple[str, ...], hint: str, *, skip_blank: bool = False
             ) -> Iterator[tuple[int, list[str]]]:
    """(line number, fields) of a tab-separated file after its header line, which must be
    ``header`` exactly (else an error naming line 1 with ``hint``)."""
    with open_binary(path, hint="give the path of a file") as handle:
        for number, raw in enumerate(handle, 1):
            line = _decode(raw, path, number)
            fields = line.rstrip("\r\n").split("\t")
            if number == 1:
                if tuple(fields) != header:
                    raise InputError(f"expected the header {'<TAB>'.join(header)}", path=path, line=1, hint=hint)
                continue
            if skip_blank and not line.strip():
                continue
            yield number, fields


def read_lines(path: str | Path) -> list[str]:
    return list(iter_lines(path))


def count_lines(path: str | Path) -> int:
    path = _require_file(path)
    with path.open("rb") as handle:
        return sum(1 for _ in handle)


FIRST_LINES = 5  # line numbers kept per drop reason, to point the user at examples


@dataclass
class Dropped:
    """Pairs left out for one reason: how many, and the first few line numbers (1-based)."""

    count: int = 0
    first_lines: list[int] = field(default_factory=list)

    def add(self, line: int) -> None:
        self.count += 1
        if len(self.first_lines) < FIRST_LINES:
            self.first_lines.append(line)

    def to_json(self) -> dict:
        return {"count": self.count, "first_lines": list(self.first_lines)}


@dataclass
class ParallelCorpus:
    sources: list[str]
    targets: list[str]
    line_numbers: list[int]  # 1-based line number of each kept pair in the input files
    skipped_empty: int  # pairs with a blank side (both blank, or one)
    # reason → Dropped: "empty" (both sides blank), "one_sided" (one side blank), "too_long"
    dropped: dict[str, Dropped] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.sources)

    def drop_summary(self) -> dict:
        return {reason: d.to_json() for reason, d in self.dropped.items() if d.count}

    def describe_drops(self) -> str:
        """'3 empty (lines 4, 9, 12), 1 too_long (line 7)' or '' when nothing was dropped."""
        parts = []
        for reason, d in self.dropped.items():
            if d.count:
                lines = ", ".join(map(str, d.first_lines)) + (", …" if d.count > len(d.first_lines) else "")
                parts.append(f"{d.count} {reason} (line{'s' if len(d.first_lines) > 1 else ''} {lines})")
        return ", ".join(parts)


def read_parallel(src: str | Path, tgt: str | Path, max_chars: int | None = None) -> ParallelCorpus:
    """Read a sentence-aligned pair of files, checking lengths before reading any content.

    Pairs with a blank side are skipped; with ``max_chars``, so are pairs with a side longer than
    that. Both are counted with their first line numbers (``dropped``)."""
    n_src, n_tgt = count_lines(src), count_lines(tgt)
    if n_src != n_tgt:
        raise InputError(f"parallel files differ in length: {src} has {n_src} lines, "
                         f"{tgt} has {n_tgt} lines", path=src,
                         hint="the files must be sentence-aligned, one sentence per line")
    sources, targets, numbers = [], [], []
    dropped = {reason: Dropped() for reason in ("empty", "one_sided", "too_long")}
    for number, (s, t) in enumerate(zip(iter_lines(src), iter_lines(tgt)), 1):
        s, t = s.strip(), t.strip()
        if not s or not t:
            dropped["empty" if not s and not t else "one_sided"].add(number)
            continue
        if max_chars is not None and (len(s) > max_chars or len(t) > max_chars):
            dropped["too_long"].add(number)
            continue
        sources.append(s)
        targets.append(t)
        numbers.append(number)
    return ParallelCorpus(sources, targets, numbers, dropped["empty"].count + dropped["one_sided"].count, dropped)


def read_stream_lines(stream, name: str = "<stdin>") -> list[str]:
    """Lines of a text stream (standard input) without their newline. A binary stream underneath
    is decoded here, so invalid UTF-8 names the line and byte like a file's does, instead of
    being replaced by the interpreter or failing deep inside a tokenizer."""
    binary = getattr(stream, "buffer", None)
    if binary is None:  # already text (a StringIO in tests)
        return [line.rstrip("\r\n") for line in stream]
    return [_decode(raw, Path(name), number).rstrip("\r\n") for number, raw in enumerate(binary, 1)]
