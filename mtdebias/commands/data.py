"""`mtdebias data …`: rebuild the shipped name data, the profession tables, and generate the
synthetic biased corpus."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("data", help="build data files: name lists, professions, synthetic corpus")
    verbs = parser.add_subparsers(dest="data_command", metavar="{names,synth,professions,candidates}")
    verbs.required = True

    names = verbs.add_parser("names", help="rebuild the SSA name-gender lexicon and the probe name lists")
    names.add_argument("--out", type=Path, default=Path("mtdebias/data/names"), help="output folder (default mtdebias/data/names)")
    names.add_argument("--seed", type=int, default=13, help="seed of the list sampling (default 13)")
    names.add_argument("--ratio", type=float, default=3.0,
                       help="a name is gendered when one gender's count is > RATIO x the other's (default 3)")
    names.add_argument("--min-difference", type=int, default=100,
                       help="... and exceeds it by more than this (default 100)")
    names.add_argument("--top-k", type=int, default=1000,
                       help="lists sample from the top-K gendered names of each gender (default 1000)")
    names.set_defaults(func=run)

    candidates = verbs.add_parser("candidates", help="write a SwitchEntity candidate list of names outside the "
                                                     "probe lists (for augment.candidates)")
    candidates.add_argument("--per-gender", type=int, default=300)
    candidates.add_argument("--seed", type=int, default=13)
    candidates.add_argument("--out", type=Path, default=Path("mtdebias/data/names/switch_candidates.tsv"))
    candidates.set_defaults(func=run)

    synth = verbs.add_parser("synth", help="generate the synthetic biased en→X corpus (train/dev/test + synth.json)")
    synth.add_argument("--tgt-lang", required=True, choices=["de", "fr", "es"])
    synth.add_argument("--size", type=int, required=True, help="number of training pairs")
    synth.add_argument("--seed", type=int, default=1)
    synth.add_argument("--out", type=Path, required=True)
    synth.add_argument("--dev-size", type=int, default=500)
    synth.add_argument("--test-size", type=int, default=500)
    synth.add_argument("--n-female", type=int, default=30, help="number of female names (default 30)")
    synth.add_argument("--n-male", type=int, default=60, help="number of male names (default 60)")
    synth.add_argument("--female-share", type=float, default=0.2,
                       help="expected share of person mentions that are female (default 0.2)")
    synth.add_argument("--zipf-exponent", type=float, default=1.2,
                       help="name frequency ∝ rank^-EXPONENT within each gender (default 1.2)")
    synth.add_argument("--filler-share", type=float, default=0.2,
                       help="share of sentences without a person (default 0.2)")
    synth.set_defaults(func=run)

    professions = verbs.add_parser("professions",
                                   help="write professions_<lang>.tsv (english, masculine, feminine)")
    professions.add_argument("--out", type=Path, default=Path("mtdebias/data/synth"))
    professions.add_argument("--templates-out", type=Path, default=Path("mtdebias/data/templates"),
                             help="where name_gender_synth_<lang>.tsv (quickstart templates) go")
    professions.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.data_command == "names":
        from ..names.build import build_names

        manifest = build_names(args.out, seed=args.seed, ratio=args.ratio,
                               min_difference=args.min_difference, top_k=args.top_k)
        lex = manifest["lexicon"]
        print(f"wrote {args.out}: {lex['rows']} names ({lex['female']} female, {lex['male']} male, "
              f"{lex['unknown']} unknown); 4 lists of {manifest['lists']['size']} (seed {args.seed})")
        return 0
    if args.data_command == "synth":
        from ..synth import generate

        corpus = generate(args.tgt_lang, args.size, args.seed, dev_size=args.dev_size,
                          test_size=args.test_size, n_female=args.n_female, n_male=args.n_male,
                          female_share=args.female_share, zipf_exponent=args.zipf_exponent,
                          filler_share=args.filler_share, progress=True)
        manifest = corpus.write(args.out)
        sizes = manifest["sizes"]
        print(f"wrote {args.out}: train {sizes['train']}, dev {sizes['dev']}, test {sizes['test']} "
              f"(en-{args.tgt_lang}, female share {manifest['female_share']['train']:.3f}, "
              f"data {manifest['data_hash']})")
        return 0
    if args.data_command == "candidates":
        from ..names.build import write_switch_candidates

        print(f"wrote {write_switch_candidates(args.out, args.per_gender, args.seed)}")
        return 0
    if args.data_command == "professions":
        from ..synth.export import write_profession_tables, write_synth_templates, write_synth_winomt

        for path in [*write_profession_tables(args.out), *write_synth_templates(args.templates_out),
                     write_synth_winomt(args.templates_out)]:
            print(f"wrote {path}")
        return 0
    raise ValueError(args.data_command)
