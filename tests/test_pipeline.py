"""A recipe run end to end: inline evaluation, or a separate watcher process (eval.inline = false)."""

import time

import pytest

from mtdebias.experiments.pipeline import run_recipe
from mtdebias.recipe import load_recipe
from mtdebias.store.runs import RunStore
from toy import toy_corpus

RECIPE = """
[run]
name = "toy"
dir = "{runs}"
seed = 3
[data]
train_src = "train.en"
train_tgt = "train.de"
dev_src = "dev.en"
dev_tgt = "dev.de"
src_lang = "en"
tgt_lang = "de"
[tokenizer]
vocab_size = 200
[train]
epochs = 2
max_tokens = 1024
warmup_steps = 5
lr = 2e-3
validate_bleu = false
[eval]
suite = "suite.toml"
inline = {inline}
"""

SUITE = """
[[probe]]
type = "quality"
src = "{data}/dev.en"
ref = "{data}/dev.de"
beam = 1
"""


@pytest.fixture
def recipe_dir(tmp_path):
    src, tgt = toy_corpus(200, seed=4)
    (tmp_path / "train.en").write_text("\n".join(src) + "\n")
    (tmp_path / "train.de").write_text("\n".join(tgt) + "\n")
    (tmp_path / "dev.en").write_text("\n".join(src[:20]) + "\n")
    (tmp_path / "dev.de").write_text("\n".join(tgt[:20]) + "\n")
    (tmp_path / "suite.toml").write_text(SUITE.replace("{data}", str(tmp_path)))
    return tmp_path


@pytest.mark.parametrize("inline", [True, False])
def test_every_checkpoint_is_scored(recipe_dir, inline):
    path = recipe_dir / "toy.toml"
    path.write_text(RECIPE.replace("{runs}", str(recipe_dir / "runs")).replace("{inline}", str(inline).lower()))
    store = run_recipe(load_recipe(path))
    checkpoints = store.checkpoints()
    assert [c.name for c in checkpoints] and store.is_finished()
    deadline = time.time() + 90  # the watcher looks every 15 s and stops once everything is scored
    while not all(store.results(c) for c in checkpoints) and time.time() < deadline:
        time.sleep(1)
    for checkpoint in checkpoints:
        metrics = {r["metric"] for r in RunStore(store.dir).results(checkpoint)}
        assert metrics == {"bleu", "chrf", "valid_rate", "invalid.empty", "invalid.repetition", "invalid.copy", "invalid.not_target",
            "invalid.not_translation"}
    if not inline:
        assert (store.dir / "eval-watch.log").exists()


@pytest.mark.slow
def test_run_ablation_trains_scores_and_tests_against_the_baseline(recipe_dir):
    """ablation.run_ablation() end to end: two variants trained in their own processes, every
    checkpoint scored inline, the report written and the probe's declared tests run (quality:
    sacrebleu's paired bootstrap of BLEU and chrF)."""
    from mtdebias.experiments.ablation import run_ablation

    recipe = RECIPE.replace("{runs}", str(recipe_dir / "runs")).replace("{inline}", "true")
    recipe += '[ablate]\nvariants = ["a", "b: train.lr=1e-3"]\nbaseline = "a"\n'
    (recipe_dir / "abl.toml").write_text(recipe)
    outcome = run_ablation(recipe_dir / "abl.toml", report=recipe_dir / "out" / "report.html")
    assert [d.name for d in outcome.run_dirs] == ["toy-a-seed3", "toy-b-seed3"]
    assert all(RunStore(d).is_finished() for d in outcome.run_dirs)
    assert outcome.baseline == "a" and outcome.report.exists()
    assert sorted((t["variant"], t["metric"], t["test"]) for t in outcome.tests) == [
        ("b", "bleu", "paired bootstrap"), ("b", "chrf", "paired bootstrap")]
    assert all(0 < t["p_value"] <= 1 for t in outcome.tests)
    assert "Paired tests against the baseline (a)" in outcome.markdown.read_text(encoding="utf-8")
