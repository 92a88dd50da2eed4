"""``mtdebias augment DIR``: write one epoch of the SwitchEntity-augmented corpus."""

from __future__ import annotations

import argparse


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "augment", help="write one epoch's entity-switched corpus from an annotation directory",
        description="Switch every annotated entity for a same-type (same-gender) candidate, "
                    "deterministically from --seed and --epoch.")
    parser.add_argument("dir", help="directory written by `mtdebias annotate`")
    parser.add_argument("--epoch", type=int, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", required=True,
                        help="output prefix: writes OUT.src and OUT.tgt (or one file, see --joint)")
    parser.add_argument("--joint", action="store_true", help="write one file of 'src ||| tgt' lines")
    parser.add_argument("--p", type=float, default=1.0, help="probability to switch each name")
    parser.add_argument("--types", default="PERSON", help="comma-separated types to switch")
    parser.add_argument("--no-match-gender", dest="match_gender", action="store_false",
                        help="draw persons regardless of gender")
    parser.add_argument("--unknown", default="among_unknown", choices=("among_unknown", "never"),
                        help="persons of unknown gender: switch among themselves, or never")
    parser.add_argument("--swap-log", default=None, metavar="DIR", help="write the swaps made here")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .. import atomic
    from ..augment.switch import SwitchEntity
    from ..errors import InputError
    from ..ner import TYPES

    if args.epoch < 0:
        raise InputError(f"--epoch {args.epoch} must be 0 or more", hint="epochs count from 0")
    if not 0.0 <= args.p <= 1.0:
        raise InputError(f"--p {args.p} is a probability: it must be within [0, 1]")
    types = tuple(t.strip().upper() for t in args.types.split(",") if t.strip())
    unknown = [t for t in types if t not in TYPES]
    if unknown or not types:  # an unknown type would switch nothing and still "succeed"
        raise InputError(f"--types {args.types!r}: unknown entity type(s) {', '.join(unknown) or '(none given)'}",
                         hint=f"choose among {', '.join(TYPES)}")
    switch = SwitchEntity(args.dir, seed=args.seed, p=args.p,
                          types=types,
                          match_gender=args.match_gender, unknown_policy=args.unknown,
                          swap_log=args.swap_log)
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
