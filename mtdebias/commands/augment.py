"""``mtdebias augment DIR``: write one epoch of the SwitchEntity-augmented corpus, or with
``--format fairseq --epochs 1-10`` one binarised fairseq shard per epoch."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "augment", help="write one epoch's entity-switched corpus from an annotation directory",
        description="Switch every annotated entity for a same-type (same-gender) candidate, "
                    "deterministically from --seed and --epoch.")
    parser.add_argument("dir", help="directory written by `mtdebias annotate`")
    parser.add_argument("--epoch", type=int, help="the epoch to write (text format)")
    parser.add_argument("--epochs", help="fairseq format: epochs to write, e.g. 1-10 or 1,3,5-6")
    parser.add_argument("--seed", type=int, default=0, help="seed of the candidate draws (default 0)")
    # --out names what is written, as in every verb (a folder, or one file), never a prefix
    parser.add_argument("--out", help="what to write: with --joint the file of 'src ||| tgt' lines; with "
                                      "--format fairseq the folder holding epoch1/, epoch2/, …")
    parser.add_argument("--out-prefix", metavar="PREFIX",
                        help="text format without --joint: writes PREFIX.src and PREFIX.tgt")
    parser.add_argument("--format", default="text", choices=("text", "fairseq"),
                        help="fairseq: subword-encode each epoch and binarise it with fairseq-preprocess "
                             "(shared dictionary); prints the fairseq-train data argument")
    parser.add_argument("--joint", action="store_true", help="write one file of 'src ||| tgt' lines")
    parser.add_argument("--p", type=float, default=1.0, help="probability to switch each name")
    parser.add_argument("--types", default="PERSON", help="comma-separated types to switch")
    parser.add_argument("--no-match-gender", dest="match_gender", action="store_false",
                        help="draw persons regardless of gender")
    parser.add_argument("--unknown", default="never", choices=("among_unknown", "never"),
                        help="persons of unknown gender: never switched (default); among_unknown "
                             "only for language pairs that mark no gender")
    parser.add_argument("--swap-log", default=None, metavar="DIR", help="write the swaps made here")
    fairseq = parser.add_argument_group("fairseq format")
    fairseq.add_argument("--spm", metavar="MODEL", help="SentencePiece model to encode with (joint)")
    fairseq.add_argument("--bpe-codes", metavar="CODES", help="or: subword-nmt codes (after Moses tokenisation)")
    fairseq.add_argument("--spm-vocab", type=int, metavar="N",
                         help="or: train a joint SentencePiece model of N pieces on the (unswitched) corpus "
                              "into OUT/spm.model; an existing OUT/spm.model is reused")
    fairseq.add_argument("--src-lang", help="source language code (default: the annotation's)")
    fairseq.add_argument("--tgt-lang", help="target language code (default: the annotation's)")
    fairseq.add_argument("--valid-src", metavar="FILE", help="raw validation sources (binarised into every shard)")
    fairseq.add_argument("--valid-tgt", metavar="FILE", help="raw validation targets")
    fairseq.add_argument("--workers", type=int, default=1, help="fairseq-preprocess workers")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..store import atomic
    from ..errors import InputError

    _check_switch_options(args)
    _check_out(args)
    out = Path(args.out)
    flag = "--out-prefix" if args.out_prefix else "--out"
    _check_out_paths(args, flag)
    atomic.check_writable(out if args.format == "fairseq" else out.parent, flag)
    if args.format == "fairseq":
        return _run_fairseq(args)
    if args.epoch is None:
        raise InputError("--epoch N is required", hint="or --format fairseq --epochs 1-10 for fairseq shards")
    if args.epoch < 0:
        raise InputError(f"--epoch {args.epoch} must be 0 or more", hint="epochs count from 0")
    from ..progress import heartbeat

    switch = _switch(args)
    with heartbeat(f"augment epoch {args.epoch}"):  # one pass over the corpus: minutes on a large one
        sources, targets = switch.pairs(args.epoch)
    if args.joint:
        atomic.write_text(args.out, "".join(f"{s} ||| {t}\n" for s, t in zip(sources, targets)))
        written = args.out
    else:
        atomic.write_text(f"{args.out}.src", "".join(s + "\n" for s in sources))
        atomic.write_text(f"{args.out}.tgt", "".join(t + "\n" for t in targets))
        written = f"{args.out}.src/.tgt"
    print(f"epoch {args.epoch}: {len(sources)} pairs, {switch.last_stats.get('switched', 0)} "
          f"names switched → {written}")
    return 0


def _check_out(args: argparse.Namespace) -> None:
    """--out is what the verb writes (a folder or one file), as in annotate or debias; the text
    format's two files take --out-prefix. An old command line, --out PREFIX, still works, with
    a note. Leaves the prefix (or the file, or the folder) in args.out."""
    from ..errors import InputError

    if args.format == "fairseq" or args.joint:
        if args.out_prefix:
            raise InputError("--out-prefix names the two files of the text format",
                             hint="give --out " + ("FOLDER" if args.format == "fairseq" else "FILE"))
        if not args.out:
            raise InputError("--out is required", hint="the folder of epoch shards" if args.format == "fairseq"
                             else "the file of 'src ||| tgt' lines")
        return
    if args.out and args.out_prefix:
        raise InputError("give --out-prefix only", hint="--out PREFIX is the old spelling of --out-prefix")
    if args.out:
        print(f"note: --out {args.out} as a prefix of two files is deprecated: write --out-prefix {args.out} "
              "(--out names one file or folder in every verb)", file=sys.stderr)
        return
    if not args.out_prefix:
        raise InputError("--out-prefix is required",
                         hint="PREFIX.src and PREFIX.tgt are written; or --joint --out FILE")
    args.out = args.out_prefix


def _check_out_paths(args: argparse.Namespace, flag: str) -> None:
    """What augment writes is never a run's file, an input or a file augment did not write
    (mtdebias/store/outputs.py): a rerun replaces its own output, nothing else."""
    from ..store.outputs import check_output_file, check_output_folder

    inputs = [args.dir, args.valid_src, args.valid_tgt, args.spm, args.bpe_codes]
    if args.swap_log:
        check_output_folder(args.swap_log, "--swap-log", names=(), role="the swap log folder", inputs=inputs)
    if args.format == "fairseq":  # epochN/ folders and the model it trains: its own names, reused on a rerun
        check_output_folder(args.out, flag, names=(), inputs=inputs)
    elif args.joint:
        check_output_file(args.out, flag, role="the joint corpus", inputs=inputs, ours=_is_joint_corpus,
                          example="augmented.txt")
    else:
        for side in ("src", "tgt"):
            check_output_file(f"{args.out}.{side}", flag, role=f"the .{side} side", inputs=inputs,
                              ours=_is_text_pair, example=f"augmented.{side}")


def _is_joint_corpus(path: Path) -> bool:
    """Every line 'src ||| tgt', as --joint writes them."""
    try:
        with open(path, encoding="utf-8") as handle:
            return all(" ||| " in line for line in handle)
    except (OSError, ValueError):
        return False


def _is_text_pair(path: Path) -> bool:
    """PREFIX.src and PREFIX.tgt written by an earlier augment: both there, one line a pair. Plain
    lines carry no mark of their writer, so a pair of sides is the most that can be read; inputs
    and a run's files are refused before this is asked."""
    other = path.with_suffix(".tgt" if path.suffix == ".src" else ".src")
    try:
        with open(path, "rb") as mine, open(other, "rb") as theirs:
            return sum(1 for _ in mine) == sum(1 for _ in theirs)
    except OSError:
        return False


def _check_switch_options(args: argparse.Namespace) -> None:
    from ..errors import InputError
    from ..ner import TYPES

    if not 0.0 <= args.p <= 1.0:
        raise InputError(f"--p {args.p} is a probability: it must be within [0, 1]")
    types = _types(args)
    unknown = [t for t in types if t not in TYPES]
    if unknown or not types:  # an unknown type would switch nothing and still "succeed"
        raise InputError(f"--types {args.types!r}: unknown entity type(s) {', '.join(unknown) or '(none given)'}",
                         hint=f"choose among {', '.join(TYPES)}")


def _switch(args: argparse.Namespace):
    from ..augment.switch import SwitchEntity

    return SwitchEntity(args.dir, seed=args.seed, p=args.p, types=_types(args),
                        match_gender=args.match_gender, unknown_policy=args.unknown, swap_log=args.swap_log)


def _types(args: argparse.Namespace) -> tuple[str, ...]:
    return tuple(t.strip().upper() for t in args.types.split(",") if t.strip())


def _run_fairseq(args: argparse.Namespace) -> int:
    import json

    from ..augment.fairseq_shards import parse_epochs, read_parallel, write_fairseq_shards
    from ..errors import InputError
    from ..models.fairseq_env import require_fairseq
    from ..models.subword import load_codec, train_sentencepiece

    # every check before any work: epochs, fairseq itself, subword model, languages, valid files
    if not args.epochs:
        raise InputError("--format fairseq needs --epochs, e.g. --epochs 1-10")
    epochs = parse_epochs(args.epochs)
    require_fairseq("--format fairseq")
    given = [a for a in (args.spm, args.bpe_codes, args.spm_vocab) if a is not None]
    if len(given) != 1:
        raise InputError("--format fairseq needs one subword model: --spm MODEL or --bpe-codes CODES, "
                         "or --spm-vocab N to train one")
    if args.spm_vocab is None:
        codec = load_codec(args.spm, args.bpe_codes)
    if (args.valid_src is None) != (args.valid_tgt is None):
        raise InputError("give both --valid-src and --valid-tgt, or neither")
    valid = read_parallel(args.valid_src, args.valid_tgt) if args.valid_src else None
    switch = _switch(args)
    if args.spm_vocab is not None:
        model = Path(args.out) / "spm.model"
        if model.is_file():
            print(f"reusing {model} (delete it to train a new one)", file=sys.stderr)
        else:
            train_sentencepiece(switch.sources + switch.targets, model, args.spm_vocab)
        codec = load_codec(model)
    langs = json.loads((Path(args.dir) / "candidates.json").read_text(encoding="utf-8"))
    src_lang = args.src_lang or langs.get("src_lang")
    tgt_lang = args.tgt_lang or langs.get("tgt_lang")
    if not src_lang or not tgt_lang:
        raise InputError("the annotation does not record its languages", path=Path(args.dir) / "candidates.json",
                         hint="pass --src-lang and --tgt-lang")
    options = {"p": args.p, "types": list(_types(args)), "match_gender": args.match_gender, "unknown": args.unknown}

    from ..progress import progress

    bar = progress(total=len(epochs), desc="augment", unit="epoch")

    def report(epoch, stats):
        bar.set_postfix(epoch=epoch, switched="up to date" if stats is None else stats.get("switched", 0))
        bar.update(1)

    with bar:
        plan = write_fairseq_shards(switch, args.dir, epochs, args.out, codec, src_lang=src_lang,
                                    tgt_lang=tgt_lang, valid=valid, workers=args.workers, options=options,
                                    progress=report)
    if valid is None:
        print("note: no --valid-src/--valid-tgt: run fairseq-train with --disable-validation", file=sys.stderr)
    print(plan.data_argument())
    return 0
