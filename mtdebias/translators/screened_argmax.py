"""The output layer's argmax, exact, at about a quarter of a float32 output layer's cost on a CPU.

Greedy decoding needs one thing from the output layer: the index of the largest logit
``h · w_v`` over the vocabulary. For a model with a large vocabulary (Gemma 3: 262,144 × 640,
two thirds of its weights) that product dominates a decoding step, and on a CPU it is bounded by
reading the float32 matrix. This module finds the same index in two passes:

1. **Screen:** ``h̃ · w̃_v`` for every token, with ``h̃`` and ``w̃`` rounded to bfloat16 (half the
   bytes, and the CPU's bfloat16 dot-product instructions where it has them).
2. **Check:** the exact float32 ``h · w_v`` for the few tokens the screen cannot rule out, and
   their argmax.

The screen's error has a bound (below) that holds for any ``h``: a token whose screened logit
plus the bound lies below the best screened logit minus the bound cannot be the argmax, so it is
left out, and the argmax over the rest is the argmax over the vocabulary. On the released Gemma
3 model's decoding steps the check keeps about two tokens a row of the 262,144.

The bound, per row, with ``u = 2⁻⁸`` (bfloat16's unit roundoff) and ``K`` the hidden size:
``|h·w − fl(h̃·w̃)| ≤ ‖h − h̃‖·max‖w‖ + ‖h̃‖·max‖w − w̃‖`` (rounding the inputs, Cauchy–Schwarz)
``+ K·2⁻²³·‖h̃‖·max‖w̃‖`` (the kernel's float32 accumulation) ``+ 2u·|fl(h̃·w̃)|`` (the result's own
rounding to bfloat16, with room). Taking the maxima over the vocabulary makes one number per row,
which costs nothing per token; it is looser than a per-token bound, and the check is cheap.

The exact pass computes the kept tokens' logits with a different matrix shape than the full
layer would, so a logit may differ from the full layer's in its last float32 bits — the same kind
of difference a different batch composition makes. A tie that close is decided either way by
either route; tests compare the chosen tokens with the full layer's on real decoding steps.
"""

from __future__ import annotations

import torch
from torch.nn import functional as F

UNIT_ROUNDOFF = 2.0 ** -8  # bfloat16 keeps 8 significant bits
ACCUMULATION = 2.0 ** -23  # a float32 sum's relative error per term


class ScreenedArgmax:
    """``argmax_v h·w_v`` for the rows of ``h``, for an output layer ``weight`` of shape
    (vocabulary, hidden) without a bias. Over calls, ``rows`` counts the rows asked and ``kept``
    the tokens checked exactly."""

    def __init__(self, weight: torch.Tensor):
        if weight.dim() != 2 or not weight.is_floating_point():
            raise ValueError(f"an output layer's weight is a 2-d float matrix, got {tuple(weight.shape)} {weight.dtype}")
        self.weight = weight.float()
        self.screen = self.weight.to(torch.bfloat16)
        rounded = self.screen.float()
        self.max_norm = float(self.weight.norm(dim=1).max())
        self.max_screen_norm = float(rounded.norm(dim=1).max())
        self.max_error_norm = float((self.weight - rounded).norm(dim=1).max())
        self.hidden = self.weight.shape[1]
        self.rows = self.kept = 0

    def bound(self, h: torch.Tensor, screened: torch.Tensor, top: torch.Tensor | None = None) -> torch.Tensor:
        """Per row (a column vector): how far any screened logit may lie from the exact one.
        ``top``: the rows' largest screened logits, where the caller has them."""
        top = screened.amax(dim=1, keepdim=True) if top is None else top
        largest = torch.maximum(top, -screened.amin(dim=1, keepdim=True))
        rounded = h.to(torch.bfloat16).float()
        input_error = (h - rounded).norm(dim=1, keepdim=True)
        size = rounded.norm(dim=1, keepdim=True)
        return (input_error * self.max_norm + size * self.max_error_norm
                + self.hidden * ACCUMULATION * size * self.max_screen_norm + 2 * UNIT_ROUNDOFF * largest)

    @torch.inference_mode()
    def __call__(self, h: torch.Tensor) -> torch.Tensor:
        """The argmax token of each row of ``h`` (rows × hidden, float32)."""
        h = h.float()
        screened = F.linear(h.to(torch.bfloat16), self.screen).float()
        top = screened.amax(dim=1, keepdim=True)
        floor = top - 2 * self.bound(h, screened, top)
        candidate = screened >= floor  # a token below the floor is below the argmax exactly
        tokens = candidate.any(dim=0).nonzero().squeeze(1)  # ascending: ties go to the lower id, as argmax does
        exact = F.linear(h, self.weight.index_select(0, tokens))
        exact = exact.masked_fill(~candidate.index_select(1, tokens), float("-inf"))
        self.rows, self.kept = self.rows + h.shape[0], self.kept + int(tokens.numel())
        return tokens[exact.argmax(dim=1)]
