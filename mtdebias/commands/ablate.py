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
    parser.add_argument("recipe", type=Path)
    parser.add_argument("--grid", nargs="*", default=[], metavar="SECTION.KEY=V1,V2",
                        help="e.g. --grid augment.p=0,0.5,1 debias.method=none,hard")
    parser.add_argument("--seeds", default="", help="comma-separated seeds, e.g. 1,2,3")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="SECTION.KEY=VALUE",
                        help="override applied to every variant")
    parser.add_argument("--jobs", type=int, default=1, help="variants trained at once")
    parser.add_argument("--report", type=Path, help="report HTML path (default <runs dir>/<name>-report.html)")
    parser.add_argument("--dry-run", action="store_true", help="list the variants and exit")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..ablation import expand, parse_grid, run_variants, validate_variants
    from ..recipe import load_recipe

    recipe = load_recipe(args.recipe, args.overrides)
    seeds = []
    for text in (s.strip() for s in args.seeds.split(",") if s.strip()):
        if not text.isdigit():
            from ..errors import ConfigError

            raise ConfigError(f"--seeds {args.seeds!r}: {text!r} is not a seed (a whole number >= 0)",
                              hint="pass comma-separated seeds, e.g. --seeds 1,2,3")
        seeds.append(int(text))
    variants = expand(recipe, parse_grid(args.grid), seeds)
    if args.dry_run:
        for variant, resolved in zip(variants, validate_variants(args.recipe, variants, args.overrides)):
            print(f"{variant.run_name:<40} {resolved.run_dir}  {' '.join(variant.overrides)}")
        return 0
    run_dirs = run_variants(args.recipe, variants, args.overrides, jobs=args.jobs)
    if recipe.eval.suite is not None:  # finished runs too: a changed suite is scored, stored results skip
        from ..runner import evaluate

        outcome = evaluate(run_dirs, recipe.eval.suite)
        print(f"[ablate] evaluation: {len(outcome.scored)} scored, {len(outcome.skipped)} already stored, "
              f"{len(outcome.failed)} failed")
    from ..ablation import compare_to_baseline, significance_markdown
    from ..atomic import write_json, write_text
    from ..report import build_report

    out = Path(args.report or Path(recipe.run.dir) / f"{recipe.run.name}-report.html")
    summary = build_report(run_dirs, out, title=f"Ablation: {recipe.run.name}",
                           metrics=list(recipe.ablate.metrics) or None)
    names = [variant.name for variant in variants]
    # a grid replaces the recipe's named variants, and with them its baseline
    baseline = recipe.ablate.baseline if recipe.ablate.baseline in names else names[0]
    tests = compare_to_baseline(run_dirs, baseline, prefix=f"{recipe.run.name}-")
    write_json(out.with_name(out.stem + "-significance.json"), tests)
    markdown = out.with_suffix(".md")
    text = markdown.read_text(encoding="utf-8") if markdown.exists() else ""
    text += f"\n## Paired tests against the baseline ({baseline})\n\n" + significance_markdown(tests)
    write_text(markdown, text)
    print(f"report: {out}\nsummary: {markdown}")
    print(summary.headline_markdown)
    print(significance_markdown(tests))
    return 0
