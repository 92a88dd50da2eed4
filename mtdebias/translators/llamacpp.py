"""GGUF models run by llama.cpp, in process (``llamacpp:FILE.gguf``, through llama-cpp-python).

llama.cpp is what people run GGUF models with on a CPU: it computes with the file's quantized
weights directly (the ``hf-causal`` route dequantizes them to float32 first). This backend asks
the same questions as ``hf-causal`` — the prompt is rendered and tokenized by the same code, with
the tokenizer stored in the GGUF file, so both routes feed the model the same token ids — and
takes only the logits from llama.cpp:

* ``translate``: greedy decoding (``beam`` > 1 is refused: llama.cpp has no beam search here);
* ``sample``: ε-sampling over llama.cpp's logits, each source with its own numpy generator seeded
  by :func:`.base.source_seed` (the prompt is evaluated once; every sample continues from its
  key/value cache);
* ``score``: teacher-forced log-probabilities of the translation's tokens and what ends it, from
  the logits of every position (``logits_all``);
* ``respond``: a question as one user turn, greedy.

The signature is ``llamacpp:gguf:<sha12>:prompt-<hash>``: the same file asked the same way through
``hf-causal`` has the same prompt hash, and another backend name, since quantized kernels give
other numbers (docs/llm-backends.md measures how far apart).

llama-cpp-python ships no wheel for this platform on the package index: ``make llamacpp`` builds
it from source once (about half an hour on 2 cores).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import torch

from ..errors import ConfigError, InputError
from ..options import Range
from .base import DEFAULT_EPSILON, Scored, source_seed
from .epsilon_sampler import epsilon_cut
from .hf_causal import PROMPT_OPTIONS, HFCausalTranslator

# hf-causal's prompt options; llama.cpp picks its own device and precision, and decodes one prompt at a time
OPTIONS = PROMPT_OPTIONS + ("n_threads", "n_ctx")


def require_llama_cpp():
    try:
        import llama_cpp
    except ImportError:
        raise InputError("the llamacpp backend needs llama-cpp-python, which is not installed",
                         hint="run `make llamacpp` (builds it from source once, ~30 min on 2 cores), or score the "
                              "GGUF file through transformers with hf-causal:FILE.gguf") from None
    return llama_cpp


def epsilon_pick(logits: np.ndarray, rng: np.random.Generator, epsilon: float, temperature: float) -> int:
    """One ε-sampling step over a position's logits: tokens of probability below ε are dropped
    (the most probable one always stays) and the rest renormalised."""
    z = logits / temperature
    p = np.exp(z - z.max())
    p /= p.sum()
    kept = epsilon_cut(torch.from_numpy(p), epsilon).numpy()  # in float64, as p is: the cut of every backend
    return int(rng.choice(len(kept), p=kept / kept.sum()))


class LlamaCppTranslator(HFCausalTranslator):
    backend = "llamacpp"
    options = OPTIONS
    option_ranges = {"n_threads": Range(1), "n_ctx": Range(1)}

    def __init__(self, model: Any, *, n_threads: int | None = None, n_ctx: int = 512, **options: Any):
        """``model``: a GGUF file (or a folder holding one). ``n_threads``: llama.cpp's threads
        (default: one per core; on a shared machine 1 is often fastest). ``n_ctx``: the longest
        prompt plus reply, in tokens (llama.cpp keeps logits for every position of the context:
        n_ctx × vocabulary floats, 0.5 GB for Gemma 3's 262k tokens at the default 512)."""
        self.n_threads = n_threads
        self.n_ctx = int(n_ctx)
        super().__init__(model, **options)

    # -- the engine ---------------------------------------------------------------------------
    def _open_tokenizer(self):
        if self.source.kind != "gguf":
            raise ConfigError(f"llamacpp: {self.source.name} is not a GGUF file",
                              hint="name a .gguf file, or use hf-causal:MODEL for a transformers folder or hub id")
        require_llama_cpp()
        from transformers import AutoTokenizer

        self.model_dir = self.source.path
        path = Path(self.source.path)
        tokenizer = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
        tokenizer.padding_side = "left"
        if tokenizer.pad_token_id is None:
            tokenizer.pad_token = tokenizer.eos_token
        return tokenizer

    def _open_model(self, dtype: str):
        llama_cpp = require_llama_cpp()
        threads = self.n_threads or os.cpu_count() or 1
        return llama_cpp.Llama(model_path=str(self.source.path), n_ctx=self.n_ctx, n_threads=threads,
                               n_threads_batch=threads, logits_all=True, verbose=False, seed=0)

    def _model_eos(self) -> Any:
        return None  # the GGUF's end of sequence is the tokenizer's

    def _own_generation_settings(self) -> None:
        pass  # llama.cpp is given no sampler: every call decodes from its logits here

    # -- decoding -----------------------------------------------------------------------------
    def _check_room(self, length: int) -> None:
        if length >= self.n_ctx:
            raise ConfigError(f"a prompt of {length} tokens does not fit llama.cpp's context of {self.n_ctx}",
                              hint="raise n_ctx, or use fewer few-shot examples")

    def _logits_after(self, tokens: list[int], keep: int) -> np.ndarray:
        """Evaluate ``tokens`` (reusing the cache of the longest prefix already evaluated) and
        return the logits of the last ``keep`` positions."""
        llm = self.model
        self._check_room(len(tokens))
        shared = 0
        limit = min(llm.n_tokens, len(tokens) - 1)  # the last token is always evaluated again
        while shared < limit and llm.input_ids[shared] == tokens[shared]:
            shared += 1
        llm.n_tokens = shared  # llama-cpp-python drops the cache past n_tokens on the next eval
        llm.eval(tokens[shared:])
        return np.asarray(llm.scores[len(tokens) - keep:len(tokens)], dtype=np.float64)

    def _decode(self, prompt: list[int], stop: list[int], max_new_tokens: int, pick) -> list[int]:
        """Extend ``prompt`` one token at a time with ``pick(logits)`` until a stop token or the limit."""
        stop_set, out = set(stop), []
        tokens = list(prompt)
        for _ in range(min(max_new_tokens, self.n_ctx - len(prompt))):
            logits = self._logits_after(tokens, 1)[0]
            token = int(pick(logits))
            if token in stop_set:
                break
            out.append(token)
            tokens.append(token)
        return out

    def _generate(self, prompts: list[list[int]], *, beam: int, max_new_tokens: int, stop: list[int],
                  cut_at_newline: bool) -> list[str]:
        if beam != 1:
            raise ConfigError(f"llamacpp: beam = {beam}: this backend decodes greedily only",
                              hint="use beam 1 (--beam 1, or decode.beam = 1 in the suite)")
        return [self._reply(self._decode(p, stop, max_new_tokens, np.argmax), cut_at_newline) for p in prompts]

    def sample(self, sources: Sequence[str], n: int = 128, epsilon: float = DEFAULT_EPSILON,
               temperature: float = 1.0, seed: int = 0) -> list[list[str]]:
        """``n`` ε-samples of the reply per source: at each step the tokens of probability below ε
        are dropped (the most probable one always stays) and the rest renormalised."""
        out = []
        for source in sources:
            prompt = self._encode_prompts([self._prompt_text(source)])[0]
            rng = np.random.default_rng(source_seed(seed, source))

            def pick(logits: np.ndarray) -> int:
                return epsilon_pick(logits, rng, epsilon, temperature)

            out.append([self._reply(self._decode(prompt, self.stop_ids, self.max_new_tokens, pick), not self.chat)
                        for _ in range(n)])
        return out

    def score(self, sources: Sequence[str], targets: Sequence[str]) -> list[Scored]:
        if len(sources) != len(targets):
            raise ValueError(f"score: {len(sources)} sources but {len(targets)} targets")
        out = []
        for source, target in zip(sources, targets):
            prompt = self._encode_prompts([self._prompt_text(source)])[0]
            cont = self._continuation(target)
            out.append(self._scored(self._logits_after(prompt + cont, len(cont) + 1)[:-1], cont))
        return out

    def _scored(self, logits: np.ndarray, cont: list[int]) -> Scored:
        """The log-probabilities of ``cont``'s tokens, row ``k`` of ``logits`` predicting token ``k``."""
        shifted = logits - logits.max(axis=-1, keepdims=True)
        log_probs = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
        values = tuple(float(log_probs[k, token]) for k, token in enumerate(cont))
        return Scored(total=float(sum(values)), tokens=values, pieces=tuple(self.tokenizer.convert_ids_to_tokens(cont)))
