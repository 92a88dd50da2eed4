"""Serve precomputed translations (e.g. a commercial system's) through the protocol.

Three formats: ``source ||| translation`` lines; a CSV whose header is ``from,to`` (the layout
GEST publishes its systems' translations in); or a plain translation file aligned line by line
with a source file.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Sequence

from ..errors import InputError
from ..signature import hash_file
from ..textio import read_lines, read_text
from .base import DEFAULT_EPSILON, BaseTranslator, Scored, UnsupportedCall

SEPARATOR = " ||| "


# Line matching tolerates at most this share of lines whose source differs (mt_gender's
# published translation files were made from an en.txt that differs in 2 of 3,888 lines).
MAX_MISMATCHED_SHARE = 0.01


class FileTranslator(BaseTranslator):
    def __init__(self, translations: str | Path, sources: str | Path | None = None, *,
                 allow_missing: bool = False):
        """``allow_missing``: a source the file lacks translates to "" (and is listed in
        ``missing``) instead of stopping the probe; the probe then counts it undetected.

        A request for exactly as many sentences as the file has lines, whose sources differ
        from the file's in only a few lines (≤ 1 %), is matched by line: the differing lines
        translate to "" (an empty reply, which a probe scores undetected or leaves out) and their 1-based numbers are
        listed in ``mismatched_lines`` — with no ``allow_missing`` needed.
        """
        self.path = Path(translations)
        self.allow_missing = allow_missing
        self.missing: list[str] = []
        self.mismatched_lines: list[int] = []
        lines = read_lines(self.path)
        self._table: dict[str, str] = {}
        self._pairs: list[tuple[str, str]] = []
        if sources is None and is_from_to_csv(self.path):
            self._read_from_to()
        elif sources is None:
            _check_csv_header(self.path, lines[0] if lines else "")
            for number, line in enumerate(lines, 1):
                if "|||" not in line:
                    raise InputError("expected 'source ||| translation'", path=self.path, line=number,
                                     hint="or pass the source file too for a plain translation file")
                src, _, tgt = line.partition("|||")
                self._pairs.append((src.strip(), tgt.strip()))
        else:
            src_lines = read_lines(sources)
            if len(src_lines) != len(lines):
                raise InputError(f"{len(lines)} translations for {len(src_lines)} sources in {sources}",
                                 path=self.path, hint="the two files must have one line per sentence")
            self._pairs = [(src.strip(), tgt.strip()) for src, tgt in zip(src_lines, lines)]
        for src, tgt in self._pairs:
            self._table.setdefault(src, tgt)
        self._hash = hash_file(self.path)

    def _read_from_to(self) -> None:
        reader = csv.reader(io.StringIO(read_text(self.path), newline=""))
        next(reader)
        for row in reader:
            if not row:
                continue
            if len(row) != 2:
                raise InputError(f"expected 2 columns (from,to), found {len(row)}", path=self.path,
                                 line=reader.line_num, hint="quote fields that contain commas")
            self._pairs.append((row[0].strip(), row[1].strip()))

    def __len__(self) -> int:
        return len(self._table)

    def _by_line(self, sources: Sequence[str]) -> list[str] | None:
        """Line-by-line translations when the request is the file's own source list with a
        few differing lines (see ``__init__``), else None."""
        if len(sources) != len(self._pairs):
            return None
        differ = [n for n, (source, (src, _)) in enumerate(zip(sources, self._pairs), 1)
                  if source.strip() != src]
        if not differ or len(differ) > MAX_MISMATCHED_SHARE * len(sources):
            return None
        self.mismatched_lines = differ
        skip = set(differ)
        return ["" if n in skip else tgt for n, (_, tgt) in enumerate(self._pairs, 1)]

    def translate(self, sources: Sequence[str], beam: int = 5) -> list[str]:
        by_line = self._by_line(sources)
        if by_line is not None:
            return by_line
        out = []
        for source in sources:
            translation = self._table.get(source.strip())
            if translation is None:
                if not self.allow_missing:
                    raise InputError(f"no translation for source sentence {source!r}", path=self.path,
                                     hint="the file must hold every sentence the probe asks for "
                                          "(or pass --allow-missing to count such items as undetected)")
                self.missing.append(source)
                translation = ""
            out.append(translation)
        return out

    def sample(self, sources, n=128, epsilon=DEFAULT_EPSILON, temperature=1.0, seed=0):
        raise UnsupportedCall(f"{self.path}: a file of translations cannot be sampled from; "
                              "sampling-based metrics need a model checkpoint")

    def score(self, sources, targets) -> list[Scored]:
        raise UnsupportedCall(f"{self.path}: a file of translations has no probabilities; "
                              "scoring needs a model checkpoint")

    def signature(self) -> str:
        return f"file:{self._hash}"

    @classmethod
    def from_spec(cls, rest: str, sources: str | None = None, allow_missing: bool = False,
                  src_lang: str | None = None, tgt_lang: str | None = None) -> "FileTranslator":
        """``file:TRANSLATIONS`` ('source ||| translation' lines or a 'from,to' CSV; a plain file
        of translations with ``sources``, the file it is aligned with). The language pair a suite
        gives every translator is taken and unused: the file holds what it holds."""
        if not rest:
            raise InputError("file: no translations file given", hint="write file:TRANSLATIONS")
        return cls(rest, sources, allow_missing=allow_missing)


def is_from_to_csv(path: str | Path) -> bool:
    """A CSV of translations with the header ``from,to``."""
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        return handle.readline().strip().replace(" ", "") == "from,to"


CSV_COLUMNS = ("from", "to")


def _check_csv_header(path: Path, first_line: str) -> None:
    """A CSV meant as GEST's layout but with other columns is told which columns it needs,
    not that its lines lack ' ||| '."""
    if "|||" in first_line or "," not in first_line:
        return
    columns = [c.strip().lower() for c in next(csv.reader([first_line.lstrip("\ufeff")]))]
    if not set(columns) & set(CSV_COLUMNS):
        return
    missing = [c for c in CSV_COLUMNS if c not in columns]
    raise InputError(f"a CSV of translations needs the header 'from,to'; this one has the columns "
                     f"{', '.join(repr(c) for c in columns)}"
                     + (f" (missing {', '.join(repr(c) for c in missing)})" if missing else " (in another order)"),
                     path=path, line=1, hint="rename the header to from,to: the source in 'from', its translation "
                                             "in 'to' (GEST's layout)")
