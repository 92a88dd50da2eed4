"""Run a recipe: data → (augmentation) → tokenizer/model → (debiasing) → training → evaluation.

Each stage reads the frozen :class:`~mtdebias.recipe.Recipe`; this module only wires them.
Rerunning a recipe whose run directory holds checkpoints resumes it.
"""

from __future__ import annotations

import os
import shutil
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

import tomli_w

from .atomic import write_text
from .errors import ConfigError
from .recipe import Recipe, recipe_to_dict
from .store import RunStore
from .textio import read_parallel


def _training_data(recipe: Recipe):
    data = recipe.data
    folder = Path(data.train_src).parent
    # synth.json is written last: without it the folder is incomplete (an interrupted write)
    if data.synth and not (folder / "synth.json").exists():
        from .synth import generate  # the synthetic corpus is made by the run itself

        with _folder_lock(folder):
            if not (folder / "synth.json").exists():  # another variant may have written it meanwhile
                generate(data.tgt_lang, size=data.synth_size, seed=recipe.run.seed).write(folder)
    return read_parallel(data.train_src, data.train_tgt)


@contextmanager
def _folder_lock(folder: Path):
    """An exclusive lock on a folder shared by runs in parallel (ablation variants)."""
    import fcntl

    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _dev_data(recipe: Recipe) -> tuple[list[str], list[str]] | None:
    data = recipe.data
    if data.dev_src is None:
        return None
    dev = read_parallel(data.dev_src, data.dev_tgt)
    return dev.sources[:data.dev_max_sentences], dev.targets[:data.dev_max_sentences]


def check_recipe(recipe: Recipe) -> None:
    """What the recipe package cannot check without importing probes: the eval suite (a broken
    suite fails now, not after the first epoch)."""
    if recipe.eval.suite is not None:
        from .suite import load_suite

        load_suite(recipe.eval.suite)


def prepare_run(recipe: Recipe) -> RunStore:
    """Create the run directory with the resolved recipe and environment record.

    A run directory made from a different recipe is refused rather than mixed.
    """
    store = RunStore(recipe.run_dir)
    resolved = tomli_w.dumps(recipe_to_dict(recipe))
    recipe_file = store.recipe_file
    if recipe_file.exists() and recipe_file.read_text(encoding="utf-8") != resolved and store.checkpoints():
        raise ConfigError(f"run directory {store.dir} holds checkpoints of a different recipe",
                          path=recipe.source or None,
                          hint="choose another run.name (or --set run.name=...), or delete the old run")
    store.dir.mkdir(parents=True, exist_ok=True)
    write_text(recipe_file, resolved)
    store.clear_finished()  # this run is going on again
    if not store.environment_file.exists():  # the record of the run's first start
        store.write_environment(recipe.run.seed)
    return store


def build_model_and_tokenizer(recipe: Recipe, sources: list[str], targets: list[str], store: RunStore):
    from .model import build_model, load_model, marian_config
    from .tokenizer import load_tokenizer, train_tokenizer, vocab_sizes

    if recipe.model.init:
        from transformers import AutoTokenizer

        from .hub import local_model_dir

        init = local_model_dir(recipe.model.init, what="model.init checkpoint")
        return load_model(init), AutoTokenizer.from_pretrained(init)
    tok_dir = store.tokenizer_dir
    if not tok_dir.is_dir():  # trained once, in a temporary folder renamed when complete
        tmp = store.tokenizer_tmp
        shutil.rmtree(tmp, ignore_errors=True)
        train_tokenizer(sources, targets, tmp, vocab_size=recipe.tokenizer.vocab_size, joint=recipe.tokenizer.joint)
        os.replace(tmp, tok_dir)
    tokenizer = load_tokenizer(tok_dir)
    src_vocab, tgt_vocab = vocab_sizes(tokenizer)
    config = marian_config(recipe.model.preset, src_vocab, tgt_vocab, max_positions=recipe.model.max_positions,
                           dropout=recipe.model.dropout)
    return build_model(config, recipe.run.seed), tokenizer


def pair_source(recipe: Recipe, sources: list[str], targets: list[str], store: RunStore):
    from .train.trainer import StaticPairs

    augment = recipe.augment
    if augment.method == "none":
        return StaticPairs(sources, targets)
    from .augment.annotate import annotate_lists
    from .registry import AUGMENTERS

    annotated = augment.annotated or store.annotated_dir
    if augment.annotated is None:
        annotate_lists(sources, targets, annotated, recipe.data.src_lang, recipe.data.tgt_lang,
                       aligner=augment.aligner, types=tuple(augment.types),
                       two_sided=None if augment.two_sided else False,  # None: where a target NER model exists
                       candidates=augment.candidates)
    augmenter = AUGMENTERS.load(augment.method)  # switch_entity.v1 → SwitchEntity
    return augmenter(annotated, seed=recipe.run.seed, p=augment.p, types=augment.types,
                        match_gender=augment.match_gender, unknown_policy=augment.unknown_policy,
                        swap_log=store.swaps_dir if augment.swap_log else None)


def dev_quality(recipe: Recipe, dev: tuple[list[str], list[str]] | None):
    """The trainer's dev BLEU/chrF at each checkpoint: the quality probe on the dev set."""
    if dev is None or not recipe.train.validate_bleu:
        return None
    from .probes.quality import QualityProbe
    from .translators.hf import HFTranslator

    probe = QualityProbe(dev[0], dev[1], recipe.data.tgt_lang, beam=recipe.train.beam)

    def quality(model, tokenizer, device: str, step: int) -> dict[str, float]:
        translator = HFTranslator(model=model, tokenizer=tokenizer, device=device, identity=f"hf:step-{step}")
        result = probe.evaluate(translator)
        return {"bleu": result.metric("bleu").value, "chrf": result.metric("chrf").value}

    return quality


def run_recipe(recipe: Recipe, *, extra_checkpoint_hooks: list[Callable[[Path], None]] = ()) -> RunStore:
    """Train (or resume) the run a recipe describes; returns its store."""
    from .train.trainer import Trainer

    from accelerate import PartialState

    check_recipe(recipe)
    state = PartialState()
    with state.main_process_first():  # data, tokenizer and annotation are made once, by the main process
        store = prepare_run(recipe) if state.is_main_process else RunStore(recipe.run_dir)
        corpus = _training_data(recipe)
        model, tokenizer = build_model_and_tokenizer(recipe, corpus.sources, corpus.targets, store)
        source = pair_source(recipe, corpus.sources, corpus.targets, store)
    debiaser = _debiaser(recipe)
    if debiaser is not None and recipe.debias.when != "posthoc":
        # untie shared embeddings before the optimizer is built, so the encoder's own copy trains
        debiaser.prepare(model)
    dev = _dev_data(recipe)
    trainer = Trainer(config=recipe.train, run_dir=store.dir, model=model, tokenizer=tokenizer, source=source,
                      seed=recipe.run.seed, dev=dev, tgt_lang=recipe.data.tgt_lang,
                      quality=dev_quality(recipe, dev))
    resumed = trainer.resume()
    if debiaser is not None:
        _wire_debiasing(recipe, debiaser, trainer, resumed)
    if recipe.eval.suite and recipe.eval.inline:
        from .runner import checkpoint_evaluator

        evaluator = checkpoint_evaluator(recipe, store)
        trainer.on_checkpoint.append(evaluator)
        if resumed and state.is_main_process:
            for checkpoint in store.checkpoints():  # finish evaluations a kill cut short (stored ones skip)
                evaluator(checkpoint)
    if recipe.eval.suite and not recipe.eval.inline and state.is_main_process:
        _start_watcher(recipe, store)
    trainer.on_checkpoint.extend(extra_checkpoint_hooks)
    trainer.train()
    if state.is_main_process:
        debiased = _debias_final_checkpoint(recipe, store)
        if debiased is not None:
            for hook in trainer.on_checkpoint:
                hook(debiased)
        store.mark_finished({"step": trainer.state.step, "epoch": trainer.state.epoch})
    state.wait_for_everyone()
    return store


def _start_watcher(recipe: Recipe, store: RunStore):
    """eval.inline = false: a separate `mtdebias eval --watch` process scores checkpoints as they
    appear (training does not wait for it) and stops once the run has finished."""
    import subprocess
    import sys

    log = open(store.watch_log, "a", encoding="utf-8")
    return subprocess.Popen([sys.executable, "-m", "mtdebias", "eval", str(store.dir), "--suite",
                             str(recipe.eval.suite), "--watch", "--interval", "15"],
                            stdout=log, stderr=subprocess.STDOUT)


def _debiaser(recipe: Recipe):
    debias = recipe.debias
    if debias.method == "none" or debias.when == "posthoc":
        return None
    from .debias import EncoderDebiaser

    return EncoderDebiaser(method=debias.method, words=debias.words, when=debias.when,
                           multi_token=debias.multi_token, equalise=debias.equalise)


def _wire_debiasing(recipe: Recipe, debiaser, trainer, resumed: bool) -> None:
    if recipe.debias.when == "init" and not resumed:
        debiaser.apply(trainer.unwrapped, trainer.tokenizer)
    elif recipe.debias.when == "every_epoch":
        # re-projecting before every save keeps each checkpoint's projection at zero; training
        # continues from the projected weights, which is what "every epoch" means
        trainer.before_save.append(lambda: debiaser.apply(trainer.unwrapped, trainer.tokenizer))
        trainer.on_checkpoint.append(debiaser.write_last_report)


def _debias_final_checkpoint(recipe: Recipe, store: RunStore) -> Path | None:
    """posthoc: the last checkpoint gets a debiased sibling ``<name>-debiased``, scored like the rest."""
    debias = recipe.debias
    last = store.latest_checkpoint()
    if debias.method == "none" or debias.when != "posthoc" or last is None:
        return None
    out = store.derived_checkpoint(last, "debiased")
    if (out / "debias_report.json").exists():
        return out
    from .debias import debias_checkpoint

    debias_checkpoint(last, out, method=debias.method, words=debias.words, multi_token=debias.multi_token,
                      equalise=debias.equalise)
    return out
