"""A Hugging Face hub cache built locally, holding tiny random models in the hub's real layouts.

``add_to_hub_cache`` writes a model folder the way ``huggingface_hub`` stores a download
(``models--ORG--NAME/{blobs, snapshots/<commit>, refs/<revision>}``, snapshot files linking to
content-named blobs), so code under test resolves hub ids exactly as it would after ``hf
download``, with HF_HUB_OFFLINE=1. The builders make the three layouts users meet:

* Opus-MT (Marian): separate ``source.spm``/``target.spm``, one shared ``vocab.json`` with
  ``</s>`` = 0, ``<unk>`` = 1 and ``<pad>`` last, which is also the decoder start token;
* M2M100: ``sentencepiece.bpe.model`` + ``vocab.json``, ``__xx__`` language tokens after the vocab;
* NLLB: ``tokenizer.json`` (what transformers 5 reads), ``deu_Latn``-style language tokens.

Weights are random (d_model 32): these test layouts and plumbing, not translation quality.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from toy import toy_corpus
from test_debias import gender_corpus


def add_to_hub_cache(cache_dir: str | Path, repo_id: str, model_dir: str | Path, revision: str = "main") -> str:
    """Store ``model_dir`` as ``repo_id`` at ``revision`` in the cache; returns the commit."""
    model_dir, cache_dir = Path(model_dir), Path(cache_dir)
    files = sorted(p for p in model_dir.rglob("*") if p.is_file())
    digest = hashlib.sha1(repo_id.encode())
    for path in files:
        digest.update(str(path.relative_to(model_dir)).encode() + hashlib.sha256(path.read_bytes()).digest())
    commit = digest.hexdigest()
    repo = cache_dir / f"models--{repo_id.replace('/', '--')}"
    snapshot = repo / "snapshots" / commit
    for path in files:
        blob = repo / "blobs" / hashlib.sha256(path.read_bytes()).hexdigest()
        blob.parent.mkdir(parents=True, exist_ok=True)
        blob.write_bytes(path.read_bytes())
        link = snapshot / path.relative_to(model_dir)
        link.parent.mkdir(parents=True, exist_ok=True)
        if not link.exists():
            link.symlink_to(os.path.relpath(blob, link.parent))
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    (repo / "refs" / revision).write_text(commit)
    return commit


def _corpus(seed: int) -> tuple[list[str], list[str]]:
    """Toy sentences and profession/gender sentences, so hard-debiasing finds its words."""
    src, tgt = toy_corpus(300, seed=seed)
    gsrc, gtgt = gender_corpus(300, seed=seed)
    return src + gsrc, tgt + gtgt


def _spm(texts: list[str], prefix: Path, vocab_size: int) -> Path:
    import sentencepiece as spm

    corpus = prefix.with_suffix(".txt")
    corpus.write_text("\n".join(texts) + "\n", encoding="utf-8")
    spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=str(prefix), vocab_size=vocab_size,
                                   character_coverage=1.0, model_type="unigram", bos_id=-1, eos_id=-1,
                                   pad_id=-1, unk_id=0, minloglevel=2, hard_vocab_limit=False)
    return prefix.with_suffix(".model")


def _pieces(model: Path) -> list[str]:
    import sentencepiece as spm

    processor = spm.SentencePieceProcessor(model_file=str(model))
    return [processor.id_to_piece(i) for i in range(processor.get_piece_size()) if i != processor.unk_id()]


def _small(config_class, **extra):
    return config_class(d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
                        decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64,
                        max_position_embeddings=64, **extra)


def build_opus_mt(folder: Path, seed: int = 0) -> Path:
    import torch
    from transformers import MarianConfig, MarianMTModel, MarianTokenizer

    folder.mkdir(parents=True, exist_ok=True)
    scratch = folder.parent / f".{folder.name}-spm"
    scratch.mkdir(exist_ok=True)
    src, tgt = _corpus(seed)
    source, target = _spm(src, scratch / "source", 120), _spm(tgt, scratch / "target", 120)
    pieces = list(dict.fromkeys(_pieces(source) + _pieces(target)))
    vocab = {"</s>": 0, "<unk>": 1, **{p: i + 2 for i, p in enumerate(pieces)}}
    vocab["<pad>"] = len(vocab)  # last, as Opus-MT ships it
    (folder / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    (folder / "source.spm").write_bytes(source.read_bytes())
    (folder / "target.spm").write_bytes(target.read_bytes())
    tokenizer = MarianTokenizer(str(folder / "source.spm"), str(folder / "target.spm"), str(folder / "vocab.json"),
                                source_lang="en", target_lang="de")
    pad = vocab["<pad>"]
    torch.manual_seed(seed)
    model = MarianMTModel(_small(MarianConfig, vocab_size=len(vocab), pad_token_id=pad, decoder_start_token_id=pad,
                                 eos_token_id=0, forced_eos_token_id=0, share_encoder_decoder_embeddings=True))
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def build_m2m100(folder: Path, seed: int = 0) -> Path:
    import torch
    from transformers import M2M100Config, M2M100ForConditionalGeneration, M2M100Tokenizer

    folder.mkdir(parents=True, exist_ok=True)
    scratch = folder.parent / f".{folder.name}-spm"
    scratch.mkdir(exist_ok=True)
    src, tgt = _corpus(seed)
    model_file = _spm(src + tgt, scratch / "spm", 200)
    vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3, **{p: i + 4 for i, p in enumerate(_pieces(model_file))}}
    (folder / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    (folder / "sentencepiece.bpe.model").write_bytes(model_file.read_bytes())
    tokenizer = M2M100Tokenizer(str(folder / "vocab.json"), str(folder / "sentencepiece.bpe.model"),
                                src_lang="en", tgt_lang="de")
    # the vocab, 100 language tokens, then 8 "madeupword" slots, as facebook/m2m100_418M's config has
    size = max(tokenizer.get_lang_id(code) for code in tokenizer.lang_code_to_token) + 1 + 8
    torch.manual_seed(seed)
    model = M2M100ForConditionalGeneration(_small(M2M100Config, vocab_size=size, pad_token_id=1, bos_token_id=0,
                                                  eos_token_id=2, decoder_start_token_id=2))
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def build_nllb(folder: Path, seed: int = 0) -> Path:
    """transformers 5 reads NLLB's tokenizer from ``tokenizer.json`` (a BPE over Metaspace
    pieces, ``<s> <pad> </s> <unk>`` first, the 200 language codes added as special tokens),
    which is what this writes."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import M2M100Config, M2M100ForConditionalGeneration, NllbTokenizer

    folder.mkdir(parents=True, exist_ok=True)
    src, tgt = _corpus(seed)
    bpe = Tokenizer(models.BPE(unk_token="<unk>"))
    bpe.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always", split=True)
    bpe.train_from_iterator(src + tgt, trainers.BpeTrainer(vocab_size=800, special_tokens=["<s>", "<pad>", "</s>", "<unk>"],
                                                           show_progress=False))
    merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m)
              for m in json.loads(bpe.to_str())["model"]["merges"]]
    tokenizer = NllbTokenizer(vocab=bpe.get_vocab(), merges=merges, src_lang="eng_Latn", tgt_lang="deu_Latn")
    torch.manual_seed(seed)
    model = M2M100ForConditionalGeneration(_small(M2M100Config, vocab_size=len(tokenizer), pad_token_id=1,
                                                  bos_token_id=0, eos_token_id=2, decoder_start_token_id=2))
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


BUILDERS = {"Helsinki-NLP/opus-mt-en-de": build_opus_mt, "facebook/m2m100_418M": build_m2m100,
            "facebook/nllb-200-distilled-600M": build_nllb}
