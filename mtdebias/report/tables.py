"""Tables of a report, each renderable as HTML and Markdown and exportable as CSV and JSON."""

from __future__ import annotations

import csv
import html
import io
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..store.atomic import write_json, write_text


# significant digits of a float in the CSV exports: enough for any metric's stored precision
# (a share of 10⁵ items, a BLEU to 4 decimals), few enough that 0.19999999999999996 reads 0.2.
# The JSON exports keep every float in full.
CSV_DIGITS = 6
# more columns than this are set smaller on the page (html.CSS: table.wide)
WIDE = 10
_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def footnote_mark(number: int) -> str:
    """¹, ², … ¹⁰: the mark of a table's ``number``-th footnote."""
    return str(number).translate(_SUPERSCRIPT)


def format_value(value: Any, digits: int = 3) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if math.isnan(value):
            return "—"
        if value != 0 and (abs(value) >= 1e5 or abs(value) < 10 ** -digits):
            return f"{value:.{digits}g}"
        return f"{value:.{digits}f}"
    return str(value)


@dataclass
class Table:
    """``rows`` hold raw values (exported as they are); ``display`` optionally holds the
    formatted text of some cells (e.g. "0.612 ± 0.031"), keyed by (row index, column)."""

    name: str  # file stem of the exports, e.g. "headline"
    title: str
    columns: list[str]
    rows: list[dict[str, Any]]
    note: str = ""
    warnings: list[str] = field(default_factory=list)
    display: dict[tuple[int, str], str] = field(default_factory=dict)
    flagged_columns: set[str] = field(default_factory=set)  # columns whose signatures disagree
    # why a cell is not to be read as it stands (a degenerate result, a zero-width interval): each
    # distinct text becomes a footnote, its mark put beside every cell it concerns
    notes: dict[tuple[int, str], list[str]] = field(default_factory=dict)
    # the columns of the CSV/JSON exports when they hold more than the page shows (a value's
    # interval and n as columns of their own); None: the shown columns
    export_columns: list[str] | None = None
    # columns that belong together (one probe's metrics): where a table is too wide for the page
    # it is shown as several, split between groups (column_sets)
    groups: list[list[str]] = field(default_factory=list)

    def footnotes(self) -> list[str]:
        """The distinct footnote texts, numbered in the order their first cell is read."""
        order = [(i, self.columns.index(c)) for i, c in self.notes if c in self.columns]
        texts = [text for i, j in sorted(order) for text in self.notes[(i, self.columns[j])]]
        return list(dict.fromkeys(texts))

    def cell(self, index: int, column: str) -> str:
        if (index, column) in self.display:
            text = self.display[(index, column)]
        else:
            text = format_value(self.rows[index].get(column))
        notes = self.notes.get((index, column))
        if notes:
            numbers = self.footnotes()
            text += " " + ",".join(footnote_mark(numbers.index(note) + 1) for note in dict.fromkeys(notes))
        return text

    def footnote_lines(self) -> list[str]:
        return [f"{footnote_mark(k)} {text}" for k, text in enumerate(self.footnotes(), 1)]

    def header(self, column: str) -> str:
        return f"⚠ {column}" if column in self.flagged_columns else column

    def to_markdown(self) -> str:
        def esc(text: str) -> str:
            return text.replace("|", "\\|").replace("\n", " ")

        lines = ["| " + " | ".join(esc(self.header(c)) for c in self.columns) + " |",
                 "|" + "|".join("---" for _ in self.columns) + "|"]
        for i in range(len(self.rows)):
            lines.append("| " + " | ".join(esc(self.cell(i, c)) for c in self.columns) + " |")
        notes = self.footnote_lines()
        # a list under the table (one item a line: Markdown joins plain lines into one paragraph)
        return "\n".join(lines + ([""] + [f"- {note}" for note in notes] if notes else []))

    def column_sets(self) -> list[list[str]]:
        """The columns of each table the page shows: all of them, or — more than :data:`WIDE`
        with ``groups`` declared — the columns outside every group (the row's name) followed by
        groups packed up to :data:`WIDE` columns a table, so a wide table does not leave the page."""
        if len(self.columns) <= WIDE or not self.groups:
            return [self.columns]
        grouped = {c for group in self.groups for c in group}
        lead = [c for c in self.columns if c not in grouped]
        room = max(WIDE - len(lead), 1)
        sets: list[list[str]] = [[]]
        for group in self.groups:
            for start in range(0, len(group), room):
                part = [c for c in group[start:start + room] if c in self.columns]
                if sets[-1] and len(sets[-1]) + len(part) > room:
                    sets.append([])
                sets[-1] += part
        return [lead + columns for columns in sets if columns]

    def to_html(self) -> str:
        flag = ' class="flag"'
        parts = []
        for k, columns in enumerate(self.column_sets()):
            head = "".join(f"<th{flag if c in self.flagged_columns else ''}>{html.escape(self.header(c))}</th>"
                           for c in columns)
            body = "".join("<tr>" + "".join(f"<td>{html.escape(self.cell(i, c))}</td>" for c in columns) + "</tr>"
                           for i in range(len(self.rows)))
            name = self.name + (f"-{k + 1}" if k else "")
            wide = ' class="wide"' if len(columns) > WIDE else ""
            parts.append(f'<table id="table-{html.escape(name)}"{wide}><thead><tr>{head}</tr></thead>'
                         f"<tbody>{body}</tbody></table>")
        notes = "".join(f"<p>{html.escape(note)}</p>" for note in self.footnote_lines())
        return "".join(parts) + (f'<div class="footnotes note">{notes}</div>' if notes else "")

    def to_csv(self) -> str:
        """Every export column; floats to :data:`CSV_DIGITS` significant digits."""
        columns = self.export_columns or self.columns
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        for row in self.rows:
            writer.writerow({c: _plain(row.get(c)) for c in columns})
        return buffer.getvalue()

    def export(self, folder: Path) -> list[Path]:
        """``<name>.csv`` and ``<name>.json`` (columns, rows, note, warnings, footnotes) in ``folder``."""
        csv_path, json_path = folder / f"{self.name}.csv", folder / f"{self.name}.json"
        write_text(csv_path, self.to_csv())
        write_json(json_path, {"title": self.title, "columns": self.export_columns or self.columns, "note": self.note,
                               "warnings": self.warnings, "footnotes": self.footnote_lines(),
                               "rows": [_jsonable(r) for r in self.rows]})
        return [csv_path, json_path]


def csv_number(value: float) -> str:
    """``value`` as the CSV exports write it: :data:`CSV_DIGITS` significant digits, a whole
    number without a decimal point or exponent (a count of 1234567 stays 1234567)."""
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.{CSV_DIGITS}g}"


def _plain(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return json.dumps([_rounded(v) for v in value], ensure_ascii=False)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, float):
        return "" if not math.isfinite(value) else csv_number(value)
    return value


def _rounded(value: Any) -> Any:
    return float(csv_number(value)) if isinstance(value, float) and math.isfinite(value) else value


def _jsonable(row: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for key, value in row.items():
        if isinstance(value, float) and not math.isfinite(value):
            value = None  # JSON has no NaN
        elif isinstance(value, tuple):
            value = list(value)
        out[key] = value
    return out
