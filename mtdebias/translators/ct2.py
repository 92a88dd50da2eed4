"""The CTranslate2 backend: beam search and forced-decoding scores from a converted checkpoint.

A local HF checkpoint (Marian as mtdebias trains it or as Opus-MT ships it, M2M100, NLLB) is
converted once into ``<checkpoints>/.ct2/<name>-<hash>/`` (float32 weights; ``compute_type``
quantises at load time, so one conversion serves int8 and float32), and reused while the
checkpoint's content hash is the same.

``sample`` is **not** served by CTranslate2: its sampler offers top-k, top-p and temperature,
but not ε-sampling (an absolute probability floor), and an approximation would change the
numbers the ambiguity metrics rest on. ``sample`` therefore runs the HF ε-sampler on the same
checkpoint, and the translator says so in ``sampling_backend``; the probes' signatures carry
the backend of the call that made each number (see :meth:`CT2Translator.signature`).

``ctranslate2`` is an optional extra (``pip install 'mtdebias[ct2]'``), imported lazily.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Sequence

from ..store.atomic import clean_stale_temporaries, temporary_dir
from ..errors import CheckpointError, MtdebiasError
from ..models.hub import cache_dir as hub_cache_dir, snapshot_id
from ..signature import hash_checkpoint_cached
from .base import DEFAULT_EPSILON, BaseTranslator, Scored
from .hf import _transformers_source, length_batches, model_language
from .backends import check_backend



def _ctranslate2():
    try:
        import ctranslate2
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise MtdebiasError("the ct2 backend needs CTranslate2: pip install 'mtdebias[ct2]' "
                            "(or pip install ctranslate2)") from exc
    return ctranslate2


def converted_dir(checkpoint: Path, checkpoint_hash: str) -> Path:
    """Where the conversion of ``checkpoint`` lives: beside it, keyed by its content hash (not
    inside it, so converting never changes the checkpoint's own hash); for a hub model, beside
    the hub cache rather than in it, which huggingface_hub manages."""
    hub_model = snapshot_id(checkpoint)
    if hub_model:
        return hub_cache_dir().parent / "mtdebias-ct2" / f"{hub_model[4:].replace('/', '--')}-{checkpoint_hash}"
    return checkpoint.parent / ".ct2" / f"{checkpoint.name}-{checkpoint_hash}"


class _WithLanguageTokens:
    """The tokenizer as CTranslate2's converter expects it. transformers 5's M2M100 tokenizer
    keeps its ``__xx__`` language tokens out of ``get_vocab()`` and ``special_tokens_map``, so the
    converter would build a vocabulary 100 entries short of the model's; this view adds them
    with their ids. Everything else is the tokenizer's own."""

    def __init__(self, tokenizer):
        self._tokenizer = tokenizer

    def __getattr__(self, name):
        return getattr(self._tokenizer, name)

    def get_vocab(self) -> dict[str, int]:
        vocab = dict(self._tokenizer.get_vocab())
        for token in getattr(self._tokenizer, "lang_code_to_token", {}).values():
            vocab.setdefault(token, self._tokenizer.convert_tokens_to_ids(token))
        return vocab


def convert_checkpoint(checkpoint: str | Path, checkpoint_hash: str | None = None) -> Path:
    """Convert once; later calls (and concurrent ones) reuse the finished conversion."""
    checkpoint = Path(checkpoint)
    checkpoint_hash = checkpoint_hash or hash_checkpoint_cached(checkpoint)
    target = converted_dir(checkpoint, checkpoint_hash)
    if (target / "model.bin").exists():
        return target
    from ..models.model import load_model

    ctranslate2 = _ctranslate2()
    from transformers import AutoTokenizer

    model = load_model(checkpoint)
    tokenizer = AutoTokenizer.from_pretrained(checkpoint)
    clean_stale_temporaries(target.parent, recursive=False)  # left by a conversion killed mid-way
    scratch = temporary_dir(target)
    try:
        spec = _loader_for(model)(model, _WithLanguageTokens(tokenizer))
        spec.validate()
        spec.optimize(quantization=None)
        spec.save(str(scratch))
        try:
            os.rename(scratch, target)  # atomic: a reader sees no conversion or a whole one
        except OSError:
            if not (target / "model.bin").exists():  # pragma: no cover - a real failure
                raise
    except Exception as exc:
        raise CheckpointError(f"{checkpoint}: CTranslate2 cannot convert this checkpoint ({exc}); "
                              "use the hf backend") from exc
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return target


def _loader_for(model):
    """CTranslate2's loader for the architecture. Its Marian loader assumes Opus-MT's layout
    (``<pad>`` is the last vocabulary entry and is dropped); mtdebias' own tokenizer puts
    ``<pad>`` at id 2, so for that layout the vocabulary and weights are kept whole, and the
    decoder starts from the ``<pad>`` row as HF does (that row is not zero in our models)."""
    from ctranslate2.converters import transformers as ct2_hf

    name = type(model.config).__name__
    if name == "MarianConfig" and model.config.pad_token_id != model.config.vocab_size - 1:
        class KeepPadMarianLoader(ct2_hf.MarianMTLoader):
            def get_model_spec(self, model):
                model.config.normalize_before = False
                model.config.normalize_embedding = False
                return ct2_hf.BartLoader.get_model_spec(self, model)

            def get_vocabulary(self, model, tokenizer):
                return ct2_hf.BartLoader.get_vocabulary(self, model, tokenizer)

            def set_config(self, config, model, tokenizer):
                super().set_config(config, model, tokenizer)
                config.decoder_start_token = tokenizer.convert_ids_to_tokens(model.config.decoder_start_token_id)

            def set_decoder(self, spec, decoder):
                ct2_hf.BartLoader.set_decoder(self, spec, decoder)  # its (trained) embedding

        return KeepPadMarianLoader()
    loader = ct2_hf._MODEL_LOADERS.get(name)
    if loader is None:
        raise CheckpointError(f"CTranslate2 has no converter for {name}")
    return loader


HYPOTHESIS_BUDGET = 131_072  # hypotheses × d_model per call (measured above: 1,024 × 128, 256 × 512)


def _d_model(checkpoint: Path) -> int:
    import json

    config = json.loads((checkpoint / "config.json").read_text(encoding="utf-8"))
    return int(config.get("d_model") or config.get("hidden_size") or 512)


class CT2Translator(BaseTranslator):
    """``translate`` and ``score`` from CTranslate2; ``sample`` from the HF ε-sampler."""

    sampling_backend = "hf"

    def __init__(self, checkpoint: str | Path, *, compute_type: str = "default", device: str = "cpu",
                 threads: int = 0, batch_tokens: int = 4000, max_new_tokens: int = 128,
                 src_lang: str | None = None, tgt_lang: str | None = None, patience: float = 2.0,
                 batch_hypotheses: int | None = None):
        """``batch_hypotheses``: sentences × beam handed to CTranslate2 per call; by default
        ``HYPOTHESIS_BUDGET // d_model``. Its decoder drops finished sentences, so a small
        model gains from large calls (trained d_model 128, 200 Bible verses, beam 5: 2.0 s at
        256 hypotheses, 1.45 s at 1,024), while a base-size one (d_model 512) slows down once
        the hypotheses' activations outgrow the caches (random weights, 100 sentences: 9.3 s at
        256, 11.6 s at 1,024).
        ``patience``: CTranslate2 stops a beam once ``patience × beam`` hypotheses have ended.
        At 1 it stops earlier than transformers' beam search (``early_stopping=False``) and picks
        other outputs for ~10% of sentences of the test model; at 2 the outputs agree."""
        check_backend("ct2", compute_type)
        ctranslate2 = _ctranslate2()
        from transformers import AutoTokenizer

        self.checkpoint = Path(checkpoint)
        self.checkpoint_hash = hash_checkpoint_cached(self.checkpoint)
        self.model_dir = convert_checkpoint(self.checkpoint, self.checkpoint_hash)
        self.tokenizer = AutoTokenizer.from_pretrained(self.checkpoint)
        if src_lang is not None and hasattr(self.tokenizer, "src_lang"):
            self.tokenizer.src_lang = model_language(self.tokenizer, src_lang)
        self._prefix: list[str] | None = None
        if tgt_lang is not None and hasattr(self.tokenizer, "tgt_lang"):
            tgt_lang = model_language(self.tokenizer, tgt_lang)
            self.tokenizer.tgt_lang = tgt_lang
            for token in (f"__{tgt_lang}__", tgt_lang):
                if self.tokenizer.convert_tokens_to_ids(token) not in (None, self.tokenizer.unk_token_id):
                    self._prefix = [token]
                    break
        self.translator = ctranslate2.Translator(str(self.model_dir), device=device, compute_type=compute_type,
                                                 intra_threads=threads)
        self.compute_type = compute_type
        self.patience = patience
        self.batch_tokens = batch_tokens
        self.batch_hypotheses = batch_hypotheses or max(64, HYPOTHESIS_BUDGET // _d_model(self.checkpoint))
        self.max_new_tokens = max_new_tokens
        self._src_lang, self._tgt_lang = src_lang, tgt_lang
        self._hf = None

    def _pieces(self, texts: Sequence[str]) -> list[list[str]]:
        return [self.tokenizer.convert_ids_to_tokens(ids) for ids in self.tokenizer(list(texts))["input_ids"]]

    def _target_pieces(self, texts: Sequence[str]) -> list[list[str]]:
        ids = self.tokenizer(text_target=list(texts))["input_ids"]
        pieces = [self.tokenizer.convert_ids_to_tokens(row) for row in ids]
        # CTranslate2 appends end-of-sentence itself and scores it
        return [p[:-1] if p and p[-1] == self.tokenizer.eos_token else p for p in pieces]

    def translate(self, sources: Sequence[str], beam: int = 5) -> list[str]:
        pieces = self._pieces(sources)
        out: list[str] = [""] * len(sources)
        per_call = max(self.batch_hypotheses // max(beam, 1), 1)
        for batch in length_batches([len(p) for p in pieces], 10**9, max_items=per_call):
            results = self.translator.translate_batch(
                [pieces[i] for i in batch], beam_size=beam, patience=self.patience if beam > 1 else 1,
                max_decoding_length=self.max_new_tokens,
                target_prefix=[self._prefix] * len(batch) if self._prefix else None)
            for index, result in zip(batch, results):
                ids = self.tokenizer.convert_tokens_to_ids(result.hypotheses[0])
                out[index] = self.tokenizer.decode(ids, skip_special_tokens=True).strip()
        return out

    def score(self, sources: Sequence[str], targets: Sequence[str]) -> list[Scored]:
        if len(sources) != len(targets):
            raise ValueError(f"score: {len(sources)} sources but {len(targets)} targets")
        src, tgt = self._pieces(sources), self._target_pieces(targets)
        out: list[Scored | None] = [None] * len(sources)
        for batch in length_batches([len(a) + len(b) for a, b in zip(src, tgt)], self.batch_tokens):
            results = self.translator.score_batch([src[i] for i in batch], [tgt[i] for i in batch])
            for index, result in zip(batch, results):
                values = tuple(float(v) for v in result.log_probs)
                out[index] = Scored(total=float(sum(values)), tokens=values, pieces=tuple(result.tokens))
        return out  # type: ignore[return-value]

    def sample(self, sources: Sequence[str], n: int = 128, epsilon: float = DEFAULT_EPSILON,
               temperature: float = 1.0, seed: int = 0) -> list[list[str]]:
        """HF ε-sampling on the same checkpoint (CTranslate2 cannot do ε exactly; see the module)."""
        if self._hf is None:
            from .hf import HFTranslator

            self._hf = HFTranslator(self.checkpoint, device="cpu", max_new_tokens=self.max_new_tokens,
                                    src_lang=self._src_lang, tgt_lang=self._tgt_lang,
                                    identity=snapshot_id(self.checkpoint) or f"hf:{self.checkpoint_hash}")
        return self._hf.sample(sources, n=n, epsilon=epsilon, temperature=temperature, seed=seed)

    @classmethod
    def from_spec(cls, rest: "str | ModelSource", **options) -> "CT2Translator":
        """``ct2:MODEL`` (a folder or a hub id, or a checkpoint named by its path with ``--backend
        ct2``); options as ``__init__``'s (no ``device``: CTranslate2's default)."""
        if options.get("device") is None:
            options.pop("device", None)
        return cls(_transformers_source(rest, "ct2").checkpoint(), **options)

    def signature(self) -> str:
        # samples come from the HF sampler: the signature says both, so no number hides it
        return f"ct2-{self.compute_type}+hf-sample:{snapshot_id(self.checkpoint) or self.checkpoint_hash}"
