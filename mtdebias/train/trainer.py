"""The training loop, on ``accelerate`` (one CPU, one GPU, or several under ``accelerate launch``).

What it guarantees:

* **Exact resume.** Batches are a pure function of (pairs, seed, epoch); a checkpoint stores
  model, optimizer, scheduler, RNG states and the position in the epoch. A resumed run
  continues with the very next batch; its weights match an uninterrupted run's.
* **Atomic checkpoints.** Each is written under a temporary name and renamed when complete.
* **LoRA** (``train.lora_rank > 0``, :mod:`.lora`): the model is frozen and the optimizer holds
  the adapters only; a checkpoint holds the merged weights and, for resuming, the adapters.
* **Hooks.** ``on_epoch_start(epoch)`` runs before the epoch's pairs are requested (the data
  may change each epoch: SwitchEntity); ``on_checkpoint(path)`` runs after each save
  (per-checkpoint evaluation, re-projection for debiasing).
"""

from __future__ import annotations

import errno
import json
import logging
import os
import pickle
import random
import shutil
import time
from contextlib import contextmanager, nullcontext
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol, Sequence

import numpy as np
import torch

from ..store.atomic import write_json
from ..progress import progress as show_progress
from ..recipe.schema import TrainConfig
from ..store.runs import COMPLETE_MARKER, RunStore, checkpoint_name
from .batching import Encoded, collate, encode_pairs, make_batches
from .resume_files import load_state_file
from .schedule import inverse_sqrt_factor

log = logging.getLogger(__name__)


class PairSource(Protocol):
    def pairs(self, epoch: int) -> tuple[list[str], list[str]]: ...


@dataclass
class StaticPairs:
    """The same training pairs every epoch (no augmentation)."""

    sources: list[str]
    targets: list[str]

    def pairs(self, epoch: int) -> tuple[list[str], list[str]]:
        return self.sources, self.targets


@dataclass
class TrainerState:
    step: int = 0  # optimizer updates done
    epoch: int = 0  # current epoch (0-based)
    batch_in_epoch: int = 0  # batches of the current epoch already consumed
    tokens: int = 0  # target tokens trained on
    best: dict = field(default_factory=dict)  # metric -> {"value", "checkpoint"}
    history: list = field(default_factory=list)  # one validation record per checkpoint
    num_processes: int = 1  # batches are sharded by process: a resume must use the same count


class Trainer:
    def __init__(self, *, config: TrainConfig, run_dir: str | Path, model, tokenizer, source: PairSource,
                 seed: int, dev: tuple[Sequence[str], Sequence[str]] | None = None,
                 tgt_lang: str | None = None, accelerator=None,
                 quality: Callable[[Any, Any, str, int], dict[str, float]] | None = None,
                 encode: Callable[[Sequence[str], Sequence[str], int], Encoded] | None = None):
        """``quality(model, tokenizer, device, step)`` → {"bleu": …, "chrf": …} on the dev set,
        built by the pipeline (the trainer knows no translator or probe); none = dev loss only.
        ``encode(sources, targets, max_len)`` turns pairs into token ids: none = the tokenizer's
        source and target sides (an encoder-decoder); a decoder-only model's come from the
        prompts its translator renders (:func:`.batching.joined_pairs`)."""
        from accelerate import Accelerator

        self.config = config
        self.store = RunStore(run_dir)
        self.tokenizer = tokenizer
        self.source = source
        self.seed = seed
        self.dev = dev
        self.tgt_lang = tgt_lang
        self.quality = quality
        self.encode = encode or (lambda sources, targets, max_len: encode_pairs(tokenizer, sources, targets, max_len))
        # step_scheduler_with_optimizer=False: accelerate would otherwise step the schedule once
        # per process, running warm-up N times too fast on N GPUs
        self.accelerator = accelerator or Accelerator(
            mixed_precision=config.mixed_precision if torch.cuda.is_available() else "no",
            cpu=not torch.cuda.is_available(), step_scheduler_with_optimizer=False)
        self.on_epoch_start: list[Callable[[int], None]] = []
        self.on_checkpoint: list[Callable[[Path], None]] = []
        self.before_save: list[Callable[[], None]] = []
        self.state = TrainerState(num_processes=self.accelerator.num_processes)
        self.pad_id = tokenizer.pad_token_id
        # Marian starts decoding from pad; M2M100/NLLB/mBART from eos or a language token
        start = getattr(model.config, "decoder_start_token_id", None)
        self.start_id = self.pad_id if start is None else start
        _seed_everything(seed + self.accelerator.process_index)
        self.model = model
        self.lora = None
        if config.lora_rank:  # adapters in place, every weight of the model frozen (lora.py)
            from .lora import LoraAdapters

            self.lora = LoraAdapters.add(model, rank=config.lora_rank, alpha=config.lora_alpha,
                                         dropout=config.lora_dropout, modules=config.lora_modules, seed=seed)
        decay, no_decay = [], []
        for name, param in model.named_parameters():
            # under LoRA the optimizer holds the adapters only; full fine-tuning keeps every
            # parameter as it always has (Marian's frozen sinusoidal positions too: leaving them
            # out would change the optimizer state's layout and break resuming older runs)
            if self.lora is not None and not param.requires_grad:
                continue
            (no_decay if param.ndim < 2 or "norm" in name else decay).append(param)
        optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": config.weight_decay},
                                       {"params": no_decay, "weight_decay": 0.0}],
                                      lr=config.lr, betas=(0.9, 0.98), eps=1e-9)
        scheduler = torch.optim.lr_scheduler.LambdaLR(
            optimizer, lambda step: inverse_sqrt_factor(step + 1, config.warmup_steps))
        self.model, self.optimizer, self.scheduler = self.accelerator.prepare(model, optimizer, scheduler)
        self.loss_fn = torch.nn.CrossEntropyLoss(ignore_index=-100, label_smoothing=config.label_smoothing,
                                                 reduction="sum")

    # -- public ----------------------------------------------------------------------------
    def resume(self) -> bool:
        """Load the newest intact checkpoint of the run, if any. True when resumed.

        Each checkpoint is read in full before anything is applied; one that cannot be read
        (truncated weights or optimizer state, a damaged ``trainer_state.json``) or whose training
        state does not fit this model (an ``optimizer.pt`` copied from another run) is set aside as
        ``.step-N.damaged`` with a warning saying why, and the next older one is tried.
        """
        from ..errors import CheckpointError

        candidates = self.store.training_checkpoints()
        while candidates:
            checkpoint = candidates.pop()
            try:
                loaded = self._read_checkpoint(checkpoint)
            except CheckpointError as exc:
                if self.accelerator.is_main_process:
                    aside = self.store.set_aside(checkpoint)
                    older = candidates[-1].name if candidates else "the start (no intact checkpoint is left)"
                    log.warning("checkpoint %s is damaged (%s): moved to %s; resuming from %s",
                                checkpoint.name, exc, aside.name, older)
                self.accelerator.wait_for_everyone()
                continue
            self._apply_checkpoint(checkpoint, *loaded)
            return True
        if self.accelerator.is_main_process:
            self.store.truncate_log(0)  # lines of an attempt killed before its first save
        return False

    def _read_checkpoint(self, checkpoint: Path) -> tuple:
        """Everything a resume needs from ``checkpoint``, read without changing the trainer."""
        from safetensors import SafetensorError
        from safetensors.torch import load_file

        from ..errors import CheckpointError

        part = "trainer_state.json"
        try:
            state = TrainerState(**json.loads((checkpoint / COMPLETE_MARKER).read_text(encoding="utf-8")))
            weights = checkpoint / "model.safetensors"
            part = weights.name if weights.exists() else "pytorch_model.bin"
            state_dict = load_file(str(weights)) if weights.exists() else torch.load(
                checkpoint / "pytorch_model.bin", map_location="cpu", weights_only=True)
            if self.lora is not None:
                from .lora import ADAPTER_FILE

                part = ADAPTER_FILE
                adapters = self.lora.read(checkpoint, self.unwrapped)
            else:
                adapters = None
            part = "optimizer.pt"
            optimizer = load_state_file(checkpoint / "optimizer.pt")
            part = "scheduler.pt"
            scheduler = load_state_file(checkpoint / "scheduler.pt")
            part = f"rng_state_{self.accelerator.process_index}.pt"
            rng = load_state_file(checkpoint / part)
            part = "scaler.pt"
            scaler = (load_state_file(checkpoint / part)
                      if self.accelerator.scaler is not None and (checkpoint / part).exists() else None)
        except (OSError, EOFError, RuntimeError, ValueError, TypeError, KeyError, SafetensorError,
                json.JSONDecodeError, pickle.UnpicklingError) as exc:
            raise CheckpointError(f"{part} could not be read: {type(exc).__name__}: {str(exc)[:200]}") from exc
        model_keys = set(self.unwrapped.state_dict())
        if not set(state_dict) & model_keys:
            raise CheckpointError(f"{part} holds no weights of this model")
        misfit = self._misfit(optimizer, scheduler, rng)
        if misfit:
            raise CheckpointError(f"{misfit[0]} does not fit this run ({misfit[1]}; copied from another model or run?)")
        if self.lora is not None:
            # the merged weights of adapted layers are no weights of this model (its own are the
            # frozen base_layer ones, from model.init); every other weight is taken as saved
            state_dict = {key: value for key, value in state_dict.items() if key in model_keys}
        return state, state_dict, adapters, optimizer, scheduler, rng, scaler

    def _misfit(self, optimizer: Any, scheduler: Any, rng: Any) -> tuple[str, str] | None:
        """(file, why) when a training state read whole cannot be applied to this trainer (another
        model's optimizer.pt copied in, say). Checked before anything is applied: load_state_dict,
        or the first optimizer step, would otherwise fail the same way at every rerun, with the
        model already half loaded."""
        groups = self.optimizer.param_groups
        if not (isinstance(optimizer, dict) and isinstance(optimizer.get("state"), dict)
                and isinstance(optimizer.get("param_groups"), list)
                and all(isinstance(group, dict) for group in optimizer["param_groups"])):
            return "optimizer.pt", "it is no optimizer state"
        saved = [group.get("params", []) for group in optimizer["param_groups"]]
        sizes, ours = [len(ids) for ids in saved], [len(group["params"]) for group in groups]
        if sizes != ours:
            return "optimizer.pt", f"it holds parameter groups of {sizes} parameters, this model's have {ours}"
        # AdamW's moments have their parameter's shape: a model of another size has other shapes
        shapes = {idx: tuple(param.shape) for ids, group in zip(saved, groups) for idx, param in zip(ids, group["params"])}
        for idx, entry in optimizer["state"].items():
            if not isinstance(entry, dict) or idx not in shapes:
                return "optimizer.pt", f"it holds a state for parameter {idx!r}, which this model does not have"
            for name, value in entry.items():
                if isinstance(value, torch.Tensor) and value.dim() and tuple(value.shape) != shapes[idx]:
                    return "optimizer.pt", (f"its {name} of parameter {idx} has shape {tuple(value.shape)}, the "
                                            f"parameter {shapes[idx]}")
        if not (isinstance(scheduler, dict) and isinstance(scheduler.get("last_epoch"), int)
                and len(scheduler.get("base_lrs") or ()) == len(groups)
                and len(scheduler.get("lr_lambdas") or ()) == len(groups)):
            return "scheduler.pt", f"it is no learning-rate schedule of {len(groups)} parameter group(s)"
        current = _get_rng_state()
        try:
            _set_rng_state(rng)  # a trial: the state is put back at once
        except (KeyError, TypeError, ValueError, IndexError, RuntimeError) as exc:
            return f"rng_state_{self.accelerator.process_index}.pt", f"{type(exc).__name__}: {str(exc)[:200]}"
        finally:
            _set_rng_state(current)
        return None

    def _apply_checkpoint(self, checkpoint: Path, state, state_dict, adapters, optimizer, scheduler, rng,
                          scaler) -> None:
        if state.num_processes != self.accelerator.num_processes:
            from ..errors import CheckpointError

            raise CheckpointError(f"{checkpoint} was written by {state.num_processes} process(es), this run has "
                                  f"{self.accelerator.num_processes}: batches would be split differently, so the "
                                  "resume would skip or repeat data; resume with the same process count")
        self.accelerator.unwrap_model(self.model).load_state_dict(state_dict, strict=False)
        if adapters is not None:
            self.lora.load(self.unwrapped, adapters)
        self.optimizer.load_state_dict(optimizer)
        self.scheduler.load_state_dict(scheduler)
        self.state = state
        if scaler is not None:
            self.accelerator.scaler.load_state_dict(scaler)
        _set_rng_state(rng)
        if self.accelerator.is_main_process:
            self.store.truncate_log(self.state.step)

    @property
    def unwrapped(self):
        return self.accelerator.unwrap_model(self.model)

    def train(self, epochs: int | None = None) -> TrainerState:
        config = self.config
        epochs = config.epochs if epochs is None else epochs
        acc = self.accelerator
        if epochs == 0:
            # nothing to train: the initial model is the run's one checkpoint (step 0), scored like
            # any other, so a released model as it came is a row beside its fine-tuned variants
            self.save()
            return self.state
        announced = False
        while self.state.epoch < epochs and not self._done():
            epoch = self.state.epoch
            for hook in self.on_epoch_start:
                hook(epoch)
            encoded = self._encode_epoch(epoch)
            every = make_batches(encoded, config.max_tokens, self.seed, epoch)
            batches = shard_batches(every, self.accelerator.num_processes, self.accelerator.process_index)
            start = self.state.batch_in_epoch
            # the first epoch this process trains is announced: one shorter than the progress
            # interval (a tiny run's) would otherwise show nothing; later ones keep the interval, so
            # a run of many short epochs is not two lines an epoch
            progress = show_progress(total=len(batches), initial=start, desc=f"epoch {epoch + 1}/{epochs}",
                                     enabled=acc.is_local_main_process, leave=False, unit="batch",
                                     announce=not announced)
            announced = True
            window_loss, window_tokens, window_start = 0.0, 0, time.perf_counter()
            step_tokens = 0
            self.model.train()
            for index in range(start, len(batches)):
                micro = index - start
                last_in_group = (micro + 1) % config.grad_accum == 0 or index == len(batches) - 1
                idle = batches[index] is None  # this rank's share of the epoch's last round is empty
                batch_ids = every[0] if idle else batches[index]
                batch = {k: v.to(acc.device) for k, v in collate(encoded, batch_ids, self.pad_id, self.start_id).items()}
                n_tokens = 0 if idle else int((batch["labels"] != -100).sum())
                context = acc.no_sync(self.model) if not last_in_group else nullcontext()
                with context:
                    labels = batch.pop("labels")
                    logits = self.model(**batch).logits
                    loss = self.loss_fn(logits.float().view(-1, logits.size(-1)), labels.view(-1))
                    if idle:  # a zero-weight step: DDP needs every rank to take it, the data counts once
                        loss = loss * 0.0
                    acc.backward(loss / max(n_tokens, 1) / config.grad_accum)
                window_loss += loss.detach().item()
                window_tokens += n_tokens
                step_tokens += n_tokens
                progress.update(1)
                if not last_in_group:
                    continue
                if config.clip_norm > 0:
                    acc.clip_grad_norm_(self.model.parameters(), config.clip_norm)
                self.optimizer.step()
                self.scheduler.step()
                self.optimizer.zero_grad(set_to_none=True)
                self.state.step += 1
                self.state.batch_in_epoch = index + 1
                self.state.tokens += _sum_over_processes(acc, step_tokens)
                step_tokens = 0
                if self.state.step % config.log_every_steps == 0 and acc.is_main_process:
                    elapsed = time.perf_counter() - window_start
                    self.store.log({"step": self.state.step, "epoch": epoch,
                                    "loss": window_loss / max(window_tokens, 1),
                                    "lr": self.scheduler.get_last_lr()[0],
                                    "tokens_per_s": window_tokens / max(elapsed, 1e-9)})
                    progress.set_postfix(loss=f"{window_loss / max(window_tokens, 1):.3f}")
                    window_loss, window_tokens, window_start = 0.0, 0, time.perf_counter()
                if config.save_every_steps and self.state.step % config.save_every_steps == 0 \
                        and index + 1 < len(batches):
                    self.save()
                if self._done():
                    break
            progress.close()
            if self.state.batch_in_epoch >= len(batches):  # the epoch ran to its end
                self.state.epoch += 1
                self.state.batch_in_epoch = 0
                if self.state.epoch % config.save_every_epochs == 0 or self.state.epoch >= epochs or self._done():
                    self.save()
            else:  # stopped inside the epoch by max_steps
                self.save()
        return self.state

    # -- internals -------------------------------------------------------------------------
    def _done(self) -> bool:
        return bool(self.config.max_steps) and self.state.step >= self.config.max_steps

    def _encode_epoch(self, epoch: int) -> Encoded:
        sources, targets = self.source.pairs(epoch)
        encoded = self.encode(sources, targets, self.config.max_len)
        if encoded.dropped_too_long and self.accelerator.is_main_process and self.state.batch_in_epoch == 0:
            # counted once per epoch (switched names change lengths); positions are 0-based pair indices
            self.store.log({"step": self.state.step, "epoch": epoch,
                            "dropped_over_max_len": encoded.dropped_too_long,
                            "first_dropped_pairs": list(encoded.first_dropped), "max_len": self.config.max_len})
        return encoded

    def validate(self) -> dict[str, float]:
        """Dev loss (per target token, no label smoothing) and, if asked, BLEU/chrF."""
        if self.dev is None:
            return {}
        model = self.unwrapped
        model.eval()
        sources, references = list(self.dev[0]), list(self.dev[1])
        encoded = self.encode(sources, references, min(self.config.max_len, model.config.max_position_embeddings))
        total, count = 0.0, 0
        with torch.inference_mode():
            for batch_ids in make_batches(encoded, self.config.max_tokens, 0, 0):
                batch = {k: v.to(self.accelerator.device) for k, v in collate(encoded, batch_ids, self.pad_id, self.start_id).items()}
                labels = batch.pop("labels")
                logits = model(**batch).logits.float()
                total += float(torch.nn.functional.cross_entropy(
                    logits.view(-1, logits.size(-1)), labels.view(-1), ignore_index=-100, reduction="sum"))
                count += int((labels != -100).sum())
        record = {"dev_loss": total / max(count, 1)}
        if self.config.validate_bleu and self.quality is not None:
            record.update(self.quality(model, self.tokenizer, str(self.accelerator.device), self.state.step))
        self.model.train()
        return record

    def save(self) -> Path | None:
        """Write a complete checkpoint atomically; run validation and the checkpoint hooks.

        Every rank runs ``before_save`` hooks (they change weights) and writes its own RNG
        state; the main process writes everything else, renames the folder into place and
        runs the ``on_checkpoint`` hooks (evaluation), so nothing is done twice.
        """
        acc = self.accelerator
        acc.wait_for_everyone()
        name = checkpoint_name(self.state.step)
        final = self.store.checkpoint_path(name)
        if _main_decides(acc, final.exists()):  # the same branch on every rank
            return final
        for hook in self.before_save:
            hook()
        tmp = self.store.checkpoint_tmp(name)
        if acc.is_main_process:
            record = {"step": self.state.step, "epoch": self.state.epoch, **self.validate()}
            self._track_best(record, name)
            with self._writing(tmp, final):
                if tmp.exists():
                    shutil.rmtree(tmp)
                tmp.mkdir(parents=True)
                if self.lora is None:
                    self.unwrapped.save_pretrained(tmp)
                else:  # a full model (merged weights) with the adapters beside it
                    self.lora.save(self.unwrapped, tmp)
                self.tokenizer.save_pretrained(tmp)
                torch.save(self.optimizer.state_dict(), tmp / "optimizer.pt")
                torch.save(self.scheduler.state_dict(), tmp / "scheduler.pt")
                if acc.scaler is not None:  # fp16 loss scale, or resume restarts it at 65536
                    torch.save(acc.scaler.state_dict(), tmp / "scaler.pt")
        acc.wait_for_everyone()
        with self._writing(tmp, final):
            torch.save(_get_rng_state(), tmp / f"rng_state_{acc.process_index}.pt")
        acc.wait_for_everyone()
        if acc.is_main_process:
            with self._writing(tmp, final):
                write_json(tmp / COMPLETE_MARKER, asdict(self.state))
            os.replace(tmp, final)
            self.store.write_best(self.state.best)
            self.store.log({"step": self.state.step, "epoch": self.state.epoch, "checkpoint": name,
                            **{k: v for k, v in record.items() if k not in ("step", "epoch")}})
            for hook in self.on_checkpoint:
                hook(final)
        acc.wait_for_everyone()
        return final

    @contextmanager
    def _writing(self, tmp: Path, final: Path):
        """Turn a failed checkpoint write into a message that says what happened and that the
        previous checkpoint is intact (the half-written folder is removed, freeing its space)."""
        try:
            yield
        except (OSError, RuntimeError) as exc:
            from ..errors import CheckpointError

            full = _disk_full(exc, tmp.parent)  # before the half-written folder frees its space
            shutil.rmtree(tmp, ignore_errors=True)
            previous = self.store.latest_checkpoint()
            intact = (f"the previous checkpoint {previous.name} is intact" if previous is not None
                      else "no earlier checkpoint exists")
            if full:
                raise CheckpointError(f"no space left on device while writing checkpoint {final} ({intact}); "
                                      f"free space on {final.parent} and rerun the same command to resume") from exc
            raise CheckpointError(f"could not write checkpoint {final} ({intact}): {type(exc).__name__}: {exc}; "
                                  "fix the cause and rerun the same command to resume") from exc

    def _track_best(self, record: dict, name: str) -> None:
        for metric, lower_is_better in (("dev_loss", True), ("bleu", False), ("chrf", False)):
            if metric not in record:
                continue
            old = self.state.best.get(metric)
            if old is None or (record[metric] < old["value"] if lower_is_better else record[metric] > old["value"]):
                self.state.best[metric] = {"value": record[metric], "checkpoint": name}
        self.state.history.append(record)


# free space below which a failed write is put down to a full disk
FULL_DISK_SLACK = 64 * 2**20


def _disk_full(exc: BaseException, folder: Path) -> bool:
    """A failed checkpoint write was a full disk: ENOSPC/EDQUOT anywhere in the exception chain,
    or, when no error number says otherwise (PyTorch's zip writer loses it and words the failure
    "unexpected pos …" or "file write failed", differently between versions), almost no space
    left where it was writing."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, OSError) and exc.errno is not None:
            return exc.errno in (errno.ENOSPC, errno.EDQUOT)
        exc = exc.__cause__ or exc.__context__
    try:
        return shutil.disk_usage(folder).free < FULL_DISK_SLACK
    except OSError:
        return False


def shard_batches(batches: list[list[int]], processes: int, rank: int) -> list[list[int] | None]:
    """Rank ``rank``'s batches of an epoch: every ``processes``-th, so each batch goes to exactly
    one rank and a step of N ranks trains on the batches one process would accumulate over N
    micro-steps. Every rank gets the same count (DDP steps together): where the last round has
    fewer batches than ranks, the rest get ``None``, a step that contributes nothing."""
    if processes == 1:
        return list(batches)
    rounds = -(-len(batches) // processes)
    mine: list[list[int] | None] = list(batches[rank::processes])
    return mine + [None] * (rounds - len(mine))


def _main_decides(acc, flag: bool) -> bool:
    if acc.num_processes == 1:
        return flag
    from accelerate.utils import broadcast_object_list

    return bool(broadcast_object_list([flag])[0])


def _sum_over_processes(acc, count: int) -> int:
    if acc.num_processes == 1:
        return count
    return int(acc.reduce(torch.tensor(count, device=acc.device), reduction="sum").item())


def _seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def _get_rng_state() -> dict:
    state = {"python": random.getstate(), "numpy": np.random.get_state(), "torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def _set_rng_state(state: dict) -> None:
    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])
