"""``mtdebias debias CHECKPOINT --out DIR``: write a copy with debiased encoder embeddings."""

from __future__ import annotations

import argparse

from ..probes.registry import DEBIAS_METHODS


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "debias", help=f"debias a checkpoint's encoder input embeddings ({', '.join(DEBIAS_METHODS.entries)})",
        description="Remove the gender direction from the encoder embeddings of gender-neutral words "
                    "(by default one-token professions) and write the result, with a diagnostics "
                    "report (debias_report.json), to a new checkpoint directory. Decoder and output "
                    "weights are left bit-identical (shared tables are untied first).")
    parser.add_argument("checkpoint", help="a checkpoint directory or a hub id (org/name or org/name@REV) of a "
                                           "Marian, M2M100 or NLLB model")
    parser.add_argument("--revision", help="hub revision (branch, tag or commit) of a hub id")
    parser.add_argument("--out", required=True, help="a new (or empty) folder for the debiased checkpoint, e.g. "
                                                      "RUN/checkpoints/NAME-debiased")
    parser.add_argument("--method", choices=DEBIAS_METHODS.names(), default="hard",
                        help=f"a registered method: {', '.join(DEBIAS_METHODS.entries)} (or without the version; "
                             f"default hard, Bolukbasi et al.'s neutralise step)")
    parser.add_argument("--words", default="professions",
                        help="'professions' (the shipped list) or a file with one word per line")
    parser.add_argument("--pairs", default="en",
                        help="definitional pairs: a shipped language (en, de, fr) or a female<TAB>male TSV")
    parser.add_argument("--multi-token", choices=("skip", "first", "all"), default="skip",
                        help="words of several subword pieces: skip them (default, as Iluz et al. 2024), "
                             "or change their first or all pieces")
    parser.add_argument("--equalise", action="store_true",
                        help="also make each definitional pair symmetric about the neutral subspace (hard only)")
    parser.add_argument("--no-keep-norm", dest="keep_norm", action="store_false",
                        help="do not rescale changed rows to their original norms")
    parser.add_argument("--dev-src", help="dev source file: report BLEU/chrF before and after")
    parser.add_argument("--dev-ref", help="dev reference file (with --dev-src)")
    parser.add_argument("--beam", type=int, default=5, help="beam size for the dev set (default 5)")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace a copy an earlier debias wrote at --out (a folder whose debias_report.json "
                             "lists every file in it); a run, a folder of runs, the source checkpoint, a file, a "
                             "link or a folder with anything else in it is never replaced")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a setting of the method's eraser (a keyword of its constructor; a misspelt one is "
                             "refused with the list, before the model loads), value read as JSON if it parses")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..store.atomic import check_writable
    from ..debias.apply import REPORT_NAME, check_debias_out, check_eraser_options, debias_checkpoint
    from ..models.hub import local_model_dir
    from .key_values import parse_pairs

    options = parse_pairs(args.option)
    check_eraser_options(args.method, options, where="--option")  # before the model is loaded
    check_writable(Path(args.out).parent, "--out")
    # before a hub model is downloaded; debias_checkpoint checks again with the local snapshot
    check_debias_out(args.out, args.checkpoint if Path(args.checkpoint).exists() else None, args.overwrite)
    checkpoint = local_model_dir(args.checkpoint, what="checkpoint", revision=args.revision, download=True)
    report = debias_checkpoint(checkpoint, args.out, args.method, words=args.words,
                               multi_token=args.multi_token, equalise=args.equalise, keep_norm=args.keep_norm,
                               pairs=args.pairs, dev_src=args.dev_src, dev_ref=args.dev_ref,
                               beam=args.beam, overwrite=args.overwrite, eraser_options=options)
    counts = report.counts
    print(f"{args.out}: {report.method} debiasing of {counts['rows_neutralised']} encoder rows "
          f"({counts['single_token_words']} one-token words of {counts['words']}; "
          f"{counts['multi_token_words']} multi-token words {'skipped' if args.multi_token == 'skip' else 'by ' + args.multi_token + ' piece(s)'}; "
          f"{counts['unknown_words']} unknown)")
    print(f"gender direction from {counts['pairs_used']} pairs explains "
          f"{report.direction['variance_explained']:.1%} of their variance; "
          f"max |projection|/norm after: {report.max_abs_relative_projection_after:.2e}")
    if report.untied:
        print("encoder embeddings were shared with the decoder: untied (decoder weights unchanged)")
    if report.dev:
        before, after = report.dev["before"], report.dev["after"]
        print(f"dev ({report.dev['sentences']} sentences): BLEU {before['bleu']:.2f} -> {after['bleu']:.2f}, "
              f"chrF {before['chrf']:.2f} -> {after['chrf']:.2f}")
    print(f"report: {args.out}/{REPORT_NAME}")
    print(f"signature: {report.signature}")
    return 0
