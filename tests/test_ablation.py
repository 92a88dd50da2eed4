import json

import pytest

from mtdebias.ablation import compare_to_baseline, expand, parse_grid, validate_variants
from mtdebias.errors import ConfigError
from mtdebias.recipe import load_recipe

RECIPE = """
[run]
name = "abl"
dir = "{runs}"
seed = 4
[data]
train_src = "t.en"
train_tgt = "t.de"
src_lang = "en"
tgt_lang = "de"
[ablate]
variants = ["vanilla", "switch: augment.method=switch_entity.v1; augment.p=0.5"]
seeds = [1, 2]
"""


@pytest.fixture
def recipe_path(tmp_path):
    (tmp_path / "t.en").write_text("a\n")
    (tmp_path / "t.de").write_text("b\n")
    path = tmp_path / "abl.toml"
    path.write_text(RECIPE.replace("{runs}", str(tmp_path / "runs")))
    return path


def test_grid_is_the_cartesian_product_times_seeds(recipe_path):
    recipe = load_recipe(recipe_path)
    variants = expand(recipe, parse_grid(["augment.p=0,0.5,1", "debias.method=none,hard"]), seeds=[1, 2, 3])
    assert len(variants) == 3 * 2 * 3
    assert variants[0].name == "p-0_method-none" and variants[0].overrides == ("augment.p=0", "debias.method=none")
    assert {v.seed for v in variants} == {1, 2, 3}
    assert len({v.run_name for v in variants}) == len(variants)


def test_named_variants_and_their_recipes_validate(recipe_path):
    recipe = load_recipe(recipe_path)
    variants = expand(recipe)
    assert [v.run_name for v in variants] == ["vanilla-seed1", "vanilla-seed2", "switch-seed1", "switch-seed2"]
    recipes = validate_variants(recipe_path, variants)
    assert [r.run.name for r in recipes] == ["abl-vanilla-seed1", "abl-vanilla-seed2", "abl-switch-seed1",
                                             "abl-switch-seed2"]
    assert recipes[2].augment.p == 0.5 and recipes[2].run.seed == 1 and recipes[0].augment.method == "none"


def test_a_bad_variant_fails_before_any_run(recipe_path):
    recipe = load_recipe(recipe_path)
    variants = expand(recipe, parse_grid(["augment.pp=0,1"]))
    with pytest.raises(ConfigError, match="unknown key 'augment.pp'.*did you mean 'p'"):
        validate_variants(recipe_path, variants)
    with pytest.raises(ConfigError, match="must look like"):
        parse_grid(["augment.p"])


def test_compare_to_baseline_pairs_items_by_seed(tmp_path):
    """McNemar on hand-built attempts: b = 6 items only the baseline gets right, c = 1 → exact
    two-sided binomial p = 2 · (C(7,0) + C(7,1)) / 2^7 = 16/128 = 0.125."""
    def write(run, correct):
        folder = tmp_path / run / "eval" / "step-0000010"
        folder.mkdir(parents=True)
        (folder / "results.jsonl").write_text('{"metric": "accuracy"}\n')
        rows = [{"source": f"s{i}", "correct": c} for i, c in enumerate(correct)]
        (folder / "winomt.attempts.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
        return tmp_path / run

    base = write("x-vanilla-seed1", [True] * 8 + [False] * 2)
    other = write("x-switch-seed1", [False] * 6 + [True] * 2 + [True, False])
    rows = compare_to_baseline([base, other], "vanilla", prefix="x-")
    assert len(rows) == 1
    assert rows[0]["p_value"] == pytest.approx(0.125)
    assert rows[0]["baseline_value"] == pytest.approx(0.8) and rows[0]["variant_value"] == pytest.approx(0.3)
    assert rows[0]["variant"] == "switch"
    with pytest.raises(ConfigError, match="baseline variant 'vanila'"):
        compare_to_baseline([base, other], "vanila", prefix="x-")


def test_variant_command_trains_into_the_validated_run_directory(recipe_path):
    """The command a variant runs must resolve to the same recipe (and run directory) as validated."""
    from mtdebias.ablation import variant_command

    recipe = load_recipe(recipe_path)
    variants = expand(recipe)
    resolved = validate_variants(recipe_path, variants, ["train.epochs=2"])
    command = variant_command(recipe_path, resolved[2], variants[2], ["train.epochs=2"])
    sets = [command[i + 1] for i, arg in enumerate(command) if arg == "--set"]
    rerun = load_recipe(recipe_path, sets)
    assert rerun == resolved[2]
    assert rerun.run_dir.name == "abl-switch-seed1"
