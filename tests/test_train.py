"""The trainer and the transformers backend, on a tiny model trained for real."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from tests.resume_check import kill_and_resume
from mtdebias.errors import CheckpointError, InputError
from mtdebias.store.runs import RunStore
from toy import toy_corpus
from mtdebias.translators.hf import HFTranslator, length_batches


def test_loss_falls(tiny_checkpoint):
    log = RunStore(tiny_checkpoint.parents[1]).read_log()
    losses = [row["loss"] for row in log if "loss" in row]
    assert len(losses) >= 3
    assert losses[-1] < 0.5 * losses[0]


def test_checkpoint_loads_with_transformers_and_translates(tiny_checkpoint):
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer, MarianMTModel, MarianTokenizer

    assert isinstance(AutoTokenizer.from_pretrained(tiny_checkpoint), MarianTokenizer)
    assert isinstance(AutoModelForSeq2SeqLM.from_pretrained(tiny_checkpoint), MarianMTModel)
    translator = HFTranslator(tiny_checkpoint)
    out = translator.translate(["The red dog sleeps.", "The blue cat runs."], beam=3)
    assert out[0].startswith("Der") and out[0].endswith(".")
    assert "Hund" in out[0]


def test_save_load_gives_identical_outputs(tiny_checkpoint, tmp_path):
    first = HFTranslator(tiny_checkpoint)
    first.model.save_pretrained(tmp_path / "copy")
    first.tokenizer.save_pretrained(tmp_path / "copy")
    second = HFTranslator(tmp_path / "copy")
    sources = ["The old horse waits.", "The white mouse eats."]
    assert first.translate(sources, beam=2) == second.translate(sources, beam=2)
    a = first.score(sources, ["Das alte Pferd wartet.", "Die weiße Maus frisst."])
    b = second.score(sources, ["Das alte Pferd wartet.", "Die weiße Maus frisst."])
    assert [x.total for x in a] == [x.total for x in b]
    assert first.signature() == second.signature()


def test_sample_returns_n_per_source_and_repeats_with_seed(tiny_checkpoint):
    translator = HFTranslator(tiny_checkpoint)
    sources = ["The red dog sleeps.", "The green bird sings.", "The old cow waits."]
    samples = translator.sample(sources, n=16, epsilon=0.02, seed=5)
    assert [len(s) for s in samples] == [16, 16, 16]
    assert samples == translator.sample(sources, n=16, epsilon=0.02, seed=5)
    assert samples != translator.sample(sources, n=16, epsilon=0.02, seed=6)
    # with epsilon = 0.9 only the argmax token survives: sampling becomes greedy decoding
    greedy = translator.translate(sources, beam=1)
    assert all(set(s) == {g} for s, g in zip(translator.sample(sources, n=4, epsilon=0.9, seed=1), greedy))


def test_score_ranks_reference_above_shuffled(tiny_checkpoint):
    translator = HFTranslator(tiny_checkpoint)
    sources, targets = toy_corpus(40, seed=3)
    shuffled = [" ".join(reversed(t.rstrip(".").split())) + "." for t in targets]
    good = translator.score(sources, targets)
    bad = translator.score(sources, shuffled)
    assert sum(g.total > b.total for g, b in zip(good, bad)) == len(sources)
    first = good[0]
    assert first.pieces[-1] == "</s>" and len(first.tokens) == len(first.pieces)
    assert first.total == pytest.approx(sum(first.tokens))
    assert all(lp <= 0 for lp in first.tokens)


def test_length_batches_respect_budget_and_cover_all():
    lengths = [5, 1, 9, 3, 3, 7, 2, 8]
    batches = list(length_batches(lengths, max_tokens=12))
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    assert all(len(b) * max(lengths[i] for i in b) <= 12 or len(b) == 1 for b in batches)


def test_a_loader_never_downloads_a_hub_model(monkeypatch, tmp_path):
    """Even with downloads allowed, opening an uncached hub id is an error naming the command
    that fetches it: only commands resolve (and fetch) model names."""
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    with pytest.raises(InputError, match="not in the Hugging Face cache.*hf download Helsinki-NLP/opus-mt-en-de"):
        HFTranslator("Helsinki-NLP/opus-mt-en-de")


def test_corrupt_and_missing_checkpoints(tiny_checkpoint, tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        HFTranslator(tmp_path / "missing" / "ckpt")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(CheckpointError, match="no config.json"):
        HFTranslator(empty)
    broken = tmp_path / "broken"
    broken.mkdir()
    for item in tiny_checkpoint.iterdir():
        (broken / item.name).write_bytes(item.read_bytes())
    weights = broken / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:1000])
    with pytest.raises(CheckpointError, match="could not be loaded"):
        HFTranslator(broken)


TRAIN_SCRIPT = """
import sys, torch
sys.path.append(sys.argv[4])  # tests/, for the toy fixture
torch.set_num_threads(1)
from mtdebias.models.model import build_model, marian_config
from mtdebias.recipe.schema import TrainConfig
from toy import toy_corpus
from mtdebias.models.tokenizer import load_tokenizer, train_tokenizer, vocab_sizes
from mtdebias.train.trainer import StaticPairs, Trainer
from pathlib import Path
run, tok, slow = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3] == "slow"
src, tgt = toy_corpus(300)
tokenizer = load_tokenizer(tok)
model = build_model(marian_config("tiny", *vocab_sizes(tokenizer), max_positions=64, dropout=0.2), 1)
config = TrainConfig(epochs=3, max_tokens=512, lr=2e-3, warmup_steps=10, save_every_steps=5,
                     validate_bleu=False, log_every_steps=1, grad_accum=2)
trainer = Trainer(config=config, run_dir=run, model=model, tokenizer=tokenizer, source=StaticPairs(src, tgt), seed=7)
trainer.resume()
if slow:
    import time
    trainer.on_checkpoint.append(lambda path: time.sleep(0.5))
trainer.train()
"""


def _run_training(run: Path, tok: Path, slow: bool = False) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", TRAIN_SCRIPT, str(run), str(tok), "slow" if slow else "fast",
                             str(Path(__file__).parent)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def test_sigkill_and_resume_is_exact(tmp_path):
    from mtdebias.models.tokenizer import train_tokenizer

    src, tgt = toy_corpus(300)
    train_tokenizer(src, tgt, tmp_path / "tok", vocab_size=200)
    store, _ = kill_and_resume(lambda run, slow: _run_training(run, tmp_path / "tok", slow=slow), tmp_path)
    state = json.loads((store.latest_checkpoint() / "trainer_state.json").read_text())
    assert state["epoch"] == 3


def test_sampling_leaves_the_callers_rng_alone(tiny_checkpoint):
    """Inline evaluation samples in the middle of training: the training RNG must not move."""
    translator = HFTranslator(tiny_checkpoint)
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    translator.sample(["The red dog sleeps."], n=4, seed=9)
    assert torch.equal(torch.rand(3), expected)


def test_m2m100_checkpoint_gets_its_target_language_token(tmp_path):
    """M2M100/NLLB-style models: the translator forces the target-language token first."""
    import json as _json
    import shutil

    from transformers import M2M100Config, M2M100ForConditionalGeneration, M2M100Tokenizer

    from mtdebias.models.tokenizer import train_tokenizer

    src, tgt = toy_corpus(200)
    marian = train_tokenizer(src, tgt, tmp_path / "spm", vocab_size=150)
    pieces = [p for p in marian.encoder if p not in ("</s>", "<unk>", "<pad>")]
    vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3, **{p: i + 4 for i, p in enumerate(pieces)}}
    (tmp_path / "vocab.json").write_text(_json.dumps(vocab))
    shutil.copy(tmp_path / "spm" / "source.spm", tmp_path / "sentencepiece.bpe.model")
    tokenizer = M2M100Tokenizer(str(tmp_path / "vocab.json"), str(tmp_path / "sentencepiece.bpe.model"))
    size = max(tokenizer.get_lang_id(code) for code in tokenizer.lang_code_to_token) + 1 + 8  # + 8 "madeup" words
    config = M2M100Config(vocab_size=size, d_model=32, encoder_layers=1, decoder_layers=1,
                          encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64,
                          decoder_ffn_dim=64, max_position_embeddings=64, pad_token_id=1, bos_token_id=0,
                          eos_token_id=2, decoder_start_token_id=2)
    torch.manual_seed(0)
    model = M2M100ForConditionalGeneration(config)
    model.save_pretrained(tmp_path / "m2m")
    tokenizer.save_pretrained(tmp_path / "m2m")
    translator = HFTranslator(tmp_path / "m2m", src_lang="en", tgt_lang="de")
    de_id = tokenizer.get_lang_id("de")
    assert translator._gen_kwargs == {"forced_bos_token_id": de_id}
    enc = translator._encode(["The red dog sleeps."])
    assert int(enc["input_ids"][0, 0]) == tokenizer.get_lang_id("en")  # source language prefix
    out = translator.model.generate(**enc, num_beams=1, max_new_tokens=5, **translator._gen_kwargs)
    assert int(out[0, 1]) == de_id  # decoder start, then the forced target-language token
    assert len(translator.translate(["The red dog sleeps."], beam=2)) == 1
    # the ε-sampler forces the same first token
    from mtdebias.translators.epsilon_sampler import constraints_for, epsilon_sample

    drawn = epsilon_sample(translator.model, enc["input_ids"], enc["attention_mask"], [1], n=4, epsilon=0.02,
                           temperature=1.0, max_new_tokens=5,
                           constraints=constraints_for(translator.model, de_id))
    assert [ids[0] for ids in drawn[0]] == [de_id] * 4
    assert [len(s) for s in translator.sample(["The red dog sleeps."], n=4, seed=1)] == [4]
