"""How a language model is asked to translate: one prompt per language pair.

A :class:`TranslationPrompt` renders a source sentence either as chat messages (for a model
whose tokenizer has a chat template: an optional system message, the few-shot examples as
earlier user/assistant turns, then the source as the last user turn) or as a plain
completion prompt (for a base model: ``English: …`` / ``German: …`` lines, examples first,
ending where the translation starts, so the translation ends at the next newline).

Templates are ``str.format`` strings with the placeholders ``{source}`` (required),
``{src_name}``/``{tgt_name}`` (``English``, ``German``) and ``{src_lang}``/``{tgt_lang}``
(``en``, ``de``). Nothing here imports torch: any LLM backend can render the same prompt.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from ..errors import ConfigError
from ..lang.codes import check_language_code, language_name

DEFAULT_TEMPLATE = ("Translate the following {src_name} sentence into {tgt_name}. "
                    "Reply with the translation only.\n\n{source}")
DEFAULT_PLAIN_TEMPLATE = "{src_name}: {source}\n{tgt_name}:"
PLACEHOLDERS = ("source", "src_name", "tgt_name", "src_lang", "tgt_lang")
# the options that make the prompt (a recipe fine-tuning a causal model sets them in [model])
PROMPT_OPTIONS = ("prompt", "plain_prompt", "system", "examples", "chat")


def _check_template(template: str, key: str) -> None:
    try:
        fields = [name for _, name, _, _ in string.Formatter().parse(template) if name is not None]
    except ValueError as exc:
        raise ConfigError(f"{key}: not a valid template ({exc})",
                          hint="write literal braces as {{ and }}") from exc
    unknown = [name for name in fields if name not in PLACEHOLDERS]
    if unknown:
        raise ConfigError(f"{key}: unknown placeholder {{{unknown[0]}}}",
                          hint=f"placeholders are {', '.join('{' + p + '}' for p in PLACEHOLDERS)}")
    if "source" not in fields:
        raise ConfigError(f"{key} has no {{source}} placeholder", hint="the template must say where the sentence goes")


@dataclass(frozen=True)
class TranslationPrompt:
    src_lang: str
    tgt_lang: str
    template: str = DEFAULT_TEMPLATE  # the user turn of a chat
    plain_template: str = DEFAULT_PLAIN_TEMPLATE  # a completion prompt, the translation follows it
    system: str | None = None
    examples: tuple[tuple[str, str], ...] = ()  # few-shot (source, translation) pairs

    def __post_init__(self):
        check_language_code(self.src_lang, "src_lang", error=ConfigError)
        check_language_code(self.tgt_lang, "tgt_lang", error=ConfigError)
        _check_template(self.template, "prompt")
        _check_template(self.plain_template, "plain_prompt")
        if self.plain_template.rstrip(" ") != self.plain_template:
            # the model writes the space before the translation; a prompt ending in one would
            # make it start with an odd token
            raise ConfigError("plain_prompt ends with a space", hint="end it where the translation starts, e.g. 'German:'")

    @classmethod
    def from_options(cls, src_lang: str, tgt_lang: str, prompt: str = DEFAULT_TEMPLATE,
                     plain_prompt: str = DEFAULT_PLAIN_TEMPLATE, system: str | None = None,
                     examples: Any = None) -> "TranslationPrompt":
        """The prompt the translator options name (``examples``: pairs or a TSV path), validated."""
        return cls(src_lang, tgt_lang, prompt, plain_prompt, system or None, load_examples(examples))

    def fill(self, template: str, source: str) -> str:
        return template.format(source=source, src_name=language_name(self.src_lang),
                               tgt_name=language_name(self.tgt_lang), src_lang=self.src_lang,
                               tgt_lang=self.tgt_lang)

    def messages(self, source: str) -> list[dict[str, str]]:
        """The chat: system message, examples as earlier turns, the source as the last user turn."""
        turns = [{"role": "system", "content": self.system}] if self.system else []
        for example, translation in self.examples:
            turns += [{"role": "user", "content": self.fill(self.template, example)},
                      {"role": "assistant", "content": translation}]
        return turns + [{"role": "user", "content": self.fill(self.template, source)}]

    def plain(self, source: str) -> str:
        """The completion prompt; the model continues with `` <translation>\\n``."""
        shots = "".join(f"{self.fill(self.plain_template, s)} {t}\n" for s, t in self.examples)
        return shots + self.fill(self.plain_template, source)


def load_examples(value: Any) -> tuple[tuple[str, str], ...]:
    """Few-shot examples from a suite or the API: a list of ``[source, translation]`` pairs, or
    the path of a TSV file with one ``source<TAB>translation`` pair per line."""
    if value is None or value == "" or value == []:
        return ()
    if isinstance(value, (str, Path)):
        from ..textio import read_lines

        pairs = []
        for number, line in enumerate(read_lines(value), 1):
            if not line.strip():
                continue
            parts = line.split("\t")
            if len(parts) != 2 or not all(p.strip() for p in parts):
                raise ConfigError("expected 'source<TAB>translation'", path=value, line=number,
                                  hint="one few-shot example per line")
            pairs.append((parts[0].strip(), parts[1].strip()))
        return tuple(pairs)
    if isinstance(value, Sequence):
        pairs = []
        for k, pair in enumerate(value):
            if (isinstance(pair, str) or not isinstance(pair, Sequence) or len(pair) != 2
                    or not all(isinstance(p, str) and p.strip() for p in pair)):
                raise ConfigError(f"examples[{k}] = {pair!r} is not a [source, translation] pair",
                                  hint='write examples = [["The dog sleeps.", "Der Hund schläft."]]')
            pairs.append((pair[0].strip(), pair[1].strip()))
        return tuple(pairs)
    raise ConfigError(f"examples = {value!r}: expected a list of [source, translation] pairs or a TSV path")
