"""Subword codecs for external toolkits (fairseq): text ↔ the pieces a model's dictionary holds.

Two kinds, as fairseq models are usually trained:

* :class:`SentencePieceCodec`: one (usually joint) SentencePiece model; pieces carry ``▁``.
* :class:`MosesBpeCodec`: Moses tokenisation (``sacremoses``) then subword-nmt BPE codes
  (``@@`` continuation marks), the IWSLT/WMT fairseq examples' pipeline. Both packages install
  from PyPI with the ``fairseq`` extra.

A codec encodes one side's text (``lang`` picks the Moses rules) into pieces and decodes
pieces back into text; ``files`` are what identify it in a signature.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, Sequence

from ..errors import InputError
from ..signature import hash_file, hash_json


class SubwordCodec(Protocol):
    kind: str
    files: tuple[Path, ...]

    def encode(self, text: str, lang: str) -> list[str]: ...

    def decode(self, pieces: Sequence[str], lang: str) -> str: ...


def codec_hash(codec: SubwordCodec) -> str:
    return hash_json([codec.kind, [hash_file(f) for f in codec.files], getattr(codec, "settings", {})])


class SentencePieceCodec:
    kind = "sentencepiece"

    def __init__(self, model: str | Path):
        import sentencepiece as spm

        self.path = Path(model)
        if not self.path.is_file():
            raise InputError("SentencePiece model not found", path=self.path,
                             hint="name the .model file the fairseq data was encoded with")
        try:
            self._sp = spm.SentencePieceProcessor(model_file=str(self.path))
        except (RuntimeError, OSError) as exc:
            raise InputError(f"not a SentencePiece model ({exc})", path=self.path) from None
        self.files = (self.path,)

    def encode(self, text: str, lang: str = "") -> list[str]:
        return self._sp.encode(text, out_type=str)

    def decode(self, pieces: Sequence[str], lang: str = "") -> str:
        # pieces the SentencePiece model does not know (a dictionary's own <unk>) decode as ⁇
        return self._sp.decode_pieces(list(pieces)).strip()

    def vocabulary(self) -> list[str]:
        """Every normal piece of the model (control and unknown pieces left out), in id order."""
        sp = self._sp
        return [sp.id_to_piece(i) for i in range(sp.get_piece_size())
                if not (sp.is_control(i) or sp.is_unknown(i) or sp.is_unused(i))]


class MosesBpeCodec:
    """Moses tokenisation + subword-nmt BPE. ``escape`` follows tokenizer.perl's default (on):
    fairseq's example scripts ran the Perl tokenizer, which writes ``&apos;`` etc."""

    kind = "moses+subword-nmt"
    SEPARATOR = "@@"

    def __init__(self, codes: str | Path, *, escape: bool = True):
        try:
            from sacremoses import MosesDetokenizer, MosesTokenizer
            from subword_nmt.apply_bpe import BPE
        except ImportError as exc:
            raise InputError("Moses + BPE needs the 'sacremoses' and 'subword-nmt' packages",
                             hint="pip install 'mtdebias[fairseq]' (or pip install sacremoses subword-nmt)") from exc
        self.path = Path(codes)
        if not self.path.is_file():
            raise InputError("BPE codes file not found", path=self.path,
                             hint="name the subword-nmt codes the fairseq data was encoded with")
        with self.path.open(encoding="utf-8") as handle:
            self._bpe = BPE(handle, separator=self.SEPARATOR)
        self.escape = escape
        self.settings = {"escape": escape}
        self.files = (self.path,)
        self._tokenizers: dict[str, object] = {}
        self._detokenizers: dict[str, object] = {}
        self._classes = (MosesTokenizer, MosesDetokenizer)

    def _tok(self, lang: str):
        if lang not in self._tokenizers:
            self._tokenizers[lang] = self._classes[0](lang=lang or "en")
        return self._tokenizers[lang]

    def _detok(self, lang: str):
        if lang not in self._detokenizers:
            self._detokenizers[lang] = self._classes[1](lang=lang or "en")
        return self._detokenizers[lang]

    def encode(self, text: str, lang: str = "en") -> list[str]:
        tokens = self._tok(lang).tokenize(text, escape=self.escape)
        return self._bpe.process_line(" ".join(tokens)).split()

    def decode(self, pieces: Sequence[str], lang: str = "en") -> str:
        text = " ".join(pieces).replace(self.SEPARATOR + " ", "")
        if text.endswith(self.SEPARATOR):
            text = text[: -len(self.SEPARATOR)]
        return self._detok(lang).detokenize(text.split(), unescape=self.escape).strip()


def train_sentencepiece(lines: Sequence[str], model: str | Path, vocab_size: int) -> Path:
    """Train a joint unigram SentencePiece model on ``lines`` into ``model`` (``….model``).

    One thread, fixed sentence order and seed: the same lines give the same model. No
    ``<s>``/``</s>``/pad pieces: fairseq's dictionary adds its own.
    """
    import sentencepiece as spm

    model = Path(model)
    if model.suffix != ".model":
        raise InputError("a SentencePiece model file must end in .model", path=model)
    model.parent.mkdir(parents=True, exist_ok=True)
    corpus = model.with_suffix(".train.txt")
    corpus.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    spm.set_random_generator_seed(1)
    spm.SentencePieceTrainer.train(
        input=str(corpus), model_prefix=str(model.with_suffix("")), vocab_size=vocab_size,
        model_type="unigram", character_coverage=1.0, unk_id=0, bos_id=-1, eos_id=-1, pad_id=-1,
        hard_vocab_limit=False, num_threads=1, minloglevel=2, shuffle_input_sentence=False,
        input_sentence_size=0)
    corpus.unlink()
    return model


def load_codec(sentencepiece: str | Path | None = None, bpe_codes: str | Path | None = None, *,
               moses_escape: bool = True) -> SubwordCodec:
    """The codec named by exactly one of ``sentencepiece`` / ``bpe_codes``."""
    if (sentencepiece is None) == (bpe_codes is None):
        raise InputError("name exactly one subword model: sentencepiece = MODEL or bpe_codes = CODES")
    if sentencepiece is not None:
        return SentencePieceCodec(sentencepiece)
    return MosesBpeCodec(bpe_codes, escape=moses_escape)
