"""``mtdebias translate CHECKPOINT``: translate standard input, one sentence per line."""

from __future__ import annotations

import argparse
import sys


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("translate", help="translate stdin to stdout with a checkpoint",
                                   description="Translate lines from standard input with a local checkpoint.")
    parser.add_argument("checkpoint", help="a local checkpoint directory")
    parser.add_argument("--beam", type=int, default=5, help="beam size (default 5)")
    parser.add_argument("--sample", type=int, default=0, metavar="N",
                        help="print N ε-samples per line instead (tab-separated)")
    parser.add_argument("--epsilon", type=float, default=0.02, help="ε for sampling (default 0.02)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--device", default=None, help="cpu, cuda, cuda:1 … (default: cuda when available)")
    parser.add_argument("--src-lang", default=None, help="source language code (M2M100/NLLB only)")
    parser.add_argument("--tgt-lang", default=None, help="target language code (M2M100/NLLB only)")
    parser.add_argument("--backend", default="hf", help="hf (transformers, default) or ct2 (CTranslate2; "
                                                         "sampling still runs on hf)")
    parser.add_argument("--compute-type", default="default", help="ct2 only: int8, float32, … (default: the "
                                                                  "model's own)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..errors import InputError
    from ..translators.loader import open_checkpoint

    if args.beam < 1:
        raise InputError(f"--beam must be at least 1, got {args.beam}")
    translator = open_checkpoint(args.checkpoint, args.backend, args.compute_type, device=args.device,
                                 src_lang=args.src_lang, tgt_lang=args.tgt_lang)
    lines = [line.rstrip("\n") for line in sys.stdin]
    if args.sample:
        for samples in translator.sample(lines, n=args.sample, epsilon=args.epsilon, seed=args.seed):
            print("\t".join(samples))
    else:
        for line in translator.translate(lines, beam=args.beam):
            print(line)
    return 0
