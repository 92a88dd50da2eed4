"""Ablation studies: expand a grid (or named variants) × seeds into runs, train, score, compare.

Every variant is the base recipe plus ``--set`` overrides, so a variant is validated exactly
like a recipe — all of them before the first one starts. Runs that finished are skipped and
unfinished ones resume, so an interrupted ablation is restarted with the same command.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from .errors import ConfigError
from .recipe import Recipe, apply_overrides, parse_recipe


@dataclass(frozen=True)
class Variant:
    name: str  # e.g. "switch_entity" or "augment.p=0.5,debias.method=hard"
    overrides: tuple[str, ...]
    seed: int

    @property
    def run_name(self) -> str:
        return f"{self.name}-seed{self.seed}"


def parse_grid(items: Iterable[str]) -> list[tuple[str, list[str]]]:
    """``["augment.p=0,0.5,1", "debias.method=none,hard"]`` → [(key, values), …]."""
    grid = []
    for item in items:
        key, sep, values = item.partition("=")
        if not sep or "." not in key or not values:
            raise ConfigError(f"grid entry '{item}' must look like section.key=v1,v2,...")
        grid.append((key.strip(), [v.strip() for v in values.split(",")]))
    return grid


def expand(recipe: Recipe, grid: list[tuple[str, list[str]]] = (), seeds: Iterable[int] = ()) -> list[Variant]:
    """The variants of an ablation: a grid's cartesian product, or the recipe's [ablate] variants."""
    seeds = list(seeds) or list(recipe.ablate.seeds) or [recipe.run.seed]
    named: list[tuple[str, tuple[str, ...]]] = []
    if grid:
        keys = [key for key, _ in grid]
        for combo in itertools.product(*[values for _, values in grid]):
            overrides = tuple(f"{k}={v}" for k, v in zip(keys, combo))
            named.append((",".join(f"{k.split('.', 1)[1]}={v}" for k, v in zip(keys, combo)), overrides))
    else:
        for spec in recipe.ablate.variants or ("base",):
            name, _, rest = spec.partition(":")
            overrides = tuple(part.strip() for part in rest.split(";") if part.strip())
            named.append((name.strip(), overrides))
    names = [name for name, _ in named]
    if len(set(names)) != len(names):
        raise ConfigError(f"variant names repeat: {names}")
    return [Variant(name, overrides, seed) for name, overrides in named for seed in seeds]


def variant_overrides(recipe: Recipe, variant: Variant) -> list[str]:
    return [*variant.overrides, f"run.seed={variant.seed}",
            f'run.name="{recipe.run.name}-{variant.run_name}"']


def validate_variants(recipe_path: Path, variants: list[Variant], base_overrides: Iterable[str] = ()) -> list[Recipe]:
    raw = tomllib.loads(recipe_path.read_text(encoding="utf-8"))
    base = parse_recipe(apply_overrides(raw, base_overrides), path=recipe_path)
    return [parse_recipe(apply_overrides(raw, [*base_overrides, *variant_overrides(base, v)]), path=recipe_path)
            for v in variants]


def run_variants(recipe_path: Path, variants: list[Variant], base_overrides: Iterable[str] = (),
                 jobs: int = 1) -> list[Path]:
    """Train every variant (each in its own process; ``jobs`` at a time). Returns run directories."""
    recipes = validate_variants(recipe_path, variants, base_overrides)
    base = recipes[0]
    pending = []
    for variant, recipe in zip(variants, recipes):
        if (recipe.run_dir / "finished.json").exists():
            continue
        command = [sys.executable, "-m", "mtdebias", "train", str(recipe_path),
                   *[arg for item in [*base_overrides, *variant_overrides(base, variant)] for arg in ("--set", item)]]
        pending.append((variant, command))
    running: list[tuple[Variant, subprocess.Popen]] = []
    failures = []
    env = {**os.environ, "OMP_NUM_THREADS": str(max(1, (os.cpu_count() or 1) // max(jobs, 1)))}
    while pending or running:
        while pending and len(running) < jobs:
            variant, command = pending.pop(0)
            print(f"[ablate] training {variant.run_name}", flush=True)
            running.append((variant, subprocess.Popen(command, env=env)))
        variant, proc = running.pop(0)
        if proc.wait() != 0:
            failures.append(variant.run_name)
    if failures:
        raise ConfigError(f"variants failed: {', '.join(failures)}; rerun the same command to resume them")
    return [recipe.run_dir for recipe in recipes]
