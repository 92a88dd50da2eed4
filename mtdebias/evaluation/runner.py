"""Score checkpoints with a suite: skip what is stored, resume after interruption.

Each probe's result is stored as soon as it is computed (atomically) under a request key —
the probe type, its options (with the content of the files they name) and the checkpoint's
content hash — known before anything is loaded. A checkpoint whose results are all stored is
skipped without loading its model, and its hash is cached by file stat, so ``--watch`` costs
nothing per poll for scored checkpoints. A killed evaluation loses at most the probe in
progress, and of that probe only the batch being decoded (the others are kept in the run store's
decode journal and reused); a checkpoint that fails to load is reported and skipped.
"""

from __future__ import annotations

import difflib
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from ..errors import CheckpointError, InputError, MtdebiasError
from ..models.hub import snapshot_id
from ..probes.base import Probe, ProbeResult, value_problem
from ..progress import heartbeat, progress
from ..probes.registry import PROBES
from ..signature import Signature, hash_checkpoint_cached, hash_json
from ..store.runs import RunStore, claim_deadline
from .suite import ProbeSpec, Suite, check_probe_options, check_resolved_options, load_suite, probe_options
from ..textio import parse_toml
from ..translators.base import Translator, declared
from ..translators.load import check_backend, classify, load_translator, open_translator
from ..translators.progress import ProgressTranslator
from ..translators.source import FOLDER_BACKENDS, ModelSource
from ..translators.specs import CACHED_KINDS
from ..translators.specs import identity as spec_identity


@dataclass
class EvalOutcome:
    scored: list[str] = field(default_factory=list)  # "checkpoint: probe" computed now
    skipped: list[str] = field(default_factory=list)  # already stored with the same signature
    failed: dict[str, str] = field(default_factory=dict)  # checkpoint → why it could not be scored
    # (checkpoint path, label) → the request its stored rows answer, computed now or found stored
    # (maybe under another label: one computation is stored once), for reading the result back
    requests: dict[tuple[str, str], str] = field(default_factory=dict)


def run_context(store: RunStore) -> dict[str, str]:
    """Placeholder values for a run, from its resolved recipe."""
    if not store.recipe_file.exists():
        return {"run_dir": str(store.dir)}
    data = parse_toml(store.recipe_file.read_text(encoding="utf-8"), store.recipe_file).get("data", {})
    context = {"run_dir": str(store.dir), "src_lang": data.get("src_lang", ""), "tgt_lang": data.get("tgt_lang", "")}
    if data.get("train_src"):
        context["data_dir"] = str(Path(data["train_src"]).parent)
    return context


def locate(source: ModelSource) -> tuple[RunStore, list[Path]]:
    """Where a classified name's results go, and its checkpoints: a run directory → its
    checkpoints; a checkpoint inside a run → that one; a fairseq model → its ``.pt`` files, with
    results beside them (or where its ``fairseq.toml`` says); a spec → one "checkpoint" under
    ./runs/translators/; a hub model → under ./runs/hub/."""
    if source.kind == "spec":
        return RunStore.for_translator(source.name)
    if source.kind == "fairseq":
        return RunStore(source.fairseq.results_dir()), source.fairseq.checkpoints
    return RunStore.locate(source.path, repo_id=source.repo_id)


def check_target_language(target: Path | ModelSource, lang: str, flag: str = "--lang") -> None:
    """Refuse to score ``target`` (a name, or as a command classified it) in a language it does not
    translate into, where its run's recipe says which (a probe would otherwise find no cue in the
    other language and report a meaningless miss rate)."""
    target = classify(target)
    if target.kind != "run":
        return  # a checkpoint from elsewhere or a spec: its config does not say, the user knows
    tgt_lang = run_context(locate(target)[0]).get("tgt_lang")
    if tgt_lang and tgt_lang != lang:
        raise InputError(f"{flag} {lang}: this checkpoint translates into '{tgt_lang}' (data.tgt_lang of its "
                         f"run's recipe), not '{lang}'", path=target.name,
                         hint=f"pass {flag} {tgt_lang}, or a checkpoint trained to translate into '{lang}'")


ProbeCache = dict[tuple, list[tuple[ProbeSpec, Probe]]]


def build_probes(suite: Suite, context: dict[str, str],
                 cache: ProbeCache | None = None) -> list[tuple[ProbeSpec, Probe]]:
    """The suite's probes with placeholders filled from ``context``. Building one can be costly
    (data loading, parsing contrast sets), so checkpoints of a run share them through ``cache``."""
    # the labels too: a suite cut by --only or --limit holds other probes under the same name
    key = (suite.path, suite.name, tuple(spec.label for spec in suite.probes), tuple(sorted(context.items())))
    if cache is not None and key in cache:
        return cache[key]
    probes = []
    for spec in (s.resolved(context) for s in suite.probes):
        if not spec.available():  # optional data (if_exists) absent: the probe is left out
            print(f"suite {suite.name}: probe '{spec.label}' left out: {spec.if_exists} not found", flush=True)
            continue
        check_resolved_options(spec, path=suite.path or None)
        probes.append((spec, spec.build()))
    if cache is not None:
        cache[key] = probes
    return probes


def evaluate_checkpoint(checkpoint: Path, probes: list[tuple[ProbeSpec, Probe]], store: RunStore,
                        outcome: EvalOutcome, make_translator: Callable[[Path], Translator] | None = None,
                        backend: str = "hf", model: str | None = None, later: list | None = None) -> None:
    """``backend`` names how ``make_translator`` opens the checkpoint (``ct2-int8`` …): results
    of another backend answer another request. A request another evaluator has claimed is done
    last: given ``later`` (:func:`evaluate`, over many checkpoints) it is put there for
    :func:`_finish_claimed` after the other checkpoints, else waited for after this one's other requests."""
    try:
        model = model or checkpoint_identity(checkpoint, backend)  # a spec translator brings its own
    except OSError as exc:
        outcome.failed[checkpoint.name] = str(exc)
        return
    stored = _believed_requests(store, checkpoint, probes)
    missing = []
    for spec, probe in probes:
        request = request_key(spec, model, probe)
        outcome.requests[(str(checkpoint), spec.label)] = request
        if request in stored:
            outcome.skipped.append(f"{checkpoint.name}: {spec.label}")
        else:
            missing.append((spec, probe, request))
    if not missing:
        return  # nothing to compute: the model is never loaded
    load = make_translator or load_translator  # a checkpoint named by its path alone: classified there
    try:
        translator = load(checkpoint)
    except (CheckpointError, InputError, OSError) as exc:
        outcome.failed[checkpoint.name] = str(exc)
        return
    waiting = []
    for spec, probe, request in missing:
        claim = store.claim(checkpoint, request)
        if not claim.acquire(blocking=False):  # another evaluator is computing it: do the rest first
            _say(f"{checkpoint.name}: {spec.label} is being computed by {claim.holder() or 'another evaluator'}; "
                 "doing the rest first")
            waiting.append((checkpoint, spec, probe, request, claim, store, load))
            continue
        _say_taken_over(checkpoint, spec, claim)
        _score_claimed(checkpoint, spec, probe, request, claim, translator, store, outcome)
    if later is None:
        _finish_claimed(waiting, outcome, {checkpoint: translator})
    else:
        later.extend(waiting)


def _finish_claimed(waiting: list, outcome: EvalOutcome, loaded: dict[Path, Translator] | None = None) -> None:
    """Wait for each request another evaluator claimed, and compute those it left undone (it
    ended, or its claim was abandoned: :meth:`RunStore.claim`). A checkpoint's model is loaded
    again (one at a time) only for a request that is computed here."""
    loaded = dict(loaded or {})
    for checkpoint, spec, probe, request, claim, store, load in waiting:
        holder = claim.holder()
        if holder:  # a silent wait looks like a hang: say for whom, and until when at most
            _say(f"{checkpoint.name}: {spec.label}: waiting for {holder} (taken over if its heartbeat stops for "
                 f"{claim.abandoned_after:.0f} s)")
        claim.acquire()
        _say_taken_over(checkpoint, spec, claim)
        try:
            if checkpoint not in loaded and request not in _believed_requests(store, checkpoint, [(spec, probe)]):
                loaded = {checkpoint: load(checkpoint)}
        except (CheckpointError, InputError, OSError) as exc:
            claim.release()
            outcome.failed[checkpoint.name] = str(exc)
            continue
        except BaseException:
            claim.release()
            raise
        # _score_claimed looks again and skips a request the holder stored (then no model is needed)
        _score_claimed(checkpoint, spec, probe, request, claim, loaded.get(checkpoint), store, outcome)


def _say(message: str) -> None:
    print(f"eval: {message}", file=sys.stderr, flush=True)


def _say_taken_over(checkpoint: Path, spec: ProbeSpec, claim) -> None:
    if claim.taken_over:  # abandoned by a stopped evaluator (RunStore.claim): it may store its result too
        _say(f"{checkpoint.name}: {spec.label}: took over the abandoned claim of {claim.taken_over}; computing it here")


def _score_claimed(checkpoint: Path, spec: ProbeSpec, probe: Probe, request: str, claim,
                   translator: Translator | None, store: RunStore, outcome: EvalOutcome) -> None:
    """Compute ``request`` under ``claim`` (released here) unless it is stored by now; ``translator``
    is None only where the caller found it stored."""
    label = f"{checkpoint.name}: {spec.label}"
    try:
        # stored by another evaluator between our first look and the claim
        if request in _believed_requests(store, checkpoint, [(spec, probe)]):
            outcome.skipped.append(label)
            return
        # each decoded batch is kept until the result is stored: a kill costs the batch in progress,
        # not the probe (3,888 WinoMT sentences take an LLM about an hour)
        journal = store.decode_journal(checkpoint, request)
        if len(journal):
            _say(f"{label}: resuming: {len(journal)} batch(es) decoded before an interruption are reused")
        with heartbeat(f"eval {label}"):  # a probe can decode for minutes: say so off a terminal
            # and count its sentences, with an ETA: an LLM takes seconds each, hours in all
            result = evaluate_probe(probe, ProgressTranslator(translator, f"eval {label}", journal))
        if result.meta.get("degenerate"):
            print(f"warning: {label}: the result says nothing: {'; '.join(result.meta['degenerate'])}",
                  file=sys.stderr, flush=True)
        if result.meta.get("truncated_inputs"):
            print(f"warning: {label}: {result.meta['truncated_inputs']} input(s) longer than the model's positions "
                  "were cut to fit (recorded as meta.truncated_inputs in the results)", file=sys.stderr, flush=True)
        if result.attempts:
            store.write_attempts(checkpoint, spec.label, result.attempts)
        for kind, table in result.tables.items():
            store.write_table(checkpoint, spec.label, kind, table)
        rows = result.rows() or [{  # a probe with nothing to measure here (GEST's only_for): the request is
            # answered all the same, so the model is not loaded again for it
            "probe": result.probe, "signature": result.signature, "metric": "skipped", "value": None, "ci": None,
            "n": 0, "meta": result.meta}]
        store.add_results(checkpoint, [{**row, "label": spec.label, "request": request} for row in rows],
                          label=spec.label)
        journal.drop()
        outcome.scored.append(label)
    finally:
        claim.release()


def _believed_requests(store: RunStore, checkpoint: Path, probes: list[tuple[ProbeSpec, Any]]) -> set:
    """The requests whose stored rows are all believable: a row with an impossible value (BLEU
    1e308, a NaN accuracy where none can be) is named and its request computed again, not
    counted as "already stored"."""
    specs = {getattr(probe, "name", None): getattr(probe, "specs", ()) for _, probe in probes}

    def check(row: dict) -> str | None:
        return value_problem(specs.get(row.get("probe"), ()), row.get("metric"), row.get("value"))

    good, bad = store.read_results(checkpoint, check)
    path = store.results_file(checkpoint)
    for line, _, problem in bad:
        print(f"warning: {path}:{line}: {problem}; the row is not believed and its result is computed again",
              file=sys.stderr, flush=True)
    damaged = {row.get("request") for _, row, _ in bad if isinstance(row, dict)}
    ruled = _signed_rules(probes)
    for row in good:
        changed = _rule_changes(ruled.get(row.get("label")), row.get("signature"))
        if changed and row.get("request") not in damaged:
            damaged.add(row.get("request"))
            _say(f"{checkpoint.name}: {row.get('label')}: stored under {changed}; this version signs otherwise, "
                 "so it is computed again")
    return {row.get("request") for row in good} - damaged


def _signed_rules(probes: list[tuple[ProbeSpec, Any]]) -> dict[str, dict[str, str]]:
    """Each label's probe-signed rules (``also_signed``: the validity gate, an aggregation), as its
    signature writes them. The request key leaves them out (they are the code's, not the suite's),
    so a result stored under another rule — a gate since given an adequacy floor — would otherwise
    be skipped as stored while its signature names the old rule."""
    rules = {}
    for spec, probe in probes:
        values = probe.signed_rules() if hasattr(probe, "signed_rules") else {}
        rules[spec.label] = dict(Signature.parse(str(Signature("rules", settings=values))).settings)
    return rules


def _rule_changes(rules: dict[str, str] | None, signature: str | None) -> str:
    """The stored signature's settings that disagree with ``rules`` ("gate=…"), or ""."""
    if not rules or not signature:
        return ""
    stored = Signature.parse(signature).settings
    return ", ".join(f"{key}={stored[key]}" for key, value in rules.items() if key in stored and stored[key] != value)


def evaluate_probe(probe: Probe, translator: Translator) -> ProbeResult:
    """``probe.evaluate(translator)``, recording in the result's meta how many of the sources the
    translator had to truncate to the model's positions (their translations cover a part only),
    for an API translator the requests, cache hits and tokens the probe cost, and why the
    result is degenerate when the probe says it is (``degenerate``)."""
    parts = declared(translator)
    before = parts.truncated_inputs
    usage_before = dict(parts.usage or {})
    result = probe.evaluate(translator)
    cut = parts.truncated_inputs - before
    if cut:
        result.meta["truncated_inputs"] = cut
    if parts.usage is not None:
        result.meta["api_usage"] = {k: v - usage_before.get(k, 0) for k, v in parts.usage.items()}
    degenerate = probe.degenerate(result.metrics)
    if degenerate:
        result.meta["degenerate"] = degenerate
    if parts.served_models:  # what the server says answered (an API may swap models)
        result.meta["served_models"] = sorted(parts.served_models)
    return result


def checkpoint_identity(checkpoint: Path, backend: str = "hf") -> str:
    """What request keys name a checkpoint by: its content hash (a transformers folder or a
    fairseq ``.pt`` file), cached by file stat, and the backend when it is not the default."""
    identity = f"checkpoint:{snapshot_id(checkpoint) or hash_checkpoint_cached(checkpoint)}"
    return identity if backend == "hf" else f"{backend}/{identity}"


def request_key(spec: ProbeSpec, model: str, probe: Probe | None = None) -> str:
    """What a stored result answers: probe type, options (with the content of files they name),
    the data the built probe holds (shipped data it loads by default changes between versions)
    and the model's identity. Probes' own signatures may depend on the run (a tuned α), so
    skipping uses this key, known before anything is loaded or decoded."""
    files = {k: hash_checkpoint_cached(v) for k, v in spec.options.items()  # a file's hash, cached by stat
             if isinstance(v, str) and v and Path(v).is_file()}
    data = probe.data_hash if probe is not None else None
    data = data() if callable(data) else data  # quality computes it from its files
    layout = probe.stored_layout if probe is not None else 1
    extra = ([data] if data else []) + ([f"layout:{layout}"] if layout > 1 else [])
    return str(Signature(f"request:{spec.type}", hash_json([spec.options, files] + extra), model))


def backend_tag(backend: str, compute_type: str) -> str:
    """The backend part of a request key: ``hf``, or ``ct2-int8`` (CTranslate2 decodes
    differently from transformers, and int8 differently from float32)."""
    return backend if backend == "hf" else f"{backend}-{compute_type}"


def backend_choice(suite: Suite, backend: str | None = None, compute_type: str | None = None) -> tuple[str, str]:
    """How the suite opens checkpoints; ``backend``/``compute_type`` (the CLI) override it."""
    chosen = backend or suite.backend
    kind = compute_type or (suite.compute_type if chosen == suite.backend else "default")
    check_backend(chosen, kind)
    return chosen, kind


def evaluate(targets: Iterable[Path | str], suite_path: Path | Suite, overrides: dict[str, str] | None = None,
             make_translator: Callable[[Path], Translator] | None = None, cache: ProbeCache | None = None,
             backend: str | None = None, compute_type: str | None = None,
             translator_options: dict[str, Any] | None = None, limit: int | None = None,
             only: Iterable[str] = ()) -> EvalOutcome:
    """Score every checkpoint of ``targets`` (runs, checkpoints, fairseq models or translator specs;
    none: the suite's ``[translator]``) with the suite (a file, or one built in memory: :func:`single_suite`);
    ``translator_options`` go to spec translators; ``limit`` samples that many items in every probe
    that takes a ``limit`` (:func:`with_limit`); ``only`` keeps the probes with these labels
    (:func:`with_only`)."""
    suite = suite_path if isinstance(suite_path, Suite) else load_suite(suite_path)
    if only:
        suite = with_only(suite, only)
    if limit is not None:
        suite = with_limit(suite, limit)
    chosen_backend, kind = backend_choice(suite, backend, compute_type)
    cache = {} if cache is None else cache
    outcome = EvalOutcome()
    jobs = []
    targets = list(targets) or ([suite.translator] if suite.translator else [])
    for target in targets:
        source = classify(target)  # a name from a command comes classified: it is not looked at again
        store, checkpoints = locate(source)
        context = {**run_context(store), **(overrides or {})}
        if source.kind == "spec":  # a system named by a spec: apertium:en-es, hf-causal:MODEL, openai:MODEL@URL
            options = {**(suite.translator_options if source.name == suite.translator else {}),
                       **(translator_options or {}), **_probe_language(suite, context), **_languages(context)}
            model = spec_identity(source, options)  # the cache folder is not part of what the system is
            if source.backend in CACHED_KINDS:
                options["cache_dir"] = str(store.response_cache_dir)
            loader = make_translator or (lambda _, source=source, options=options: open_translator(source, **options))
            tag = backend_tag(chosen_backend, kind)
        else:
            # a fairseq.toml's parts follow its checkpoints; a decoder-only run's open as hf-causal
            loader, tag = run_loader(source, store, chosen_backend, kind, _languages(context))
            loader = make_translator or loader
            model = None
        store.clean_stale_temporaries(evaluation_only=True)  # left by an evaluator killed mid-write
        for spec in suite.probes:  # fail on unfilled placeholders before any model is loaded
            resolved = spec.resolved(context)
            if only and not resolved.available():  # asked for by name: leaving it out is no success
                raise InputError(f"--only {spec.label}: its data {resolved.if_exists} is not there",
                                 path=suite.path or None,
                                 hint="put the data there (the suite's if_exists), or drop this --only")
        jobs += [(store, checkpoint, context, loader, model, tag) for checkpoint in checkpoints]
    # what storing results needs fails before any model is loaded: a bad MTDEBIAS_CLAIM_DEADLINE,
    # a file or a link where a checkpoint's eval/ or .claims folder belongs, a results.jsonl that
    # is no regular file
    claim_deadline()
    for store, checkpoint, *_ in jobs:
        store.check_places(checkpoint)
    claimed_elsewhere: list = []  # waited for after every other checkpoint is done
    for store, checkpoint, context, loader, model, tag in progress(jobs, desc=f"suite {suite.name}",
                                                                   unit="checkpoint"):
        evaluate_checkpoint(checkpoint, build_probes(suite, context, cache), store, outcome, loader, tag,
                            model=model, later=claimed_elsewhere)
    _finish_claimed(claimed_elsewhere, outcome)
    return outcome


def run_loader(source: ModelSource, store: RunStore, backend: str, compute_type: str,
               languages: dict[str, str]) -> tuple[Callable[[Path], Any], str]:
    """How the checkpoints of ``source`` (classified) open, and the backend tag of their request keys."""
    if source.backend == "hf-causal":  # a decoder-only run
        return causal_loader(source, store, backend)
    opened = source.with_backend(backend)
    options: dict[str, Any] = {}
    if opened.backend in FOLDER_BACKENDS:  # M2M100/NLLB need the pair; a fairseq pair is fixed by its task
        options = {**languages, **({"compute_type": compute_type} if opened.backend == "ct2" else {})}
    return (lambda checkpoint: open_translator(opened, checkpoint, **options)), backend_tag(backend, compute_type)


def causal_loader(source: ModelSource, store: RunStore, backend: str = "hf") -> tuple[Callable[[Path], Any], str]:
    """A decoder-only run (``model.kind = "causal"`` in its recipe): each checkpoint opens as the
    ``hf-causal`` translator with the recipe's prompt options and language pair, and must render
    the prompt the run was trained on (the hash its log holds). The backend tag names the options:
    the same weights asked another way are another system."""
    if backend != "hf":
        raise InputError(f"backend {backend!r}: {store.dir} fine-tunes a decoder-only LM, whose checkpoints are "
                         "scored with the hf-causal translator", path=store.dir, hint="drop --backend")
    tables = parse_toml(store.recipe_file.read_text(encoding="utf-8"), store.recipe_file)
    options = prompt_options(tables["model"], tables["data"])
    trained = next((row["prompt"]["hash"] for row in store.read_log() if "prompt" in row), None)

    def load(checkpoint: Path) -> Translator:
        translator = open_translator(source, checkpoint, **options)
        if trained is not None and translator.prompt_hash != trained:
            raise CheckpointError(f"{checkpoint} renders another prompt (hash {translator.prompt_hash}) than its run "
                                  f"was trained on ({trained}): its tokenizer or chat template changed")
        return translator

    return load, f"hf-causal-{hash_json(options)[:12]}"


def watch(run_dir: Path | ModelSource, suite_path: Path, overrides: dict[str, str] | None = None,
          interval: float = 10.0, timeout: float | None = None, on_outcome: Callable[[EvalOutcome], None] | None = None,
          backend: str | None = None, compute_type: str | None = None, limit: int | None = None,
          only: Iterable[str] = ()) -> EvalOutcome:
    """Score checkpoints of a training run as they appear, until the run has finished."""
    total = EvalOutcome()
    started = time.monotonic()
    cache: ProbeCache = {}  # probes are built once, not at every look
    source = classify(run_dir)
    while True:
        finished = locate(source)[0].is_finished()  # read before scoring: no checkpoint is missed
        outcome = evaluate([source], suite_path, overrides, cache=cache, backend=backend,
                           compute_type=compute_type, limit=limit, only=only)
        total.scored += outcome.scored
        total.failed.update(outcome.failed)
        if on_outcome and outcome.scored:
            on_outcome(outcome)
        if finished or (timeout is not None and time.monotonic() - started > timeout):
            return total
        time.sleep(interval)


def prompt_options(model: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    """The hf-causal translator options of a causal run, from its resolved recipe's ``[model]``
    and ``[data]`` tables (as :func:`~mtdebias.recipe.recipe_to_dict` writes them): the language
    pair and the prompt keys the recipe set. Training and evaluation both build their prompts from these."""
    from ..translators.llm_prompt import PROMPT_OPTIONS

    options = {"src_lang": data["src_lang"], "tgt_lang": data["tgt_lang"]}
    for key in PROMPT_OPTIONS:
        if model.get(key) is not None:
            options[key] = str(model[key]) if key == "examples" else model[key]
    return options


def _probe_language(suite, context: dict[str, str]) -> dict[str, str]:
    """``tgt_lang`` from the suite's probes when they all name one (``lang = "de"``): a
    translator told its target language in a prompt (an LLM) needs it, and a suite that already
    says it should not have to say it twice, as ``--probe … --lang de`` does not. Probes that
    disagree say nothing here: the translator's own error then asks for tgt_lang."""
    named = {str(value) for spec in suite.probes
             if isinstance(value := spec.resolved(context, partial=True).options.get("lang"), str)
             and value and "{" not in value}
    return {"tgt_lang": named.pop()} if len(named) == 1 else {}


def _languages(context: dict[str, str]) -> dict[str, str]:
    """The run's (or ``--set``) language pair, for checkpoints that translate many (M2M100, NLLB)."""
    return {key: context[key] for key in ("src_lang", "tgt_lang") if context.get(key)}


def checkpoint_evaluator(recipe, store: RunStore) -> Callable[[Path], None]:
    """The trainer's on_checkpoint hook: score each new checkpoint with the recipe's suite."""
    suite = load_suite(recipe.eval.suite)
    claim_deadline()  # a bad MTDEBIAS_CLAIM_DEADLINE fails before training, not at its first checkpoint
    cache: ProbeCache = {}
    # read once, not at every checkpoint: the run's recipe, and (a causal run) the prompt hash it
    # logged before training, do not change while it trains
    context = run_context(store)
    loader, tag = run_loader(classify(store.dir), store, *backend_choice(suite), _languages(context))

    def hook(checkpoint: Path) -> None:
        outcome = EvalOutcome()
        evaluate_checkpoint(checkpoint, build_probes(suite, context, cache), store, outcome, loader, tag)
        if outcome.failed:
            raise MtdebiasError(f"could not score {checkpoint}: {outcome.failed}")

    return hook


def with_limit(suite: Suite, limit: int) -> Suite:
    """``suite`` with ``limit = N`` in each probe that takes one (``mtdebias eval --limit``): N
    items spread over its data, drawn with the probe's seed. A suite none of whose probes can be
    limited is an error, not a full evaluation the user did not ask for."""
    from dataclasses import replace

    # under a label of their own: a label's rows are superseded by its next result, and a quick
    # look must not replace the full result stored under the probe's own label
    limited = [replace(spec, options={**spec.options, "limit": limit}, label_=limited_label(spec.label, limit))
               if "limit" in probe_options(spec.type) else spec for spec in suite.probes]
    if all("limit" not in spec.options for spec in limited):
        raise InputError(f"--limit {limit}: no probe of suite {suite.name} takes a limit", path=suite.path or None,
                         hint="drop --limit, or set each probe's own *_limit options in the suite")
    return replace(suite, probes=tuple(limited))


def with_only(suite: Suite, labels: Iterable[str]) -> Suite:
    """``suite`` cut to the probes labelled ``labels`` (``mtdebias eval --only``), in the suite's
    order. Nothing else changes: their results are stored under their own labels and request keys,
    so a later run of the whole suite skips them. A label the suite does not have is an error with
    a did-you-mean, before any model is loaded."""
    from dataclasses import replace

    wanted = list(dict.fromkeys(labels))
    have = [spec.label for spec in suite.probes]
    for label in wanted:
        if label not in have:
            close = difflib.get_close_matches(label, have, n=1)
            raise InputError(f"--only {label}: suite {suite.name} has no probe labelled {label}",
                             path=suite.path or None,
                             hint=(f"did you mean {close[0]}? " if close else "")
                             + f"its labels: {', '.join(have)}")
    return replace(suite, probes=tuple(spec for spec in suite.probes if spec.label in wanted))


SINGLE_LABEL = "{name}-single"  # what `eval --probe NAME` stores its results under


def limited_label(label: str, limit: Any) -> str:
    """The label of a probe run on ``limit`` items (``winomt-limit100``)."""
    return f"{label}-limit{limit}"


def single_suite(probe_type: str, options: dict[str, Any], flags: dict[str, str] | None = None) -> Suite:
    """The one-probe suite ``mtdebias eval TARGET --probe NAME …`` scores with, so that its result
    is stored, reported and reused like a suite's. Its label (``winomt-single``, or
    ``winomt-single-limit100``) keeps it from replacing the rows of a suite's own ``winomt``
    entry, or of the full run (a label's rows are superseded by its next result:
    :meth:`RunStore.add_results`); a rerun with other options supersedes it."""
    build_single_probe(probe_type, options, flags)  # bad options fail before any model is loaded
    canonical = PROBES.canonical(probe_type, where="--probe")
    label = SINGLE_LABEL.format(name=canonical.split(".", 1)[0])
    if options.get("limit") is not None:  # a quick look does not replace the full result
        label = limited_label(label, options["limit"])
    return Suite(f"--probe {canonical}", (ProbeSpec(canonical, dict(options), label),))


def single_probe(probe_type: str, options: dict[str, Any], translator: Translator,
                 flags: dict[str, str] | None = None) -> ProbeResult:
    """Run one probe with the given options (``mtdebias eval --probe``)."""
    return evaluate_probe(build_single_probe(probe_type, options, flags), translator)


def build_single_probe(probe_type: str, options: dict[str, Any], flags: dict[str, str] | None = None) -> Probe:
    """The probe ``mtdebias eval --probe`` runs; bad options fail here, before a model is loaded."""
    canonical = PROBES.canonical(probe_type, where="--probe")
    check_probe_options(probe_type, options, flags=flags, given_as="--option")
    check_resolved_options(ProbeSpec(canonical, dict(options)))
    return PROBES.load(canonical)(**options)


__all__ = ["EvalOutcome", "ProbeSpec", "checkpoint_evaluator", "evaluate", "single_probe",
           "single_suite", "watch", "with_limit", "with_only"]
