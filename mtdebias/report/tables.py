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

from ..atomic import write_json, write_text


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

    def cell(self, index: int, column: str) -> str:
        if (index, column) in self.display:
            return self.display[(index, column)]
        return format_value(self.rows[index].get(column))

    def header(self, column: str) -> str:
        return f"⚠ {column}" if column in self.flagged_columns else column

    def to_markdown(self) -> str:
        def esc(text: str) -> str:
            return text.replace("|", "\\|").replace("\n", " ")

        lines = ["| " + " | ".join(esc(self.header(c)) for c in self.columns) + " |",
                 "|" + "|".join("---" for _ in self.columns) + "|"]
        for i in range(len(self.rows)):
            lines.append("| " + " | ".join(esc(self.cell(i, c)) for c in self.columns) + " |")
        return "\n".join(lines)

    def to_html(self) -> str:
        flag = ' class="flag"'
        head = "".join(f"<th{flag if c in self.flagged_columns else ''}>{html.escape(self.header(c))}</th>"
                       for c in self.columns)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(self.cell(i, c))}</td>" for c in self.columns) + "</tr>"
                       for i in range(len(self.rows)))
        return f'<table id="table-{html.escape(self.name)}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'

    def to_csv(self) -> str:
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=self.columns, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        for row in self.rows:
            writer.writerow({c: _plain(row.get(c)) for c in self.columns})
        return buffer.getvalue()

    def export(self, folder: Path) -> list[Path]:
        """``<name>.csv`` and ``<name>.json`` (columns, rows, note, warnings) in ``folder``."""
        csv_path, json_path = folder / f"{self.name}.csv", folder / f"{self.name}.json"
        write_text(csv_path, self.to_csv())
        write_json(json_path, {"title": self.title, "columns": self.columns, "note": self.note,
                               "warnings": self.warnings, "rows": [_jsonable(r) for r in self.rows]})
        return [csv_path, json_path]


def _plain(value: Any) -> Any:
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, float) and math.isnan(value):
        return ""
    return value


def _jsonable(row: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for key, value in row.items():
        if isinstance(value, float) and not math.isfinite(value):
            value = None  # JSON has no NaN
        elif isinstance(value, tuple):
            value = list(value)
        out[key] = value
    return out
