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
plus its bound lies below the best screened logit minus that one's bound cannot be the argmax,
so it is left out, and the argmax over the rest is the argmax over the vocabulary. On the
released Gemma 3 model's decoding steps the check keeps about two tokens a row of the 262,144.

The bound, with ``u = 2⁻⁸`` (bfloat16's unit roundoff) and ``K`` the hidden size:
``|h·w − fl(h̃·w̃)| ≤ E + 2u·|fl(h̃·w̃)|``, where ``E = ‖h − h̃‖·max‖w‖ + ‖h̃‖·max‖w − w̃‖`` (rounding the
inputs, Cauchy–Schwarz) ``+ K·2⁻²³·‖h̃‖·max‖w̃‖`` (the kernel's float32 accumulation) is one number per
row (maxima over the vocabulary) and ``2u·|s|`` is the result's own rounding to bfloat16, with
room. Both the upper bound ``s + E + 2u|s|`` and the lower bound ``s − E − 2u|s|`` increase with the
screened logit ``s``, so "cannot be the argmax" is one threshold on ``s`` per row, set by the best
screened logit. The vocabulary is screened in chunks (:data:`CHUNK_LOGITS`) against the best logit so
far, whose threshold only rises, and the candidates are filtered once more at the end.

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
# Logits screened per product (rows × vocabulary rows): a chunk's stay in cache for the comparisons
# that follow, where a 200-row step's whole layer (52M bfloat16 logits) would go out to memory and
# back. Measured on Gemma 3's layer, 2 threads: 200 rows 254 ms whole, 223 ms in chunks of 16,384
# tokens; a few rows are faster whole.
CHUNK_LOGITS = 2 ** 22


class ScreenedArgmax:
    """``argmax_v h·w_v`` for the rows of ``h``, for an output layer ``weight`` of shape
    (vocabulary, hidden) without a bias. Over calls, ``rows`` counts the rows asked and ``kept``
    the tokens checked exactly."""

    def __init__(self, weight: torch.Tensor, chunk_logits: int = CHUNK_LOGITS):
        if weight.dim() != 2 or not weight.is_floating_point():
            raise ValueError(f"an output layer's weight is a 2-d float matrix, got {tuple(weight.shape)} {weight.dtype}")
        self.weight = weight.float()
        self.screen = self.weight.to(torch.bfloat16)
        rounded = self.screen.float()
        self.max_norm = float(self.weight.norm(dim=1).max())
        self.max_screen_norm = float(rounded.norm(dim=1).max())
        self.max_error_norm = float((self.weight - rounded).norm(dim=1).max())
        self.hidden = self.weight.shape[1]
        self.chunk_logits = chunk_logits
        self.rows = self.kept = 0

    def input_bound(self, h: torch.Tensor) -> torch.Tensor:
        """Per row (a column vector): how far ``h̃·w̃_v`` may lie from ``h·w_v`` before the result
        is rounded to bfloat16, for any token ``v``."""
        rounded = h.to(torch.bfloat16).float()
        input_error = (h - rounded).norm(dim=1, keepdim=True)
        size = rounded.norm(dim=1, keepdim=True)
        return (input_error * self.max_norm + size * self.max_error_norm
                + self.hidden * ACCUMULATION * size * self.max_screen_norm)

    def bound(self, h: torch.Tensor, screened: torch.Tensor) -> torch.Tensor:
        """Per row and token: how far each screened logit may lie from the exact one."""
        return self.input_bound(h) + 2 * UNIT_ROUNDOFF * screened.abs()

    @staticmethod
    def threshold(top: torch.Tensor, error: torch.Tensor) -> torch.Tensor:
        """The least screened logit ``s`` whose upper bound ``s + error + 2u|s|`` reaches the lower
        bound ``top − error − 2u|top|`` of the best screened logit ``top``, rounded down to float32
        (both bounds increase with ``s``, so a token below it cannot be the argmax)."""
        top, error = top.double(), error.double()
        gap = top - 2 * UNIT_ROUNDOFF * top.abs() - 2 * error  # s + 2u|s| must reach this
        least = torch.where(gap >= 0, gap / (1 + 2 * UNIT_ROUNDOFF), gap / (1 - 2 * UNIT_ROUNDOFF))
        return torch.nextafter(least.float(), torch.tensor(float("-inf")))

    @torch.inference_mode()
    def __call__(self, h: torch.Tensor) -> torch.Tensor:
        """The argmax token of each row of ``h`` (rows × hidden, float32)."""
        h = h.float()
        h_screen, error = h.to(torch.bfloat16), self.input_bound(h)
        top = torch.full_like(error, float("-inf"))
        found: list[tuple[torch.Tensor, torch.Tensor]] = []  # (tokens, their screened logits: rows × tokens)
        chunk = max(self.chunk_logits // h.shape[0], 1)
        for start in range(0, self.weight.shape[0], chunk):
            screened = F.linear(h_screen, self.screen[start:start + chunk])
            top = torch.maximum(top, screened.amax(dim=1, keepdim=True).float())
            # compared in bfloat16 against the threshold rounded down: a superset, filtered below
            columns = (screened >= _bfloat16_below(self.threshold(top, error))).any(dim=0).nonzero().squeeze(1)
            found.append((columns + start, screened[:, columns].float()))
        tokens = torch.cat([t for t, _ in found])  # ascending: ties go to the lower id, as argmax does
        # the threshold only rose over the chunks: the final one rules out more
        candidate = torch.cat([logits for _, logits in found], dim=1) >= self.threshold(top, error)
        tokens, candidate = tokens[candidate.any(dim=0)], candidate[:, candidate.any(dim=0)]
        exact = F.linear(h, self.weight.index_select(0, tokens)).masked_fill(~candidate, float("-inf"))
        self.rows, self.kept = self.rows + h.shape[0], self.kept + int(tokens.numel())
        return tokens[exact.argmax(dim=1)]


def _bfloat16_below(values: torch.Tensor) -> torch.Tensor:
    """Each float32 value rounded down to a bfloat16."""
    rounded = values.to(torch.bfloat16)
    return torch.where(rounded.float() > values, torch.nextafter(rounded, rounded.new_tensor(float("-inf"))), rounded)
