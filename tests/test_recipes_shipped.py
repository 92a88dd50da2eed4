"""Every shipped recipe validates; the real-data ones run end to end on a small synthetic slice."""

from pathlib import Path

import pytest

from mtdebias.errors import ConfigError
from mtdebias.recipe import load_recipe

RECIPES = Path(__file__).resolve().parents[1] / "recipes"
REAL = ["wmt_en_de_base.toml", "iwslt_en_fr_small.toml", "opus_mt_finetune_en_de.toml"]


def test_quickstart_validates():
    recipe = load_recipe(RECIPES / "quickstart.toml")
    assert recipe.data.synth and len(recipe.ablate.variants) == 3


@pytest.fixture(scope="module")
def slice_dir(tmp_path_factory):
    """A 1500-pair slice of the synthetic corpus, in en→de and en→fr."""
    from mtdebias.synth import generate

    out = tmp_path_factory.mktemp("slice")
    for lang in ("de", "fr"):
        generate(lang, size=1500, seed=3, dev_size=20, test_size=20).write(out / lang)
    return out


def _slice_overrides(slice_dir: Path, name: str, tmp_path: Path) -> list[str]:
    lang = "fr" if "fr" in name else "de"
    d = slice_dir / lang
    return [f'data.train_src="{d}/train.en"', f'data.train_tgt="{d}/train.{lang}"',
            f'data.dev_src="{d}/dev.en"', f'data.dev_tgt="{d}/dev.{lang}"', f'run.dir="{tmp_path}"']


@pytest.mark.parametrize("name", REAL)
def test_real_data_recipes_name_their_missing_files(name):
    with pytest.raises(ConfigError, match="file not found"):
        load_recipe(RECIPES / name)


@pytest.mark.parametrize("name", REAL)
def test_real_data_recipes_run_on_a_slice(name, slice_dir, tmp_path, tiny_checkpoint):
    from mtdebias.experiments.pipeline import run_recipe

    overrides = _slice_overrides(slice_dir, name, tmp_path) + [
        "train.max_steps=4", "train.epochs=1", "train.mixed_precision=\"no\"", "train.validate_bleu=false",
        "train.save_every_steps=0", 'eval.suite=""', "train.warmup_steps=2", "train.max_tokens=256",
        "train.grad_accum=1"]
    if "init" in (RECIPES / name).read_text():
        overrides.append(f'model.init="{tiny_checkpoint}"')
    else:
        overrides += ['model.preset="tiny"', "tokenizer.vocab_size=1000"]
    # a 1500-pair slice's vocabulary splits she/he, woman/man…: no gender direction can be found
    # in it, so the slice runs without the debiasing stage (run end to end by the quickstart and
    # tests/test_debias.py)
    overrides.append('debias.method="none"')
    recipe = load_recipe(RECIPES / name, overrides)
    store = run_recipe(recipe)
    checkpoints = [c.name for c in store.checkpoints()]
    assert "step-0000004" in checkpoints
    if recipe.augment.method != "none":
        assert (store.dir / "annotated" / "summary.json").exists()


LLM = "llm_switch_entity_en_de.toml"


def test_the_llm_recipe_names_its_missing_model_and_validates_with_a_causal_model(tiny_llm, tiny_checkpoint):
    from mtdebias.experiments.pipeline import check_recipe

    with pytest.raises(ConfigError, match="model.init = '../models/SmolLM2-135M-Instruct.Q4_1.gguf': file not found"):
        load_recipe(RECIPES / LLM)
    recipe = load_recipe(RECIPES / LLM, [f'model.init="{tiny_llm}"'])
    assert recipe.model.kind == "causal" and len(recipe.ablate.variants) == 4
    assert recipe.ablate.variants[0] == "untouched: train.epochs=0"  # the model as it came: a row
    check_recipe(recipe)
    with pytest.raises(ConfigError, match="is an encoder-decoder model"):
        check_recipe(load_recipe(RECIPES / LLM, [f'model.init="{tiny_checkpoint}"']))


def test_the_llm_recipe_runs_switch_entity_and_posthoc_debiasing_on_a_slice(slice_dir, tmp_path, tiny_llm):
    """The study's switch_entity variant and vanilla's debiased copy, on the tiny Llama fixture (the
    released model is too slow for the default run): SwitchEntity's pairs train a decoder-only model,
    and the hard-debiased copy keeps its output layer."""
    import json

    from safetensors.torch import load_file

    from mtdebias.experiments.pipeline import run_recipe

    words, pairs = tmp_path / "words.txt", tmp_path / "pairs.tsv"
    words.write_text("doctor\nnurse\nteacher\n", encoding="utf-8")  # one token each in the fixture's vocabulary
    pairs.write_text("Kuh\tHund\nKatze\tVogel\ncow\tdog\n", encoding="utf-8")
    overrides = _slice_overrides(slice_dir, "de", tmp_path) + [
        f'model.init="{tiny_llm}"', "train.max_steps=3", "train.save_every_steps=0", 'eval.suite=""',
        "train.validate_bleu=false", "train.max_tokens=600", "data.dev_max_sentences=5",
        'augment.method="switch_entity.v1"', 'debias.method="hard"', f'debias.words="{words}"',
        f'debias.pairs="{pairs}"']
    store = run_recipe(load_recipe(RECIPES / LLM, overrides))
    assert (store.dir / "annotated" / "summary.json").exists()
    last = store.latest_checkpoint()
    debiased = store.derived_checkpoint(last, "debiased")
    report = json.loads((debiased / "debias_report.json").read_text())
    assert report["untied"] and report["decoder_unchanged"] and report["counts"]["rows_changed"] == 3
    a, b = load_file(str(last / "model.safetensors")), load_file(str(debiased / "model.safetensors"))
    assert "lm_head.weight" not in a  # tied in the fine-tuned model, a table of its own in the copy
    assert (b["lm_head.weight"] == a["model.embed_tokens.weight"]).all()
