"""A self-contained HTML page: inline CSS, images embedded as base64 PNG, no external links."""

from __future__ import annotations

import base64
import html
import re

from .outputs import HTML_MARKER
from .tables import Table

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 24px auto; max-width: 1200px;
       color: #1d1d1d; padding: 0 16px; }
h1 { border-bottom: 3px solid #1565c0; padding-bottom: 6px; }
h2 { margin-top: 36px; border-bottom: 1px solid #ccc; padding-bottom: 4px; }
h3 { margin-top: 22px; }
div.scroll { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 13px; max-width: 100%; }
th, td { border: 1px solid #cfcfcf; padding: 4px 8px; text-align: left; vertical-align: top; }
/* a wide table wraps its headers and cells at spaces (a word longer than its column breaks)
   instead of leaving the page; more than ten columns: smaller type and padding */
th, td { overflow-wrap: break-word; }
#table-results td:last-child, #table-signatures_full td:last-child, #table-signatures td:nth-child(2) {
    overflow-wrap: anywhere; min-width: 18em; }  /* a signature has no space to wrap at */
table.wide { font-size: 12px; }
table.wide th, table.wide td { padding: 3px 5px; }
.footnotes p { margin: 2px 0; }
th { background: #eef3fb; }
th.flag { background: #fde2e4; color: #b00020; }
tbody tr:nth-child(even) { background: #fafafa; }
.warn { background: #fff4e5; border-left: 5px solid #e65100; padding: 8px 12px; margin: 8px 0; color: #5d2a00; }
.note { color: #555; font-size: 13px; }
.figs { display: flex; flex-wrap: wrap; gap: 12px; }
figure { margin: 0; }
figure img { max-width: 100%; border: 1px solid #e4e4e4; }
figcaption { font-size: 12px; color: #555; max-width: 540px; overflow-wrap: anywhere; }
code { font-size: 12px; overflow-wrap: anywhere; }
nav ul { columns: 2; }
"""


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"


class Document:
    def __init__(self, title: str):
        self.title = title
        self.parts: list[str] = []
        self.toc: list[tuple[str, str]] = []
        self.images = 0
        self._in_figs = False
        self._shown: set[str] = set()  # warnings already shown in the current section

    def _close_figs(self) -> None:
        if self._in_figs:
            self.parts.append("</div>")
            self._in_figs = False

    def heading(self, text: str, level: int = 2) -> None:
        self._close_figs()
        anchor = slug(text) + f"-{len(self.parts)}"
        if level == 2:
            self.toc.append((anchor, text))
            self._shown = set()
        self.parts.append(f'<h{level} id="{anchor}">{html.escape(text)}</h{level}>')

    def paragraph(self, text: str, css: str = "") -> None:
        self._close_figs()
        cls = f' class="{css}"' if css else ""
        self.parts.append(f"<p{cls}>{html.escape(text)}</p>")

    def warning(self, text: str) -> None:
        self._close_figs()
        self._shown.add(text)
        self.parts.append(f'<div class="warn">⚠ {html.escape(text)}</div>')

    def table(self, table: Table) -> None:
        self._close_figs()
        for text in table.warnings:
            if text not in self._shown:  # two tables of one section often share a warning
                self.warning(text)
        if table.note:
            self.paragraph(table.note, "note")
        self.parts.append(f'<div class="scroll">{table.to_html()}</div>')

    def image(self, png: bytes, caption: str, alt: str) -> None:
        """Figures that follow each other are laid out side by side."""
        if not self._in_figs:
            self.parts.append('<div class="figs">')
            self._in_figs = True
        data = base64.b64encode(png).decode("ascii")
        self.parts.append(f'<figure><img alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'
                          f"<figcaption>{html.escape(caption)}</figcaption></figure>")
        self.images += 1

    def details(self, summary: str, table: Table) -> None:
        self._close_figs()
        self.parts.append(f"<details><summary>{html.escape(summary)}</summary>"
                          f'<div class="scroll">{table.to_html()}</div></details>')

    def raw_code(self, text: str) -> None:
        self._close_figs()
        self.parts.append(f"<p><code>{html.escape(text)}</code></p>")

    def render(self, intro: str = "") -> str:
        self._close_figs()
        toc = "".join(f'<li><a href="#{a}">{html.escape(t)}</a></li>' for a, t in self.toc)
        # the generator tag is how a later report knows this page is its own to replace (outputs.py)
        return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">{HTML_MARKER}"
                f"<title>{html.escape(self.title)}</title><style>{CSS}</style></head><body>"
                f"<h1>{html.escape(self.title)}</h1>{intro}<nav><ul>{toc}</ul></nav>"
                + "\n".join(self.parts) + "</body></html>\n")
