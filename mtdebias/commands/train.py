"""``mtdebias train RECIPE [--set k=v]…``: train (or resume) the run a recipe describes."""

from __future__ import annotations

import argparse
import json


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "train", help="train or resume a model from a TOML recipe",
        description="Train (or resume, if the run directory holds checkpoints) the run a recipe describes.")
    parser.add_argument("recipe", help="TOML recipe (see recipes/)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="SECTION.KEY=VALUE",
                        help="override a recipe value, e.g. --set train.epochs=3 (repeatable)")
    parser.add_argument("--check", action="store_true",
                        help="validate the recipe (and every file its eval suite will read) and exit")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..experiments.pipeline import check_recipe, run_recipe
    from ..recipe import load_recipe

    recipe = load_recipe(args.recipe, args.overrides)
    reads = check_recipe(recipe)  # every file the eval suite will read exists: before any training
    if args.check:
        print(f"{args.recipe}: valid; run directory {recipe.run_dir}")
        for line in reads:
            print(f"  eval reads: {line}")
        return 0
    from ..store.atomic import check_writable

    check_writable(recipe.run_dir, "run directory (run.dir/run.name)")
    store = run_recipe(recipe)
    from ..train.distributed import process_state

    if not process_state().is_main_process:  # one summary per run, not one per process
        return 0
    best = store.read_best()
    print(f"run directory: {store.dir}")
    for record in _history(store):
        print("  ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in record.items()))
    if best:
        print(f"best: {json.dumps(best)}")
    return 0


def _history(store):
    rows = [r for r in store.read_log() if "checkpoint" in r]
    return [{k: r[k] for k in ("checkpoint", "dev_loss", "bleu", "chrf") if k in r} for r in rows]
