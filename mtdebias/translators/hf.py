"""The ``transformers`` backend: any local seq2seq checkpoint behind the translator protocol.

Marian checkpoints (mtdebias-trained or Opus-MT) work as they are; M2M100/NLLB need the
language codes (``src_lang``/``tgt_lang``). Inputs are batched by length under a token budget
and results are returned in input order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator, Sequence

import torch
from transformers import AutoTokenizer, PreTrainedModel

from ..errors import CheckpointError, ConfigError
from ..models.hub import snapshot_id
from ..lang.codes import NLLB_CODES
from ..models.model import load_model
from ..signature import hash_checkpoint_cached
from .base import DEFAULT_EPSILON, BaseTranslator, Scored, source_seed
from .epsilon_sampler import constraints_for, epsilon_sample, unsupported_settings


def length_batches(lengths: Sequence[int], max_tokens: int, max_items: int | None = None) -> Iterator[list[int]]:
    """Index batches of similar length whose padded size (items × longest) fits ``max_tokens``."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batch: list[int] = []
    longest = 0
    for index in order:
        longest_if_added = max(longest, lengths[index])
        too_big = longest_if_added * (len(batch) + 1) > max_tokens
        if batch and (too_big or (max_items is not None and len(batch) >= max_items)):
            yield batch
            batch, longest_if_added = [], lengths[index]
        batch.append(index)
        longest = longest_if_added
    if batch:
        yield batch


def left_padded(rows: Sequence[Sequence[int]], pad_id: int, device, columns: int = 0,
                offset: int = 0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Decoder-only rows padded on the left to the longest: ``(ids, mask, positions)``. The mask
    starts with ``columns`` ones, for a prefix held in every row's cache (the padding then sits
    between prefix and row); positions count real tokens only, from ``offset`` (a prefix held
    elsewhere), so a token has the same position however it is batched."""
    width = max(len(r) for r in rows)
    ids = torch.tensor([[pad_id] * (width - len(r)) + list(r) for r in rows], dtype=torch.long, device=device)
    mask = torch.tensor([[1] * columns + [0] * (width - len(r)) + [1] * len(r) for r in rows], dtype=torch.long,
                        device=device)
    positions = (mask.cumsum(-1) - 1).clamp(min=0)[:, columns:] + offset
    return ids, mask, positions


class HFTranslator(BaseTranslator):
    def __init__(self, checkpoint: str | Path | None = None, *, model: PreTrainedModel | None = None,
                 tokenizer=None, device: str | None = None, batch_tokens: int = 4000,
                 max_new_tokens: int = 128, src_lang: str | None = None, tgt_lang: str | None = None,
                 identity: str | None = None):
        """Load ``checkpoint`` (a local directory), or wrap an in-memory ``model``/``tokenizer``
        (the trainer does this to validate without a round trip to disk; pass ``identity``)."""
        if model is None:
            if checkpoint is None:
                raise ValueError("pass a checkpoint directory or a model and tokenizer")
            model = load_model(checkpoint)
            try:
                tokenizer = AutoTokenizer.from_pretrained(checkpoint)
            except Exception as exc:
                raise CheckpointError(f"{checkpoint}: tokenizer files missing or unreadable ({exc})") from exc
            identity = identity or snapshot_id(checkpoint) or f"hf:{hash_checkpoint_cached(checkpoint)}"
        device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.model = model.to(device).eval()
        self.tokenizer = tokenizer
        self.device = device
        self.batch_tokens = batch_tokens
        self.max_new_tokens = max_new_tokens
        self._identity = identity or "hf:in-memory"
        # sources longer than the model's positions are cut to fit: counted (over the translator's
        # life) so callers can warn and record it, with the indices of the last call's
        self.truncated_inputs = 0
        self.last_truncated: list[int] = []
        self._gen_kwargs: dict = {}
        if src_lang is not None and hasattr(tokenizer, "src_lang"):
            tokenizer.src_lang = model_language(tokenizer, src_lang)
        if tgt_lang is not None and hasattr(tokenizer, "tgt_lang"):
            tgt_lang = model_language(tokenizer, tgt_lang)
            tokenizer.tgt_lang = tgt_lang
            lang_id = _forced_bos_id(tokenizer, tgt_lang)
            if lang_id is not None:
                self._gen_kwargs["forced_bos_token_id"] = lang_id

    # -- helpers -------------------------------------------------------------------------
    @property
    def _max_new_tokens(self) -> int:
        # the decoder has max_position_embeddings positions and the start token takes one: a
        # sample that never ends must stop there, not index past the position table
        positions = getattr(self.model.config, "max_position_embeddings", None)
        return min(self.max_new_tokens, positions - 1) if positions else self.max_new_tokens

    def _lengths(self, texts: Sequence[str]) -> list[int]:
        return [len(ids) for ids in self.tokenizer(list(texts))["input_ids"]]

    def _source_lengths(self, sources: Sequence[str]) -> list[int]:
        """Token lengths of ``sources``, counting those the encoder will truncate."""
        lengths = self._lengths(sources)
        limit = self.model.config.max_position_embeddings
        self.last_truncated = [i for i, n in enumerate(lengths) if n > limit]
        self.truncated_inputs += len(self.last_truncated)
        return lengths

    def _encode(self, texts: Sequence[str]) -> dict[str, torch.Tensor]:
        batch = self.tokenizer(list(texts), return_tensors="pt", padding=True, truncation=True,
                               max_length=self.model.config.max_position_embeddings)
        return {k: v.to(self.device) for k, v in batch.items()}

    def _decode(self, ids: torch.Tensor) -> list[str]:
        return [text.strip() for text in self.tokenizer.batch_decode(ids, skip_special_tokens=True)]

    # -- protocol --------------------------------------------------------------------------
    @torch.inference_mode()
    def translate(self, sources: Sequence[str], beam: int = 5) -> list[str]:
        out: list[str] = [""] * len(sources)
        # a beam multiplies the decoder's work: keep the budget per hypothesis
        for batch in length_batches(self._source_lengths(sources), max(self.batch_tokens // max(beam, 1), 1)):
            generated = self.model.generate(**self._encode([sources[i] for i in batch]), num_beams=beam,
                                            do_sample=False, max_new_tokens=self._max_new_tokens,
                                            **self._gen_kwargs)
            for index, text in zip(batch, self._decode(generated)):
                out[index] = text
        return out

    @torch.inference_mode()
    def sample(self, sources: Sequence[str], n: int = 128, epsilon: float = DEFAULT_EPSILON,
               temperature: float = 1.0, seed: int = 0) -> list[list[str]]:
        """``n`` ε-samples per source (Hewitt et al. 2022: tokens with p < ε are cut).

        Samples come from :mod:`.epsilon_sampler` (finished rows leave the batch; one
        generator per source seeded from ``(seed, source)``), so a source's samples do not
        depend on the other sources in the call: a resumed run reproduces them. Models whose
        generation config sets something that loop does not implement fall back to
        ``generate`` (:meth:`sample_with_generate`). The caller's RNG is never touched.
        """
        lengths = self._source_lengths(sources)
        if self.sampler_fallback_reasons:
            return self.sample_with_generate(sources, n, epsilon, temperature, seed)
        out: list[list[str]] = [[] for _ in sources]
        constraints = constraints_for(self.model, self._gen_kwargs.get("forced_bos_token_id"))
        per_item_tokens = max(self.batch_tokens // max(n, 1), 1)
        for batch in length_batches(lengths, per_item_tokens * 8, max_items=max(1, 4096 // n)):
            texts = [sources[i] for i in batch]
            enc = self._encode(texts)
            drawn = epsilon_sample(self.model, enc["input_ids"], enc["attention_mask"],
                                   [source_seed(seed, text) for text in texts], n=n, epsilon=epsilon,
                                   temperature=temperature, max_new_tokens=self._max_new_tokens,
                                   constraints=constraints)
            for index, samples in zip(batch, drawn):
                out[index] = self._decode_unique(samples)
        return out

    def _decode_unique(self, sequences: list[list[int]]) -> list[str]:
        # samples of a trained model repeat a lot, and Marian's decode is slow Python
        unique = list(dict.fromkeys(map(tuple, sequences)))
        texts = dict(zip(unique, self.tokenizer.batch_decode([list(u) for u in unique], skip_special_tokens=True)))
        return [texts[tuple(ids)].strip() for ids in sequences]

    @property
    def sampler_fallback_reasons(self) -> list[str]:
        """Generation settings that make :meth:`sample` use ``generate`` (empty: it does not)."""
        return unsupported_settings(self.model.generation_config)

    @torch.inference_mode()
    def sample_with_generate(self, sources: Sequence[str], n: int = 128, epsilon: float = DEFAULT_EPSILON,
                             temperature: float = 1.0, seed: int = 0) -> list[list[str]]:
        """The same distribution through ``generate(num_return_sequences=n)``, one call per
        source seeded by :func:`source_seed` (slower: finished sequences stay in the batch)."""
        out: list[list[str]] = [[] for _ in sources]
        # generate() draws from the global RNG: seed it per source inside fork_rng, so the caller's
        # RNG (e.g. a training run's dropout stream, evaluated inline) is left exactly as it was
        with torch.random.fork_rng(devices=[self.model.device] if self.model.device.type == "cuda" else []):
            for index, source in enumerate(sources):
                torch.manual_seed(source_seed(seed, source))
                out[index] = self._sample_batch([source], n, epsilon, temperature)
        return out

    def _sample_batch(self, sources: list[str], n: int, epsilon: float, temperature: float) -> list[str]:
        generated = self.model.generate(
            **self._encode(sources), do_sample=True, num_beams=1, top_k=0, top_p=1.0,
            epsilon_cutoff=epsilon if epsilon > 0 else None, temperature=temperature,
            num_return_sequences=n, max_new_tokens=self._max_new_tokens, **self._gen_kwargs)
        return self._decode(generated)

    @torch.inference_mode()
    def score(self, sources: Sequence[str], targets: Sequence[str]) -> list[Scored]:
        """Teacher-forced log-probabilities of ``targets`` (per piece, end-of-sentence included)."""
        if len(sources) != len(targets):
            raise ValueError(f"score: {len(sources)} sources but {len(targets)} targets")
        out: list[Scored | None] = [None] * len(sources)
        lengths = [a + b for a, b in zip(self._source_lengths(sources), self._lengths(targets))]
        for batch in length_batches(lengths, self.batch_tokens):
            enc = self.tokenizer([sources[i] for i in batch], text_target=[targets[i] for i in batch],
                                 return_tensors="pt", padding=True, truncation=True,
                                 max_length=self.model.config.max_position_embeddings)
            labels = enc.pop("labels").to(self.device)
            labels_mask = labels != self.tokenizer.pad_token_id
            inputs = {k: v.to(self.device) for k, v in enc.items()}
            logits = self.model(**inputs, labels=labels.masked_fill(~labels_mask, -100)).logits
            logprobs = torch.log_softmax(logits.float(), dim=-1)
            token_lp = logprobs.gather(-1, labels.unsqueeze(-1)).squeeze(-1)
            for row, index in enumerate(batch):
                keep = labels_mask[row]
                values = tuple(float(v) for v in token_lp[row][keep])
                pieces = tuple(self.tokenizer.convert_ids_to_tokens(labels[row][keep].tolist()))
                out[index] = Scored(total=float(sum(values)), tokens=values, pieces=pieces)
        return out  # type: ignore[return-value]

    def signature(self) -> str:
        return self._identity

    # what an hf: spec takes (--translator-option, a suite's [translator] table); the others of
    # __init__ wrap a model in memory (the trainer's) and are no user's to set
    options = ("device", "batch_tokens", "max_new_tokens", "src_lang", "tgt_lang")

    @classmethod
    def from_spec(cls, rest: "str | ModelSource", **options) -> "HFTranslator":
        """``hf:MODEL`` (a folder or a hub id, or a checkpoint named by its path: classified, see
        :func:`~.load.classify`); options as ``__init__``'s."""
        source = _transformers_source(rest, "hf")
        # a hub model by its commit, a folder by its content hash
        identity = source.identity if source.kind == "hub" else f"hf:{source.identity}"
        return cls(source.checkpoint(), identity=identity, **options)


def _transformers_source(rest: "str | ModelSource", kind: str) -> "ModelSource":
    """The classified model of an ``hf:``/``ct2:`` spec (a text rest: resolved, cached models only)."""
    from .source import ModelSource, resolve

    if isinstance(rest, ModelSource):
        return rest
    if not rest:
        raise ConfigError(f"{kind}: no model given", hint=f"write {kind}:FOLDER_OR_HUB_ID")
    return resolve(rest, what="checkpoint", fairseq=False)


def model_language(tokenizer, lang: str) -> str:
    """The code a multilingual tokenizer knows ``lang`` by: M2M100 takes ``de`` (its token is
    ``__de__``), NLLB ``deu_Latn``; a code the tokenizer already knows is kept."""
    for code in (lang, NLLB_CODES.get(lang)):
        if code and _forced_bos_id(tokenizer, code) is not None:
            return code
    return lang


def _forced_bos_id(tokenizer, lang: str) -> int | None:
    """M2M100 (``__de__``) and NLLB (``deu_Latn``) start the output with a language token."""
    for token in (f"__{lang}__", lang):
        token_id = tokenizer.convert_tokens_to_ids(token)
        if token_id is not None and token_id != tokenizer.unk_token_id:
            return token_id
    return None
