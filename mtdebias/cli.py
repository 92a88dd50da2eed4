"""The ``mtdebias`` command. Each verb lives in :mod:`mtdebias.commands`; this file lists them."""

from __future__ import annotations

import argparse
import importlib
import os
import re
import signal
import sys
import threading
from contextlib import contextmanager
from typing import Iterator

from . import __version__
from .errors import MtdebiasError, NotWritable, Terminated, disk_full, interrupted_status, not_writable

# the status of a command whose reader went away (`mtdebias translate … | head -1`): 128 + SIGPIPE,
# what a shell reports for cat or grep in the same place, so `set -o pipefail` sees the usual thing
CLOSED_STDOUT = 141

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


# transformers' Marian tokenizer asks for sacremoses on every load; it only normalises punctuation
# we do not want changed (stored translations and scores would move), so the advice is noise here
_NOISE = ("Recommended: pip install sacremoses",)


def _quiet_model_loads() -> None:
    """No Hugging Face progress bars from the command: transformers draws "Loading weights" on
    every model load and a bar per GGUF tensor group on a conversion, off a terminal too (one log
    line of \\r-joined updates), and the hub one per file; the command's own progress lines say
    what is being done. Read by both libraries when they are imported (so it is set before any
    model code loads); a user who sets HF_HUB_DISABLE_PROGRESS_BARS=0 keeps the bars. Only the CLI
    does this: the library leaves its callers' logging alone."""
    if os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1") != "1":
        return
    # already imported (main() called in a process that loaded them): their switches, not the env
    if "huggingface_hub" in sys.modules:
        sys.modules["huggingface_hub"].utils.disable_progress_bars()
    if "transformers" in sys.modules:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()


def main(argv: list[str] | None = None) -> int:
    import warnings

    for message in _NOISE:  # the command's own output, not the library's: set here, never on import
        warnings.filterwarnings("ignore", message=re.escape(message))
    _quiet_model_loads()
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    with _sigterm_as_interrupt():
        status = _run(args)
    try:  # here, not at exit: what is still buffered meets a reader that has gone (| head) in a try
        if sys.stdout is not None:  # closed by the shell (>&-): print() writes nothing then, nor does this
            sys.stdout.flush()
    except BrokenPipeError:
        if not _stdout_closed():
            raise
        _silence_stdout()
        return status or CLOSED_STDOUT
    return status


def _run(args: argparse.Namespace) -> int:
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:
        if not _stdout_closed():
            raise
        _silence_stdout()
        return CLOSED_STDOUT
    except MtdebiasError as exc:
        print(f"mtdebias {args.verb}: error: {exc}", file=sys.stderr)
        return 2
    except UnicodeDecodeError as exc:  # a reader that does not go through mtdebias.textio
        print(f"mtdebias {args.verb}: error: an input file is not valid UTF-8 ({exc.reason}: byte "
              f"{exc.object[exc.start:exc.start + 1]!r} at offset {exc.start} of what was being read) "
              "(re-encode it as UTF-8, e.g. iconv -f latin1 -t utf-8)", file=sys.stderr)
        return 2
    except OSError as exc:
        if disk_full(exc):
            # a write that did not go through mtdebias.store.atomic (which names its target itself)
            print(f"mtdebias {args.verb}: error: disk full: {exc.filename or 'a file being written'} (free "
                  "some space, then rerun the same command to resume)", file=sys.stderr)
            return 2
        if not (not_writable(exc) and exc.filename):
            raise
        # a folder made read-only after the command's own check (chattr +i, a remount), met outside
        # the run store's own writes (a lock, a checkpoint, an --out file); or an input not readable
        print(f"mtdebias {args.verb}: error: {NotWritable(_target(exc.filename), exc, 'access')}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        what = "stopped by SIGTERM" if isinstance(exc, Terminated) else "interrupted"
        print(f"mtdebias {args.verb}: {what}; nothing half-written was left (every result is written whole) "
              "and work already stored is kept: rerun the same command to resume", file=sys.stderr)
        return interrupted_status(exc)


def _silence_stdout() -> None:
    """Standard output onto /dev/null, as Python's docs advise after a BrokenPipeError: the flush
    at exit would fail again ("Exception ignored … BrokenPipeError"). Quiet, like cat or grep."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """While a command runs, SIGTERM raises :class:`Terminated` (a KeyboardInterrupt): the work
    stops through the Ctrl-C path, with its message and cleanup, instead of the process dying
    silently. A SIGTERM that is ignored or handled by someone else is left so."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL):
        yield
        return
    owner = os.getpid()

    def stop(number, frame):
        if os.getpid() != owner:  # a forked worker (a pool being terminated) dies as it would have
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
            return
        raise Terminated

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _stdout_closed() -> bool:
    """Whether standard output is a pipe whose reader has gone (so the BrokenPipeError was ours,
    not a server's socket)."""
    try:
        import select

        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(event & (select.POLLERR | select.POLLHUP) for _, event in poller.poll(0))
    except (AttributeError, ValueError, OSError):  # no poll here, or stdout is no file: the usual case
        return True


def _target(filename: str | bytes) -> str:
    """The file a failed write was for: the target, not mtdebias.store.atomic's temporary beside it."""
    from .store.atomic import target_of

    return str(target_of(os.fsdecode(filename)))


if __name__ == "__main__":
    sys.exit(main())
