"""The Bible experiment's pieces: the recipe and its variants validate on a corpus the tests
build from a SWORD fixture, its suite's optional probes are left out when their data is
absent, and name-gender items are tested group by group (seen/unseen × gender)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mtdebias.experiments.ablation import compare_to_baseline, expand, validate_variants
from mtdebias.corpora.bible import build_bible
from mtdebias.probes.name_gender.probe import load_gender_templates
from mtdebias.recipe import load_recipe
from mtdebias.resources import data_path
from mtdebias.evaluation.runner import build_probes
from mtdebias.evaluation.suite import load_suite
from tests.sword_fixture import write_module
from tests.test_bible import EN, ES

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def corpus(tmp_path):
    library = tmp_path / "sword"
    write_module(library, "engTEST", "en", EN, abbreviation="KJV")
    write_module(library, "spaRV1909eb", "es", ES)
    out = tmp_path / "bible-data"
    build_bible("KJV", "SpaRV", out, sword_path=library)
    return out


def _paths(corpus: Path, tmp_path: Path) -> list[str]:
    return [f'data.train_src="{corpus}/train.en"', f'data.train_tgt="{corpus}/train.es"',
            f'data.dev_src="{corpus}/dev.en"', f'data.dev_tgt="{corpus}/dev.es"', f'run.dir="{tmp_path}/runs"']


def test_recipe_and_its_four_variants_validate(corpus, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)   # paths resolve from the recipe's and the suite's folders, not from here
    overrides = _paths(corpus, tmp_path)
    recipe = load_recipe(ROOT / "recipes/bible_en_es.toml", overrides)
    assert (recipe.data.src_lang, recipe.data.tgt_lang, recipe.ablate.baseline) == ("en", "es", "vanilla")
    variants = expand(recipe, seeds=[1, 2, 3])
    assert [v.run_name for v in variants][:3] == ["vanilla-seed1", "vanilla-seed2", "vanilla-seed3"]
    resolved = validate_variants(ROOT / "recipes/bible_en_es.toml", variants, overrides)
    by_name = {v.run_name: r for v, r in zip(variants, resolved)}
    assert by_name["vanilla-seed2"].debias.method == "hard" and by_name["vanilla-seed2"].debias.when == "posthoc"
    assert by_name["switch_entity-seed1"].augment.method == "switch_entity.v1"
    assert by_name["switch_entity-seed1"].augment.candidates is None
    assert by_name["switch_entity_names-seed3"].augment.candidates.name == "switch_candidates_es.tsv"


def test_suite_builds_and_leaves_out_absent_optional_data(corpus, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    suite = load_suite(ROOT / "eval/bible.toml")
    context = {"src_lang": "en", "tgt_lang": "es", "data_dir": str(corpus), "run_dir": str(tmp_path)}
    assert [spec.label for spec in suite.probes] == ["quality", "name_gender", "winomt", "ambiguity"]
    # the suite with its optional data pointed at a missing folder: both WinoMT probes are left out
    text = (ROOT / "eval/bible.toml").read_text(encoding="utf-8").replace(
        'if_exists = "../../shared/data/winomt/en.txt"', f'if_exists = "{tmp_path}/no/winomt/en.txt"')
    (tmp_path / "suite.toml").write_text(text, encoding="utf-8")
    built = build_probes(load_suite(tmp_path / "suite.toml"), context)
    assert [spec.label for spec, _ in built] == ["quality", "name_gender"]
    name_gender = built[1][1]
    # given names seen in the fixture's training verses: only David (Ps 3:1 once, Matt 1:6 twice)
    assert {n: c for n, c in name_gender.seen_counts.items() if c} == {"David": 3}


def test_shipped_bible_templates_and_names():
    templates = load_gender_templates(data_path("templates", "name_gender_bible_es.tsv"))
    assert len(templates) >= 30
    lists = {kind: data_path("bible", "names", f"{kind}.txt").read_text(encoding="utf-8").split("\n")[:-1]
             for kind in ("first_female", "first_male", "full_female", "full_male")}
    assert {k: len(v) for k, v in lists.items()} == {"first_female": 30, "first_male": 30,
                                                     "full_female": 10, "full_male": 10}
    assert not set(lists["first_female"]) & set(lists["first_male"])
    candidates = [line.split("\t") for line in data_path("bible", "switch_candidates_es.tsv").read_text(
        encoding="utf-8").splitlines() if line and not line.startswith("#")]
    probe_given = {n.split()[0] for names in lists.values() for n in names}
    assert not probe_given & {c[2] for c in candidates}      # no candidate is a probe name


def test_name_gender_groups_get_their_own_mcnemar(tmp_path):
    """The probe declares a McNemar-tested accuracy per seen/unseen × gender group, and the
    ablation's paired tests (stats/compare.py) pair each group's items only.
    Pooled: baseline right on 5 of 8, variant on 5 of 8 → b = 2, c = 2, p = 1. Per group:
    unseen.female: baseline 1/4, variant 3/4 (b = 0, c = 2 → exact p = 2 · (1/2)^2 = 0.5);
    seen.male: baseline 4/4, variant 2/4 (b = 2, c = 0 → p = 0.5)."""
    from mtdebias.probes.name_gender.probe import GenderTemplate, NameGenderProbe
    from mtdebias.store.runs import RunStore

    cells = [("first_female", "Ada", False), ("first_female", "Zoe", False),
             ("first_male", "David", True), ("first_male", "Saul", True)]
    items = [(kind, name, seen, template) for kind, name, seen in cells for template in ("t1", "t2")]

    def write(run, correct):
        store = RunStore(tmp_path / run)
        store.add_results("step-0000010", [{"metric": "accuracy", "probe": "name_gender.v1", "signature": "s"}])
        rows = []
        for (kind, name, seen, template), right in zip(items, correct):
            gender = kind.split("_")[1]
            rows.append({"kind": kind, "name": name, "gender": gender, "template": template, "seen": seen,
                         "group": f"first.{'seen' if seen else 'unseen'}.{gender}", "source": f"{name} {template}",
                         "detected": gender if right else "undetected", "correct": right})
        store.write_attempts("step-0000010", "name_gender", rows)
        return store.dir

    base = write("b-vanilla-seed1", [True, False, False, False] + [True] * 4)
    other = write("b-switch-seed1", [True, True, True, False] + [True, True, False, False])
    templates = [GenderTemplate(t, f"[PERSON] is {t}.", ("pastor",), ("pastora",)) for t in ("t1", "t2")]
    probe = NameGenderProbe(templates, "es", {"first_female": ["Ada", "Zoe"], "first_male": ["David", "Saul"]},
                            resamples=0)
    rows = compare_to_baseline([base, other], "vanilla", {"name_gender": probe}, prefix="b-", resamples=200)
    mcnemar = {r["metric"]: r for r in rows if r["test"].startswith("McNemar")}
    assert set(mcnemar) == {"accuracy", "accuracy.first.seen.male", "accuracy.first.unseen.female"}
    assert {r["probe"] for r in rows} == {"name_gender"}
    assert mcnemar["accuracy"]["p_value"] == pytest.approx(1.0)
    female = mcnemar["accuracy.first.unseen.female"]
    assert (female["baseline_value"], female["variant_value"]) == (0.25, 0.75)
    assert female["p_value"] == pytest.approx(0.5)
    male = mcnemar["accuracy.first.seen.male"]
    assert (male["baseline_value"], male["variant_value"], male["p_value"]) == (1.0, 0.5, pytest.approx(0.5))
    # ΔAcc (mean over names: baseline |1 − 0.25| = 0.75, variant |0.5 − 0.75| = 0.25) is bootstrapped
    delta = next(r for r in rows if r["metric"] == "first.delta_acc")
    assert delta["test"] == "paired bootstrap"
    assert (delta["baseline_value"], delta["variant_value"]) == (0.75, 0.25)


def test_readme_table_is_copied_from_the_report(tmp_path):
    from mtdebias.errors import InputError
    from mtdebias.report.readme import main

    report = tmp_path / "report.md"
    report.write_text("# Ablation\n\n## Headline\n\nnote\n\n| variant | acc |\n|---|---|\n| vanilla | 0.5 [0.4, 0.6] |\n\n"
                      "## Runs\n\nignored\n\n## Paired tests against the baseline (vanilla)\n\n| p |\n|---|\n| 0.1 |\n",
                      encoding="utf-8")
    readme = tmp_path / "README.md"
    readme.write_text("intro\n<!-- begin: t -->\nold numbers\n<!-- end: t -->\nafter\n", encoding="utf-8")
    assert main([str(report), str(readme), "--marker", "t"]) == 0
    text = readme.read_text(encoding="utf-8")
    assert "old numbers" not in text and "ignored" not in text
    assert "| vanilla | 0.5 [0.4, 0.6] |" in text and "| 0.1 |" in text
    assert text.startswith("intro\n<!-- begin: t -->\n<!-- generated from") and text.endswith("<!-- end: t -->\nafter\n")
    assert main([str(report), str(readme), "--marker", "missing"]) == 2
    # a result its probe calls degenerate is flagged under the table, headline-only too
    report.write_text(report.read_text(encoding="utf-8").replace(
        "## Runs", "## Results that say nothing\n\nTheir probe calls them degenerate.\n\n- ⚠ control: winomt: "
        "valid rate 0.10\n\n## Runs"), encoding="utf-8")
    assert main([str(report), str(readme), "--marker", "t", "--headline-only"]) == 0
    text = readme.read_text(encoding="utf-8")
    assert "**Results that say nothing**" in text and "- ⚠ control: winomt: valid rate 0.10" in text
    assert "| 0.1 |" not in text
    with pytest.raises(InputError, match="no '## Headline'"):
        from mtdebias.report.readme import excerpt

        (tmp_path / "x.md").write_text("# nothing\n")
        excerpt(tmp_path / "x.md")
