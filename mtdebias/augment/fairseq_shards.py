"""SwitchEntity for fairseq training: one binarised data shard per epoch.

fairseq-train cycles through colon-separated data directories, one per epoch
(``DIR/epoch1:DIR/epoch2:…``; epoch k reads shard (k-1) mod N). Each shard here holds that
epoch's switched corpus, subword-encoded and binarised by ``fairseq-preprocess``, all with one
shared dictionary, so a checkpoint's ids mean the same in every epoch.

The dictionary depends on the subword model and the unswitched corpus only, never on which
epochs are written, so shards written separately (``--epochs 1-5`` then ``6-10``) fit together:

* SentencePiece: every piece of the model (a switched-in name never maps to ``<unk>``);
* Moses + BPE: every piece of the original corpus, the validation set and every candidate
  name of the annotation (a switch only brings in candidate names).

Counts are from the unswitched corpus. Shards are deterministic in (annotation, seed, epoch,
switch options, subword model); ``shard.json`` records that key and an existing shard with the
same key is kept, so a rerun only writes what is missing.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from ..store import atomic
from ..errors import InputError
from ..models.fairseq_env import require_fairseq, run_fairseq_cli
from ..signature import hash_file, hash_json
from ..models.subword import SentencePieceCodec, SubwordCodec, codec_hash
from .switch import SwitchEntity

SHARD_STAMP = "shard.json"
DICT_FILE = "dict.txt"


def parse_epochs(text: str) -> list[int]:
    """``"1-10"`` → 1…10; ``"1,3,5-6"`` → [1, 3, 5, 6]. Epochs count from 1, as fairseq's do."""
    epochs: list[int] = []
    for part in text.split(","):
        part = part.strip()
        first, dash, last = part.partition("-")
        try:
            lo, hi = int(first), int(last) if dash else int(first)
        except ValueError:
            raise InputError(f"--epochs '{text}': '{part}' is not N or N-M", hint="e.g. --epochs 1-10") from None
        if lo < 1 or hi < lo:
            raise InputError(f"--epochs '{text}': '{part}' is empty or below 1", hint="e.g. --epochs 1-10")
        epochs += range(lo, hi + 1)
    return sorted(set(epochs))


@dataclass
class ShardPlan:
    out: Path
    epochs: list[int]
    src_lang: str
    tgt_lang: str

    def shard(self, epoch: int) -> Path:
        return self.out / f"epoch{epoch}"

    def data_argument(self) -> str:
        """What fairseq-train takes as its data argument, epochs in order."""
        return ":".join(str(self.shard(e)) for e in self.epochs)


def _encode_lines(codec: SubwordCodec, lines: Sequence[str], lang: str) -> list[str]:
    return [" ".join(codec.encode(line, lang)) for line in lines]


def build_dictionary(codec: SubwordCodec, switch: SwitchEntity, src_lang: str, tgt_lang: str,
                     valid: tuple[list[str], list[str]] | None) -> list[tuple[str, int]]:
    """(piece, count) rows of the shared dictionary (see the module docstring)."""
    counts: Counter = Counter()
    for lines, lang in ((switch.sources, src_lang), (switch.targets, tgt_lang)):
        for line in _encode_lines(codec, lines, lang):
            counts.update(line.split())
    if isinstance(codec, SentencePieceCodec):
        return [(piece, counts.get(piece, 0)) for piece in codec.vocabulary()]
    extra: Counter = Counter()
    for side, lang in ((valid or ([], []))[0], src_lang), ((valid or ([], []))[1], tgt_lang):
        for line in _encode_lines(codec, side, lang):
            extra.update(line.split())
    for candidates in switch.lists:
        for src, tgt in candidates:
            extra.update(codec.encode(src, src_lang))
            extra.update(codec.encode(tgt, tgt_lang))
    pieces = sorted(set(counts) | set(extra), key=lambda p: (-counts.get(p, 0), p))
    return [(piece, counts.get(piece, 0)) for piece in pieces]


def write_fairseq_shards(switch: SwitchEntity, annotated_dir: str | Path, epochs: Sequence[int],
                         out_dir: str | Path, codec: SubwordCodec, *, src_lang: str, tgt_lang: str,
                         valid: tuple[list[str], list[str]] | None = None, workers: int = 1,
                         options: dict | None = None, progress=None) -> ShardPlan:
    """Write ``OUT/epochN`` for every epoch (skipping shards already written with the same key)
    and return the plan; ``OUT/dict.txt`` is the shared dictionary, copied into each shard as
    ``dict.<src>.txt`` and ``dict.<tgt>.txt`` by fairseq-preprocess."""
    require_fairseq("--format fairseq")
    if src_lang == tgt_lang:
        raise InputError(f"source and target language are both '{src_lang}'",
                         hint="fairseq names its files by language: pass distinct --src-lang/--tgt-lang")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    plan = ShardPlan(out, list(epochs), src_lang, tgt_lang)
    rows = build_dictionary(codec, switch, src_lang, tgt_lang, valid)
    atomic.write_text(out / DICT_FILE, "".join(f"{piece} {count}\n" for piece, count in rows))
    for copied in codec.files:  # the subword model travels with the data it encoded
        if not (out / copied.name).exists() or hash_file(out / copied.name) != hash_file(copied):
            shutil.copyfile(copied, out / copied.name)
    base_key = {"annotation": hash_file(Path(annotated_dir) / "annotated.jsonl"),
                "candidates": hash_file(Path(annotated_dir) / "candidates.json"),
                "seed": switch.seed, "options": options or {}, "codec": codec_hash(codec),
                "dictionary": hash_file(out / DICT_FILE), "langs": [src_lang, tgt_lang],
                "valid": hash_json(valid) if valid else None}
    work = out / ".work"
    for epoch in plan.epochs:
        key = hash_json({**base_key, "epoch": epoch})
        shard = plan.shard(epoch)
        stamp = shard / SHARD_STAMP
        if stamp.is_file() and json.loads(stamp.read_text(encoding="utf-8")).get("key") == key:
            if progress:
                progress(epoch, None)
            continue
        sources, targets = switch.pairs(epoch)
        stats = dict(switch.last_stats)
        work.mkdir(exist_ok=True)
        atomic.write_text(work / f"train.{src_lang}", "".join(l + "\n" for l in _encode_lines(codec, sources, src_lang)))
        atomic.write_text(work / f"train.{tgt_lang}", "".join(l + "\n" for l in _encode_lines(codec, targets, tgt_lang)))
        arguments = ["--source-lang", src_lang, "--target-lang", tgt_lang, "--trainpref", work / "train",
                     "--srcdict", out / DICT_FILE, "--tgtdict", out / DICT_FILE, "--workers", workers]
        if valid:
            atomic.write_text(work / f"valid.{src_lang}", "".join(l + "\n" for l in _encode_lines(codec, valid[0], src_lang)))
            atomic.write_text(work / f"valid.{tgt_lang}", "".join(l + "\n" for l in _encode_lines(codec, valid[1], tgt_lang)))
            arguments += ["--validpref", work / "valid"]
        # binarise into a hidden folder, then rename: a killed run never leaves a half shard
        building = out / f".epoch{epoch}.building"
        shutil.rmtree(building, ignore_errors=True)
        run_fairseq_cli("preprocess", [*arguments, "--destdir", building], log=work / f"preprocess-epoch{epoch}.log")
        atomic.write_json(building / SHARD_STAMP, {"key": key, "epoch": epoch, "pairs": len(sources),
                                                   "switch": stats, **base_key})
        shutil.rmtree(shard, ignore_errors=True)
        building.rename(shard)
        if progress:
            progress(epoch, stats)
    shutil.rmtree(work, ignore_errors=True)
    return plan


def read_parallel(src: str | Path, tgt: str | Path) -> tuple[list[str], list[str]]:
    """A sentence-aligned validation pair of files, checked for equal length."""
    from ..textio import read_lines

    sources, targets = read_lines(src), read_lines(tgt)
    if len(sources) != len(targets):
        raise InputError(f"{len(sources)} source lines but {len(targets)} target lines in {tgt}", path=src,
                         hint="the validation files must be sentence-aligned")
    return sources, targets
