"""A tiny model trained with SwitchEntity on: the pairs fed to it are the switched ones."""

import torch

from mtdebias.augment import SwitchEntity, annotate_lists
from mtdebias.models.model import build_model, marian_config
from mtdebias.recipe.schema import TrainConfig
from mtdebias.synth import generate
from mtdebias.models.tokenizer import train_tokenizer, vocab_sizes
from mtdebias.train.batching import encode_pairs
from mtdebias.train.trainer import Trainer


def test_trainer_is_fed_each_epochs_switched_pairs(tmp_path):
    corpus = generate("de", size=400, seed=2, dev_size=10, test_size=10)
    sources, targets = corpus.sources("train"), corpus.targets("train")
    # the synthetic corpus uses US names (SSA): its locale is en, as in recipes/quickstart.toml
    annotate_lists(sources, targets, tmp_path / "ann", "en", "de", two_sided=False, name_locale="en")
    switch = SwitchEntity(tmp_path / "ann", seed=5, p=1.0)
    tokenizer = train_tokenizer(sources, targets, tmp_path / "tok", vocab_size=600)
    model = build_model(marian_config("tiny", *vocab_sizes(tokenizer), max_positions=64), 1)
    config = TrainConfig(epochs=2, max_tokens=2048, lr=1e-3, warmup_steps=5, validate_bleu=False,
                         save_every_epochs=10, log_every_steps=1000)
    trainer = Trainer(config=config, run_dir=tmp_path / "run", model=model, tokenizer=tokenizer, source=switch,
                      seed=1)
    fed = []  # what the trainer encoded and batched, epoch by epoch
    original_encode = trainer._encode_epoch

    def spy(epoch):
        encoded = original_encode(epoch)
        fed.append(encoded)
        return encoded

    trainer._encode_epoch = spy
    torch.manual_seed(0)
    trainer.train()
    assert trainer.state.epoch == 2 and trainer.state.step > 0
    for epoch, encoded in enumerate(fed):
        expected_src, expected_tgt = SwitchEntity(tmp_path / "ann", seed=5, p=1.0).pairs(epoch)
        expected = encode_pairs(tokenizer, expected_src, expected_tgt, config.max_len)
        assert encoded.src == expected.src and encoded.tgt == expected.tgt
    epoch0, epoch1 = (SwitchEntity(tmp_path / "ann", seed=5, p=1.0).pairs(e) for e in (0, 1))
    changed = sum(a != b for a, b in zip(epoch0[0], sources))
    assert changed > 0.3 * len(sources)  # most person sentences got another name
    assert epoch0 != epoch1  # a new draw every epoch
    assert fed[0].src != fed[1].src
