"""Copy a report's tables into a README, so that the numbers a README shows are the report's.

``python -m mtdebias.report.readme runs/bible/report.md README.md --marker bible-results``
replaces everything between ``<!-- begin: bible-results -->`` and ``<!-- end: bible-results -->``
in README.md (or any Markdown file) with the report's headline table, the results in it that say
nothing, and its paired tests (the sections ``## Headline``, ``## Results that say nothing`` and
``## Paired tests…`` of the Markdown summary that ``mtdebias ablate`` writes), preceded by a line
naming the report. Nothing is recomputed or rounded here.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from ..store.atomic import write_bytes, write_text
from ..errors import InputError, MtdebiasError


NOTHING = "Results that say nothing"  # the report's section of results their probe calls degenerate


def sections(markdown: str) -> dict[str, str]:
    """``## Title`` → the text under it (up to the next ``## ``)."""
    out: dict[str, str] = {}
    for block in re.split(r"(?m)^## ", markdown)[1:]:
        title, _, body = block.partition("\n")
        out[title.strip()] = body.strip()
    return out


def excerpt(report_md: str | Path, tests: bool = True) -> str:
    """The headline table, the results in it that say nothing, and (``tests``) the paired tests
    of a report's Markdown summary. The flags go wherever the table goes, even with ``tests`` off:
    a negative control's numbers (SmolLM2 in the released-model table) look like findings without them."""
    path = Path(report_md)
    if not path.is_file():
        raise InputError("report summary not found", path=path, hint="run `mtdebias ablate` (or make demo-real) first")
    parts = sections(path.read_text(encoding="utf-8"))
    if "Headline" not in parts:
        raise InputError("no '## Headline' section: not a report summary written by mtdebias", path=path)
    chunks = [f"<!-- generated from {path} by `python -m mtdebias.report.readme`; do not edit by hand -->",
              parts["Headline"]]
    if NOTHING in parts:
        chunks += [f"**{NOTHING}**", parts[NOTHING]]
    title = next((t for t in parts if t.startswith("Paired tests")), None) if tests else None
    if title:
        chunks += [f"**{title}**", parts[title]]
    return "\n\n".join(chunks) + "\n"


def splice(readme: str | Path, marker: str, text: str) -> None:
    path = Path(readme)
    content = path.read_text(encoding="utf-8")
    begin, end = f"<!-- begin: {marker} -->", f"<!-- end: {marker} -->"
    if begin not in content or end not in content or content.index(begin) > content.index(end):
        raise InputError(f"markers {begin} … {end} not found in order", path=path,
                         hint="put both lines where the table should go")
    head, rest = content.split(begin, 1)
    _, tail = rest.split(end, 1)
    write_text(path, f"{head}{begin}\n{text}{end}{tail}")


def export_figure(report_html: str | Path, caption: str, out_png: str | Path) -> str:
    """Write the report's figure whose caption starts with ``caption`` as a PNG file (the README
    shows a plot the report drew from stored results, not one drawn by hand). Returns the caption."""
    import base64

    path = Path(report_html)
    if not path.is_file():
        raise InputError("report not found", path=path, hint="run `mtdebias ablate` (or make demo) first")
    figures = re.findall(r'<img alt="([^"]*)" src="data:image/png;base64,([^"]+)"', path.read_text(encoding="utf-8"))
    chosen = [(alt, data) for alt, data in figures if alt.startswith(caption)]
    if not chosen:
        raise InputError(f"no figure whose caption starts with {caption!r}", path=path,
                         hint="captions: " + "; ".join(alt for alt, _ in figures[:8]) + " …")
    write_bytes(Path(out_png), base64.b64decode(chosen[0][1]))
    return chosen[0][0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mtdebias.report.readme", description=__doc__.split("\n\n")[0])
    parser.add_argument("report_md", type=Path)
    parser.add_argument("readme", type=Path)
    parser.add_argument("--marker", required=True)
    parser.add_argument("--headline-only", action="store_true", help="leave the paired tests out (a short README)")
    parser.add_argument("--figure", nargs=2, metavar=("CAPTION", "PNG"),
                        help="also write the report's figure whose caption starts with CAPTION to PNG")
    args = parser.parse_args(argv)
    try:
        splice(args.readme, args.marker, excerpt(args.report_md, tests=not args.headline_only))
        if args.figure:
            caption = export_figure(args.report_md.with_suffix(".html"), *args.figure)
            print(f"{args.figure[1]}: '{caption}' from {args.report_md.with_suffix('.html')}")
    except MtdebiasError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{args.readme}: section '{args.marker}' replaced from {args.report_md}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
