"""llama.cpp driven with multi-sequence batches: the ``llamacpp-batched`` route of
``bench/workload.py``, a measuring shim and not a route of mtdebias.

llama-cpp-python's ``Llama`` evaluates one sequence (the ``llamacpp`` translator decodes one
prompt after another). Its low-level binding allows more: ``llama_batch_init(n, 0, n_seq_max)``
lets each token of a batch belong to up to ``n_seq_max`` sequences, and a context made with
``n_seq_max`` sequences and a unified key/value cache (``kv_unified``) holds them side by side.
:class:`LlamaCppBatched` drives it as llama.cpp's own ``batched`` example does, for a group of
up to ``batch`` sequences at a time:

* the prefix every prompt of the group shares (the few-shot examples) goes into the first
  ``llama_decode`` once, each of its tokens belonging to every sequence, so it is evaluated and
  stored once;
* each prompt's remainder follows in the same call, with the ids of its own sequence(s);
* then one call per step decodes the last token of every unfinished sequence.

``translate`` and ``respond`` (greedy), ``sample`` (ε-sampling: ``n`` sequences per source, each
with its own generator) and ``score`` (every row's continuation in the first call) run that way.
The prompts and tokens are the ``llamacpp`` translator's, and so are the kernels: outputs differ
from it only by the rounding another batch composition gives.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from mtdebias.errors import ConfigError
from mtdebias.translators.base import DEFAULT_EPSILON, Scored, source_seed
from mtdebias.translators.hf_causal import shared_length as common_prefix  # the prefix hf-causal shares
from mtdebias.translators.llamacpp import LlamaCppTranslator, epsilon_pick, require_llama_cpp


class LlamaCppBatched(LlamaCppTranslator):
    def __init__(self, model: Any, *, batch: int = 8, **options: Any):
        """``batch``: sequences decoded together (a group of ``batch`` prompts, or of
        ``batch // n`` sources when sampling ``n`` each)."""
        if not isinstance(batch, int) or batch < 1:
            raise ConfigError(f"llamacpp-batched: batch = {batch!r}: expected a whole number ≥ 1")
        self.batch = batch
        super().__init__(model, **options)

    # -- one group of sequences in its own context ---------------------------------------------
    def _group(self, prompts: list[list[int]], copies: int, wanted: list[range], max_new: int = 0,
               stop: Sequence[int] = (), picks: Sequence[Callable[[np.ndarray], int]] = ()):
        """Evaluate ``prompts`` (each the prompt of ``copies`` sequences) in one call and return
        the logits of the positions in ``wanted[i]`` of prompt ``i``; with ``max_new``, then
        extend each sequence ``s`` (prompt ``s // copies``) by ``picks[s]`` until a stop token or
        ``max_new`` tokens, and return the tokens drawn instead."""
        llama_cpp = require_llama_cpp()
        # every position whose logits are wanted lies after the shared part, which is computed once
        shared = min(common_prefix(prompts), min(w.start for w in wanted))
        sequences = len(prompts) * copies
        first = shared + sum(len(p) - shared for p in prompts)
        # a unified cache stores a token that belongs to several sequences once
        params = llama_cpp.llama_context_default_params()
        params.n_ctx = first + sequences * max_new + 16
        params.n_batch = max(first, sequences)
        params.n_ubatch = min(params.n_batch, 512)
        params.n_seq_max = sequences
        params.kv_unified = True
        params.n_threads = params.n_threads_batch = self.model.n_threads
        # as llama-cpp-python's Llama makes the `llamacpp` translator's context (flash_attn=False):
        # the default here is "auto", which turns flash attention on and moves scores by ~0.2 nats
        params.flash_attn_type = llama_cpp.LLAMA_FLASH_ATTN_TYPE_DISABLED
        ctx = llama_cpp.llama_init_from_model(self.model._model.model, params)
        if not ctx:
            raise RuntimeError(f"llama.cpp: no context for {sequences} sequences of {params.n_ctx} tokens")
        batch = llama_cpp.llama_batch_init(params.n_batch, 0, sequences)
        n_vocab = self.model.n_vocab()

        def put(i: int, token: int, pos: int, seqs: Sequence[int], logits: bool) -> None:
            batch.token[i], batch.pos[i], batch.n_seq_id[i], batch.logits[i] = token, pos, len(seqs), int(logits)
            for k, seq in enumerate(seqs):
                batch.seq_id[i][k] = seq

        def decode(count: int) -> None:
            batch.n_tokens = count
            if llama_cpp.llama_decode(ctx, batch) != 0:
                raise RuntimeError(f"llama.cpp: llama_decode failed on {count} tokens of {sequences} sequences")

        def logits(i: int) -> np.ndarray:
            return np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(ctx, i), shape=(n_vocab,)).astype(np.float64)

        try:
            i = 0
            for pos in range(shared):
                put(i, prompts[0][pos], pos, range(sequences), False)
                i += 1
            where: list[dict[int, int]] = []  # per prompt: position → index in the batch
            for p, prompt in enumerate(prompts):
                where.append({})
                for pos in range(shared, len(prompt)):
                    put(i, prompt[pos], pos, range(p * copies, (p + 1) * copies), pos in wanted[p])
                    where[p][pos] = i
                    i += 1
            decode(i)
            got = [np.array([logits(where[p][pos]) for pos in wanted[p]]) for p in range(len(prompts))]
            if not max_new:
                return got
            out: list[list[int]] = [[] for _ in range(sequences)]
            last = {s: got[s // copies][-1] for s in range(sequences)}
            for step in range(max_new):
                going = []
                for s, row in last.items():
                    token = int(picks[s](row))
                    if token not in stop:
                        out[s].append(token)
                        going.append(s)
                if not going or step == max_new - 1:
                    break
                for i, s in enumerate(going):
                    put(i, out[s][-1], len(prompts[s // copies]) + len(out[s]) - 1, (s,), True)
                decode(len(going))
                last = {s: logits(i) for i, s in enumerate(going)}
            return out
        finally:
            llama_cpp.llama_batch_free(batch)
            llama_cpp.llama_free(ctx)

    # -- the protocol, group by group ----------------------------------------------------------
    def _generate(self, prompts: list[list[int]], *, beam: int, max_new_tokens: int, stop: list[int],
                  cut_at_newline: bool) -> list[str]:
        if beam != 1:
            raise ConfigError(f"llamacpp-batched: beam = {beam}: this route decodes greedily only")
        out: list[str] = []
        for start in range(0, len(prompts), self.batch):
            group = prompts[start:start + self.batch]
            drawn = self._group(group, 1, [range(len(p) - 1, len(p)) for p in group], max_new_tokens, set(stop),
                                [np.argmax] * len(group))
            out += [self._reply(tokens, cut_at_newline) for tokens in drawn]
        return out

    def sample(self, sources: Sequence[str], n: int = 128, epsilon: float = DEFAULT_EPSILON,
               temperature: float = 1.0, seed: int = 0) -> list[list[str]]:
        """``n`` ε-samples of the reply per source, sequence ``k`` of a source drawing with a
        generator seeded by the source's seed and ``k``."""
        prompts = self._encode_prompts([self._prompt_text(s) for s in sources])
        per_group = max(1, self.batch // n)
        out: list[list[str]] = []
        for start in range(0, len(sources), per_group):
            group = prompts[start:start + per_group]
            picks = []
            for source in sources[start:start + per_group]:
                for k in range(n):
                    rng = np.random.default_rng([source_seed(seed, source), k])
                    picks.append(lambda row, rng=rng: epsilon_pick(row, rng, epsilon, temperature))
            drawn = self._group(group, n, [range(len(p) - 1, len(p)) for p in group], self.max_new_tokens,
                                set(self.stop_ids), picks)
            out += [[self._reply(t, not self.chat) for t in drawn[j * n:(j + 1) * n]] for j in range(len(group))]
        return out

    def score(self, sources: Sequence[str], targets: Sequence[str]) -> list[Scored]:
        if len(sources) != len(targets):
            raise ValueError(f"score: {len(sources)} sources but {len(targets)} targets")
        prompts = self._encode_prompts([self._prompt_text(s) for s in sources])
        conts = [self._continuation(t) for t in targets]
        out: list[Scored] = []
        for start in range(0, len(sources), self.batch):
            rows = [p + c for p, c in zip(prompts[start:start + self.batch], conts[start:start + self.batch])]
            # the logits of the prompt's last token and every continuation token but the last
            wanted = [range(len(p) - 1, len(p) + len(c) - 1)
                      for p, c in zip(prompts[start:start + self.batch], conts[start:start + self.batch])]
            got = self._group(rows, 1, wanted)
            out += [self._scored(g, c) for g, c in zip(got, conts[start:start + self.batch])]
        return out
