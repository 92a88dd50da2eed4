"""The ``llamacpp`` translator's questions asked of ik_llama.cpp, through the prebuilt
``ik-llama-cpp-python`` wheel (module ``ik_llama_cpp``): a measuring shim for
``bench/llm_routes.py --engine ik``, not a route of mtdebias.

The wheel is not llama-cpp-python's API (no ``Llama``, ``eval``, ``scores`` or ``logits_all``;
its ``IkLlama`` only generates with its own sampler and logits of the last position), so
:class:`IkLlamaTranslator` reaches into the package's private ``_internals`` / ``_ctypes_api``
modules for what ``LlamaCppTranslator`` needs: evaluate tokens with a kept cache and read the
logits of chosen positions. docs/llm-backends.md gives the verdict on this engine.

Install it beside the venv, not into it::

    .venv/bin/python -m pip install --no-deps --target .pydeps ik-llama-cpp-python==0.1.5
    PYTHONPATH=$PWD:$PWD/.pydeps .venv/bin/python bench/llm_routes.py --engine ik --models smollm2
    PYTHONPATH=$PWD:$PWD/.pydeps .venv/bin/python bench/ik_llama_route.py runs/released/*.gguf  # batch_check
"""

from __future__ import annotations

import ctypes
import os

import numpy as np

from mtdebias.errors import ConfigError, InputError
from mtdebias.translators.hf_causal import HFCausalTranslator
from mtdebias.translators.llamacpp import LlamaCppTranslator


def require_ik_llama_cpp():
    try:
        from ik_llama_cpp import _ctypes_api, _internals
    except ImportError:
        raise InputError("the ik engine needs ik-llama-cpp-python, which is not importable",
                         hint="pip install --no-deps --target .pydeps ik-llama-cpp-python==0.1.5 and put "
                              ".pydeps on PYTHONPATH") from None
    return _ctypes_api, _internals


class IkLlamaTranslator(LlamaCppTranslator):
    backend = "ik-llamacpp"  # another engine's kernels: its numbers must not pass for llama.cpp's

    def _open_tokenizer(self):
        # not the parent's, which requires llama_cpp: hf-causal's, read from the file's converted
        # float folder (cached beside it), whose tokenizer and chat template are the file's
        if self.source.kind != "gguf":
            raise ConfigError(f"ik-llamacpp: {self.source.name} is not a GGUF file", hint="name a .gguf file")
        require_ik_llama_cpp()
        return HFCausalTranslator._open_tokenizer(self)

    def _open_model(self, dtype: str):
        api, internals = require_ik_llama_cpp()
        threads = self.n_threads or os.cpu_count() or 1
        model = internals.IkModel(str(self.source.path))
        # flash attention off: the wheel's own IkLlama turns it off too on CPUs without AVX-VNNI
        # (an assert in ik_llama.cpp's CPU flash-attention kernels on longer prompts)
        context = internals.IkContext(model, n_ctx=self.n_ctx, n_threads=threads, flash_attn=False)
        # not bound by the wheel: drop the cache past a position, to reuse the shared prefix
        seq_rm = api._lib.llama_kv_cache_seq_rm
        seq_rm.argtypes = [ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32]
        seq_rm.restype = ctypes.c_bool
        self._ik = (api, internals, model, context, seq_rm)
        self._ik_tokens: list[int] = []  # what the cache holds
        return model

    def _logits_after(self, tokens: list[int], keep: int) -> np.ndarray:
        api, internals, model, context, seq_rm = self._ik
        self._check_room(len(tokens))
        shared = 0
        limit = min(len(self._ik_tokens), len(tokens) - keep)  # the kept positions are evaluated again
        while shared < limit and self._ik_tokens[shared] == tokens[shared]:
            shared += 1
        seq_rm(context.ctx, -1, shared, -1)
        new = tokens[shared:]
        batch = api.llama_batch_init(len(new), 0, 1)
        try:
            batch.n_tokens = len(new)
            for i, token in enumerate(new):
                batch.token[i], batch.pos[i], batch.n_seq_id[i] = token, shared + i, 1
                batch.seq_id[i][0] = 0
                batch.logits[i] = 1 if i >= len(new) - keep else 0
            if context.decode(batch) != 0:
                raise RuntimeError(f"ik_llama.cpp: llama_decode failed on {len(new)} tokens")
        finally:
            api.llama_batch_free(batch)
        self._ik_tokens = list(tokens)
        n_vocab = model.n_vocab
        return np.array([np.ctypeslib.as_array(context.get_logits(i), shape=(n_vocab,))
                         for i in range(len(new) - keep, len(new))], dtype=np.float64)


def batch_check(path: str, source: str = "The library closes early on Sundays.") -> dict:
    """The last prompt position's next-token distribution three ways: hf-causal (the file's exact
    float32 dequantization), ik_llama.cpp given the prompt in one batch, and ik_llama.cpp given it
    one token per decode. Quantized kernels may move it a little (KL of a few thousandths); the
    prompt's batching must not: with 0.1.5, SmolLM2's Q4_1 file gives KL ≈ 2.6 nats in one batch
    and 0.003 token by token (batches of up to 31 tokens are right, 32 or more wrong), so every
    prompt of 32 tokens or more that it processes in one batch is mis-evaluated."""
    import torch

    from mtdebias.translators.specs import load_spec

    hf = load_spec(f"hf-causal:{path}", tgt_lang="de", device="cpu")
    prompt = hf._encode_prompts([hf._prompt_text(source)])[0]
    with torch.no_grad():
        reference = hf.model(torch.tensor([prompt])).logits[0, -1].double().numpy()

    def log_softmax(x: np.ndarray) -> np.ndarray:
        x = x - x.max()
        return x - np.log(np.exp(x).sum())

    ref = log_softmax(reference)
    out = {"file": path, "prompt_tokens": len(prompt)}
    for label, step in (("one_batch", len(prompt)), ("token_by_token", 1)):
        ik = IkLlamaTranslator.from_spec(path, tgt_lang="de", n_threads=1)
        for end in range(step, len(prompt) + step, step):
            last = ik._logits_after(prompt[:min(end, len(prompt))], 1)[0]
        ours = log_softmax(last)
        out[f"kl_hf_to_{label}"] = float((np.exp(ref) * (ref - ours)).sum())
        out[f"same_top_token_{label}"] = bool(np.argmax(ours) == np.argmax(ref))
    return out


if __name__ == "__main__":
    import sys

    for file in sys.argv[1:]:
        print(batch_check(file), flush=True)
