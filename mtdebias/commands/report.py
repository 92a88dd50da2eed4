"""``mtdebias report RUN_DIR…``: an HTML report (plots embedded), a Markdown summary, CSV/JSON tables."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "report", help="write an HTML/Markdown report of stored evaluation results",
        description="Turn the results `mtdebias eval` stored in one or more run directories into one "
                    "self-contained HTML page (plots embedded), a Markdown summary beside it and CSV/JSON "
                    "exports of every table. Runs named <variant>-seed<k> are averaged per variant.")
    parser.add_argument("runs", nargs="+", metavar="RUN_DIR", help="run directories")
    parser.add_argument("--out", default="report.html", help="HTML file to write (default report.html); the "
                        "Markdown summary gets the same name with .md, the tables go to <name>_tables/")
    parser.add_argument("--metrics", nargs="+", default=None, metavar="PROBE:METRIC",
                        help="headline metrics as probe:metric patterns, e.g. 'winomt*:delta_g' or just "
                             "'delta_g' (default: the headline metrics each stored probe declares)")
    parser.add_argument("--rows", choices=("run", "label"), default="run",
                        help="the headline's rows: one per run or variant with a column per metric and suite label "
                             "(run, default), or one per run and suite label with a column per metric (label: "
                             "a probe scored in seven languages is seven rows, not seven times the columns)")
    parser.add_argument("--at", default="last", help="headline checkpoint: last (default) or best:bleu, "
                        "best:chrf, best:dev_loss (from best.json)")
    parser.add_argument("--force", action="store_true",
                        help="replace files at the output paths that no mtdebias report wrote (an old notes.html, "
                             "a .md of your own); never a folder: a folder, a run or a tables folder holding "
                             "other files is refused even then. Without it, only the report's own earlier "
                             "output is replaced")
    parser.add_argument("--title", default="mtdebias report", help="the report's title (default 'mtdebias report')")
    parser.add_argument("--label", action="append", default=[], metavar="RUN=LABEL",
                        help="what the report calls a run (repeatable; RUN as given or its folder name). Without "
                             "it a run is named by its folder, or for a system eval named itself by the model's "
                             "short name and kind, e.g. 'smollm2-135m-instruct-q4_1 (hf-causal)'")
    parser.add_argument("--control", action="append", default=[], metavar="RUN_DIR",
                        help="a run (one of RUN_DIR) that is a negative control, a model that cannot do the task: "
                             "all its results are listed as saying nothing (repeatable)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..store.atomic import check_writable
    from ..report import build_report
    from ..report.collect import distinct_runs
    from ..report.labels import parse_labels

    labels = parse_labels(args.label)  # a malformed pair is said before anything is read
    check_writable(Path(args.out).parent, "--out")
    runs, repeats = distinct_runs(args.runs)
    for repeat in repeats:
        print(f"warning: {repeat}", file=sys.stderr)
    summary = build_report(runs, Path(args.out), title=args.title, metrics=args.metrics,
                           at=args.at, force=args.force, labels=labels, controls=args.control,
                           rows=args.rows)
    print(summary.headline_markdown)
    print()
    for warning in summary.warnings:
        print(f"warning: {warning}")
    for reason in summary.degenerate:
        print(f"warning: the result says nothing: {reason}")
    print(f"report: {summary.html} ({summary.images} figure{'' if summary.images == 1 else 's'}); summary: {summary.markdown}; "
          f"tables: {summary.tables_dir}/")
    return 0
