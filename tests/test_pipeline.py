"""A recipe run end to end: inline evaluation, or a separate watcher process (eval.inline = false)."""

import time

import pytest

from mtdebias.pipeline import run_recipe
from mtdebias.recipe import load_recipe
from mtdebias.store import RunStore
from mtdebias.testing import toy_corpus

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
        assert metrics == {"bleu", "chrf"}
    if not inline:
        assert (store.dir / "eval-watch.log").exists()
