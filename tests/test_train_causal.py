"""Fine-tuning a decoder-only LM as a translator (mtdebias/train/causal.py), on the tiny Llama fixture
(tests/llm_fixture.py): the loss covers the reply and its end token only and equals the hf-causal
translator's own score of the pair; a fine-tuned checkpoint translates its training pairs through
``hf-causal:`` under the prompt it was trained on; a run killed by SIGKILL resumes bit-identically; a
recipe with ``model.kind = "causal"`` trains, resumes and is scored per checkpoint."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from tests.resume_check import kill_and_resume
from mtdebias.errors import ConfigError
from mtdebias.store.runs import RunStore
from mtdebias.train.batching import collate, joined_pairs
from mtdebias.train.causal import PromptRenderer, load_causal
from mtdebias.translators.hf_causal import HFCausalTranslator
from tests.llm_fixture import DE_PAIRS

# pairs the fixture never saw, in its vocabulary (names and a new prompt make them new to it)
NEW_PAIRS = [("Anna sees the red dog.", "Anna sieht den roten Hund."),
             ("Peter sees the old cow.", "Peter sieht die alte Kuh."),
             ("Maria sees the small bird.", "Maria sieht den kleinen Vogel."),
             ("Paul sees the white cat.", "Paul sieht die weiße Katze.")]
PROMPT = "Into {tgt_name}, please: {source}"


@pytest.mark.parametrize("chat", [True, False])
def test_the_loss_covers_the_reply_and_its_end_and_equals_the_translators_score(tiny_llm, chat):
    model, tokenizer = load_causal(tiny_llm)
    renderer = PromptRenderer(model, tokenizer, src_lang="en", tgt_lang="de", chat=chat)
    sources, targets = [s for s, _ in DE_PAIRS[:3]], [t for _, t in DE_PAIRS[:3]]
    encoded = joined_pairs(*renderer.prompt_pairs(sources, targets), 512)
    batch = collate(encoded, [0, 1, 2], tokenizer.pad_token_id)
    translator = HFCausalTranslator(tiny_llm, tgt_lang="de", device="cpu", chat=chat)
    assert renderer.prompt_hash == translator.prompt_hash
    end = "<|end|>" if chat else "\n"
    for row, target in enumerate(targets):
        labels = batch["labels"][row]
        where = (labels != -100).nonzero().flatten().tolist()
        prompt = translator._encode_prompts([translator._prompt_text(sources[row])])[0]
        # the first label sits on the prompt's last token (which predicts the reply's first)
        assert where == list(range(len(prompt) - 1, len(prompt) - 1 + len(encoded.tgt[row])))
        decoded = tokenizer.decode(labels[where].tolist())
        assert decoded == (f"{target}{end}" if chat else f" {target}{end}")
        assert batch["input_ids"][row, :len(prompt)].tolist() == prompt
    with torch.no_grad():
        logits = model.eval()(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits
        loss = torch.nn.functional.cross_entropy(logits.transpose(1, 2), batch["labels"], reduction="none").sum(-1)
    scores = [-s.total for s in translator.score(sources, targets)]
    assert loss.tolist() == pytest.approx(scores, rel=1e-4, abs=1e-5)


def _write_pairs(folder: Path, pairs) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "train.en").write_text("".join(f"{s}\n" for s, _ in pairs), encoding="utf-8")
    (folder / "train.de").write_text("".join(f"{t}\n" for _, t in pairs), encoding="utf-8")
    return folder / "train.en", folder / "train.de"


def _recipe(tmp_path: Path, init: Path, name: str, steps: int = 6, save_every: int = 2, warmup: int = 1,
            max_tokens: int = 40, grad_accum: int = 1) -> Path:
    """A causal recipe on NEW_PAIRS (max_tokens = 40: one pair per batch, four batches an epoch)."""
    src, tgt = _write_pairs(tmp_path / "data", NEW_PAIRS)
    path = tmp_path / f"{name}.toml"
    path.write_text(f"""
[run]
name = "{name}"
dir = "{tmp_path / 'runs'}"
seed = 3

[data]
train_src = "{src}"
train_tgt = "{tgt}"
dev_src = "{src}"
dev_tgt = "{tgt}"
src_lang = "en"
tgt_lang = "de"

[model]
kind = "causal"
init = "{init}"
prompt = "{PROMPT}"

[train]
epochs = 1000
max_steps = {steps}
max_tokens = {max_tokens}
lr = 3e-3
warmup_steps = {warmup}
label_smoothing = 0.0
save_every_steps = {save_every}
save_every_epochs = 1000
grad_accum = {grad_accum}
log_every_steps = 1
beam = 1
""", encoding="utf-8")
    return path


def test_a_fine_tuned_checkpoint_translates_its_training_pairs_with_hf_causal(tiny_llm, tmp_path):
    from mtdebias.experiments.pipeline import run_recipe
    from mtdebias.recipe import load_recipe
    from mtdebias.translators.specs import load_spec

    sources, targets = [s for s, _ in NEW_PAIRS], [t for _, t in NEW_PAIRS]
    before = HFCausalTranslator(tiny_llm, tgt_lang="de", device="cpu", prompt=PROMPT).translate(sources, beam=1)
    assert before != targets  # the fixture does not know them yet
    store = run_recipe(load_recipe(_recipe(tmp_path, tiny_llm, "learn", steps=60, save_every=0, warmup=30,
                                         max_tokens=400)))
    last = store.latest_checkpoint()
    after = load_spec(f"hf-causal:{last}", tgt_lang="de", prompt=PROMPT, device="cpu")
    assert after.translate(sources, beam=1) == targets
    logged = next(row["prompt"] for row in store.read_log() if "prompt" in row)
    assert after.prompt_hash == logged["hash"] and logged["chat"] is True
    # dev BLEU at the checkpoint came from the same prompts, on the model in training
    assert [r for r in store.read_log() if "checkpoint" in r][-1]["bleu"] == pytest.approx(100.0)


def score_every_checkpoint(store: RunStore, tmp_path: Path) -> Path:
    """Score each checkpoint of a causal run with a BLEU/chrF suite on its training pairs, and check
    that hf-causal did it under the prompt the run logged. Returns the suite's path."""
    from mtdebias.evaluation.runner import evaluate

    suite = tmp_path / "suite.toml"
    suite.write_text(f'[suite]\nname = "q"\n\n[[probe]]\ntype = "quality"\nlang = "{{tgt_lang}}"\n'
                     f'src = "{tmp_path}/data/train.en"\nref = "{tmp_path}/data/train.de"\nbeam = 1\n', encoding="utf-8")
    outcome = evaluate([store.dir], suite)
    assert not outcome.failed and len(outcome.scored) == len(store.checkpoints())
    logged = next(row["prompt"]["hash"] for row in store.read_log() if "prompt" in row)
    for checkpoint in store.checkpoints():
        rows = store.results(checkpoint)
        assert {r["metric"] for r in rows} >= {"bleu", "chrf"}
        # scored by hf-causal with the run's prompt: its hash is in the result's signature
        assert all(f"prompt-{logged}" in r["signature"] and "hf-causal-" in r["request"] for r in rows)
    return suite


def test_a_causal_recipe_trains_resumes_and_is_scored_per_checkpoint(tiny_llm, tmp_path):
    from mtdebias.experiments.pipeline import run_recipe
    from mtdebias.recipe import load_recipe
    from mtdebias.evaluation.runner import evaluate

    store = run_recipe(load_recipe(_recipe(tmp_path, tiny_llm, "run", steps=4)))
    assert [c.name for c in store.checkpoints()] == ["step-0000002", "step-0000004"]
    # more steps: the run resumes from step 4 (the recipe may change max_steps)
    recipe = load_recipe(_recipe(tmp_path, tiny_llm, "run", steps=6))
    store = run_recipe(recipe)
    assert [c.name for c in store.checkpoints()] == ["step-0000002", "step-0000004", "step-0000006"]
    assert [r["step"] for r in store.read_log() if "loss" in r] == [1, 2, 3, 4, 5, 6]
    suite = score_every_checkpoint(store, tmp_path)
    assert not evaluate([store.dir], suite).scored  # stored results are not computed again
    from mtdebias.translators.load import load_translator

    with pytest.raises(ConfigError, match="decoder-only language model.*"):
        load_translator(store.latest_checkpoint())  # as `translate CHECKPOINT` would: hf-causal: is the way


def test_zero_epochs_saves_the_initial_model_as_the_one_checkpoint_a_row_for_the_untouched_model(tiny_llm, tmp_path):
    """train.epochs = 0 (the study's `untouched` variant): nothing is trained, the model as it came
    is checkpoint step 0, finished, and it translates as hf-causal on the init model does."""
    from safetensors.torch import load_file

    from mtdebias.experiments.pipeline import run_recipe
    from mtdebias.recipe import load_recipe

    store = run_recipe(load_recipe(_recipe(tmp_path, tiny_llm, "untouched"), ["train.epochs=0", "train.max_steps=0"]))
    assert [c.name for c in store.checkpoints()] == ["step-0000000"] and store.is_finished()
    assert not [row for row in store.read_log() if "loss" in row]
    saved = load_file(str(store.latest_checkpoint() / "model.safetensors"))
    model, _ = load_causal(tiny_llm)
    for name, tensor in model.state_dict().items():
        if name in saved:  # a tied output layer is stored once
            assert torch.equal(saved[name], tensor), name
    sources = [s for s, _ in NEW_PAIRS]
    untouched = HFCausalTranslator(tiny_llm, tgt_lang="de", device="cpu", prompt=PROMPT)
    checkpoint = HFCausalTranslator(store.latest_checkpoint(), tgt_lang="de", device="cpu", prompt=PROMPT)
    assert checkpoint.prompt_hash == next(r["prompt"]["hash"] for r in store.read_log() if "prompt" in r)
    assert checkpoint.translate(sources, beam=1) == untouched.translate(sources, beam=1)
    # dev quality of the untouched model is logged at its checkpoint, like any other
    assert [r for r in store.read_log() if "checkpoint" in r][0]["step"] == 0


def test_recipe_model_kind_is_checked_before_any_work(tiny_llm, tiny_checkpoint, tmp_path):
    from mtdebias.experiments.pipeline import check_recipe
    from mtdebias.recipe import load_recipe

    path = _recipe(tmp_path, tiny_llm, "x")
    with pytest.raises(ConfigError, match='decoder-only LM, but model.kind = .seq2seq.*set model.kind = "causal"'):
        check_recipe(load_recipe(path, ['model.kind="seq2seq"', 'model.prompt=""']))
    with pytest.raises(ConfigError, match="prompt option of a decoder-only model"):
        load_recipe(path, ['model.kind="seq2seq"'])
    with pytest.raises(ConfigError, match="encoder-decoder model, but model.kind = 'causal'"):
        check_recipe(load_recipe(path, [f'model.init="{tiny_checkpoint}"']))
    with pytest.raises(ConfigError, match="unknown placeholder"):
        check_recipe(load_recipe(path, ['model.prompt="{text}"']))
    with pytest.raises(ConfigError, match="model.chat = 'yes'"):
        load_recipe(path, ['model.chat="yes"'])
    assert load_recipe(path, ["model.chat=false"]).model.chat is False
    assert not (tmp_path / "runs" / "x").exists()


TRAIN_SCRIPT = """
import sys, torch
torch.set_num_threads(1)
from pathlib import Path
from mtdebias.recipe.schema import TrainConfig
from mtdebias.train.batching import joined_pairs
from mtdebias.train.causal import PromptRenderer, load_causal
from mtdebias.train.trainer import StaticPairs, Trainer
run, init, slow = Path(sys.argv[1]), sys.argv[2], sys.argv[3] == "slow"
pairs = [("The red dog sleeps.", "Der rote Hund schläft."), ("Anna sees the red dog.", "Anna sieht den roten Hund."),
         ("The old cow waits.", "Die alte Kuh wartet."), ("Peter sees the old cow.", "Peter sieht die alte Kuh."),
         ("The small bird sings.", "Der kleine Vogel singt."), ("Paul sees the white cat.", "Paul sieht die weiße Katze.")]
model, tokenizer = load_causal(init)
renderer = PromptRenderer(model, tokenizer, src_lang="en", tgt_lang="de", system="You translate.")
config = TrainConfig(epochs=4, max_tokens=120, lr=2e-3, warmup_steps=3, save_every_steps=2,
                     validate_bleu=False, log_every_steps=1, grad_accum=2)
trainer = Trainer(config=config, run_dir=run, model=model, tokenizer=tokenizer, encode=lambda s, t, m: joined_pairs(*renderer.prompt_pairs(s, t), m),
                  source=StaticPairs([s for s, _ in pairs], [t for _, t in pairs]), seed=5)
trainer.resume()
if slow:
    import time
    trainer.on_checkpoint.append(lambda path: time.sleep(0.7))
trainer.train()
"""


def _run_training(run: Path, init: Path, slow: bool = False) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", TRAIN_SCRIPT, str(run), str(init), "slow" if slow else "fast"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=Path(__file__).parents[1])


def test_sigkill_and_resume_of_a_causal_model_is_bit_identical(tiny_llm, tmp_path):
    store, _ = kill_and_resume(lambda run, slow: _run_training(run, tiny_llm, slow=slow), tmp_path)
    assert json.loads((store.latest_checkpoint() / "trainer_state.json").read_text())["epoch"] == 4


def test_switch_entity_feeds_a_causal_model_each_epochs_switched_pairs_as_prompts(tiny_llm, tmp_path):
    """One augmentation, two model families: the pairs SwitchEntity draws for an epoch are what the
    decoder-only model is trained on, rendered as the translator's prompts."""
    from mtdebias.augment import SwitchEntity, annotate_lists
    from mtdebias.recipe.schema import TrainConfig
    from mtdebias.synth import generate
    from mtdebias.train.trainer import Trainer

    corpus = generate("de", size=150, seed=2, dev_size=10, test_size=10)
    sources, targets = corpus.sources("train"), corpus.targets("train")
    annotate_lists(sources, targets, tmp_path / "ann", "en", "de", two_sided=False, name_locale="en")
    model, tokenizer = load_causal(tiny_llm)
    renderer = PromptRenderer(model, tokenizer, src_lang="en", tgt_lang="de")
    config = TrainConfig(epochs=2, max_tokens=4000, lr=1e-3, warmup_steps=5, validate_bleu=False,
                         save_every_epochs=10, log_every_steps=1000)
    trainer = Trainer(config=config, run_dir=tmp_path / "run", model=model, tokenizer=tokenizer, seed=1,
                      source=SwitchEntity(tmp_path / "ann", seed=5, p=1.0),
                      encode=lambda s, t, m: joined_pairs(*renderer.prompt_pairs(s, t), m))
    fed = []
    original = trainer._encode_epoch
    trainer._encode_epoch = lambda epoch: fed.append(original(epoch)) or fed[-1]
    trainer.train()
    assert trainer.state.epoch == 2 and trainer.state.step > 0
    for epoch, encoded in enumerate(fed):
        switched = SwitchEntity(tmp_path / "ann", seed=5, p=1.0).pairs(epoch)
        expected = joined_pairs(*renderer.prompt_pairs(*switched), config.max_len)
        assert encoded.src == expected.src and encoded.tgt == expected.tgt
        first = next(i for i in range(len(switched[0])) if i not in encoded.first_dropped)
        assert tokenizer.decode(encoded.src[0]) == renderer._prompt_text(switched[0][first])
    assert sum(a != b for a, b in zip(SwitchEntity(tmp_path / "ann", seed=5, p=1.0).pairs(0)[0], sources)) > 0.3 * len(sources)
    assert fed[0].src != fed[1].src  # a new draw every epoch


def test_two_processes_train_a_causal_model_as_one_process_accumulating_two_batches(tiny_llm, tmp_path):
    """torchrun with 2 CPU ranks (gloo) against 1 process with grad_accum = 2: the same pairs per
    step and the same averaged gradient, so the dev loss agrees to float round-off."""
    from mtdebias.experiments.pipeline import run_recipe
    from mtdebias.recipe import load_recipe
    from tests.test_distributed import _finish, _torchrun

    out, err = _finish(_torchrun(_recipe(tmp_path, tiny_llm, "two", steps=4, save_every=0)))
    assert err.splitlines()[0] == "distributed: 2 processes, backend gloo (MULTI_CPU), rank 0"
    two = RunStore(tmp_path / "runs" / "two")
    assert [c.name for c in two.checkpoints()] == ["step-0000004"]
    assert json.loads((two.latest_checkpoint() / "trainer_state.json").read_text())["num_processes"] == 2
    assert sum("prompt" in row for row in two.read_log()) == 1  # logged once, by the main process
    one = run_recipe(load_recipe(_recipe(tmp_path, tiny_llm, "one", steps=4, save_every=0, grad_accum=2)))
    loss = [[r["dev_loss"] for r in store.read_log() if "dev_loss" in r][-1] for store in (one, two)]
    assert loss[0] == pytest.approx(loss[1], rel=1e-3)
