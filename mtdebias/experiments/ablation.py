"""Ablation studies: expand a grid (or named variants) × seeds into runs, train, score, compare.

Every variant is the base recipe plus ``--set`` overrides, so a variant is validated exactly
like a recipe — all of them before the first one starts. Runs that finished are skipped and
unfinished ones resume, so an interrupted ablation is restarted with the same command.
"""

from __future__ import annotations

import difflib
import itertools
import os
import subprocess
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from ..errors import ConfigError, InputError
from ..recipe import Recipe, apply_overrides, parse_recipe
from ..stats import holm
from ..store.runs import RunStore, checkpoint_step, checkpoint_suffix, parse_run_name, run_name
from ..textio import parse_toml, read_text


@dataclass(frozen=True)
class Variant:
    name: str  # e.g. "switch_entity" or "augment.p=0.5,debias.method=hard"
    overrides: tuple[str, ...]
    seed: int

    @property
    def run_name(self) -> str:
        return run_name(self.name, self.seed)


def parse_grid(items: Iterable[str]) -> list[tuple[str, list[str]]]:
    """``["augment.p=0,0.5,1", "debias.method=none,hard"]`` → [(key, values), …]."""
    grid = []
    for item in items:
        key, sep, values = item.partition("=")
        if not sep or "." not in key or not values:
            raise ConfigError(f"grid entry '{item}' must look like section.key=v1,v2,...")
        grid.append((key.strip(), [v.strip() for v in values.split(",")]))
    return grid


def expand(recipe: Recipe, grid: list[tuple[str, list[str]]] = (), seeds: Iterable[int] = (),
           only: Iterable[str] = ()) -> list[Variant]:
    """The variants of an ablation: a grid's cartesian product, or the recipe's [ablate] variants
    (``only``: a subset of them by name, e.g. to run the baseline and one method first)."""
    seeds = list(seeds) or list(recipe.ablate.seeds) or [recipe.run.seed]
    named: list[tuple[str, tuple[str, ...]]] = []
    if grid:
        keys = [key for key, _ in grid]
        for combo in itertools.product(*[values for _, values in grid]):
            overrides = tuple(f"{k}={v}" for k, v in zip(keys, combo))
            # a name that is also a tidy folder name: "p-0.5_method-none"
            named.append(("_".join(f"{k.split('.', 1)[1]}-{v}" for k, v in zip(keys, combo)), overrides))
    else:
        for spec in recipe.ablate.variants or ("base",):
            name, _, rest = spec.partition(":")
            overrides = tuple(part.strip() for part in rest.split(";") if part.strip())
            named.append((name.strip(), overrides))
    names = [name for name, _ in named]
    if len(set(names)) != len(names):
        raise ConfigError(f"variant names repeat: {names}")
    only = list(only)
    for name in only:
        if name not in names:
            close = difflib.get_close_matches(name, names, n=1)
            raise ConfigError(f"--variants: no variant named '{name}'" + (f"; did you mean '{close[0]}'?" if close else ""),
                              path=recipe.source or None, hint=f"the variants are {', '.join(names)}")
    if only:
        named = [(name, overrides) for name, overrides in named if name in only]
    return [Variant(name, overrides, seed) for name, overrides in named for seed in seeds]


def variant_overrides(recipe: Recipe, variant: Variant) -> list[str]:
    return [*variant.overrides, f"run.seed={variant.seed}",
            f'run.name="{recipe.run.name}-{variant.run_name}"']


def validate_variants(recipe_path: Path, variants: list[Variant], base_overrides: Iterable[str] = ()) -> list[Recipe]:
    """Each variant's resolved recipe (all validated before anything runs)."""
    from .pipeline import check_recipe

    raw = parse_toml(read_text(recipe_path), recipe_path, ConfigError)
    base = parse_recipe(apply_overrides(raw, base_overrides), path=recipe_path)
    recipes = [parse_recipe(apply_overrides(raw, [*base_overrides, *variant_overrides(base, v)]), path=recipe_path)
               for v in variants]
    for suite in dict.fromkeys(r.eval.suite for r in recipes):
        if suite is not None:
            check_recipe(next(r for r in recipes if r.eval.suite == suite))
    return recipes


def variant_command(recipe_path: Path, recipe: Recipe, variant: Variant, base_overrides: Iterable[str]) -> list[str]:
    """The `mtdebias train` call for one variant, with the overrides that made ``recipe``."""
    sets = [*base_overrides, *variant.overrides, f"run.seed={variant.seed}", f'run.name="{recipe.run.name}"']
    return [sys.executable, "-m", "mtdebias", "train", str(recipe_path), *[a for s in sets for a in ("--set", s)]]


def run_variants(recipe_path: Path, variants: list[Variant], base_overrides: Iterable[str] = (),
                 jobs: int = 1) -> list[Path]:
    """Train every variant (each in its own process; ``jobs`` at a time). Returns run directories."""
    recipes = validate_variants(recipe_path, variants, base_overrides)
    pending = []
    for variant, recipe in zip(variants, recipes):
        if RunStore(recipe.run_dir).is_finished():
            continue
        pending.append((variant, variant_command(recipe_path, recipe, variant, base_overrides)))
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


def _scored_finals(store: RunStore, variant: str) -> list[tuple[str, str]]:
    """(label, checkpoint name) of a run's last scored checkpoint and of its debiased copy, if any."""
    scored = [name for name in store.scored_checkpoints() if checkpoint_step(name) is not None]
    plain = [name for name in scored if not checkpoint_suffix(name)]
    out = [(variant, plain[-1])] if plain else []
    debiased = [name for name in scored if checkpoint_suffix(name) == "debiased"]
    if debiased:
        out.append((f"{variant}+debiased", debiased[-1]))
    return out


def common_items(probe: Any, a: list[dict], b: list[dict]) -> tuple[list[dict], list[dict]]:
    """The attempts both systems made, paired by the item each answers (the probe's
    ``item_key``; the k-th repeat of a key with the k-th): a name-gender probe keeps the
    templates each model passes, so two models share only some of their items, and a paired
    test may use only those."""
    def keyed(rows: list[dict]) -> dict[tuple[Any, int], dict]:
        seen: dict[Any, int] = {}
        out = {}
        for row in rows:
            key = probe.item_key(row)
            seen[key] = seen.get(key, 0) + 1
            out[(key, seen[key])] = row
        return out

    mine, theirs = keyed(a), keyed(b)
    shared = [key for key in mine if key in theirs]
    return [mine[key] for key in shared], [theirs[key] for key in shared]


def compare_to_baseline(run_dirs: list[Path], baseline: str, probes: Mapping[str, Any], prefix: str = "",
                        resamples: int = 1000) -> list[dict]:
    """Paired tests of each variant (and each debiased copy) against the baseline, seed by seed.

    ``probes`` maps suite labels to the suite's probes; each probe says which of its metrics are
    tested and how (:func:`mtdebias.stats.compare.paired_tests`: McNemar for per-item
    accuracies, a paired bootstrap otherwise). Attempts are paired by the item they answer
    (each probe's ``item_key``), so only results of the same suite are compared. Run directories are named
    ``<prefix><variant>-seed<k>`` (as :func:`variant_overrides` makes them).
    """
    from ..stats.compare import paired_tests

    by_seed: dict[int | None, list[tuple[str, RunStore, str]]] = {}
    for run in run_dirs:
        store = RunStore(run)
        prefixed, seed = parse_run_name(store.name)
        by_seed.setdefault(seed, []).extend((label, store, checkpoint) for label, checkpoint
                                            in _scored_finals(store, prefixed.removeprefix(prefix)))
    if not any(label == baseline for entries in by_seed.values() for label, _, _ in entries):
        raise ConfigError(f"baseline variant '{baseline}' has no scored run among {[Path(r).name for r in run_dirs]}",
                          hint="set ablate.baseline to one of the variant names")
    rows = []
    for seed, entries in sorted(by_seed.items(), key=lambda kv: (kv[0] is None, kv[0] or 0)):
        base = next(((store, ckpt) for label, store, ckpt in entries if label == baseline), None)
        if base is None:
            continue
        base_store, base_ckpt = base
        for label, store, ckpt in entries:
            if (store.dir, ckpt) == (base_store.dir, base_ckpt):
                continue
            for probe_label, probe in probes.items():
                if not (base_store.has_attempts(base_ckpt, probe_label) and store.has_attempts(ckpt, probe_label)):
                    continue
                a, b = common_items(probe, base_store.read_attempts(base_ckpt, probe_label),
                                    store.read_attempts(ckpt, probe_label))
                if not a:
                    continue
                row = {"seed": seed, "variant": label, "baseline": baseline, "probe": probe_label,
                       "checkpoints": f"{base_ckpt} vs {ckpt}", "items": len(a)}
                try:
                    tests = paired_tests(probe, a, b, resamples=resamples)
                except InputError as error:  # e.g. attempts stored by an older layout: the rest is compared
                    warnings.warn(f"{probe_label}, {label} (seed {seed}) vs {baseline}: not compared: {error}",
                                  stacklevel=2)
                    continue
                rows += [{**row, **test} for test in tests]
    return with_holm(rows)


# what Holm's adjustment corrects over, as the report says it
HOLM_FAMILY = "every paired test in this table (all variants, seeds, probes and metrics)"


def with_holm(rows: list[dict]) -> list[dict]:
    """``rows`` with ``p_holm``: Holm's adjustment over all of them (see HOLM_FAMILY), the raw
    ``p_value`` kept. An ablation runs dozens of paired tests; at α = 0.05 each, some come out
    "significant" by chance alone, and Holm's keeps the chance of any false one at α."""
    tested = [i for i, row in enumerate(rows) if row.get("p_value") is not None]  # "not tested" rows: no p
    adjusted = dict(zip(tested, holm([rows[i]["p_value"] for i in tested])))
    return [{**row, "p_holm": adjusted.get(i)} for i, row in enumerate(rows)]


def significance_markdown(rows: list[dict]) -> str:
    if not rows:
        return "No paired comparisons (no variant shares a suite and seed with the baseline).\n"
    # baseline/variant values are the metric on the items both systems have (``items``)
    lines = ["| seed | variant | probe | metric | items | baseline | variant | p | p (Holm) | test |",
             "|---|---|---|---|---|---|---|---|---|---|"]

    def number(value: float | None, digits: int) -> str:
        return "undefined" if value is None else f"{value:.{digits}f}"

    for r in rows:
        holm_p = f"{r['p_holm']:.4f}" if r.get("p_holm") is not None else "—"  # untested, or stored before Holm
        p = "—" if r["p_value"] is None else f"{r['p_value']:.4f}"
        test = f"{r['test']}: {r['why']}" if r.get("why") else r["test"]
        lines.append(f"| {r['seed']} | {r['variant']} | {r['probe']} | {r['metric']} | {r.get('items', '')} "
                     f"| {number(r['baseline_value'], 3)} | {number(r['variant_value'], 3)} | {p} | {holm_p} "
                     f"| {test} |")
    tested = sum(r["p_value"] is not None for r in rows)
    return ("\n".join(lines) + f"\n\np: each test's own; p (Holm): Holm-adjusted over {HOLM_FAMILY}, "
            f"{tested} tests. Read p (Holm) < 0.05 as a difference; a raw p < 0.05 alone is one test of many. "
            "A metric undefined for either system (a ΔH below its floor) is not tested.\n")


@dataclass
class AblationOutcome:
    variants: list[Variant]
    run_dirs: list[Path]
    baseline: str
    tests: list[dict]
    report: Path
    markdown: Path
    headline_markdown: str
    evaluation: str = ""  # one line: what evaluation did


def _suite_probes(recipe: Recipe, run_dir: Path) -> dict[str, Any]:
    """{suite label: probe} built for ``run_dir`` (the baseline's): what the tests ask."""
    from ..evaluation.runner import build_probes, run_context
    from ..evaluation.suite import load_suite

    suite = load_suite(recipe.eval.suite)
    return {spec.label: probe for spec, probe in build_probes(suite, run_context(RunStore(run_dir)))}


def run_ablation(recipe_path: Path, *, grid: Iterable[str] = (), seeds: Iterable[int] = (),
                 overrides: Iterable[str] = (), jobs: int = 1, report: Path | None = None,
                 only: Iterable[str] = (), force: bool = False) -> AblationOutcome:
    """Train every variant × seed (finished runs skipped, unfinished ones resumed), score every
    checkpoint with the recipe's suite, write the comparison report and the paired tests.
    ``force``: the report may replace files no report wrote (:mod:`mtdebias.report.outputs`)."""
    from ..store.atomic import check_writable, write_json, write_text
    from ..recipe import load_recipe
    from ..report import build_report
    from ..report.outputs import check_report_outputs, output_lock, report_paths

    overrides = list(overrides)
    recipe = load_recipe(recipe_path, overrides)
    variants = expand(recipe, parse_grid(grid), seeds, only)
    out = Path(report or Path(recipe.run.dir) / f"{recipe.run.name}-report.html")
    # before hours of training: a report folder that refuses files, or a report path that would
    # replace a folder or a file of the user's
    check_writable(out.parent, "--report")
    check_report_outputs(out, force=force, significance=True, flag="--report")
    run_dirs = run_variants(recipe_path, variants, overrides, jobs=jobs)
    evaluation = ""
    if recipe.eval.suite is not None:  # finished runs too: a changed suite is scored, stored results skip
        from ..evaluation.runner import evaluate

        outcome = evaluate(run_dirs, recipe.eval.suite)
        evaluation = (f"{len(outcome.scored)} scored, {len(outcome.skipped)} already stored, "
                      f"{len(outcome.failed)} failed")
    summary = build_report(run_dirs, out, title=f"Ablation: {recipe.run.name}",
                           metrics=list(recipe.ablate.metrics) or None, force=force,
                           metrics_source=f"{recipe_path}: ablate.metrics", out_flag="--report")
    names = [variant.name for variant in variants]
    # a grid replaces the recipe's named variants, and with them its baseline
    baseline = recipe.ablate.baseline if recipe.ablate.baseline in names else names[0]
    tests = compare_to_baseline(run_dirs, baseline, _suite_probes(recipe, run_dirs[names.index(baseline)]),
                                prefix=f"{recipe.run.name}-") if recipe.eval.suite is not None else []
    paths = report_paths(out)
    markdown = paths.markdown
    with output_lock(out.parent):
        check_report_outputs(out, force=force, significance=True, flag="--report")
        write_json(paths.significance, tests)
        text = markdown.read_text(encoding="utf-8") if markdown.exists() else ""
        text += f"\n## Paired tests against the baseline ({baseline})\n\n" + significance_markdown(tests)
        write_text(markdown, text)
    return AblationOutcome(variants, run_dirs, baseline, tests, out, markdown, summary.headline_markdown, evaluation)
