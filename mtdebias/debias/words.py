"""Word lists and their tokens: which embedding rows a debiasing method may touch.

Iluz et al. (2024) found hard-debiasing most effective when applied to profession words that
the model's vocabulary holds as *one* subword token. A word counts as one token when the
checkpoint's tokenizer splits it into a single piece, ignoring a lone SentencePiece
word-boundary piece ``▁`` (some vocabularies split ``nurse`` into ``▁`` + ``nurse``). Words
with more pieces are skipped by default, or represented by their first piece or all of
their pieces on request; the choice is recorded per word in :class:`WordTokens`.

A decoder-only LM's byte-level vocabulary (SmolLM2's, Llama 3's) or SentencePiece without a
dummy prefix (Gemma's) holds a word inside a sentence as another token than the word alone
(``Ġnurse`` against ``nurse``): for these models words are looked up as they follow a space
(``prefix=" "``), and a piece that is only that space is dropped like ``▁``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from ..errors import InputError
from ..resources import data_dir
from ..textio import read_lines

DATA_DIR = data_dir("debias")
BOUNDARY = "\u2581"  # SentencePiece's word-boundary marker "▁"
BYTE_SPACE = "\u0120"  # a byte-level BPE's space "Ġ"
MULTI_TOKEN_MODES = ("skip", "first", "all")
SHIPPED_LISTS = {"professions": "professions_en.txt"}


def _content_lines(path: Path) -> Iterable[tuple[int, str]]:
    for number, line in enumerate(read_lines(path), 1):
        text = line.split("#", 1)[0].strip()
        if text:
            yield number, text


def load_word_list(name_or_path: str | Path) -> list[str]:
    """A shipped list by name (``professions``) or a file with one word per line.

    Blank lines and ``#`` comments are ignored; duplicates are dropped, order kept.
    """
    text = str(name_or_path)
    path = DATA_DIR / SHIPPED_LISTS[text] if text in SHIPPED_LISTS else Path(name_or_path)
    if not path.is_file():
        raise InputError("word list not found", path=path,
                         hint=f"pass one of {', '.join(SHIPPED_LISTS)} or a file with one word per line")
    words = list(dict.fromkeys(word for _, word in _content_lines(path)))
    if not words:
        raise InputError("word list is empty", path=path, hint="put one word per line")
    return words


def load_definitional_pairs(lang_or_path: str | Path = "en") -> list[tuple[str, str]]:
    """(female, male) pairs from ``definitional_pairs_<lang>.tsv`` or any two-column TSV."""
    text = str(lang_or_path)
    shipped = DATA_DIR / f"definitional_pairs_{text}.tsv"
    path = shipped if len(text) <= 3 and shipped.is_file() else Path(lang_or_path)
    if not path.is_file():
        available = sorted(p.stem.rsplit("_", 1)[1] for p in DATA_DIR.glob("definitional_pairs_*.tsv"))
        raise InputError("definitional pair file not found", path=path,
                         hint=f"pass a language with a shipped list ({', '.join(available)}) "
                              "or a TSV file of female<TAB>male pairs")
    pairs = []
    for number, line in _content_lines(path):
        cells = [cell.strip() for cell in line.split("\t")]
        if len(cells) != 2 or not all(cells):
            raise InputError(f"expected two tab-separated words (female<TAB>male), found {line!r}",
                             path=path, line=number, hint="separate the two words with one tab")
        pairs.append((cells[0], cells[1]))
    if len(pairs) < 2:
        raise InputError(f"{len(pairs)} definitional pair(s); at least 2 are needed to find a direction",
                         path=path, hint="add more female<TAB>male pairs")
    return pairs


@dataclass
class WordTokens:
    """How one word maps onto encoder vocabulary rows."""

    word: str
    pieces: list[str]  # the tokenizer's pieces, lone "▁" removed
    ids: list[int]  # the rows selected for this word (empty when skipped)
    status: str  # "single" | "multi-first" | "multi-all" | "skipped-multi" | "unknown"
    protected: list[str] = field(default_factory=list)  # pieces left alone (special or gendered)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def word_pieces(tokenizer: Any, word: str, prefix: str = "") -> tuple[list[str], list[int]]:
    """Pieces and ids of ``word`` as the encoder sees it (lone boundary pieces removed);
    ``prefix`` (a decoder-only LM: ``" "``) is put before the word, its lone space piece dropped."""
    spaces = {BOUNDARY, BYTE_SPACE} if prefix else {BOUNDARY}
    pieces = [p for p in tokenizer.tokenize(prefix + word) if p not in spaces]
    ids = [int(i) for i in tokenizer.convert_tokens_to_ids(pieces)]
    return pieces, ids


def _special_ids(tokenizer: Any) -> set[int]:
    ids = set(getattr(tokenizer, "all_special_ids", []) or [])
    boundary = tokenizer.convert_tokens_to_ids([BOUNDARY])[0]
    unk = getattr(tokenizer, "unk_token_id", None)
    if boundary is not None and boundary != unk:
        ids.add(int(boundary))
    return {int(i) for i in ids if i is not None}


def select_word_tokens(tokenizer: Any, words: Sequence[str], multi_token: str = "skip",
                       protect: Iterable[int] = (), prefix: str = "") -> list[WordTokens]:
    """Map each word to the rows to change.

    ``protect`` holds ids that must never change (the definitional words' own tokens): in
    ``all`` mode a multi-piece profession may share a piece with a gendered word.
    """
    if multi_token not in MULTI_TOKEN_MODES:
        raise InputError(f"unknown multi-token mode {multi_token!r}",
                         hint=f"choose one of {', '.join(MULTI_TOKEN_MODES)}")
    never = _special_ids(tokenizer) | set(protect)
    unk = getattr(tokenizer, "unk_token_id", None)
    result = []
    for word in words:
        pieces, ids = word_pieces(tokenizer, word, prefix)
        if not ids or (unk is not None and unk in ids and len(ids) == 1):
            result.append(WordTokens(word, pieces, [], "unknown"))
            continue
        if len(ids) == 1:
            status, chosen = "single", ids
        elif multi_token == "skip":
            status, chosen = "skipped-multi", []
        elif multi_token == "first":
            status, chosen = "multi-first", ids[:1]
        else:
            status, chosen = "multi-all", ids
        kept = [i for i in chosen if i not in never and i != unk]
        protected = [pieces[ids.index(i)] for i in chosen if i not in kept]
        result.append(WordTokens(word, pieces, list(dict.fromkeys(kept)), status, protected))
    return result


def single_token_id(tokenizer: Any, word: str, prefix: str = "") -> int | None:
    """The one vocabulary row of ``word``, or None when it is several pieces or unknown."""
    pieces, ids = word_pieces(tokenizer, word, prefix)
    unk = getattr(tokenizer, "unk_token_id", None)
    if len(ids) == 1 and ids[0] != unk:
        return ids[0]
    return None
