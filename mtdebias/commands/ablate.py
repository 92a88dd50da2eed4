"""``mtdebias ablate RECIPE [--grid k=v1,v2]… [--seeds 1,2,3]``: run, score and compare variants."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "ablate", help="run an ablation grid and write a comparison report",
        description="Expand a grid (or the recipe's [ablate] variants) × seeds into runs, train them (resuming "
                    "unfinished ones, skipping finished ones), score every checkpoint with the recipe's eval suite, "
                    "and write a comparison report with significance tests against the baseline.")
    parser.add_argument("recipe", type=Path, help="TOML recipe: the base every variant changes")
    parser.add_argument("--grid", nargs="*", default=[], metavar="SECTION.KEY=V1,V2",
                        help="e.g. --grid augment.p=0,0.5,1 debias.method=none,hard")
    parser.add_argument("--seeds", default="", help="comma-separated seeds, e.g. 1,2,3")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="SECTION.KEY=VALUE",
                        help="override applied to every variant")
    parser.add_argument("--variants", default="", metavar="NAME,NAME",
                        help="run only these of the recipe's [ablate] variants (the baseline must be among them "
                             "for paired tests)")
    parser.add_argument("--jobs", type=int, default=1, help="variants trained at once")
    parser.add_argument("--report", type=Path, help="report HTML path (default <runs dir>/<name>-report.html)")
    parser.add_argument("--force", action="store_true",
                        help="let the report replace files at its paths that no mtdebias report wrote; never a "
                             "folder (see `mtdebias report --help`). Checked before any variant is trained")
    parser.add_argument("--dry-run", action="store_true", help="list the variants and exit")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..experiments.ablation import expand, parse_grid, run_ablation, significance_markdown, validate_variants

    seeds = []
    for text in (s.strip() for s in args.seeds.split(",") if s.strip()):
        if not text.isdigit():
            from ..errors import ConfigError

            raise ConfigError(f"--seeds {args.seeds!r}: {text!r} is not a seed (a whole number >= 0)",
                              hint="pass comma-separated seeds, e.g. --seeds 1,2,3")
        seeds.append(int(text))
    only = [name.strip() for name in args.variants.split(",") if name.strip()]
    if args.dry_run:
        from ..recipe import load_recipe

        variants = expand(load_recipe(args.recipe, args.overrides), parse_grid(args.grid), seeds, only)
        for variant, resolved in zip(variants, validate_variants(args.recipe, variants, args.overrides)):
            print(f"{variant.run_name:<40} {resolved.run_dir}  {' '.join(variant.overrides)}")
        return 0
    outcome = run_ablation(args.recipe, grid=args.grid, seeds=seeds, overrides=args.overrides, jobs=args.jobs,
                           report=args.report, only=only, force=args.force)
    if outcome.evaluation:
        print(f"[ablate] evaluation: {outcome.evaluation}")
    print(f"report: {outcome.report}\nsummary: {outcome.markdown}")
    print(outcome.headline_markdown)
    print(significance_markdown(outcome.tests))
    return 0
