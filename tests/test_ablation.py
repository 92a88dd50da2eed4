import pytest

from mtdebias.experiments.ablation import compare_to_baseline, expand, parse_grid, validate_variants
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


def test_a_subset_of_named_variants(recipe_path):
    recipe = load_recipe(recipe_path)
    assert [v.run_name for v in expand(recipe, only=["switch"])] == ["switch-seed1", "switch-seed2"]
    with pytest.raises(ConfigError, match="no variant named 'swich'.*did you mean 'switch'"):
        expand(recipe, only=["swich"])


def test_a_bad_variant_fails_before_any_run(recipe_path):
    recipe = load_recipe(recipe_path)
    variants = expand(recipe, parse_grid(["augment.pp=0,1"]))
    with pytest.raises(ConfigError, match="unknown key 'augment.pp'.*did you mean 'p'"):
        validate_variants(recipe_path, variants)
    with pytest.raises(ConfigError, match="must look like"):
        parse_grid(["augment.p"])


def _winomt_probe():
    from mtdebias.probes.winomt.probe import WinoMTItem, WinoMTProbe

    item = WinoMTItem("female", 1, "The developer argued because she was angry.", "developer", "x", 1)
    return WinoMTProbe([item], "de", resamples=0)


def test_compare_to_baseline_asks_the_probe_for_its_tests(tmp_path):
    """McNemar on hand-built attempts: b = 6 items only the baseline gets right, c = 1 → exact
    two-sided binomial p = 2 · (C(7,0) + C(7,1)) / 2^7 = 16/128 = 0.125. WinoMT also declares
    a paired bootstrap for ΔG; ΔS is not tested without pro/anti groups."""
    from mtdebias.store.runs import RunStore

    def write(run, detected):
        store = RunStore(tmp_path / run)
        store.add_results("step-0000010", [{"metric": "accuracy", "probe": "winomt.v1", "signature": "s"}])
        gold = ["female", "male"] * 5
        store.write_attempts("step-0000010", "winomt", [
            {"line": i + 1, "source": f"s{i}", "gold": g, "detected": d, "stereotype": None, "correct": g == d}
            for i, (g, d) in enumerate(zip(gold, detected))])
        return store.dir

    # baseline right on items 0-7; the variant wrong on 0-5, right on 6-8
    base = write("x-vanilla-seed1", ["female", "male"] * 4 + ["male", "female"])
    other = write("x-switch-seed1", ["male", "female"] * 3 + ["female", "male", "female", "female"])
    probes = {"winomt": _winomt_probe()}
    rows = compare_to_baseline([base, other], "vanilla", probes, prefix="x-", resamples=200)
    mcnemar = [r for r in rows if r["test"].startswith("McNemar")]
    assert len(mcnemar) == 1 and mcnemar[0]["metric"] == "accuracy"
    assert mcnemar[0]["p_value"] == pytest.approx(0.125)
    assert mcnemar[0]["baseline_value"] == pytest.approx(0.8) and mcnemar[0]["variant_value"] == pytest.approx(0.3)
    assert mcnemar[0]["variant"] == "switch" and mcnemar[0]["seed"] == 1
    assert sorted(r["metric"] for r in rows if r["test"] == "paired bootstrap") == ["delta_g"]
    assert {r["metric"] for r in rows} == {"accuracy", "delta_g"}  # accuracy_* and f1_* are not tested
    # a rerun of the ablation recognises these rows as its own paired tests, to replace without --force
    from mtdebias.store.atomic import write_json
    from mtdebias.report.outputs import check_report_outputs

    write_json(tmp_path / "r-significance.json", rows)
    check_report_outputs(tmp_path / "r.html", significance=True)
    with pytest.raises(ConfigError, match="baseline variant 'vanila'"):
        compare_to_baseline([base, other], "vanila", probes, prefix="x-")


def test_variant_command_trains_into_the_validated_run_directory(recipe_path):
    """The command a variant runs must resolve to the same recipe (and run directory) as validated."""
    from mtdebias.experiments.ablation import variant_command

    recipe = load_recipe(recipe_path)
    variants = expand(recipe)
    resolved = validate_variants(recipe_path, variants, ["train.epochs=2"])
    command = variant_command(recipe_path, resolved[2], variants[2], ["train.epochs=2"])
    sets = [command[i + 1] for i, arg in enumerate(command) if arg == "--set"]
    rerun = load_recipe(recipe_path, sets)
    assert rerun == resolved[2]
    assert rerun.run_dir.name == "abl-switch-seed1"


def test_common_items_pair_shared_sources_and_repeats_in_order():
    from mtdebias.experiments.ablation import common_items
    from mtdebias.probes.base import BaseProbe

    a = [{"source": "He was blind.", "v": 1}, {"source": "Anna was blind.", "v": 2},
         {"source": "x", "v": 3}, {"source": "x", "v": 4}]
    b = [{"source": "He was blind.", "v": 5}, {"source": "x", "v": 6}, {"source": "Paul was old.", "v": 7}]
    left, right = common_items(BaseProbe(), a, b)  # the default item key: the source sentence
    # the first "x" of a pairs with the only "x" of b; Anna and Paul have no partner
    assert [r["v"] for r in left] == [1, 3] and [r["v"] for r in right] == [5, 6]


def test_attempts_are_paired_by_the_item_key_each_probe_defines():
    """GEST's attempts carry no ``source``: the probe pairs them by sentence line and sample
    (before, every row keyed as "None" and two systems were paired by position); the word-sense
    probe by item id, whatever the translation; a probe that defines no key and whose attempts
    name no source is refused rather than paired by position."""
    from mtdebias.experiments.ablation import common_items
    from mtdebias.probes.base import BaseProbe
    from mtdebias.probes.gest.probe import GestProbe
    from mtdebias.probes.wsd.probe import WSDBiasProbe

    gest = GestProbe.__new__(GestProbe)  # item_key reads attempts only
    a = [{"line": n, "sample": 0, "sentence": s, "speaker": g}
         for n, s, g in ((1, "I cook.", "male"), (2, "I sew.", "female"), (3, "I fix cars.", "male"))]
    b = [{"line": n, "sample": 0, "sentence": s, "speaker": g} for n, s, g in ((2, "I sew.", "male"),
                                                                             (3, "I fix cars.", "female"))]
    left, right = common_items(gest, a, b)
    assert [r["sentence"] for r in left] == [r["sentence"] for r in right] == ["I sew.", "I fix cars."]
    assert [r["speaker"] for r in left] == ["female", "male"] and [r["speaker"] for r in right] == ["male", "female"]
    wsd = WSDBiasProbe.__new__(WSDBiasProbe)
    left, right = common_items(wsd, [{"id": "bank.1", "source": "x"}, {"id": "bass.2", "source": "y"}],
                               [{"id": "bass.2", "source": "y"}])
    assert [r["id"] for r in left] == [r["id"] for r in right] == ["bass.2"]
    with pytest.raises(ValueError, match="names no source sentence"):
        common_items(BaseProbe(), [{"speaker": "male"}], b)


def test_holm_adjusts_a_family_of_p_values_as_by_hand():
    from mtdebias.stats import holm

    # sorted: 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 → kept non-decreasing: 0.06
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.9]) == [1.0, 1.0] and holm([]) == []


def test_the_paired_test_table_shows_raw_and_holm_p_and_names_the_family():
    from mtdebias.experiments.ablation import HOLM_FAMILY, significance_markdown, with_holm

    rows = with_holm([{"seed": 1, "variant": v, "probe": "name_gender", "metric": "first.delta_acc", "items": 10,
                       "baseline_value": 0.16, "variant_value": 0.1, "p_value": p, "test": "paired bootstrap"}
                      for v, p in (("a", 0.02), ("b", 0.04))])
    assert [(r["p_value"], r["p_holm"]) for r in rows] == [(0.02, 0.04), (0.04, 0.04)]
    table = significance_markdown(rows)
    assert "| p | p (Holm) | test |" in table and "| 0.0200 | 0.0400 | paired bootstrap |" in table
    assert HOLM_FAMILY in table and "2 tests" in table


def test_an_undefined_delta_h_is_never_tested_and_the_table_says_so():
    """ΔH below its floor is NaN for both systems: its row says "not tested" and why, with no
    p-value and no place in Holm's family, while ΔH per set is tested."""
    from mtdebias.experiments.ablation import significance_markdown, with_holm
    from mtdebias.stats.compare import paired_tests
    from mtdebias.stats import holm
    from tests.test_metric_bounds import _ambiguity_attempt, ambiguity_probe

    probe = ambiguity_probe(min_items=1)
    a = [_ambiguity_attempt(i, i % 2 == 1, 0.01 if i % 2 == 0 else 3.0, 0.2 + 0.1 * (i % 2), 0.5) for i in range(12)]
    b = [_ambiguity_attempt(i, i % 2 == 1, 0.02 if i % 2 == 0 else 2.0, 0.3, 0.5) for i in range(12)]
    rows = {row["metric"]: row for row in paired_tests(probe, a, b, resamples=50)}
    assert rows["delta_h_se_per_set"]["p_value"] is not None and rows["delta_h_ge"]["p_value"] is not None
    assert rows["delta_h_se"] == {"metric": "delta_h_se", "better": "lower", "test": "not tested",
                                  "baseline_value": None, "variant_value": None, "p_value": None,
                                  "why": "undefined for the baseline and the variant"}
    table = with_holm([{"seed": 1, "variant": "b", "probe": "ambiguity", "items": 12, **row} for row in rows.values()])
    assert next(r for r in table if r["metric"] == "delta_h_se")["p_holm"] is None
    tested = [r for r in table if r["p_value"] is not None]
    assert [r["p_holm"] for r in tested] == holm([r["p_value"] for r in tested])
    markdown = significance_markdown(table)
    assert ("| delta_h_se | 12 | undefined | undefined | — | — | not tested: undefined for the baseline and the "
            "variant |") in markdown and f"{len(tested)} tests." in markdown
