"""LoRA fine-tuning of a decoder-only LM (mtdebias/train/lora.py), on the tiny Llama fixture
(tests/llm_fixture.py): the model's own weights stay bit-identical while the adapters learn; a
checkpoint is a full model whose merged weights give the live adapted model's logits and load as
``hf-causal:``; a run killed by SIGKILL resumes to bit-identical merged weights; a recipe with
``train.lora_rank`` trains, resumes (keeping an ``init`` debiasing edit of the frozen table) and is
scored per checkpoint; settings that make no sense are refused before training."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import torch

pytest.importorskip("peft", reason="LoRA needs peft: pip install 'mtdebias[lora]'")

from safetensors.torch import load_file  # noqa: E402

from mtdebias.errors import ConfigError  # noqa: E402
from mtdebias.store.runs import RunStore  # noqa: E402
from mtdebias.train.batching import collate, joined_pairs  # noqa: E402
from mtdebias.train.lora import ADAPTER_FILE  # noqa: E402
from mtdebias.train.causal import PromptRenderer, load_causal  # noqa: E402
from mtdebias.translators.hf_causal import HFCausalTranslator  # noqa: E402
from tests.resume_check import kill_and_resume  # noqa: E402
from tests.test_train_causal import NEW_PAIRS, PROMPT, TRAIN_SCRIPT, _recipe, score_every_checkpoint  # noqa: E402

SOURCES, TARGETS = [s for s, _ in NEW_PAIRS], [t for _, t in NEW_PAIRS]
# the fixture's attention and MLP projections at rank r: r × (in + out) each, for 2 layers of width
# 64 (q, o: 64→64; k, v: 64→32 with 2 of 4 heads; gate, up: 64→128; down: 128→64)
ADAPTER_PARAMS_PER_RANK = 2 * (128 + 96 + 96 + 128 + 192 + 192 + 192)


def _trainer(tiny_llm: Path, run: Path, **settings):
    from mtdebias.recipe.schema import TrainConfig
    from mtdebias.train.trainer import StaticPairs, Trainer

    model, tokenizer = load_causal(tiny_llm)
    renderer = PromptRenderer(model, tokenizer, src_lang="en", tgt_lang="de", prompt=PROMPT)
    config = TrainConfig(**{"epochs": 1000, "max_steps": 30, "max_tokens": 400, "lr": 1e-2, "warmup_steps": 1,
                            "label_smoothing": 0.0, "validate_bleu": False, "save_every_epochs": 1000,
                            "log_every_steps": 1, "lora_rank": 4, **settings})
    trainer = Trainer(config=config, run_dir=run, model=model, tokenizer=tokenizer, seed=2,
                      source=StaticPairs(SOURCES, TARGETS),
                      encode=lambda s, t, m: joined_pairs(*renderer.prompt_pairs(s, t), m))
    return trainer, renderer


def test_only_the_adapters_train_and_a_checkpoint_is_the_merged_full_model(tiny_llm, tmp_path):
    base, _ = load_causal(tiny_llm)
    base_weights = {k: v.clone() for k, v in base.state_dict().items()}
    trainer, renderer = _trainer(tiny_llm, tmp_path / "run")
    model = trainer.unwrapped
    held = [p for group in trainer.optimizer.param_groups for p in group["params"]]
    assert sorted(map(id, held)) == sorted(id(p) for n, p in model.named_parameters() if ".lora_" in n)
    assert sum(p.numel() for p in held) == 4 * ADAPTER_PARAMS_PER_RANK
    before = {k: v.clone() for k, v in trainer.lora.adapter_state(model).items()}
    assert all(not v.any() for k, v in before.items() if "lora_B" in k)  # B starts at zero
    trainer.train()

    # the model's own weights are bit-identical (adapted layers keep theirs as base_layer)
    state = model.state_dict()
    for key, tensor in base_weights.items():
        name = key if key in state else key.replace(".weight", ".base_layer.weight")
        assert torch.equal(state[name], tensor), key
    after = trainer.lora.adapter_state(model)
    assert all(not torch.equal(after[k], before[k]) for k in before)

    checkpoint = RunStore(tmp_path / "run").latest_checkpoint()
    assert (checkpoint / ADAPTER_FILE).is_file() and not (checkpoint / "adapter_config.json").exists()
    saved_adapters = load_file(str(checkpoint / ADAPTER_FILE))
    assert all(torch.equal(saved_adapters[k], after[k]) for k in after)
    # the checkpoint's merged weights give the live adapted model's logits
    encoded = joined_pairs(*renderer.prompt_pairs(SOURCES, TARGETS), 512)
    batch = collate(encoded, list(range(len(SOURCES))), trainer.pad_id)
    translator = HFCausalTranslator(checkpoint, tgt_lang="de", device="cpu", prompt=PROMPT)
    merged = translator.model
    assert not any(".lora_" in k or "base_layer" in k for k in merged.state_dict())
    inputs = {"input_ids": batch["input_ids"], "attention_mask": batch["attention_mask"]}
    with torch.no_grad():
        live = model.eval()(**inputs).logits
        loaded = merged.eval()(**inputs).logits
    assert torch.allclose(live, loaded, rtol=0, atol=1e-5), float((live - loaded).abs().max())
    assert not torch.allclose(base.eval()(**inputs).logits, loaded, atol=1e-3)  # the adapters changed it
    # and learned: the checkpoint scores the training pairs better than the model it started from
    # (394 → 247 nats here; a tiny model's frozen table, never trained on these names, limits it)
    untouched = HFCausalTranslator(tiny_llm, tgt_lang="de", device="cpu", prompt=PROMPT)
    loss_before = -sum(s.total for s in untouched.score(SOURCES, TARGETS))
    loss_after = -sum(s.total for s in translator.score(SOURCES, TARGETS))
    assert loss_after < 0.75 * loss_before
    losses = [r["loss"] for r in RunStore(tmp_path / "run").read_log() if "loss" in r]
    assert losses[-1] < losses[0]


def test_the_checkpoint_identity_is_its_model_and_posthoc_debiasing_reads_it(tiny_llm, tmp_path):
    from mtdebias.debias.apply import debias_checkpoint
    from mtdebias.signature import hash_checkpoint

    trainer, _ = _trainer(tiny_llm, tmp_path / "run", max_steps=2)
    trainer.train()
    checkpoint = RunStore(tmp_path / "run").latest_checkpoint()
    merged = load_file(str(checkpoint / "model.safetensors"))
    report = debias_checkpoint(checkpoint, tmp_path / "debiased", "hard", ["doctor", "nurse", "teacher"],
                               pairs=[("Kuh", "Hund"), ("Katze", "Vogel"), ("cow", "dog"), ("cat", "horse")])
    assert report.counts["rows_changed"] == 3 and report.decoder_unchanged
    debiased = load_file(str(tmp_path / "debiased" / "model.safetensors"))
    q = "model.layers.1.mlp.down_proj.weight"  # an adapted layer: its merged weight travels unchanged
    assert torch.equal(debiased[q], merged[q]) and not (tmp_path / "debiased" / ADAPTER_FILE).exists()
    identity = hash_checkpoint(checkpoint)
    (checkpoint / ADAPTER_FILE).unlink()
    assert hash_checkpoint(checkpoint) == identity  # the adapters are training state, not the model


LORA_SCRIPT = TRAIN_SCRIPT.replace("grad_accum=2)", "grad_accum=2, lora_rank=4, lora_dropout=0.2)")


def _run_lora_training(run: Path, init: Path, slow: bool = False) -> subprocess.Popen:
    assert LORA_SCRIPT != TRAIN_SCRIPT
    return subprocess.Popen([sys.executable, "-c", LORA_SCRIPT, str(run), str(init), "slow" if slow else "fast"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=Path(__file__).parents[1])


def test_sigkill_and_resume_of_a_lora_run_is_bit_identical(tiny_llm, tmp_path):
    """Adapter dropout draws from the saved RNG state, so this checks that too."""
    store, reference = kill_and_resume(lambda run, slow: _run_lora_training(run, tiny_llm, slow=slow), tmp_path)
    a, b = (load_file(str(s.latest_checkpoint() / ADAPTER_FILE)) for s in (store, reference))
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def _debias_lists(tmp_path: Path) -> list[str]:
    (tmp_path / "words.txt").write_text("doctor\nnurse\nteacher\n", encoding="utf-8")
    (tmp_path / "pairs.tsv").write_text("Kuh\tHund\nKatze\tVogel\ncow\tdog\ncat\thorse\n", encoding="utf-8")
    return ['debias.method="hard"', 'debias.when="init"', f'debias.words="{tmp_path / "words.txt"}"',
            f'debias.pairs="{tmp_path / "pairs.tsv"}"']


def test_a_lora_recipe_trains_resumes_and_is_scored_per_checkpoint(tiny_llm, tmp_path):
    """With debias.when = "init": the edit of the frozen input table survives the resume (a resume
    takes the weights LoRA leaves alone from the checkpoint)."""
    from mtdebias.experiments.pipeline import run_recipe
    from mtdebias.recipe import load_recipe

    lora = ["train.lora_rank=4", "train.lora_alpha=16.0", *_debias_lists(tmp_path)]
    store = run_recipe(load_recipe(_recipe(tmp_path, tiny_llm, "lora", steps=4), lora))
    assert [c.name for c in store.checkpoints()] == ["step-0000002", "step-0000004"]
    store = run_recipe(load_recipe(_recipe(tmp_path, tiny_llm, "lora", steps=6), lora))
    assert [c.name for c in store.checkpoints()] == ["step-0000002", "step-0000004", "step-0000006"]
    assert [r["step"] for r in store.read_log() if "loss" in r] == [1, 2, 3, 4, 5, 6]
    base, tokenizer = load_causal(tiny_llm)
    logged = [row["lora"] for row in store.read_log() if "lora" in row]
    assert logged == [{"rank": 4, "alpha": 16.0, "dropout": 0.0, "layers": 14,
                       "trainable": 4 * ADAPTER_PARAMS_PER_RANK,
                       # the base's own (its tied output layer once, untied for debiasing: twice) and the adapters
                       "total": sum(p.numel() for p in base.parameters()) + base.lm_head.weight.numel()
                                + 4 * ADAPTER_PARAMS_PER_RANK}]

    ids = [tokenizer.convert_tokens_to_ids(f"\u0120{w}") for w in ("doctor", "nurse", "teacher")]
    table = base.get_input_embeddings().weight.detach()
    saved = [load_file(str(c / "model.safetensors")) for c in store.checkpoints()]
    for weights in saved:  # frozen: edited once, at the start, and unchanged through the resume
        assert torch.equal(weights["model.embed_tokens.weight"], saved[0]["model.embed_tokens.weight"])
        assert torch.equal(weights["lm_head.weight"], table)  # the output layer keeps the original
    assert not torch.equal(saved[0]["model.embed_tokens.weight"][ids], table[ids])
    q = "model.layers.0.self_attn.q_proj.weight"
    assert not torch.equal(saved[-1][q], saved[0][q]) and not torch.equal(saved[0][q], base.state_dict()[q])

    assert len(store.checkpoints()) == 3
    score_every_checkpoint(store, tmp_path)


@pytest.mark.parametrize("overrides, message", [
    (['model.kind="seq2seq"', 'model.prompt=""', "train.lora_rank=4"], "LoRA adapts a decoder-only LM"),
    (["train.lora_alpha=8.0"], "train.lora_alpha is a LoRA setting.*set train.lora_rank"),
    (['train.lora_modules=["q_proj"]'], "train.lora_modules is a LoRA setting"),
    (["train.lora_rank=4", "train.lora_modules=[]"], "LoRA needs the names of the linear layers"),
    (["train.lora_rank=-1"], r"train.lora_rank = -1 is out of range"),
    (["train.lora_rank=4", "train.lora_dropout=1.0"], r"train.lora_dropout = 1.0 is out of range"),
    (["train.lora_rank=4", 'debias.method="hard"', 'debias.when="every_epoch"'],
     'every_epoch.*frozen.*use debias.when = "init"'),
])
def test_lora_settings_that_make_no_sense_are_refused_when_the_recipe_loads(tiny_llm, tmp_path, overrides, message):
    from mtdebias.recipe import load_recipe

    with pytest.raises(ConfigError, match=message):
        load_recipe(_recipe(tmp_path, tiny_llm, "x"), overrides)


def test_lora_without_peft_is_refused_before_any_work(tiny_llm, tmp_path, monkeypatch):
    from mtdebias.experiments.pipeline import check_recipe
    from mtdebias.recipe import load_recipe

    recipe = load_recipe(_recipe(tmp_path, tiny_llm, "x"), ["train.lora_rank=4"])
    check_recipe(recipe)
    monkeypatch.setitem(sys.modules, "peft", None)  # as if it were not installed
    with pytest.raises(ConfigError, match=r"peft, which is not installed.*pip install 'mtdebias\[lora\]'"):
        check_recipe(recipe)


@pytest.mark.parametrize("modules, message", [
    ('["q_proj", "qkv_proj"]', "'qkv_proj' names no layer of this LlamaForCausalLM.*down_proj, gate_proj"),
    ('["embed_tokens"]', r"matches model.embed_tokens \(Embedding\); LoRA here adapts linear layers only"),
    ('["lm_head"]', "lm_head shares its weight with another layer"),
])
def test_lora_modules_are_checked_against_the_model_before_training(tiny_llm, tmp_path, modules, message):
    from mtdebias.experiments.pipeline import run_recipe
    from mtdebias.recipe import load_recipe

    recipe = load_recipe(_recipe(tmp_path, tiny_llm, "x"), ["train.lora_rank=4", f"train.lora_modules={modules}"])
    with pytest.raises(ConfigError, match=message):
        run_recipe(recipe)
    assert not RunStore(recipe.run_dir).checkpoints() and not RunStore(recipe.run_dir).read_log()


def test_two_processes_train_lora_adapters_as_one_process_accumulating_two_batches(tiny_llm, tmp_path):
    """torchrun with 2 CPU ranks (gloo): every rank draws the same A from run.seed, DDP averages the
    adapters' gradients, and the dev loss is that of one process with grad_accum = 2."""
    from mtdebias.experiments.pipeline import run_recipe
    from mtdebias.recipe import load_recipe
    from tests.test_distributed import _finish, _torchrun

    def lora_recipe(name: str, grad_accum: int) -> Path:
        path = _recipe(tmp_path, tiny_llm, name, steps=4, save_every=0, grad_accum=grad_accum)
        path.write_text(path.read_text(encoding="utf-8") + "lora_rank = 4\n", encoding="utf-8")  # [train] is last
        return path

    _finish(_torchrun(lora_recipe("two", 1)))
    two = RunStore(tmp_path / "runs" / "two")
    assert sum("lora" in row for row in two.read_log()) == 1
    one = run_recipe(load_recipe(lora_recipe("one", 2)))
    loss = [[r["dev_loss"] for r in store.read_log() if "dev_loss" in r][-1] for store in (one, two)]
    assert loss[0] == pytest.approx(loss[1], rel=1e-4)
    a, b = (load_file(str(s.latest_checkpoint() / ADAPTER_FILE)) for s in (one, two))
    assert all(torch.allclose(a[k], b[k], atol=1e-5) for k in a)
