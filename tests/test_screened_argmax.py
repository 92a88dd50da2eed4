"""The screened argmax (mtdebias/translators/screened_argmax.py) must choose the token the full
float32 output layer chooses, and its error bound must hold, on random layers with near-ties
built in and on a real model's decoding steps (tests/test_greedy_causal.py)."""

from __future__ import annotations

import pytest
import torch
from torch.nn import functional as F

from mtdebias.translators.screened_argmax import ScreenedArgmax


def layer_and_rows(vocab: int = 4000, hidden: int = 96, rows: int = 256, seed: int = 0):
    """A layer whose rows have norms spread over two orders of magnitude, hidden states of several
    scales, and near-ties: token 2k+1 is token 2k moved by less than bfloat16 can tell apart."""
    g = torch.Generator().manual_seed(seed)
    weight = torch.randn(vocab, hidden, generator=g) * torch.logspace(-1, 1, vocab)[torch.randperm(vocab, generator=g)].unsqueeze(1)
    weight[1::2] = weight[0::2] + 1e-5 * torch.randn(vocab // 2, hidden, generator=g)
    h = torch.randn(rows, hidden, generator=g) * torch.logspace(-2, 2, rows).unsqueeze(1)
    # rows pointing at a chosen token, so the top two logits are the near-tied pair
    h[: rows // 2] = weight[torch.randint(0, vocab, (rows // 2,), generator=g)] * 3 + 0.01 * h[: rows // 2]
    return weight, h


def test_the_screened_argmax_is_the_full_layers_argmax_with_near_ties():
    weight, h = layer_and_rows()
    screened = ScreenedArgmax(weight)
    full = F.linear(h, weight).argmax(dim=1)
    assert torch.equal(screened(h), full)
    # the bfloat16 pass alone gets the near-ties wrong: the exact check is what makes it right
    assert int((F.linear(h.to(torch.bfloat16), screened.screen).float().argmax(dim=1) != full).sum()) > 50
    # the screen did its job: far fewer tokens were checked exactly than the vocabulary holds
    assert screened.kept < weight.shape[0] // 4


def test_exact_ties_go_to_the_lower_token_id_as_argmax_does():
    weight = F.normalize(torch.randn(50, 16, generator=torch.Generator().manual_seed(0)), dim=1)
    weight[31] = weight[7]  # unit rows: h = 10·w₇ gives tokens 7 and 31 the largest logit, equal
    h = weight[7:8] * 10
    assert int(ScreenedArgmax(weight)(h)) == int(F.linear(h, weight).argmax()) == 7


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_bound_covers_the_screens_error(seed):
    weight, h = layer_and_rows(seed=seed)
    screened = ScreenedArgmax(weight)
    approx = F.linear(h.to(torch.bfloat16), screened.screen).float()
    error = (F.linear(h.double(), weight.double()) - approx.double()).abs()
    bound = screened.bound(h, approx).double()
    assert bool((error <= bound).all())
    # not vacuous: on each row the largest error is within a few times its bound
    worst = (error / bound).amax(dim=1)
    assert float(worst.max()) < 0.5 and float(worst.median()) > 0.05


@pytest.mark.parametrize("chunk", [1, 7, 4000])
def test_chunks_of_any_size_choose_the_same_tokens(chunk):
    weight, h = layer_and_rows(seed=4)  # 256 rows
    whole, chunked = ScreenedArgmax(weight, chunk_logits=4000 * 256), ScreenedArgmax(weight, chunk_logits=chunk * 256)
    chosen = chunked(h)
    assert torch.equal(chosen, F.linear(h, weight).argmax(dim=1))
    assert torch.equal(chosen, whole(h)) and chunked.kept == whole.kept


def test_the_threshold_is_where_the_bounds_meet():
    """s is kept when s + E + 2u|s| reaches top − E − 2u|top|: on both sides of zero, the threshold
    itself is kept and the next float below it would be ruled out by at most float32 rounding."""
    u = 2.0 ** -8
    for top, error in [(10.0, 0.5), (0.3, 0.5), (-4.0, 0.25), (1e-3, 0.0)]:
        t = float(ScreenedArgmax.threshold(torch.tensor([[top]]), torch.tensor([[error]])))
        assert t + error + 2 * u * abs(t) >= top - error - 2 * u * abs(top) - 1e-6
        assert t + error + 2 * u * abs(t) <= top - error - 2 * u * abs(top) + 1e-5 * (1 + abs(top))


def test_a_weight_that_is_no_matrix_is_refused():
    with pytest.raises(ValueError, match="2-d float matrix"):
        ScreenedArgmax(torch.ones(3, dtype=torch.long))
