"""The ``mtdebias`` command. Each verb lives in :mod:`mtdebias.commands`; this file lists them."""

from __future__ import annotations

import argparse
import importlib
import sys

from . import __version__
from .errors import MtdebiasError, disk_full

# verb modules, in the order `mtdebias --help` shows them; each has add_parser() and run()
VERBS = ("train", "translate", "eval", "report", "ablate", "annotate", "augment", "debias", "data")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mtdebias", description="Train debiased NMT models and measure their bias checkpoint by checkpoint.")
    parser.add_argument("--version", action="version", version=f"mtdebias {__version__}")
    subparsers = parser.add_subparsers(dest="verb", metavar="VERB")
    for verb in VERBS:
        try:
            module = importlib.import_module(f"mtdebias.commands.{verb}")
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.startswith("mtdebias.commands"):
                continue  # verb not part of this build
            raise
        module.add_parser(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except MtdebiasError as exc:
        print(f"mtdebias {args.verb}: error: {exc}", file=sys.stderr)
        return 2
    except UnicodeDecodeError as exc:  # a reader that does not go through mtdebias.textio
        print(f"mtdebias {args.verb}: error: an input file is not valid UTF-8 ({exc.reason}: byte "
              f"{exc.object[exc.start:exc.start + 1]!r} at offset {exc.start} of what was being read) "
              "(re-encode it as UTF-8, e.g. iconv -f latin1 -t utf-8)", file=sys.stderr)
        return 2
    except OSError as exc:
        if not disk_full(exc):
            raise
        # a write that did not go through mtdebias.atomic (which names its target itself)
        print(f"mtdebias {args.verb}: error: disk full: {exc.filename or 'a file being written'} (free some "
              "space, then rerun the same command to resume)", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"mtdebias {args.verb}: interrupted; rerun the same command to resume", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
