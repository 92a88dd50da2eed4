"""ε-sampling (Hewitt et al. 2022) as a fairseq search strategy.

fairseq samples with top-k or top-p only. ε-sampling keeps, at each step, every token whose
probability is at least ε and renormalises over them (the most probable token is always kept,
so a flat distribution still has a candidate). Probabilities are those the generator hands the
search: the model's (temperature-scaled) distribution after fairseq's own step rules (no pad,
no EOS before ``min_len``, EOS forced at the length limit).

This module imports fairseq at the top, so only import it after
:func:`mtdebias.models.fairseq_env.require_fairseq`.
"""

from __future__ import annotations

from typing import Optional

import torch
from fairseq.search import Search
from torch import Tensor

from .epsilon_sampler import epsilon_cut


class EpsilonSampling(Search):
    """Draws ``beam_size`` independent samples per sentence, truncating tokens with p < ε.

    ``generator`` makes the draws reproducible without touching torch's global RNG.
    Scores are the model's log-probabilities of the drawn tokens (cumulative), as in
    fairseq's own :class:`~fairseq.search.Sampling`.
    """

    def __init__(self, tgt_dict, epsilon: float, generator: torch.Generator | None = None):
        super().__init__(tgt_dict)
        if not 0.0 <= epsilon < 1.0:
            raise ValueError(f"epsilon must be in [0, 1), got {epsilon}")
        self.epsilon = epsilon
        self.generator = generator

    def step(self, step: int, lprobs: Tensor, scores: Tensor, prev_output_tokens: Optional[Tensor] = None,
             original_batch_idxs: Optional[Tensor] = None):
        bsz, beam_size, vocab_size = lprobs.size()
        if step == 0:
            # all hypotheses start identical: draw beam_size samples from the first one
            lprobs = lprobs[:, ::beam_size, :].contiguous()
        probs = epsilon_cut(lprobs.exp(), self.epsilon) if self.epsilon > 0 else lprobs.exp()
        draws = 1 if step > 0 else beam_size
        rows = probs.view(-1, vocab_size)
        indices_buf = torch.multinomial(rows, draws, replacement=True, generator=self.generator)
        indices_buf = indices_buf.view(bsz, beam_size)
        if step == 0:
            lprobs = lprobs.expand(bsz, beam_size, vocab_size)
        scores_buf = torch.gather(lprobs, dim=2, index=indices_buf.unsqueeze(-1)).view(bsz, beam_size)
        if step == 0:
            beams_buf = indices_buf.new_zeros(bsz, beam_size)
        else:
            beams_buf = torch.arange(0, beam_size).to(indices_buf).repeat(bsz, 1)
            scores_buf = scores_buf + torch.gather(scores[:, :, step - 1], dim=1, index=beams_buf)
        return scores_buf, indices_buf, beams_buf
