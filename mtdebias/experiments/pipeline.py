"""Run a recipe: data → (augmentation) → tokenizer/model → (debiasing) → training → evaluation.

Each stage reads the frozen :class:`~mtdebias.recipe.Recipe`; this module only wires them.
Rerunning a recipe whose run directory holds checkpoints resumes it.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sys
import tomllib
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import tomli_w

from ..store.atomic import write_json, write_text
from ..errors import ConfigError, InputError, MtdebiasError
from ..recipe import Recipe, recipe_to_dict
from ..store.runs import RunStore
from ..textio import read_parallel

if TYPE_CHECKING:  # the suite module is imported where a recipe names a suite
    from ..evaluation.suite import ProbeSpec

log = logging.getLogger(__name__)


def _training_data(recipe: Recipe):
    data = recipe.data
    folder = Path(data.train_src).parent
    # synth.json is written last: without it the folder is incomplete (an interrupted write)
    if data.synth and not (folder / "synth.json").exists():
        from ..synth import generate  # the synthetic corpus is made by the run itself

        with _folder_lock(folder):
            if not (folder / "synth.json").exists():  # another variant may have written it meanwhile
                generate(data.tgt_lang, size=data.synth_size, seed=recipe.run.seed).write(folder)
    corpus = read_parallel(data.train_src, data.train_tgt, max_chars=data.max_line_chars)
    if not len(corpus):
        raise InputError(f"the training corpus has no usable sentence pairs: "
                         f"{corpus.describe_drops() or 'the files are empty'}", path=data.train_src,
                         hint=f"check data.train_src and data.train_tgt ({data.train_tgt}): both sides need text, "
                              f"at most data.max_line_chars = {data.max_line_chars} characters")
    return corpus


def _report_drops(corpus, recipe: Recipe, store: RunStore) -> dict:
    """Say what was left out of the training data, in the log and in ``data_summary.json``."""
    summary = {"train_src": str(recipe.data.train_src), "train_tgt": str(recipe.data.train_tgt),
               "lines": len(corpus) + sum(d.count for d in corpus.dropped.values()), "pairs": len(corpus),
               "max_line_chars": recipe.data.max_line_chars, "dropped": corpus.drop_summary()}
    write_json(store.data_summary_file, summary)
    if summary["dropped"]:
        log.warning("training data: %d of %d line pairs left out: %s (see %s)", summary["lines"] - len(corpus),
                    summary["lines"], corpus.describe_drops(), store.data_summary_file)
    return summary


def _folder_lock(folder: Path):
    """An exclusive lock on a folder shared by runs in parallel (ablation variants). No timeout:
    its holder writes a corpus, and the kernel drops the lock if it dies."""
    from ..store.locking import FileLock

    return FileLock(folder / ".lock", timeout=None)


@contextmanager
def _locked_run(store: RunStore):
    """Hold the run folder's lock, or stop at once naming who holds it. A second trainer of the
    same run would write the same checkpoint folders and log rows as the first; waiting for it
    would mean waiting hours and then resuming a run that is likely finished, so it is refused."""
    lock = store.run_lock()
    if not lock.acquire(blocking=False):
        holder = lock.holder() or "another process (it has just ended: rerun the command)"
        raise MtdebiasError(f"{store.dir} is being trained by {holder}; two trainers of one run would overwrite "
                            "each other's checkpoints (wait for it to finish or stop it, or choose another "
                            "run.name)")
    try:
        yield
    finally:
        lock.release()


def _dev_data(recipe: Recipe) -> tuple[list[str], list[str]] | None:
    data = recipe.data
    if data.dev_src is None:
        return None
    dev = read_parallel(data.dev_src, data.dev_tgt)
    return dev.sources[:data.dev_max_sentences], dev.targets[:data.dev_max_sentences]


def check_recipe(recipe: Recipe) -> list[str]:
    """What the recipe package cannot check without importing the tools it names: the eval suite
    (each probe's options as this run will fill them, and every file they name), the languages of
    the synthetic corpus and of NER, and the debiasing word lists. A broken suite fails now, not
    after the first epoch. Returns one line per file the suite will read (for ``train --check``)."""
    path = Path(recipe.source) if recipe.source else None
    data = recipe.data
    if data.synth:
        from ..synth import LANGS

        if data.src_lang != "en" or data.tgt_lang not in LANGS:
            raise ConfigError(f"data.synth makes en→{{{', '.join(LANGS)}}} corpora, not "
                              f"{data.src_lang}→{data.tgt_lang}", path=path,
                              hint="set data.src_lang = \"en\" and a supported data.tgt_lang, or synth = false")
    if recipe.augment.method != "none" and recipe.augment.annotated is None:
        from ..ner.taggers import NER_LANGS

        if data.src_lang not in NER_LANGS:
            raise ConfigError(f"augment.method = {recipe.augment.method} annotates the source side with NER, and "
                              f"there is no NER model for data.src_lang = {data.src_lang!r}", path=path,
                              hint=f"NER exists for {', '.join(NER_LANGS)}; or give augment.annotated")
    if recipe.eval.suite is not None:
        from ..evaluation.suite import check_resolved_options, load_suite

        suite = load_suite(recipe.eval.suite)
        context = {"run_dir": str(recipe.run_dir), "src_lang": data.src_lang, "tgt_lang": data.tgt_lang,
                   "data_dir": str(Path(data.train_src).parent)}
        # placeholders the run cannot fill ({winomt}) come from `eval --set` later
        resolved = [(raw, raw.resolved(context, partial=True)) for raw in suite.probes]
        for _, spec in resolved:
            check_resolved_options(spec, path=suite.path)
        read = _check_suite_paths(recipe, suite.path, resolved, context)
    else:
        read = []
    if recipe.debias.method != "none":
        _check_debias(recipe, path)
    if recipe.model.init:
        _check_model_kind(recipe, path)
    if recipe.train.lora_rank:
        from ..train.lora import require_peft

        try:
            require_peft()
        except ConfigError as exc:
            raise ConfigError(exc.message, path=path, hint=exc.hint) from None
    return read


def _check_model_kind(recipe: Recipe, path: Path | None) -> None:
    """model.kind agrees with what model.init is (read from its config), and a causal model's
    prompt options are ones the hf-causal translator takes."""
    from ..translators.source import model_kind

    found = model_kind(recipe.model.init)
    if found != recipe.model.kind:
        what = {"causal": "a decoder-only LM", "seq2seq": "an encoder-decoder model"}[found]
        raise ConfigError(f"model.init = {recipe.model.init} is {what}, but model.kind = {recipe.model.kind!r}",
                          path=path, hint=f"set model.kind = \"{found}\"")
    if found == "causal":
        from ..translators.llm_prompt import TranslationPrompt

        options = _prompt_options(recipe)
        try:
            # chat is not the prompt's: it picks the tokenizer's template or the plain form
            TranslationPrompt.from_options(**{k: v for k, v in options.items() if k != "chat"})
        except (ConfigError, InputError) as exc:
            raise ConfigError(f"[model] prompt options: {exc.message}", path=path, hint=exc.hint) from None


def _prompt_options(recipe: Recipe) -> dict:
    """The hf-causal translator options of a causal recipe, as evaluation reads them from the run's
    stored recipe (:func:`mtdebias.evaluation.runner.prompt_options`)."""
    from ..evaluation.runner import prompt_options

    tables = recipe_to_dict(recipe)
    return prompt_options(tables["model"], tables["data"])


def _check_suite_paths(recipe: Recipe, suite_path: Path, probes: list[tuple["ProbeSpec", "ProbeSpec"]],
                       context: dict[str, str]) -> list[str]:
    """Every file the suite's probes will read for this run exists (or the synthetic corpus
    writes it before training): a missing test split fails now, naming the suite key that made
    the path, instead of ending the run after training without ``finished.json``."""
    data = recipe.data
    made_by_synth: set[Path] = set()
    if data.synth and not (Path(data.train_src).parent / "synth.json").exists():
        from ..synth import SPLITS

        folder = Path(data.train_src).parent
        made_by_synth = {(folder / f"{split}.{name}").resolve() for split in SPLITS
                         for name in (data.src_lang, data.tgt_lang, "meta.jsonl")}
    lines, missing = [], []
    for raw, spec in probes:  # (as the suite wrote it, resolved for this run)
        if not spec.available():  # optional data (if_exists) that is absent: the probe is left out
            lines.append(f"{spec.label}: left out ({spec.if_exists} does not exist)")
            continue
        for key in sorted(spec.paths):
            value = spec.options.get(key)
            if not isinstance(value, str) or not value or "{" in value:  # empty, or filled by `eval --set` later
                continue
            where = f"suite {suite_path}, probe '{spec.label}', {key} = {raw.options[key]!r}"
            resolved = Path(value).resolve()
            if resolved in made_by_synth:
                lines.append(f"{where} → {value} (written by data.synth)")
            elif Path(value).exists():
                lines.append(f"{where} → {value}")
            else:
                missing.append(f"{where} → {value}")
    if missing:
        raise ConfigError(f"the eval suite reads file(s) that do not exist: {'; '.join(missing)}",
                          path=recipe.source or None,
                          hint=f"{{data_dir}} is the folder of data.train_src ({context['data_dir']}): put the "
                               f"files there, or set eval.suite to a suite that names yours")
    return lines


def _check_debias(recipe: Recipe, path: Path | None) -> None:
    """The word list and definitional pairs load now, not after training (post-hoc debiasing)."""
    from ..debias.words import load_definitional_pairs, load_word_list

    debias = recipe.debias
    pairs = debias.pairs or recipe.data.src_lang
    for key, load, value in (("debias.words", load_word_list, debias.words),
                             ("debias.pairs", load_definitional_pairs, pairs)):
        try:
            load(value)
        except InputError as exc:
            extra = " (the default is the shipped list of data.src_lang)" if key == "debias.pairs" and not debias.pairs else ""
            raise ConfigError(f"{key} = {value!r}{extra}: {exc}", path=path,
                              hint=f"fix {key}: a shipped name or a file") from None
    from ..debias.apply import check_eraser_options

    try:
        check_eraser_options(debias.method, debias.options, where="debias.options")
    except InputError as exc:
        raise ConfigError(exc.message, path=path, hint=exc.hint) from None


# keys that change nothing a run has already trained: a resume may change them
_RESUMABLE_CHANGES = {("run", "dir"), ("train", "epochs"), ("train", "max_steps"), ("train", "log_every_steps"),
                      ("train", "save_every_steps"), ("train", "save_every_epochs")}
_RESUMABLE_SECTIONS = {"eval", "ablate"}
# what a run makes before its first checkpoint, and the recipe sections each is made from
_PRODUCTS = {"tokenizer": ("data", "tokenizer", "model"), "annotated": ("data", "augment"),
             "swaps": ("data", "augment"), "log.jsonl": (), "best.json": (), "data_summary.json": (),
             "environment.json": ()}


def training_differences(old: dict, new: dict) -> list[str]:
    """Keys whose resolved values differ between two recipe tables, leaving out those a resume may
    change (evaluation, ablation, how long to train, how often to save or log). A key missing from
    the old recipe (written before the key existed) counts as its default."""
    from dataclasses import MISSING, fields

    changed = []
    for section in (f.name for f in fields(Recipe) if f.name != "source"):
        if section in _RESUMABLE_SECTIONS:
            continue
        defaults = {f.name: None if f.default is MISSING else _plain(f.default) for f in fields(_section_class(section))}
        before_table, after_table = old.get(section, {}), new.get(section, {})
        for key in sorted(set(before_table) | set(after_table)):
            if (section, key) in _RESUMABLE_CHANGES:
                continue
            before = before_table[key] if key in before_table else defaults.get(key)
            after = after_table.get(key)  # recipe_to_dict leaves out None values
            if before != after:
                changed.append(f"{section}.{key} = {after!r} (the run has {before!r})")
    return changed


def _section_class(section: str):
    import typing

    return typing.get_type_hints(Recipe)[section]


def _plain(value):
    return list(value) if isinstance(value, tuple) else (str(value) if isinstance(value, Path) else value)


def _failed_start(folder: Path) -> bool:
    """Only the records a start writes first (recipe.toml, environment.json): it died before
    making anything, so the folder counts as empty."""
    entries = {p.name for p in folder.iterdir() if not p.name.startswith(".")}
    return entries <= {"recipe.toml", "environment.json"}


def prepare_run(recipe: Recipe) -> RunStore:
    """Create the run directory with the resolved recipe and environment record.

    The run directory always describes its contents: a folder trained under a recipe that
    differs in anything that matters for training is refused; one whose start was cut short
    before its first checkpoint is rebuilt (its tokenizer and annotation are remade).
    """
    store = RunStore(recipe.run_dir)
    resolved = tomli_w.dumps(recipe_to_dict(recipe))
    recipe_file = store.recipe_file
    store.clean_stale_temporaries()  # left by a process killed mid-write
    if store.dir.is_dir() and _failed_start(store.dir):
        store.environment_file.unlink(missing_ok=True)  # the record of a start that made nothing
    elif recipe_file.exists() and recipe_file.read_text(encoding="utf-8") != resolved:
        try:
            old = tomllib.loads(recipe_file.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, RecursionError):
            old = {}
        changed = training_differences(old, recipe_to_dict(recipe))
        if changed and store.checkpoints():
            raise ConfigError(f"run directory {store.dir} holds checkpoints trained under another recipe: "
                              + "; ".join(changed), path=recipe.source or None,
                              hint="choose another run.name (or --set run.name=...), undo the change, "
                                   "or delete the old run")
        if changed:  # nothing trained yet: what the first attempt made from other settings is stale
            sections = {item.split(".", 1)[0] for item in changed}
            stale = [name for name, made_from in _PRODUCTS.items()
                     if store.entry(name).exists() and (not made_from or sections & set(made_from))]
            log.warning("%s: the recipe changed before the first checkpoint (%s); remaking %s", store.dir,
                        "; ".join(changed), ", ".join(stale) or "nothing")
            for name in stale:
                product = store.entry(name)
                if product.is_dir():
                    shutil.rmtree(product)
                else:
                    product.unlink(missing_ok=True)
    store.dir.mkdir(parents=True, exist_ok=True)
    write_text(recipe_file, resolved)
    store.clear_finished()  # this run is going on again
    if not store.environment_file.exists():  # the record of the run's first start
        store.write_environment(recipe.run.seed)
    return store


def build_model_and_tokenizer(recipe: Recipe, sources: list[str], targets: list[str], store: RunStore):
    from ..models.model import build_model, load_model, marian_config
    from ..models.tokenizer import load_tokenizer, train_tokenizer, vocab_sizes

    if recipe.model.kind == "causal":
        from ..train.causal import load_causal

        return load_causal(recipe.model.init)  # a GGUF file: converted once to its float folder
    if recipe.model.init:
        from transformers import AutoTokenizer

        from ..models.hub import local_model_dir
        from ..translators.hf import model_language

        init = local_model_dir(recipe.model.init, what="model.init checkpoint")  # resolved when the recipe loaded
        tokenizer = AutoTokenizer.from_pretrained(init)
        for attribute, lang in (("src_lang", recipe.data.src_lang), ("tgt_lang", recipe.data.tgt_lang)):
            if hasattr(tokenizer, attribute):  # M2M100/NLLB: the recipe's pair, in the tokenizer's codes
                setattr(tokenizer, attribute, model_language(tokenizer, lang))
        return load_model(init), tokenizer
    tok_dir = store.tokenizer_dir
    settings = {"vocab_size": recipe.tokenizer.vocab_size, "joint": recipe.tokenizer.joint}
    stamp = tok_dir / "mtdebias_tokenizer.json"
    if stamp.is_file() and json.loads(stamp.read_text(encoding="utf-8")) != settings:
        # prepare_run rebuilds or refuses on a changed recipe; this guards folders made otherwise
        raise ConfigError(f"{tok_dir} was trained with {stamp.read_text(encoding='utf-8').strip()}, the recipe asks "
                          f"for {json.dumps(settings)}", path=recipe.source or None,
                          hint="choose another run.name, or delete the run folder to start over")
    if not tok_dir.is_dir():  # trained once, in a temporary folder renamed when complete
        tmp = store.tokenizer_tmp
        shutil.rmtree(tmp, ignore_errors=True)
        train_tokenizer(sources, targets, tmp, vocab_size=recipe.tokenizer.vocab_size, joint=recipe.tokenizer.joint)
        write_json(tmp / stamp.name, settings)
        os.replace(tmp, tok_dir)
    tokenizer = load_tokenizer(tok_dir)
    src_vocab, tgt_vocab = vocab_sizes(tokenizer)
    config = marian_config(recipe.model.preset, src_vocab, tgt_vocab, max_positions=recipe.model.max_positions,
                           dropout=recipe.model.dropout)
    return build_model(config, recipe.run.seed), tokenizer


def pair_source(recipe: Recipe, sources: list[str], targets: list[str], store: RunStore, annotate: bool = True):
    from ..train.trainer import StaticPairs

    augment = recipe.augment
    if augment.method == "none":
        return StaticPairs(sources, targets)
    from ..augment.annotate import annotate_lists
    from ..probes.registry import AUGMENTERS

    annotated = augment.annotated or store.annotated_dir
    if augment.annotated is None and annotate:
        annotate_lists(sources, targets, annotated, recipe.data.src_lang, recipe.data.tgt_lang,
                       aligner=augment.aligner, types=tuple(augment.types),
                       two_sided=None if augment.two_sided else False,  # None: where a target NER model exists
                       candidates=augment.candidates, max_chars=recipe.data.max_line_chars,
                       name_locale=augment.name_locale or None, corpus_gender=augment.corpus_gender,
                       progress=True)  # shards done, rate and time left: annotation can take an hour
    augmenter = AUGMENTERS.load(augment.method)  # switch_entity.v1 → SwitchEntity
    return augmenter(annotated, seed=recipe.run.seed, p=augment.p, types=augment.types,
                        match_gender=augment.match_gender, unknown_policy=augment.unknown_policy,
                        swap_log=store.swaps_dir if augment.swap_log else None)


def dev_quality(recipe: Recipe, dev: tuple[list[str], list[str]] | None, renderer=None):
    """The trainer's dev BLEU/chrF at each checkpoint: the quality probe on the dev set (a causal
    model translates through ``renderer``, the hf-causal translator on the model in training)."""
    if dev is None or not recipe.train.validate_bleu:
        return None
    from ..probes.quality.probe import QualityProbe
    from ..translators.hf import HFTranslator

    probe = QualityProbe(dev[0], dev[1], recipe.data.tgt_lang, beam=recipe.train.beam)

    def quality(model, tokenizer, device: str, step: int) -> dict[str, float]:
        translator = (renderer.on(model, device) if renderer is not None else
                      HFTranslator(model=model, tokenizer=tokenizer, device=device, identity=f"hf:step-{step}"))
        result = probe.evaluate(translator)
        return {"bleu": result.metric("bleu").value, "chrf": result.metric("chrf").value}

    return quality


def run_recipe(recipe: Recipe, *, extra_checkpoint_hooks: list[Callable[[Path], None]] = ()) -> RunStore:
    """Train (or resume) the run a recipe describes; returns its store."""
    from ..train.distributed import launch_summary, process_state
    from ..train.trainer import Trainer

    check_recipe(recipe)
    state = process_state()
    summary = launch_summary(state)
    if summary and state.is_main_process:
        print(summary, file=sys.stderr, flush=True)
    with ExitStack() as held:  # the run folder stays locked until the run is finished
        with state.main_process_first():  # data, tokenizer and annotation are made once, by the main process
            corpus = _training_data(recipe)  # an unusable corpus fails before the run folder is touched
            if state.is_main_process:  # one trainer per run folder (its ranks are one trainer)
                held.enter_context(_locked_run(RunStore(recipe.run_dir)))
            store = prepare_run(recipe) if state.is_main_process else RunStore(recipe.run_dir)
            if state.is_main_process:
                drops = _report_drops(corpus, recipe, store)
            model, tokenizer = build_model_and_tokenizer(recipe, corpus.sources, corpus.targets, store)
            # the others read what the main process wrote (they enter once it is done)
            source = pair_source(recipe, corpus.sources, corpus.targets, store, annotate=state.is_main_process)
        debiaser = _debiaser(recipe)
        if debiaser is not None and recipe.debias.when != "posthoc":
            # untie shared embeddings before the optimizer is built, so the encoder's own copy trains
            debiaser.prepare(model)
        dev = _dev_data(recipe)
        renderer = _prompt_renderer(recipe, model, tokenizer)
        trainer = Trainer(config=recipe.train, run_dir=store.dir, model=model, tokenizer=tokenizer, source=source,
                          seed=recipe.run.seed, dev=dev, tgt_lang=recipe.data.tgt_lang,
                          quality=dev_quality(recipe, dev, renderer), encode=_joined_encoder(renderer))
        resumed = trainer.resume()
        if state.is_main_process:  # the log's step-0 rows, each written once (a resumed run has them)
            first = {"input": drops}  # what the data lost
            if renderer is not None:  # what evaluation checks its hf-causal translator against (runner.causal_loader)
                first["prompt"] = {"hash": renderer.prompt_hash, "chat": renderer.chat,
                                   "text": renderer._prompt_text("{source}"), "end": renderer._end_text()}
            if trainer.lora is not None:  # how many weights train
                first["lora"] = trainer.lora.summary(trainer.unwrapped)
            logged = store.read_log()
            for key, value in first.items():
                if not any(key in row for row in logged):
                    store.log({"step": 0, key: value})
        if debiaser is not None:
            _wire_debiasing(recipe, debiaser, trainer, resumed)
        if recipe.eval.suite and recipe.eval.inline:
            from ..evaluation.runner import checkpoint_evaluator

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


def _prompt_renderer(recipe: Recipe, model, tokenizer):
    """A causal model's prompts, rendered by the hf-causal translator on the model in training."""
    if recipe.model.kind != "causal":
        return None
    from ..train.causal import PromptRenderer

    return PromptRenderer(model, tokenizer, **_prompt_options(recipe))


def _joined_encoder(renderer):
    """A causal model's training pairs: the token ids of the prompts its translator renders."""
    if renderer is None:
        return None
    from ..train.batching import joined_pairs

    return lambda sources, targets, max_len: joined_pairs(*renderer.prompt_pairs(sources, targets), max_len)


def _start_watcher(recipe: Recipe, store: RunStore):
    """eval.inline = false: a separate `mtdebias eval --watch` process scores checkpoints as they
    appear (training does not wait for it) and stops once the run has finished."""
    import subprocess
    import sys

    from ..textio import open_append

    # appended to, never through a link to a file of the user's
    log = os.fdopen(open_append(store.watch_log, what="the eval --watch log"), "a", encoding="utf-8")
    return subprocess.Popen([sys.executable, "-m", "mtdebias", "eval", str(store.dir), "--suite",
                             str(recipe.eval.suite), "--watch", "--interval", "15"],
                            stdout=log, stderr=subprocess.STDOUT)


def _debiaser(recipe: Recipe):
    debias = recipe.debias
    if debias.method == "none" or debias.when == "posthoc":
        return None
    from ..debias.apply import EncoderDebiaser

    return EncoderDebiaser(method=debias.method, words=debias.words, when=debias.when,
                           multi_token=debias.multi_token, equalise=debias.equalise,
                           pairs=debias.pairs or recipe.data.src_lang, eraser_options=debias.options)


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
    from ..debias.apply import debias_checkpoint

    debias_checkpoint(last, out, method=debias.method, words=debias.words, multi_token=debias.multi_token,
                      equalise=debias.equalise, pairs=debias.pairs or recipe.data.src_lang,
                      eraser_options=debias.options)
    return out
