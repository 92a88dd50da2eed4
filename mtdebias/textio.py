"""Reading text corpora with errors that name the file and line.

* invalid UTF-8 → :class:`InputError` with file and line;
* parallel files of different lengths → error naming both files and counts, before any work;
* empty or whitespace-only lines → skipped on both sides together and counted.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from .errors import InputError


def _decode(raw: bytes, path: Path, number: int) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"invalid UTF-8 at byte {exc.start} of the line", path=path, line=number,
                         hint="re-encode the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)") from None


def iter_lines(path: str | Path) -> Iterator[str]:
    """Yield lines without their newline; invalid UTF-8 raises with file and line."""
    path = Path(path)
    if not path.is_file():
        raise InputError("file not found", path=path, hint="check the path")
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, 1):
            yield _decode(raw, path, number).rstrip("\r\n")


def read_lines(path: str | Path) -> list[str]:
    return list(iter_lines(path))


def count_lines(path: str | Path) -> int:
    path = Path(path)
    if not path.is_file():
        raise InputError("file not found", path=path, hint="check the path")
    with path.open("rb") as handle:
        return sum(1 for _ in handle)


@dataclass
class ParallelCorpus:
    sources: list[str]
    targets: list[str]
    line_numbers: list[int]  # 1-based line number of each kept pair in the input files
    skipped_empty: int

    def __len__(self) -> int:
        return len(self.sources)


def read_parallel(src: str | Path, tgt: str | Path) -> ParallelCorpus:
    """Read a sentence-aligned pair of files, checking lengths before reading any content."""
    n_src, n_tgt = count_lines(src), count_lines(tgt)
    if n_src != n_tgt:
        raise InputError(f"parallel files differ in length: {src} has {n_src} lines, "
                         f"{tgt} has {n_tgt} lines", path=src,
                         hint="the files must be sentence-aligned, one sentence per line")
    sources, targets, numbers, skipped = [], [], [], 0
    for number, (s, t) in enumerate(zip(iter_lines(src), iter_lines(tgt)), 1):
        if not s.strip() or not t.strip():
            skipped += 1
            continue
        sources.append(s.strip())
        targets.append(t.strip())
        numbers.append(number)
    return ParallelCorpus(sources, targets, numbers, skipped)
