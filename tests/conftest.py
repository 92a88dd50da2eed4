"""Fixtures shared by the test files: a really trained tiny checkpoint, the shared data folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# No test reaches the hub: hub ids resolve only from caches the tests build (tests/hub_cache.py).
os.environ["HF_HUB_OFFLINE"] = "1"
import torch

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture(scope="session", autouse=True)
def _one_thread():
    # CI has 2 cores; tests are many small models, where threads only add overhead
    torch.set_num_threads(1)


@pytest.fixture(scope="session")
def tiny_checkpoint(tmp_path_factory) -> Path:
    """A tiny Marian en→de model trained for real on the toy corpus (about 10 s)."""
    from toy import train_tiny_checkpoint

    return train_tiny_checkpoint(tmp_path_factory.mktemp("tiny"), steps=150)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is absent")
    return SHARED_DATA


@pytest.fixture(scope="session")
def tiny_llm(tmp_path_factory) -> Path:
    """A tiny Llama-style chat model with a real BPE tokenizer and chat template, fine-tuned on a
    few en→de/es translations and choice questions (tests/llm_fixture.py; about 15 s)."""
    from tests.llm_fixture import build_tiny_llm

    return build_tiny_llm(tmp_path_factory.mktemp("tiny-llm") / "model")
