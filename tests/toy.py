"""Test fixtures with small real models: a toy en→de corpus, a tiny trained checkpoint and a
base class for scripted translators.

Nothing here is mocked: the corpus is generated, the tokenizer trained, and the model really
trained with :class:`~mtdebias.train.trainer.Trainer` (a few seconds on one CPU core).
The file is a test helper, not package code (the package never imports from tests/); the
scripts in bench/ use it too and put tests/ on ``sys.path`` for it.
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path

from mtdebias.translators.base import DEFAULT_EPSILON

ANIMALS = [("dog", "Hund", "der"), ("cat", "Katze", "die"), ("horse", "Pferd", "das"), ("bird", "Vogel", "der"),
           ("mouse", "Maus", "die"), ("fish", "Fisch", "der"), ("cow", "Kuh", "die"), ("sheep", "Schaf", "das")]
COLOURS = [("red", "rote"), ("green", "grüne"), ("blue", "blaue"), ("small", "kleine"), ("big", "große"),
           ("old", "alte"), ("young", "junge"), ("white", "weiße")]
VERBS = [("sleeps", "schläft"), ("runs", "läuft"), ("eats", "frisst"), ("waits", "wartet"), ("sings", "singt")]


def toy_corpus(size: int = 600, seed: int = 0) -> tuple[list[str], list[str]]:
    """A small en→de corpus ("The red dog sleeps." → "Der rote Hund schläft.")."""
    rows = list(itertools.product(ANIMALS, COLOURS, VERBS))
    rng = random.Random(seed)
    rng.shuffle(rows)
    sources, targets = [], []
    for (animal, tier, article), (colour, farbe), (verb, verb_de) in itertools.islice(itertools.cycle(rows), size):
        sources.append(f"The {colour} {animal} {verb}.")
        targets.append(f"{article.capitalize()} {farbe} {tier} {verb_de}.")
    return sources, targets


def train_tiny_checkpoint(out_dir: str | Path, pairs: tuple[list[str], list[str]] | None = None,
                          steps: int = 150, seed: int = 1, vocab_size: int = 200) -> Path:
    """Train a tiny Marian model and return the directory of its last checkpoint."""
    import torch

    from mtdebias.models.model import build_model, marian_config
    from mtdebias.recipe.schema import TrainConfig
    from mtdebias.store.runs import RunStore
    from mtdebias.models.tokenizer import train_tokenizer, vocab_sizes
    from mtdebias.train.trainer import StaticPairs, Trainer

    out_dir = Path(out_dir)
    sources, targets = pairs or toy_corpus()
    tokenizer = train_tokenizer(sources, targets, RunStore(out_dir).tokenizer_dir, vocab_size=vocab_size)
    config = marian_config("tiny", *vocab_sizes(tokenizer), max_positions=64, dropout=0.0)
    model = build_model(config, seed)
    train_config = TrainConfig(epochs=1000, max_steps=steps, max_tokens=1024, lr=3e-3, warmup_steps=30,
                               label_smoothing=0.0, validate_bleu=False, log_every_steps=50,
                               save_every_epochs=10_000)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        trainer = Trainer(config=train_config, run_dir=out_dir, model=model, tokenizer=tokenizer,
                          source=StaticPairs(sources, targets), seed=seed)
        trainer.train()
    finally:
        torch.set_num_threads(threads)
    checkpoint = RunStore(out_dir).latest_checkpoint()
    assert checkpoint is not None
    return checkpoint


class TranslateOnly:
    """Base for scripted translators in tests: ``translate`` is theirs to write; sampling and
    scoring are refused the way a file of fixed translations refuses them."""

    def sample(self, sources, n=128, epsilon=DEFAULT_EPSILON, temperature=1.0, seed=0):
        from mtdebias.translators.base import UnsupportedCall

        raise UnsupportedCall(f"{type(self).__name__} only translates")

    def score(self, sources, targets):
        from mtdebias.translators.base import UnsupportedCall

        raise UnsupportedCall(f"{type(self).__name__} only translates")
