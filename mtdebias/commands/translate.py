"""``mtdebias translate CHECKPOINT``: translate standard input, one sentence per line."""

from __future__ import annotations

import argparse
import signal
import sys

from ..textio import FIRST_LINES, LINE_BREAKS, read_stream_lines, visible
from ..translators.base import DEFAULT_EPSILON
from ..translators.specs import kinds

# lines translated and printed at a time: small enough that Ctrl-C loses little, large enough that
# length batching inside a chunk still packs batches well
STREAM_LINES = 64
# spec kinds that run a decoder-only language model: greedy by default, as the released suites
# score them (a beam of 5 costs about 5x the time; llama.cpp has no beam search at all)
from ..translators.source import DECODER_ONLY  # noqa: E402  (re-read by the --beam help below)
SEQ2SEQ_BEAM = 5


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("translate",
                                   help="translate stdin to stdout with a checkpoint, a hub model or a spec",
                                   description="Translate lines from standard input with a local checkpoint, a "
                                               "hub model, a fairseq model or a system named by a spec "
                                               "(KIND:REST).")
    parser.add_argument("checkpoint", help="a local checkpoint directory, a hub id (org/name or org/name@REV), "
                                           "a fairseq model (.pt, save directory or fairseq.toml), or a translator "
                                           f"spec KIND:REST (kinds: {', '.join(kinds())}; e.g. hf-causal:MODEL, "
                                           "openai:MODEL@URL, apertium:en-es)")
    parser.add_argument("--revision", help="hub revision (branch, tag or commit) of a hub id")
    parser.add_argument("--beam", type=int, default=None,
                        help=f"beam size (default {SEQ2SEQ_BEAM}; 1, greedy, for a decoder-only LLM: "
                             f"{', '.join(DECODER_ONLY)})")
    parser.add_argument("--sample", type=int, default=0, metavar="N",
                        help="print N ε-samples per line instead (tab-separated)")
    parser.add_argument("--epsilon", type=float, default=DEFAULT_EPSILON,
                        help=f"ε for sampling (default {DEFAULT_EPSILON})")
    parser.add_argument("--seed", type=int, default=0, help="seed of the ε-sampler with --sample (default 0)")
    parser.add_argument("--device", default=None, help="cpu, cuda, cuda:1 … (default: cuda when available)")
    parser.add_argument("--src-lang", default=None, help="source language code (M2M100/NLLB only)")
    parser.add_argument("--tgt-lang", default=None, help="target language code (M2M100/NLLB only)")
    parser.add_argument("--backend", default="hf", help="hf (transformers, default) or ct2 (CTranslate2; "
                                                         "sampling still runs on hf)")
    parser.add_argument("--compute-type", default="default", help="ct2 only: int8, float32, … (default: the "
                                                                  "model's own)")
    parser.add_argument("--translator-option", action="append", default=[], metavar="KEY=VALUE",
                        help="an option of a spec translator, JSON if it parses (e.g. examples=[[\"Hi.\",\"Hallo.\"]], "
                             "chat=false, max_new_tokens=64 for hf-causal); see docs/llm-backends.md")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..errors import InputError, Terminated, interrupted_status
    from ..translators.load import open_translator

    # a stream closed by the shell (`>&-`, `<&-`) is None in Python: said before any work, not an
    # AttributeError once the first translations are ready
    if sys.stdout is None:
        raise InputError("standard output is closed; translate writes its translations there",
                         hint="redirect it to a file (> out.txt) or a pipe instead of closing it (>&-)")
    if sys.stdin is None:
        raise InputError("standard input is closed; translate reads the sentences from there",
                         hint="pipe one sentence per line, e.g. mtdebias translate CKPT < input.en")
    if args.beam is not None and args.beam < 1:
        raise InputError(f"--beam {args.beam} must be 1 or more", hint="--beam 1 is greedy decoding")
    if args.sample < 0 or args.epsilon < 0 or args.epsilon >= 1:
        raise InputError("--sample must be >= 0 and --epsilon within [0, 1)")
    from ..translators.load import check_backend, classify
    from .key_values import parse_pairs

    check_backend(args.backend, args.compute_type)
    options = parse_pairs(args.translator_option, "translator-option")
    # classified once (translators/load.py): a wrong path or an uncached hub id fails before stdin is read
    source = classify(args.checkpoint, revision=args.revision, what="checkpoint", download=True, runs=False,
                      options=options, given_as="--translator-option")
    if options and source.kind != "spec":
        raise InputError("--translator-option applies to translator specs (hf-causal:MODEL, openai:…)",
                         hint="drop it, or name the model as a spec")
    decoder_only = source.kind == "spec" and source.backend in DECODER_ONLY
    chosen = args.beam is not None
    if not chosen:
        args.beam = 1 if decoder_only else SEQ2SEQ_BEAM
    lines = read_stream_lines(sys.stdin)  # read before the model is loaded
    if not lines:
        raise InputError("nothing to translate: standard input is empty",
                         hint="pipe one sentence per line, e.g. mtdebias translate CKPT < input.en")
    print(f"mtdebias translate: {_decoding(args, decoder_only, chosen)}", file=sys.stderr, flush=True)
    written, truncated = 0, []
    try:
        if source.kind == "spec":
            languages = {k: v for k, v in (("src_lang", args.src_lang), ("tgt_lang", args.tgt_lang)) if v}
            translator = open_translator(source, **{**languages, **options})
        else:
            opened = source.with_backend(args.backend)
            translator = open_translator(opened, device=args.device, src_lang=args.src_lang, tgt_lang=args.tgt_lang,
                                         **({"compute_type": args.compute_type} if opened.backend == "ct2" else {}))
        for out, cut in _in_order(translator, lines, args):
            # Ctrl-C (and SIGTERM, which the CLI turns into the same) is held back while a chunk
            # is written and counted, so the count the message gives is exactly what reached stdout.
            # A handler that only records it, not a blocked signal mask: the mask is per thread,
            # and torch's threads would still take the signal. A signal ignored stays ignored
            pressed: list[int] = []
            previous = {number: signal.signal(number, lambda number, frame: pressed.append(number))
                        for number in (signal.SIGINT, signal.SIGTERM) if callable(signal.getsignal(number))}
            try:
                sys.stdout.write("".join(line + "\n" for line in out))
                sys.stdout.flush()
                written += len(out)
                truncated += cut
            finally:
                for number, handler in previous.items():
                    signal.signal(number, handler)
            if pressed:
                raise Terminated if signal.SIGTERM in pressed else KeyboardInterrupt
    except KeyboardInterrupt as exc:
        rest = (f"to translate the rest, feed lines {written + 1}-{len(lines)} again, e.g. tail -n +{written + 1} "
                "INPUT | mtdebias translate …" if written else "nothing was written: rerun the same command")
        what = "stopped by SIGTERM" if isinstance(exc, Terminated) else "interrupted"
        print(f"mtdebias translate: {what}: the first {written} of {len(lines)} lines were translated and "
              f"written; {rest}", file=sys.stderr)
        return interrupted_status(exc)
    finally:
        if truncated:
            shown = ", ".join(map(str, truncated[:FIRST_LINES])) + (", …" if len(truncated) > FIRST_LINES else "")
            print(f"warning: {len(truncated)} input line(s) longer than the model's positions were cut to fit and "
                  f"translated only in part (line(s) {shown}); split them into sentences", file=sys.stderr)
    return 0


def _decoding(args: argparse.Namespace, decoder_only: bool, chosen: bool) -> str:
    """The first progress line: how the lines will be decoded, and how to ask for another way."""
    if args.sample:
        return f"{args.sample} ε-sample(s) per line (ε = {args.epsilon}, seed {args.seed})"
    if args.beam == 1:
        why = "" if chosen else ", the default for a decoder-only LLM"
        return f"greedy decoding (beam 1{why}; --beam N for beam search)"
    return f"beam search, beam {args.beam}" + (" (--beam)" if chosen else " (the default; --beam 1 for greedy)")


def _in_order(translator, lines: list[str], args: argparse.Namespace):
    """(output lines, 1-based numbers of the input lines cut to fit) a chunk at a time, in input
    order, so an interrupted run has printed a prefix of the output."""
    for start in range(0, len(lines), STREAM_LINES):
        chunk = lines[start:start + STREAM_LINES]
        # one line out per line in: a language model's reply may run on over several lines (a note
        # after the translation); its line breaks (and, between samples, tabs) become spaces, and
        # any other control character is written visibly (see _one_line)
        if args.sample:
            out = ["\t".join(_one_line(t, "\t") for t in s)
                   for s in translator.sample(chunk, n=args.sample, epsilon=args.epsilon, seed=args.seed)]
        else:
            out = [_one_line(t) for t in translator.translate(chunk, beam=args.beam)]
        yield out, [start + i + 1 for i in translator.last_truncated]


def _one_line(text: str, also: str = "") -> str:
    """``text`` as one line of the output: every line break str.splitlines knows (and the marks
    in ``also``) a space, and the other control characters written as ``\\xNN`` (a server's
    reply may hold ESC or NUL, which would drive the terminal or cut the line for a reader)."""
    for mark in LINE_BREAKS + also:
        text = text.replace(mark, " ")
    return visible(text, keep="\t")
