"""Explicit, reversible word tokenisation with character offsets.

Word alignment and entity spans meet at character offsets into the *original* string, so the
tokeniser never rewrites text: every token is a slice ``text[start:end]``. The rules, in order:

* one CJK ideograph / kana is one token (Chinese and Japanese are written without spaces, and
  a whole-clause token would make alignment useless);
* a run of letters, combining marks and digits is a word; hyphens *inside* a word keep it
  together ("Ana-Maria", "US-Wahlen") because splitting them makes the aligner pair the halves
  with unrelated words;
* every other non-space character (punctuation, apostrophes, symbols) is a token of its own,
  so "Gore's" → "Gore", "'", "s" and "Gore," → "Gore", ",": a name is never glued to punctuation.

The ``lang`` argument is accepted for the contract and for future language-specific rules; the
rules above are Unicode-general and currently identical for all languages.
"""

from __future__ import annotations

from dataclasses import dataclass

import regex

_CJK = r"[\p{Han}\p{Hiragana}\p{Katakana}]"
_WORD_CHAR = r"[\p{L}\p{M}\p{N}_--\p{Han}\p{Hiragana}\p{Katakana}]"
_TOKEN_RE = regex.compile(
    rf"{_CJK}|{_WORD_CHAR}+(?:[-\u2010\u2011]{_WORD_CHAR}+)*|[^\s]",
    regex.V1,
)


@dataclass(frozen=True)
class Token:
    text: str
    start: int  # char offset into the original string
    end: int    # exclusive


def tokenize(text: str, lang: str = "xx") -> list[Token]:
    """Split ``text`` into tokens whose offsets index the original string."""
    return [Token(m.group(), m.start(), m.end()) for m in _TOKEN_RE.finditer(text)]


def detokenize_check(text: str, tokens: list[Token]) -> bool:
    """True when every token is exactly the slice of ``text`` it claims (a cheap invariant check)."""
    return all(text[t.start:t.end] == t.text for t in tokens)
