"""The fairseq backend: a fairseq translation checkpoint behind the translator protocol.

A fairseq model is three parts: the checkpoint (``checkpointN.pt``), the data directory whose
``dict.<src>.txt`` / ``dict.<tgt>.txt`` map pieces to ids, and the subword model the data was
encoded with (SentencePiece, or Moses + subword-nmt BPE codes).
:class:`~.source.FairseqSpec` names them, from a small TOML file or by looking in a directory
(see :func:`~.source.find_spec`: a fairseq model's name is recognised where every name is).

* ``translate``: fairseq's beam search (:class:`~fairseq.sequence_generator.SequenceGenerator`).
* ``sample``: the same generator with the ε-sampling search of :mod:`.fairseq_epsilon`.
* ``score``: one teacher-forced forward pass; log-probabilities per target piece, EOS included.

fairseq is imported lazily (``mtdebias.models.fairseq_env``): importing this module does not need it.
Checkpoints are unpickled with fairseq's configuration classes allow-listed: trusted files only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from ..errors import CheckpointError, InputError
from ..models.fairseq_env import require_fairseq, trusted_fairseq_globals
from ..signature import hash_file, hash_json
from ..models.subword import codec_hash, load_codec
from .source import SPEC_FILE, FairseqSpec, find_spec
from .base import DEFAULT_EPSILON, BaseTranslator, Scored, source_seed

class FairseqTranslator(BaseTranslator):
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

    # what a fairseq: spec takes; the parts (data, subword model, languages) are its fairseq.toml's
    options = ("device", "batch_tokens", "max_len_a", "max_len_b")

    @classmethod
    def from_spec(cls, rest: "str | ModelSource", **kwargs) -> "FairseqTranslator":
        """``fairseq:MODEL`` (a ``.pt`` file, a save folder or a ``fairseq.toml``), or a fairseq
        model classified by its path (:func:`~.load.classify`): its ``.pt`` file, else its
        last checkpoint, with the parts it names."""
        if not rest:
            raise InputError("fairseq: no model given", hint="write fairseq:MODEL.pt, a save folder or a fairseq.toml")
        for key in ("src_lang", "tgt_lang"):  # M2M100/NLLB options; a fairseq pair is fixed by its task
            if kwargs.pop(key, None) is not None:
                raise InputError(f"{key} applies to M2M100/NLLB checkpoints, not to fairseq models",
                                 hint="set source_lang/target_lang in fairseq.toml instead")
        path = Path(rest) if isinstance(rest, str) else rest.path
        spec = find_spec(path) if isinstance(rest, str) else rest.fairseq
        if spec is None:
            raise InputError("not a fairseq model", path=path, hint="name a .pt file, a save folder or a fairseq.toml")
        return cls.from_parts(spec, path if path.suffix == ".pt" else None, **kwargs)

    @classmethod
    def from_parts(cls, spec: FairseqSpec, checkpoint: Path | None = None, **kwargs) -> "FairseqTranslator":
        """One checkpoint of ``spec`` (default: its last), with the parts the spec names."""
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
