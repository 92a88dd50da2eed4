"""Decoder-only language models run by CTranslate2 (``ct2-causal:FILE.gguf`` or ``ct2-causal:DIR``).

The same prompts as ``hf-causal`` (the prompt is rendered and tokenized by its code, so both
routes feed the model the same token ids), computed by a CTranslate2 ``Generator``:

* the model is converted once: a GGUF file through its float32 folder (:mod:`mtdebias.models.gguf_model`)
  into ``<file>.ct2-<sha12>/`` beside it (the GGUF cache's place), a transformers folder into
  ``.ct2/<name>-<hash>/`` beside it, with CTranslate2's own converter for the architecture
  (Llama, Gemma 3, Qwen, …). Weights are kept in float32; ``compute_type`` quantizes them when the
  model loads, so one conversion serves every compute type. The conversion runs in a temporary
  folder renamed into place under a lock: a killed one leaves nothing that looks finished;
* ``translate`` and ``respond``: greedy by default (beam search if asked), stopping where
  hf-causal stops. The few-shot prefix that every translation prompt starts with is given as
  CTranslate2's ``static_prompt``: its state is computed once per translator and reused;
* ``score``: teacher-forced log-probabilities of the translation's tokens and what ends it
  (``Generator.score_batch``), as hf-causal scores them, in batches of rows of one length within
  a budget for the log-probabilities (:data:`SCORE_LOGITS_BYTES`); the prompt is computed again
  for every row (score_batch has no static prompt);
* ``sample``: CTranslate2's sampler offers top-k, top-p and temperature but no ε floor (the
  absolute probability below which a token is dropped), so ε-sampling runs on hf-causal with
  the same model and prompt; the signature says so.

How far the routes agree, and how much faster this one is, is measured by
``bench/ct2_causal_routes.py`` (docs/released-models.md): in float32 (the default) greedy output
is hf-causal's token for token; int8 changed 46 of 48 greedy Gemma 3 translations, so it is an
option, not the default.

The signature is ``ct2-causal-<compute type>+hf-causal-sample:<model>:prompt-<hash>:from-float32``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

from ..errors import CheckpointError, ConfigError, InputError
from ..options import Range
from .base import DEFAULT_EPSILON, Scored
from .hf_causal import PROMPT_OPTIONS, HFCausalTranslator, shared_length

BACKEND = "ct2-causal"
# CTranslate2 runs on the CPU here, batches by sentences and computes its own argmax; hf-causal's
# prompt options stay
OPTIONS = PROMPT_OPTIONS + (
    "compute_type", "threads", "batch_size")
COMPUTE_TYPES = ("int8", "int8_float32", "int8_bfloat16", "bfloat16", "float32")
DEFAULT_COMPUTE_TYPE = "float32"
# sentences per decoding batch, chosen by `bench/workload.py` (three repeats, 200 WinoMT sentences,
# both released models, docs/released-models.md): 64 is 1.7× (Gemma) and 1.4× (SmolLM2) as fast
# as 16 and faster than 128, where the finished rows' tails and the static prompt's copies cost more
# than a wider step saves; a probe's largest chunk (progress.LARGEST, 256) splits into four such batches
DEFAULT_BATCH_SIZE = 64
# `score` holds a log-probability for every vocabulary entry at every position of a batch at once
# (Generator.score_batch): 64 Gemma rows of 100 tokens would be 64 × 100 × 262,144 floats, 6.7 GB
# (the 200-sentence benchmark's process died there, with a segmentation fault). A scoring batch
# holds as many rows as keep them within this budget
SCORE_LOGITS_BYTES = 512 * 2**20
# sources whose prompts give the translation template's own prefix (their shared tokens)
_PROBES = ("A", "Zwei", "3.")


def require_ctranslate2():
    try:
        import ctranslate2
    except ImportError:
        raise InputError("the ct2-causal backend needs CTranslate2, which is not installed",
                         hint="pip install 'mtdebias[ct2]' (or pip install ctranslate2), or use hf-causal:MODEL") \
            from None
    return ctranslate2


def ct2_loader(config):
    """CTranslate2's converter for a transformers config, or a clear refusal."""
    from ctranslate2.converters import transformers as ct2_hf

    name = type(config).__name__
    loader = ct2_hf._MODEL_LOADERS.get(name)
    if loader is None:
        raise ConfigError(f"CTranslate2 has no converter for {name} ({getattr(config, 'model_type', '?')})",
                          hint="score this model with hf-causal:MODEL")
    return loader


def _rope_attributes(config) -> None:
    """transformers 5 keeps RoPE bases in ``rope_parameters``; CTranslate2's converters read the
    older attributes (``rope_theta``, Gemma 3's ``rope_local_base_freq``) and would otherwise
    take None, which becomes NaN in the spec."""
    params = getattr(config, "rope_parameters", None) or {}
    if "full_attention" in params:  # per layer type (Gemma 3)
        config.rope_theta = params["full_attention"].get("rope_theta")
        config.rope_local_base_freq = params.get("sliding_attention", {}).get("rope_theta")
    elif "rope_theta" in params:
        config.rope_theta = params["rope_theta"]


def convert(folder: Path, staging: Path) -> None:
    """Write CTranslate2's model of the transformers folder ``folder`` into ``staging`` (float32)."""
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    try:
        config = AutoConfig.from_pretrained(folder)
    except Exception as exc:
        raise CheckpointError(f"{folder}: no readable config.json ({exc})") from exc
    loader = ct2_loader(config)
    model = AutoModelForCausalLM.from_pretrained(folder, dtype="float32")
    _rope_attributes(model.config)
    tokenizer = AutoTokenizer.from_pretrained(folder)
    try:
        spec = loader(model, tokenizer)
        spec.validate()
        spec.optimize(quantization=None)
        spec.save(str(staging))
    except Exception as exc:
        raise CheckpointError(f"{folder}: CTranslate2 cannot convert this model ({type(exc).__name__}: "
                              f"{str(exc).splitlines()[0][:300] if str(exc) else ''})",
                              hint="score it with hf-causal:MODEL") from exc


def ct2_folder(source, folder: Path) -> Path:
    """The CTranslate2 model of ``source``, converted once from its transformers ``folder``."""
    from ..models.gguf_model import build_once, converted_dir

    if source.kind == "gguf":
        target = converted_dir(source.path, "ct2")
    else:
        from ..signature import hash_checkpoint_cached
        from .ct2 import converted_dir as ct2_dir

        target = ct2_dir(folder, hash_checkpoint_cached(folder))
    return build_once(target, "model.bin", lambda staging: convert(folder, staging))


def scoring_tokens(vocabulary: int, longest_row: int) -> int:
    """Tokens per ``score_batch`` call whose log-probabilities over ``vocabulary``
    entries fit :data:`SCORE_LOGITS_BYTES` as float32; never fewer than the longest row, which
    must fit one batch."""
    return max(SCORE_LOGITS_BYTES // (4 * vocabulary), longest_row)


def same_length_batches(lengths: Sequence[int], max_tokens: int) -> list[list[int]]:
    """Indices grouped by length, each group cut into batches of at most ``max_tokens`` tokens
    (one row at least), shortest rows first."""
    groups: dict[int, list[int]] = {}
    for index, length in enumerate(lengths):
        groups.setdefault(length, []).append(index)
    out = []
    for length in sorted(groups):
        rows = max(max_tokens // max(length, 1), 1)
        out += [groups[length][i:i + rows] for i in range(0, len(groups[length]), rows)]
    return out


class CT2CausalTranslator(HFCausalTranslator):
    backend = BACKEND
    options = OPTIONS
    option_ranges = {"max_new_tokens": Range(1), "threads": Range(0), "batch_size": Range(1)}
    sampling_backend = "hf-causal"

    def __init__(self, model: Any, *, compute_type: str = DEFAULT_COMPUTE_TYPE, threads: int = 0,
                 batch_size: int = DEFAULT_BATCH_SIZE, **options: Any):
        """``compute_type``: CTranslate2's, one of :data:`COMPUTE_TYPES`. ``threads``: its threads
        (0: its default). ``batch_size``: sentences per decoding batch (:data:`DEFAULT_BATCH_SIZE`). Other options as
        hf-causal's (the prompt); ``share_prefix`` gives the few-shot prefix as a static prompt."""
        if compute_type not in COMPUTE_TYPES:
            raise ConfigError(f"compute_type = {compute_type!r} is not one of {', '.join(COMPUTE_TYPES)}")
        self.compute_type, self.threads, self.batch_size = compute_type, int(threads), int(batch_size)
        self._prompt_options = dict(options)  # hf-causal asks the same questions when it samples
        self._hf: HFCausalTranslator | None = None
        self.generated_tokens = 0  # what the decoder produced, end tokens included (bench/)
        super().__init__(model, device="cpu", **options)
        probes = self._encode_prompts([self._prompt_text(s) for s in _PROBES])
        # the last shared token is left out: it may be a space that a source's first word takes
        # into its own token ("English: A" ends in " ", "English: The" in " The")
        self._static = list(probes[0][:max(shared_length(probes) - 1, 0)]) if self.share_prefix else []

    # -- the engine --------------------------------------------------------------------------
    def _open_model(self, dtype: str):
        ctranslate2 = require_ctranslate2()
        supported = ctranslate2.get_supported_compute_types("cpu")
        if self.compute_type not in supported:  # bfloat16 needs a CPU and a build that run it
            raise ConfigError(f"compute_type = {self.compute_type!r}: this CTranslate2 build runs "
                              f"{', '.join(sorted(supported))} on this CPU", hint="set compute_type = \"float32\"")
        self.model_config = json.loads((Path(self.model_dir) / "config.json").read_text(encoding="utf-8"))
        from transformers import AutoConfig

        ct2_loader(AutoConfig.from_pretrained(self.model_dir))  # refused before anything is converted
        self.ct2_dir = ct2_folder(self.source, Path(self.model_dir))
        return ctranslate2.Generator(str(self.ct2_dir), device="cpu", compute_type=self.compute_type,
                                     intra_threads=self.threads)

    def _vocabulary_size(self) -> int:
        text = self.model_config.get("text_config", self.model_config)
        return int(text.get("vocab_size") or len(self.tokenizer))

    def _model_eos(self) -> Any:
        path = Path(self.model_dir) / "generation_config.json"
        return json.loads(path.read_text(encoding="utf-8")).get("eos_token_id") if path.is_file() else None

    def _own_generation_settings(self) -> None:
        pass  # every CTranslate2 call is given its settings

    def _room(self, longest_prompt: int, wanted: int) -> int:
        text = self.model_config.get("text_config", self.model_config)
        positions = text.get("max_position_embeddings")
        room = wanted if not positions else min(wanted, positions - longest_prompt)
        if room < 1:
            raise ConfigError(f"a prompt of {longest_prompt} tokens leaves no room in the model's {positions} positions",
                              hint="use fewer few-shot examples or shorter sentences")
        return room

    # -- decoding ----------------------------------------------------------------------------
    def _generate(self, prompts: list[list[int]], *, beam: int, max_new_tokens: int, stop: list[int],
                  cut_at_newline: bool) -> list[str]:
        out = [""] * len(prompts)
        static = self._static
        # prompts that start with the template's prefix continue from its cached state; any other
        # (a respond question, a source that changes the tokenization at the seam) runs whole
        groups: dict[bool, list[int]] = {True: [], False: []}
        for i, prompt in enumerate(prompts):
            groups[bool(static) and len(prompt) > len(static) and prompt[:len(static)] == static].append(i)
        for shared, indices in groups.items():
            if not indices:
                continue
            room = self._room(max(len(prompts[i]) for i in indices), max_new_tokens)
            cut = len(static) if shared else 0
            results = self.model.generate_batch(
                [self.tokenizer.convert_ids_to_tokens(prompts[i][cut:]) for i in indices],
                max_batch_size=self.batch_size, beam_size=beam, patience=1, sampling_topk=1, end_token=stop,
                return_end_token=True, max_length=room, include_prompt_in_result=False,
                static_prompt=self.tokenizer.convert_ids_to_tokens(static) if shared else None,
                cache_static_prompt=True)
            for index, result in zip(indices, results):
                ids = result.sequences_ids[0]
                self.generated_tokens += len(ids)
                out[index] = self._reply(ids, cut_at_newline)
        return out

    def translate(self, sources: Sequence[str], beam: int = 1) -> list[str]:
        """Greedy unless ``beam`` > 1: how decoder-only models are used and the released suites score them."""
        return super().translate(sources, beam=beam)

    def score(self, sources: Sequence[str], targets: Sequence[str]) -> list[Scored]:
        """Teacher-forced log-probabilities of each target's tokens (its end included) after the
        source's prompt."""
        prompts, continuations = self._scoring_inputs(sources, targets)
        rows = [self.tokenizer.convert_ids_to_tokens(p + c) for p, c in zip(prompts, continuations)]
        budget = scoring_tokens(self._vocabulary_size(), max((len(r) for r in rows), default=1))
        # rows of one length per call: CTranslate2 4.8.5 refuses Gemma 3 rows of different lengths
        # in one score_batch ("Length mask has size … different than the current batch size")
        results: list[Any] = [None] * len(rows)
        for batch in same_length_batches([len(r) for r in rows], budget):
            for index, result in zip(batch, self.model.score_batch([rows[i] for i in batch], max_input_length=0)):
                results[index] = result
        out = []
        for cont, result in zip(continuations, results):
            # log_probs[k] is the log-probability of token k + 1 given those before it
            values = tuple(float(v) for v in result.log_probs[len(result.log_probs) - len(cont):])
            out.append(Scored(total=float(sum(values)), tokens=values,
                              pieces=tuple(self.tokenizer.convert_ids_to_tokens(cont))))
        return out

    def sample(self, sources: Sequence[str], n: int = 128, epsilon: float = DEFAULT_EPSILON,
               temperature: float = 1.0, seed: int = 0) -> list[list[str]]:
        """ε-samples from hf-causal on the same model and prompt (CTranslate2 has no ε floor)."""
        if self._hf is None:
            self._hf = HFCausalTranslator(self.source, device="cpu", dtype="float32", **self._prompt_options)
        return self._hf.sample(sources, n=n, epsilon=epsilon, temperature=temperature, seed=seed)

    def signature(self) -> str:
        # samples come from hf-causal: the signature names both engines, so no number hides it
        return (f"{self.backend}-{self.compute_type}+hf-causal-sample:{self.source.identity}:"
                f"prompt-{self.prompt_hash}:from-float32")
