"""HFTranslator.sample seeds every source by itself: a resumed sampling run reproduces the
samples of an uninterrupted one exactly (the cache key promises no less)."""

from __future__ import annotations

import pytest

from mtdebias.translators.hf import HFTranslator, source_seed
from mtdebias.uncertainty.entropy import SampleCache, cached_samples

SOURCES = ["The red dog sleeps.", "The small cat runs.", "The old horse waits.", "The big bird sings.",
           "The white mouse eats."]


@pytest.fixture(scope="module")
def translator(tiny_checkpoint):
    import torch

    torch.set_num_threads(1)
    return HFTranslator(tiny_checkpoint, device="cpu", max_new_tokens=30)  # the tiny model has 64 positions


def test_samples_of_a_source_do_not_depend_on_the_other_sources(translator):
    together = translator.sample(SOURCES, n=6, epsilon=0.0, temperature=2.0, seed=3)
    alone = translator.sample([SOURCES[3]], n=6, epsilon=0.0, temperature=2.0, seed=3)
    reordered = translator.sample(list(reversed(SOURCES)), n=6, epsilon=0.0, temperature=2.0, seed=3)
    assert alone[0] == together[3]
    assert list(reversed(reordered)) == together
    other_seed = translator.sample([SOURCES[3]], n=6, epsilon=0.0, temperature=2.0, seed=4)
    assert other_seed[0] != together[3]  # at temperature 2 six draws practically never repeat
    assert source_seed(3, SOURCES[3]) == source_seed(3, SOURCES[3]) != source_seed(4, SOURCES[3])


def test_a_resumed_sampling_run_reproduces_the_uninterrupted_one(translator, tmp_path):
    settings = dict(n=6, epsilon=0.0, temperature=2.0, seed=5)
    full = cached_samples(translator, SOURCES, cache=SampleCache(tmp_path / "full.jsonl"), batch_size=2, **settings)

    class Killed(Exception):
        pass

    class DiesAfterOneBatch:
        """The same model, killed after its first batch of sources was cached."""

        def __init__(self):
            self.batches = 0

        def sample(self, sources, **kwargs):
            if self.batches == 1:
                raise Killed
            self.batches += 1
            return translator.sample(sources, **kwargs)

    cache = tmp_path / "resumed.jsonl"
    with pytest.raises(Killed):
        cached_samples(DiesAfterOneBatch(), SOURCES, cache=SampleCache(cache), batch_size=2, **settings)
    assert len(SampleCache(cache)) == 2  # the first batch survived the kill
    # the resumed run samples the other three sources in batches that differ from the first run's
    resumed = cached_samples(translator, SOURCES, cache=SampleCache(cache), batch_size=3, **settings)
    assert resumed == full
