"""The fairseq backend: a fairseq translation checkpoint behind the translator protocol.

A fairseq model is three parts: the checkpoint (``checkpointN.pt``), the data directory whose
``dict.<src>.txt`` / ``dict.<tgt>.txt`` map pieces to ids, and the subword model the data was
encoded with (SentencePiece, or Moses + subword-nmt BPE codes). :class:`FairseqSpec` names
them, from a small TOML file or by looking in a directory (see :func:`find_spec`).

* ``translate``: fairseq's beam search (:class:`~fairseq.sequence_generator.SequenceGenerator`).
* ``sample``: the same generator with the ε-sampling search of :mod:`.fairseq_epsilon`.
* ``score``: one teacher-forced forward pass; log-probabilities per target piece, EOS included.

fairseq is imported lazily (``mtdebias.models.fairseq_env``): importing this module does not need it.
Checkpoints are unpickled with fairseq's configuration classes allow-listed: trusted files only.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from ..errors import CheckpointError, InputError
from ..models.fairseq_env import require_fairseq, trusted_fairseq_globals
from ..signature import hash_file, hash_json
from ..models.subword import codec_hash, load_codec
from ..textio import parse_toml, read_text
from .base import DEFAULT_EPSILON, Scored, source_seed

SPEC_FILE = "fairseq.toml"
SPEC_KEYS = {"checkpoints", "data", "sentencepiece", "bpe_codes", "moses_escape", "source_lang",
             "target_lang", "results"}
_NUMBERED = re.compile(r"checkpoint(\d+)\.pt$|checkpoint_(\d+)_(\d+)\.pt$")
_SPM_NAMES = ("sentencepiece.bpe.model", "spm.model", "sentencepiece.model")
_BPE_NAMES = ("bpecodes", "bpe.codes", "codes", "code")


@dataclass
class FairseqSpec:
    """Where a fairseq model's parts are. ``checkpoints``: the .pt files, in training order."""

    checkpoints: list[Path]
    data: Path | None = None  # None: the data directory recorded in the checkpoint
    sentencepiece: Path | None = None
    bpe_codes: Path | None = None
    moses_escape: bool = True
    source_lang: str | None = None
    target_lang: str | None = None
    results: Path | None = None
    origin: Path | None = field(default=None, compare=False)  # the TOML or directory it came from

    def results_dir(self) -> Path:
        """Where ``mtdebias eval`` stores results: ``results``, else beside the checkpoints."""
        if self.results is not None:
            return self.results
        folder = self.checkpoints[0].parent
        return folder.parent / f"{folder.name}.mtdebias"


def checkpoint_order(path: Path) -> tuple:
    """Epoch checkpoints (``checkpoint3.pt``) by epoch, update checkpoints by update, others last."""
    match = _NUMBERED.search(path.name)
    if match is None:
        return (1, 0, 0, path.name)
    if match.group(1) is not None:
        return (0, int(match.group(1)), 0, path.name)
    return (0, int(match.group(2)), int(match.group(3)), path.name)


def list_checkpoints(folder: Path) -> list[Path]:
    """fairseq's saved checkpoints in a save directory. ``checkpoint_last``/``checkpoint_best``
    copy a numbered one, so they are listed only when there is no numbered checkpoint."""
    found = sorted(folder.glob("*.pt"))
    numbered = [p for p in found if _NUMBERED.search(p.name)]
    return sorted(numbered or found, key=checkpoint_order)


def load_spec_file(path: Path) -> FairseqSpec:
    """Read a ``fairseq.toml``; paths in it are relative to the file."""
    data = parse_toml(read_text(path), path)
    unknown = sorted(set(data) - SPEC_KEYS)
    if unknown:
        raise InputError(f"unknown key(s) {', '.join(unknown)}", path=path,
                         hint=f"a fairseq model file takes {', '.join(sorted(SPEC_KEYS))}")
    base = path.parent

    def resolve(key: str) -> Path | None:
        value = data.get(key)
        if value is None:
            return None
        if not isinstance(value, str):
            raise InputError(f"'{key}' must be a path string", path=path)
        resolved = Path(os.path.normpath(base / Path(value).expanduser()))
        if key != "results" and not resolved.exists():
            raise InputError(f"'{key}' = {value!r}: {resolved} does not exist", path=path)
        return resolved

    where = resolve("checkpoints") or base
    checkpoints = list_checkpoints(where) if where.is_dir() else [where]
    if not checkpoints:
        raise InputError(f"no *.pt checkpoint in {where}", path=path, hint="set checkpoints = FILE or FOLDER")
    spec = FairseqSpec(checkpoints=checkpoints, data=resolve("data"), sentencepiece=resolve("sentencepiece"),
                       bpe_codes=resolve("bpe_codes"), moses_escape=bool(data.get("moses_escape", True)),
                       source_lang=data.get("source_lang"), target_lang=data.get("target_lang"),
                       results=resolve("results"), origin=path)
    if spec.sentencepiece is not None and spec.bpe_codes is not None:
        raise InputError("both 'sentencepiece' and 'bpe_codes' given", path=path, hint="name one subword model")
    return spec


def _find_subword(folders: Sequence[Path]) -> dict[str, Path]:
    for folder in folders:
        for name in _SPM_NAMES:
            if (folder / name).is_file():
                return {"sentencepiece": folder / name}
        for name in _BPE_NAMES:
            if (folder / name).is_file():
                return {"bpe_codes": folder / name}
    return {}


def find_spec(target: Path) -> FairseqSpec | None:
    """The fairseq model ``target`` names, or None when it is not one.

    ``target`` may be a ``fairseq.toml`` (or any TOML with a ``checkpoints`` key), a directory
    holding one, a fairseq save directory (``*.pt``) whose dictionaries and subword model sit in
    it (or, for the dictionaries, in the data directory recorded in the checkpoint), or one
    ``.pt`` file with the same around it.
    """
    target = Path(target)
    if target.is_file() and target.suffix == ".toml":
        return load_spec_file(target)
    if target.is_dir() and (target / SPEC_FILE).is_file():
        return load_spec_file(target / SPEC_FILE)
    if target.is_file() and target.suffix == ".pt":
        if (target.parent / SPEC_FILE).is_file():
            spec = load_spec_file(target.parent / SPEC_FILE)
            return FairseqSpec(**{**spec.__dict__, "checkpoints": [target]})
        folder, checkpoints = target.parent, [target]
    elif target.is_dir() and not (target / "config.json").exists() and list_checkpoints(target):
        folder, checkpoints = target, list_checkpoints(target)
    else:
        return None
    dicts = [d for d in (folder, folder.parent) if list(d.glob("dict.*.txt"))]
    return FairseqSpec(checkpoints=checkpoints, data=dicts[0] if dicts else None,
                       **_find_subword([folder, folder.parent, *dicts]), origin=target)


class FairseqTranslator:
    def __init__(self, checkpoint: str | Path, *, data: str | Path | None = None,
                 sentencepiece: str | Path | None = None, bpe_codes: str | Path | None = None,
                 moses_escape: bool = True, source_lang: str | None = None, target_lang: str | None = None,
                 device: str | None = None, batch_tokens: int = 4000, max_len_a: float = 0.0,
                 max_len_b: int = 128):
        """Load ``checkpoint`` (a fairseq ``.pt``) with the dictionaries in ``data`` (default: the
        data directory recorded in the checkpoint) and the subword model it was trained with.
        Output length is capped at ``max_len_a · source length + max_len_b`` pieces."""
        require_fairseq("a fairseq checkpoint")
        import torch
        from fairseq import checkpoint_utils

        self.checkpoint = Path(checkpoint)
        if not self.checkpoint.is_file():
            raise CheckpointError(f"{self.checkpoint}: no such fairseq checkpoint file")
        # subword model first: a missing file is the user's to fix before a model is unpickled
        if sentencepiece is None and bpe_codes is None:
            raise InputError(f"no subword model found for {self.checkpoint}",
                             hint=f"put spm.model (or bpecodes) beside the checkpoints, or write a {SPEC_FILE} "
                                  "naming sentencepiece = … or bpe_codes = … (see README 'fairseq models')")
        self.codec = load_codec(sentencepiece, bpe_codes, moses_escape=moses_escape)
        overrides: dict[str, Any] = {}
        if data is not None:
            data = Path(data)
            if not data.is_dir():
                raise InputError("fairseq data directory not found", path=data,
                                 hint="it must hold dict.<src>.txt and dict.<tgt>.txt")
            overrides["data"] = str(data)
        if source_lang:
            overrides["source_lang"] = source_lang
        if target_lang:
            overrides["target_lang"] = target_lang
        try:
            with trusted_fairseq_globals(self.checkpoint):
                state = checkpoint_utils.load_checkpoint_to_cpu(str(self.checkpoint), overrides)
            models, cfg, task = checkpoint_utils.load_model_ensemble_and_task(
                [str(self.checkpoint)], arg_overrides=overrides, state=state)
        except FileNotFoundError as exc:
            raise InputError(f"{self.checkpoint}: dictionary file missing ({exc})",
                             hint="give the data directory holding dict.<src>.txt and dict.<tgt>.txt "
                                  "(data = … in fairseq.toml)") from None
        except (RuntimeError, KeyError, AttributeError) as exc:
            raise CheckpointError(f"{self.checkpoint}: not a loadable fairseq translation checkpoint ({exc})") from None
        self.cfg, self.task = cfg, task
        self.src_dict, self.tgt_dict = task.source_dictionary, task.target_dictionary
        # the task fills in the language pair from the data directory when the cfg left it open
        self.source_lang, self.target_lang = task.cfg.source_lang, task.cfg.target_lang
        self.data = Path(task.cfg.data.split(":")[0])
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.model = models[0].to(self.device).eval()
        self.batch_tokens = batch_tokens
        self.max_len_a, self.max_len_b = max_len_a, max_len_b
        max_source, max_target = self.model.max_positions()
        self._max_source = int(max_source)
        self._max_target = int(max_target)
        self._identity = "fairseq:" + hash_json([
            hash_file(self.checkpoint), hash_file(self._dict_file(self.source_lang)),
            hash_file(self._dict_file(self.target_lang)), codec_hash(self.codec)])

    @classmethod
    def from_spec(cls, spec: FairseqSpec, checkpoint: Path | None = None, **kwargs) -> "FairseqTranslator":
        return cls(checkpoint or spec.checkpoints[-1], data=spec.data, sentencepiece=spec.sentencepiece,
                   bpe_codes=spec.bpe_codes, moses_escape=spec.moses_escape, source_lang=spec.source_lang,
                   target_lang=spec.target_lang, **kwargs)

    def _dict_file(self, lang: str) -> Path:
        for path in (self.data / f"dict.{lang}.txt", self.data / "dict.txt"):
            if path.is_file():
                return path
        raise InputError(f"dict.{lang}.txt not found", path=self.data)

    # -- encoding ------------------------------------------------------------------------
    def _source_ids(self, text: str):
        pieces = self.codec.encode(text, self.source_lang)[: self._max_source - 1]
        return self.src_dict.encode_line(" ".join(pieces), add_if_not_exist=False, append_eos=True).long()

    def _target_ids(self, text: str):
        pieces = self.codec.encode(text, self.target_lang)[: self._max_target - 1]
        return self.tgt_dict.encode_line(" ".join(pieces), add_if_not_exist=False, append_eos=True).long()

    def _decode(self, ids) -> str:
        d = self.tgt_dict
        pieces = [d[i] for i in ids.tolist() if i not in (d.eos(), d.pad(), d.bos())]
        return self.codec.decode(pieces, self.target_lang)

    def _source_batch(self, rows: list):
        from fairseq.data import data_utils

        import torch

        tokens = data_utils.collate_tokens(rows, self.src_dict.pad(), self.src_dict.eos(), left_pad=True)
        lengths = torch.tensor([len(r) for r in rows], dtype=torch.long)
        return tokens.to(self.device), lengths.to(self.device)

    def _generator(self, beam: int, search=None, temperature: float = 1.0):
        from fairseq.sequence_generator import SequenceGenerator

        return SequenceGenerator([self.model], self.tgt_dict, beam_size=beam, max_len_a=self.max_len_a,
                                 max_len_b=self.max_len_b, max_len=self._max_target,
                                 temperature=temperature, search_strategy=search)

    # -- protocol --------------------------------------------------------------------------
    def translate(self, sources: Sequence[str], beam: int = 5) -> list[str]:
        import torch

        from .hf import length_batches

        encoded = [self._source_ids(s) for s in sources]
        generator = self._generator(beam)
        out = [""] * len(sources)
        with torch.inference_mode():
            for batch in length_batches([len(e) for e in encoded], max(self.batch_tokens // max(beam, 1), 1)):
                tokens, lengths = self._source_batch([encoded[i] for i in batch])
                hypos = generator.generate([self.model], {"net_input": {"src_tokens": tokens, "src_lengths": lengths}})
                for index, nbest in zip(batch, hypos):
                    out[index] = self._decode(nbest[0]["tokens"])
        return out

    def sample(self, sources: Sequence[str], n: int = 128, epsilon: float = DEFAULT_EPSILON,
               temperature: float = 1.0, seed: int = 0) -> list[list[str]]:
        """``n`` ε-samples per source, as text (see :meth:`sample_ids` for the pieces)."""
        return [[self._decode(ids) for ids in row] for row in self.sample_ids(sources, n, epsilon, temperature, seed)]

    def sample_ids(self, sources: Sequence[str], n: int = 128, epsilon: float = DEFAULT_EPSILON,
                   temperature: float = 1.0, seed: int = 0) -> list[list]:
        """Target-id tensors (EOS last) of ``n`` ε-samples per source.

        Each source is sampled alone with its own generator, seeded from ``seed`` and the
        source text: its samples do not depend on which other sentences are in the call, and
        torch's global RNG is left untouched.
        """
        import torch

        from .fairseq_epsilon import EpsilonSampling

        if temperature <= 0:
            raise InputError(f"temperature must be > 0, got {temperature}")
        out = []
        with torch.inference_mode():
            for source in sources:
                rng = torch.Generator(device=self.device)
                rng.manual_seed(source_seed(seed, source))
                generator = self._generator(n, EpsilonSampling(self.tgt_dict, epsilon, rng), temperature)
                tokens, lengths = self._source_batch([self._source_ids(source)])
                hypos = generator.generate([self.model], {"net_input": {"src_tokens": tokens, "src_lengths": lengths}})
                out.append([h["tokens"].cpu() for h in hypos[0]])
        return out

    def score(self, sources: Sequence[str], targets: Sequence[str]) -> list[Scored]:
        """Teacher-forced log-probabilities of ``targets`` (per piece, EOS included)."""
        if len(sources) != len(targets):
            raise ValueError(f"score: {len(sources)} sources but {len(targets)} targets")
        return self.score_ids([self._source_ids(s) for s in sources], [self._target_ids(t) for t in targets])

    def score_ids(self, source_ids: Sequence, target_ids: Sequence) -> list[Scored]:
        import torch
        from fairseq.data import data_utils

        from .hf import length_batches

        d = self.tgt_dict
        out: list[Scored | None] = [None] * len(source_ids)
        with torch.inference_mode():
            for batch in length_batches([len(s) + len(t) for s, t in zip(source_ids, target_ids)], self.batch_tokens):
                tokens, lengths = self._source_batch([source_ids[i] for i in batch])
                targets = [target_ids[i] for i in batch]
                # the decoder reads EOS first, then the target shifted right (fairseq's convention)
                previous = data_utils.collate_tokens(targets, d.pad(), d.eos(), left_pad=False,
                                                     move_eos_to_beginning=True).to(self.device)
                padded = data_utils.collate_tokens(targets, d.pad(), d.eos(), left_pad=False).to(self.device)
                net_output = self.model(tokens, lengths, previous)
                lprobs = self.model.get_normalized_probs(net_output, log_probs=True).float()
                token_lp = lprobs.gather(-1, padded.unsqueeze(-1)).squeeze(-1)
                for row, index in enumerate(batch):
                    length = len(targets[row])
                    values = tuple(float(v) for v in token_lp[row, :length])
                    pieces = tuple(d[i] for i in targets[row].tolist())
                    out[index] = Scored(total=float(sum(values)), tokens=values, pieces=pieces)
        return out  # type: ignore[return-value]

    def signature(self) -> str:
        return self._identity
