"""SentencePiece vocabularies saved in the layout ``MarianTokenizer`` loads.

A checkpoint directory holds ``source.spm``, ``target.spm``, ``vocab.json`` (and
``target_vocab.json`` for separate vocabularies) and ``tokenizer_config.json``, so both
``MarianTokenizer.from_pretrained(dir)`` and ``AutoTokenizer.from_pretrained(dir)`` work.

Special ids follow one fixed layout: ``</s>`` = 0, ``<unk>`` = 1, ``<pad>`` = 2 (pad is also
the decoder start token, as in Marian).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Iterable

import sentencepiece as spm
from transformers import MarianTokenizer

from ..store.atomic import write_json

EOS, UNK, PAD = "</s>", "<unk>", "<pad>"
SPECIALS = (EOS, UNK, PAD)
EOS_ID, UNK_ID, PAD_ID = 0, 1, 2


def _train_spm(lines: Iterable[str], vocab_size: int, seed_dir: Path, name: str) -> tuple[Path, list[str]]:
    """Train a unigram model; return its file and its pieces (special pieces excluded)."""
    corpus = seed_dir / f"{name}.txt"
    with corpus.open("w", encoding="utf-8") as handle:
        for line in lines:
            handle.write(line + "\n")
    prefix = seed_dir / name
    spm.SentencePieceTrainer.train(
        input=str(corpus), model_prefix=str(prefix), vocab_size=vocab_size, model_type="unigram",
        character_coverage=1.0, unk_id=0, bos_id=-1, eos_id=-1, pad_id=-1,
        # a tiny corpus cannot always support the requested size: shrink instead of failing
        hard_vocab_limit=False, num_threads=1, minloglevel=2,
        input_sentence_size=2_000_000, shuffle_input_sentence=True)
    model = prefix.with_suffix(".model")
    processor = spm.SentencePieceProcessor(model_file=str(model))
    pieces = [processor.id_to_piece(i) for i in range(processor.get_piece_size())
              if not processor.is_unknown(i)]
    return model, pieces


def _vocab(pieces: Iterable[str]) -> dict[str, int]:
    vocab = {token: index for index, token in enumerate(SPECIALS)}
    for piece in pieces:
        vocab.setdefault(piece, len(vocab))
    return vocab


def train_tokenizer(sources: list[str], targets: list[str], out_dir: str | Path, *,
                    vocab_size: int = 8000, joint: bool = True,
                    source_lang: str | None = None, target_lang: str | None = None) -> MarianTokenizer:
    """Train SentencePiece on the corpus and save a Marian tokenizer into ``out_dir``."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        tmp_dir = Path(tmp)
        if joint:
            model, pieces = _train_spm([*sources, *targets], vocab_size, tmp_dir, "joint")
            shutil.copy(model, out_dir / "source.spm")
            shutil.copy(model, out_dir / "target.spm")
            write_json(out_dir / "vocab.json", _vocab(pieces))
        else:
            src_model, src_pieces = _train_spm(sources, vocab_size, tmp_dir, "source")
            tgt_model, tgt_pieces = _train_spm(targets, vocab_size, tmp_dir, "target")
            shutil.copy(src_model, out_dir / "source.spm")
            shutil.copy(tgt_model, out_dir / "target.spm")
            write_json(out_dir / "vocab.json", _vocab(src_pieces))
            write_json(out_dir / "target_vocab.json", _vocab(tgt_pieces))
    tokenizer = load_tokenizer(out_dir, separate_vocabs=not joint,
                               source_lang=source_lang, target_lang=target_lang)
    tokenizer.save_pretrained(out_dir)
    return tokenizer


def load_tokenizer(directory: str | Path, *, separate_vocabs: bool | None = None,
                   source_lang: str | None = None, target_lang: str | None = None) -> MarianTokenizer:
    directory = Path(directory)
    if separate_vocabs is None:
        separate_vocabs = (directory / "target_vocab.json").exists()
    return MarianTokenizer(
        source_spm=str(directory / "source.spm"), target_spm=str(directory / "target.spm"),
        vocab=str(directory / "vocab.json"),
        target_vocab_file=str(directory / "target_vocab.json") if separate_vocabs else None,
        separate_vocabs=separate_vocabs, source_lang=source_lang, target_lang=target_lang,
        unk_token=UNK, eos_token=EOS, pad_token=PAD)


def vocab_sizes(tokenizer: MarianTokenizer) -> tuple[int, int]:
    """(encoder vocabulary size, decoder vocabulary size)."""
    src = len(tokenizer.encoder)
    tgt = len(tokenizer.target_encoder) if tokenizer.separate_vocabs else src
    return src, tgt
