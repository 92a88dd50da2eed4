"""ε-sampling in one decoding loop that drops finished rows (encoder-decoder models, and
decoder-only ones through :func:`epsilon_sample_causal`).

``model.generate(num_return_sequences=n)`` keeps every sequence in the batch until the longest
one ends, runs the whole logits-processor stack on a (rows × vocabulary) tensor at every step,
and draws from the global RNG. Here:

* each source is encoded once and its encoder states are repeated for its ``n`` samples;
* samples of several sources share one loop, and a row leaves the batch (and the KV cache) the
  step it emits end-of-sentence, so late steps cost what is still running, not the batch;
* after the ε cut at most ``1/ε`` tokens survive, so the draw works on the top ``⌈1/ε⌉ + 1``
  tokens instead of the whole vocabulary;
* every source has its own generator, seeded from ``(seed, source text)``
  (:func:`.base.source_seed`), which draws ``n`` uniforms per step whether or not a row is
  still alive: the samples of a source do not depend on which other sources share its batch,
  so a resumed or re-batched run reproduces them.

The distribution is that of ``generate(do_sample=True, top_k=0, epsilon_cutoff=ε,
temperature=T)``: hard constraints of the generation config (suppressed tokens, forced first and
last token) are applied to the logits, then temperature, then the ε cut (never the top token),
then renormalisation. Generation settings this loop does not implement make
:func:`unsupported_settings` name them, and the caller falls back to ``generate``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import torch
from transformers.modeling_outputs import BaseModelOutput

from ..models.model import cache_argument



@dataclass(frozen=True)
class DecodingConstraints:
    """Token-level constraints read from a model's generation config."""

    decoder_start: int
    eos: int
    suppressed: tuple[int, ...] = ()  # single-token bad words / suppress_tokens
    forced_bos: int | None = None  # first generated token (M2M100/NLLB target language)
    forced_eos: int | None = None  # forced at the last allowed step, as generate() does


def unsupported_settings(generation_config) -> list[str]:
    """Generation settings that change the sampling distribution and this loop does not apply."""
    checks = {
        "repetition_penalty": lambda v: v not in (None, 1.0),
        "no_repeat_ngram_size": lambda v: bool(v),
        "encoder_no_repeat_ngram_size": lambda v: bool(v),
        "encoder_repetition_penalty": lambda v: v not in (None, 1.0),
        "min_length": lambda v: bool(v),
        "min_new_tokens": lambda v: bool(v),
        "begin_suppress_tokens": lambda v: bool(v),
        "sequence_bias": lambda v: bool(v),
        "exponential_decay_length_penalty": lambda v: v is not None,
    }
    found = [name for name, bad in checks.items() if bad(getattr(generation_config, name, None))]
    if any(len(words) != 1 for words in (getattr(generation_config, "bad_words_ids", None) or [])):
        found.append("bad_words_ids (multi-token)")
    return found


def constraints_for(model, forced_bos: int | None = None) -> DecodingConstraints:
    config, generation = model.config, model.generation_config
    start = generation.decoder_start_token_id
    if start is None:
        start = config.decoder_start_token_id
    eos = generation.eos_token_id if generation.eos_token_id is not None else config.eos_token_id
    if isinstance(eos, (list, tuple)):
        eos = eos[0]
    suppressed = {words[0] for words in (generation.bad_words_ids or [])}
    suppressed.update(generation.suppress_tokens or [])
    if forced_bos is None:
        forced_bos = generation.forced_bos_token_id
    return DecodingConstraints(decoder_start=int(start), eos=int(eos), suppressed=tuple(sorted(suppressed)),
                               forced_bos=forced_bos, forced_eos=generation.forced_eos_token_id)


@torch.inference_mode()
def epsilon_sample(model, input_ids: torch.Tensor, attention_mask: torch.Tensor, seeds: Sequence[int], *,
                   n: int, epsilon: float, temperature: float, max_new_tokens: int,
                   constraints: DecodingConstraints) -> list[list[list[int]]]:
    """``n`` samples (token ids, without end-of-sentence) for each of the encoded sources.

    The decoder runs once per distinct live prefix, not once per sample: samples of a source
    that have drawn the same tokens so far share one batch row (and KV-cache row), and each of
    them draws its next token from that row's distribution with its own uniform. Drawing the
    tokens of k samples i.i.d. from one categorical and grouping them afterwards is exactly
    sampling each of them alone, so this changes the cost and not the distribution. A peaked
    (trained) model keeps a few rows per source alive instead of ``n``.
    """
    sources, device = input_ids.shape[0], input_ids.device
    generators, row_of_sample, alive, drawn, lengths = _start(sources, device, seeds, n, temperature, max_new_tokens)
    total = sources * n
    hidden = model.get_encoder()(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
    mask = attention_mask
    last = torch.full((sources, 1), constraints.decoder_start, dtype=torch.long, device=device)
    suppressed = torch.tensor(constraints.suppressed, dtype=torch.long, device=device)
    keep = math.ceil(1 / epsilon) + 1 if epsilon > 0 else 0  # tokens that can survive the ε cut
    cache = None
    for step in range(max_new_tokens):
        # n uniforms per source per step, drawn for finished samples too (see the module doc)
        uniforms = torch.cat([torch.rand(n, generator=g, dtype=torch.float64) for g in generators]).to(device)
        out = model(encoder_outputs=BaseModelOutput(last_hidden_state=hidden), attention_mask=mask,
                    decoder_input_ids=last, past_key_values=cache, use_cache=True)
        cache = out.past_key_values
        live = alive.nonzero().squeeze(1)
        rows = row_of_sample[live]
        vocab = out.logits.shape[-1]
        forced = _forced_token(step, max_new_tokens, constraints)
        if forced is not None:
            tokens = torch.full_like(rows, forced)
        else:
            tokens = _next_tokens(out.logits[:, -1, :], rows, uniforms[live], suppressed, temperature, epsilon, keep)
        drawn[live.cpu(), step] = tokens.cpu()
        lengths[live.cpu()] += 1
        ended = tokens == constraints.eos
        alive[live[ended]] = False
        if not bool(alive.any()):
            break
        parents, last, same = _regroup(live, rows, tokens, ended, row_of_sample, vocab, hidden.shape[0])
        if not same:  # rows branched or ended; when each row simply goes on, the cache stays as it is
            hidden, mask = hidden.index_select(0, parents), mask.index_select(0, parents)
            cache.reorder_cache(parents)
    samples: list[list[int]] = []
    for index in range(total):
        ids = drawn[index, :int(lengths[index])].tolist()
        samples.append(ids[:-1] if ids and ids[-1] == constraints.eos else ids)
    return [samples[s * n:(s + 1) * n] for s in range(sources)]


@torch.inference_mode()
def epsilon_sample_causal(model, input_ids: torch.Tensor, attention_mask: torch.Tensor, seeds: Sequence[int], *,
                          n: int, epsilon: float, temperature: float, max_new_tokens: int,
                          stop_ids: Sequence[int], positions: torch.Tensor | None = None,
                          cache=None) -> list[list[list[int]]]:
    """The same sampler for a decoder-only model: ``n`` continuations of each (left-padded) prompt.

    ``cache``: the key/value cache of tokens that come before ``input_ids`` in every row (a shared
    prompt prefix); ``attention_mask`` then covers them too and ``positions`` gives the positions of
    ``input_ids``. Without it positions count each row's real tokens.

    The prompt runs once per source; its samples then share rows exactly as in
    :func:`epsilon_sample` (one row per distinct live prefix, one generator per source, ``n``
    uniforms per source per step). A sample ends at the first token in ``stop_ids`` (end of
    sequence, end of turn, or a token holding a newline when the prompt ends a translation
    there); that token is kept in the returned ids, since a stop token such as ``.\n`` may
    still carry text the caller wants.
    """
    sources, device = input_ids.shape[0], input_ids.device
    generators, row_of_sample, alive, drawn, lengths = _start(sources, device, seeds, n, temperature, max_new_tokens)
    total = sources * n
    mask = attention_mask
    if positions is None:  # left padding: a row's positions count its real tokens only
        positions = (mask.long().cumsum(-1) - 1).clamp(min=0)
    cache_key = cache_argument(model)
    extra = {cache_key: cache} if cache is not None else {}
    out = model(input_ids=input_ids, attention_mask=mask, position_ids=positions, use_cache=True, logits_to_keep=1,
                **extra)
    cache = out[cache_key]
    next_position = positions[:, -1:] + 1
    stops = torch.tensor(sorted(set(stop_ids)), dtype=torch.long, device=device)
    nothing_suppressed = torch.empty(0, dtype=torch.long, device=device)
    keep = math.ceil(1 / epsilon) + 1 if epsilon > 0 else 0
    for step in range(max_new_tokens):
        uniforms = torch.cat([torch.rand(n, generator=g, dtype=torch.float64) for g in generators]).to(device)
        live = alive.nonzero().squeeze(1)
        rows = row_of_sample[live]
        vocab = out.logits.shape[-1]
        tokens = _next_tokens(out.logits[:, -1, :], rows, uniforms[live], nothing_suppressed, temperature, epsilon,
                              keep)
        drawn[live.cpu(), step] = tokens.cpu()
        lengths[live.cpu()] += 1
        ended = torch.isin(tokens, stops)
        alive[live[ended]] = False
        if not bool(alive.any()) or step == max_new_tokens - 1:
            break
        parents, last, same = _regroup(live, rows, tokens, ended, row_of_sample, vocab, mask.shape[0])
        if not same:
            mask, next_position = mask.index_select(0, parents), next_position.index_select(0, parents)
            cache.reorder_cache(parents)
        mask = torch.cat([mask, mask.new_ones((mask.shape[0], 1))], dim=1)
        out = model(input_ids=last, attention_mask=mask, position_ids=next_position, use_cache=True,
                    **{cache_key: cache})
        cache = out[cache_key]
        next_position = next_position + 1
    samples = [drawn[index, :int(lengths[index])].tolist() for index in range(total)]
    return [samples[s * n:(s + 1) * n] for s in range(sources)]


def _start(sources: int, device, seeds: Sequence[int], n: int, temperature: float, max_new_tokens: int):
    """What both loops start from: one generator per source, every sample in its source's row
    (rows of the batch are distinct prefixes), all alive, nothing drawn yet."""
    if temperature <= 0:
        raise ValueError(f"temperature must be > 0, got {temperature}")
    total = sources * n
    generators = [torch.Generator().manual_seed(int(s)) for s in seeds]
    row_of_sample = torch.arange(sources, device=device).repeat_interleave(n)
    alive = torch.ones(total, dtype=torch.bool, device=device)
    drawn = torch.full((total, max_new_tokens), -1, dtype=torch.long)
    return generators, row_of_sample, alive, drawn, torch.zeros(total, dtype=torch.long)


def _next_tokens(logits: torch.Tensor, rows: torch.Tensor, uniforms: torch.Tensor, suppressed: torch.Tensor,
                 temperature: float, epsilon: float, keep: int) -> torch.Tensor:
    """One ε-sampled token per live sample, drawn from its row's distribution with its uniform."""
    logits = logits.float()
    if suppressed.numel():
        logits.index_fill_(1, suppressed, float("-inf"))
    cdf, candidates = _truncated_cdf(logits / temperature, epsilon, keep)
    return _draw(cdf[rows], None if candidates is None else candidates[rows], uniforms)


def _regroup(live: torch.Tensor, rows: torch.Tensor, tokens: torch.Tensor, ended: torch.Tensor,
             row_of_sample: torch.Tensor, vocab: int, n_rows: int) -> tuple[torch.Tensor, torch.Tensor, bool]:
    """The next decoder rows: the distinct (row, token) pairs among samples that go on.

    Updates ``row_of_sample`` for those samples and returns the parent row of each new row, its
    last token (a column) and whether the rows are the old ones unchanged (no branch, no end)."""
    going = live[~ended]
    keys = rows[~ended] * (vocab + 1) + tokens[~ended]
    unique_keys, inverse = torch.unique(keys, return_inverse=True)
    parents = torch.div(unique_keys, vocab + 1, rounding_mode="floor")
    row_of_sample[going] = inverse
    same = parents.numel() == n_rows and torch.equal(parents, torch.arange(n_rows, device=parents.device))
    return parents, (unique_keys - parents * (vocab + 1)).unsqueeze(1), same


def _forced_token(step: int, max_new_tokens: int, constraints: DecodingConstraints) -> int | None:
    if step == 0 and constraints.forced_bos is not None:
        return constraints.forced_bos
    if step == max_new_tokens - 1 and constraints.forced_eos is not None:
        return constraints.forced_eos
    return None


def epsilon_cut(probs: torch.Tensor, epsilon: float) -> torch.Tensor:
    """The ε cut of ε-sampling, the one every backend draws through (transformers here, fairseq's
    search, llama.cpp's logits): in each row (the last dimension) the probabilities below ε set
    to 0, and the most probable token kept whatever its probability (``min_tokens_to_keep = 1``;
    of tied maxima, the first). The rest is not renormalised: a draw divides by what is left."""
    cut = probs < epsilon
    cut.scatter_(-1, probs.argmax(dim=-1, keepdim=True), False)
    return probs.masked_fill(cut, 0.0)


def _truncated_cdf(scores: torch.Tensor, epsilon: float, keep: int) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Per row: the cumulative weights of the tokens that survive the ε cut, and their ids
    (``None`` when nothing is cut and the cdf runs over the whole vocabulary)."""
    probs = torch.softmax(scores, dim=-1)
    if epsilon <= 0:
        return probs.double().cumsum(dim=-1), None
    if keep * 4 >= probs.shape[-1]:  # a tiny ε keeps most of the vocabulary: a mask beats a sort
        return epsilon_cut(probs, epsilon).double().cumsum(dim=-1), None
    top_p, top_i = probs.topk(keep, dim=-1)  # sorted, descending: the first is the most likely
    return epsilon_cut(top_p, epsilon).double().cumsum(dim=-1), top_i


def _draw(cdf: torch.Tensor, candidates: torch.Tensor | None, uniforms: torch.Tensor) -> torch.Tensor:
    """Inverse-CDF draw, one U(0, 1) per sample; zero-weight tokens are never chosen because the
    search is for the first cumulative weight strictly above ``u × total``."""
    target = (uniforms * cdf[:, -1]).unsqueeze(1)
    index = torch.searchsorted(cdf, target, right=True).clamp_(max=cdf.shape[-1] - 1)
    return index.squeeze(1) if candidates is None else candidates.gather(1, index).squeeze(1)
