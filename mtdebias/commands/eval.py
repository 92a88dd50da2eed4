"""``mtdebias eval``: score checkpoints with a suite, or run one probe on any translator.

* ``mtdebias eval RUN_DIR|CHECKPOINT… --suite eval/quick.toml [--watch]``
* ``mtdebias eval --probe winomt --lang de --data en.txt --translations FILE --json``
* ``mtdebias eval --probe wsd_bias --lang de --data items.jsonl --translations FILE --json``
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from ..options import Range, check_value
from ..probes.base import OPTION_HELP
from ..probes.registry import PROBES
from ..translators.specs import kinds
from .key_values import parse_pairs


# seconds between two looks of --watch at the run (each lists its checkpoints and reads its log):
# a checkpoint takes seconds or more to train and save, so looking more often than once a second
# finds nothing new and only keeps a core busy; 0 would spin, a negative wait is no wait at all
WATCH_INTERVAL = Range(1, high=86400, high_open=False, why="seconds, at least one and at most a day")


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "eval", help="score checkpoints with a suite, or run one probe",
        description="Score every checkpoint of runs with an evaluation suite (stored results with the same "
                    "signature are skipped; an interrupted evaluation resumes), or run a single probe on a "
                    "model (stored and resumed like a suite's result, label NAME-single) or on a file of "
                    "translations (printed only).")
    parser.add_argument("targets", nargs="*", type=Path, help="run directories, checkpoint directories, hub ids "
                             "(org/name or org/name@REV, resolved through the Hugging Face cache), or fairseq "
                             "models (a save directory of *.pt files, one .pt, or a fairseq.toml naming "
                             "checkpoints, dictionaries and subword model)")
    parser.add_argument("--revision", help="hub revision (branch, tag or commit) for hub ids given as targets")
    parser.add_argument("--translator", action="append", default=[], metavar="SPEC",
                        help="a system named by a spec KIND:REST instead of a checkpoint (kinds: "
                             f"{', '.join(kinds())}), e.g. hf-causal:MODEL (decoder-only LM), openai:MODEL@URL "
                             "(OpenAI-compatible server), apertium:en-es (rule-based); a target written as a spec "
                             "is the same")
    parser.add_argument("--translator-option", action="append", default=[], metavar="KEY=VALUE",
                        help="an option of the --translator (e.g. prompt=..., api_key_env=...), JSON if it parses")
    parser.add_argument("--suite", type=Path, help="suite TOML (see eval/)")
    parser.add_argument("--watch", action="store_true", help="keep scoring new checkpoints until training ends")
    parser.add_argument("--interval", type=float, default=30.0,
                        help="seconds between looks with --watch (1 to 86400)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="fill a suite placeholder, e.g. --set tgt_lang=de")
    parser.add_argument("--backend", default=None, help="hf or ct2 (default: the suite's [suite] backend, else hf)")
    parser.add_argument("--compute-type", default=None, help="ct2 only: int8, float32, …")
    parser.add_argument("--limit", type=_positive, metavar="N",
                        help="score N items of each probe that takes a limit, a random sample spread over its "
                             "data (drawn with the probe's seed, kept in data order; not the first N) and recorded "
                             "in the result's signature: a quick look before a full run")
    parser.add_argument("--only", action="append", default=[], metavar="LABEL",
                        help="with --suite: score only the probe labelled LABEL (repeatable), stored as the whole "
                             "suite stores it, so a later run of the suite skips it (with --limit, under the "
                             "limited label)")
    single = parser.add_argument_group("a single probe")
    single.add_argument("--probe", help=f"probe name: {', '.join(PROBES.entries)} (or without the version)")
    single.add_argument("--lang", help="target language")
    single.add_argument("--data", help="probe data file (e.g. WinoMT en.txt, wsd_bias items.jsonl)")
    single.add_argument("--pro", help="WinoMT en_pro.txt (for ΔS)")
    single.add_argument("--anti", help="WinoMT en_anti.txt (for ΔS)")
    single.add_argument("--templates", help="template file replacing the shipped one")
    single.add_argument("--src", help="quality: source file")
    single.add_argument("--ref", help="quality: reference file")
    single.add_argument("--translations", help="precomputed translations: 'source ||| translation' lines, "
                                               "a 'from,to' CSV (GEST's layout), or a plain file aligned with --src")
    single.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="any other probe option (value read as JSON if it parses; see docs/reference/probes.md), "
                             "e.g. " + "; ".join(f"{key}: {what}" for key, what in OPTION_HELP.items()).replace("%", "%%"))
    single.add_argument("--allow-missing", action="store_true",
                        help="with --translations: sources missing from the file give an empty translation "
                             "(counted undetected) instead of an error")
    single.add_argument("--attempts", type=Path, help="write the per-item log (JSON lines) here")
    single.add_argument("--json", action="store_true", help="print the metrics as JSON")
    parser.set_defaults(func=run)


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of items ≥ 1, got {text!r}")
    return int(text)


def _suite_translator(suite: Path) -> str | None:
    from ..evaluation.suite import load_suite

    return load_suite(suite).translator


def run(args: argparse.Namespace) -> int:
    from ..errors import InputError
    from ..translators.load import classify

    if args.only and (args.probe or not args.suite):
        raise InputError("--only picks probes of a suite by label", hint="give --suite (not --probe), or drop --only")
    if args.only:  # a mistyped label fails before any model is looked up or downloaded
        from ..evaluation.runner import with_only
        from ..evaluation.suite import load_suite

        with_only(load_suite(args.suite), args.only)
    if args.probe and args.attempts:  # before any download, probe or model: the log is written at the end
        _check_attempts(args)
    check_value(args.interval, float, WATCH_INTERVAL, "--interval")
    # each name is classified once, here (translators/load.py: classify): hub ids become snapshot
    # folders of the local cache, translator specs are checked (kind, did-you-mean, options) and
    # their hub models fetched; every later step reads what this found
    args.translator_options = parse_pairs(args.translator_option, "translator-option")
    args.targets = [classify(t, revision=args.revision, download=True, options=args.translator_options,
                             given_as="--translator-option") for t in [*args.targets, *args.translator]]
    for source in args.targets:
        if source.kind == "gguf":  # an LLM, asked by a prompt
            raise InputError(f"{source.name} is a GGUF file", path=source.name,
                             hint=f"name it as hf-causal:{source.name} (transformers), ct2-causal:{source.name} "
                                  f"(CTranslate2) or llamacpp:{source.name} (llama.cpp)")
    if args.probe:
        return _run_single(args)
    if not args.suite or not (args.targets or _suite_translator(args.suite)):
        raise InputError("give run or checkpoint directories (or a --translator) and --suite, or --probe for "
                         "a single probe")
    from ..evaluation.runner import evaluate, watch

    overrides = {k: str(v) for k, v in parse_pairs(args.overrides, "set").items()}
    if args.watch and len(args.targets) != 1:
        raise InputError("--watch follows one run directory")
    # before any model is loaded; an empty run would "succeed" having scored nothing
    args.targets = args.targets or [classify(_suite_translator(args.suite))]
    _places(args.targets, allow_empty=args.watch,
            hint="train it first (mtdebias train RECIPE), or follow the training with --watch")
    if args.watch:
        outcome = watch(args.targets[0], args.suite, overrides, interval=args.interval,
                        on_outcome=lambda o: print("\n".join(f"scored {s}" for s in o.scored), flush=True),
                        backend=args.backend, compute_type=args.compute_type, limit=args.limit,
                        only=args.only)
    else:
        outcome = evaluate(args.targets, args.suite, overrides, backend=args.backend,
                           compute_type=args.compute_type, translator_options=args.translator_options,
                           limit=args.limit, only=args.only)
    for label in outcome.scored:
        print(f"scored   {label}")
    print(f"{len(outcome.scored)} scored, {len(outcome.skipped)} already stored, {len(outcome.failed)} failed")
    for name, why in outcome.failed.items():
        print(f"FAILED   {name}: {why}", file=sys.stderr)
    return 1 if outcome.failed and not outcome.scored and not outcome.skipped else 0


def _places(targets: list, allow_empty: bool, hint: str) -> list:
    """(store, checkpoint) of every checkpoint of ``targets`` (classified), after checking that each
    target's results folder can be written and (unless ``allow_empty``) that it has checkpoints."""
    from ..store.atomic import check_writable
    from ..errors import InputError
    from ..evaluation.runner import locate

    places = []
    for target in targets:
        store, checkpoints = locate(target)
        check_writable(store.dir, f"results folder of {target.name}")
        if not checkpoints and not allow_empty:
            raise InputError("no checkpoints to score in this run directory", path=target.name, hint=hint)
        places += [(store, checkpoint) for checkpoint in checkpoints]
    return places


def _check_attempts(args: argparse.Namespace) -> None:
    """--attempts names a file that can be written (the write would fail only after the probe
    ran): not a folder, not an input, not a run's own file, and if a file is there, an attempts
    log (JSON objects, one a line) that an earlier --attempts wrote."""
    from ..store.atomic import check_writable
    from ..store.outputs import check_output_file, is_json_lines

    inputs = [args.src, args.ref, args.data, args.pro, args.anti, args.templates, args.translations, *args.targets]
    check_output_file(args.attempts, "--attempts", role="the per-item log", inputs=inputs, ours=is_json_lines,
                      example="attempts.jsonl")
    check_writable(args.attempts.parent, "--attempts")


def _run_single(args: argparse.Namespace) -> int:
    from ..store.atomic import write_jsonl
    from ..errors import InputError
    from ..evaluation.runner import build_single_probe, evaluate_probe

    options = {k: v for k, v in {"lang": args.lang, "data": args.data, "pro": args.pro, "anti": args.anti,
                                 "templates": args.templates, "src": args.src, "ref": args.ref}.items()
               if v is not None}
    options.update(parse_pairs(args.option))
    if args.limit is not None:
        options["limit"] = args.limit
    flags = {k: f"--{k}" for k in ("lang", "data", "pro", "anti", "templates", "src", "ref", "limit")}
    probe = build_single_probe(args.probe, options, flags)  # bad options fail before any model is loaded
    if args.targets and not args.translations:  # a model: scored like a suite's probe, stored and reused
        return _run_single_stored(args, options, flags)
    if args.translations:
        from ..translators.file import FileTranslator

        if not Path(args.translations).is_file():
            raise InputError("translations file not found", path=args.translations,
                             hint="pass a file of 'source ||| translation' lines, or one aligned with --src")

        # 'source ||| translation' lines stand alone; a plain file needs --src beside it
        from ..translators.file import is_from_to_csv

        with open(args.translations, encoding="utf-8", errors="replace") as handle:
            paired = "|||" in handle.readline() or is_from_to_csv(args.translations)
        translator = FileTranslator(args.translations, sources=None if paired else args.src,
                                    allow_missing=args.allow_missing)
    else:
        raise InputError("--probe needs a checkpoint directory or --translations FILE")
    result = evaluate_probe(probe, translator)
    for reason in result.meta.get("degenerate", ()):
        print(f"warning: the result says nothing: {reason}", file=sys.stderr)
    truncated = result.meta.get("truncated_inputs", 0)
    if truncated:
        print(f"warning: {truncated} input(s) longer than the model's positions were cut to fit and translated "
              "only in part", file=sys.stderr)
    mismatched = translator.mismatched_lines
    if mismatched:
        print(f"warning: {args.translations}: the source differs from the probe's data on line(s) "
              f"{', '.join(map(str, mismatched))}; matched the other lines by line number and gave "
              f"these no translation (an empty reply: left out by a probe that checks replies, undetected "
              f"in the others)", file=sys.stderr)
    for finding in result.meta.get("data_findings", []) if isinstance(result.meta, dict) else []:
        print(f"data check: {finding}", file=sys.stderr)
    missing = translator.missing
    if missing:
        print(f"warning: {len(missing)} source(s) not in {args.translations}, e.g. {missing[0]!r}", file=sys.stderr)
    if args.attempts:
        write_jsonl(args.attempts, result.attempts)
    summary = _summary(result.probe, result.signature, [m.to_dict() for m in result.metrics], truncated,
                       result.meta.get("degenerate"))
    print(json.dumps(summary, ensure_ascii=False, indent=2) if args.json else _lines(summary))
    return 0


def _summary(probe: str, signature: str, metrics: list[dict], truncated: int,
             degenerate: list[str] | None = None) -> dict:
    """What ``--json`` prints of one result (``metrics``: rows as :meth:`Metric.to_dict` writes them;
    one without a finite value has value null and ``undefined``: its n and why, as the report says it)."""
    return {"probe": probe, "signature": signature, "metrics": {m["metric"]: _defined(probe, m) for m in metrics},
            # a result that says nothing says so in its JSON too, not only on stderr
            **({"degenerate": degenerate} if degenerate else {}),
            **({"truncated_inputs": truncated} if truncated else {})}


def _defined(probe: str, metric: dict) -> dict:
    """``metric`` as it is, or, without a finite value (a ΔH below its floor, a t without
    coverage), with value null — JSON has no NaN, and a "nan" reads as a number — and why."""
    value = metric.get("value")
    if isinstance(value, (int, float)) and math.isfinite(value):
        return metric
    from ..report.views.page import undefined_reason

    why = undefined_reason(probe, metric["metric"])
    return {**metric, "value": None, "ci": None, "undefined": f"n={metric.get('n')}" + (f"; {why}" if why else "")}


def _lines(summary: dict) -> str:
    lines = []
    for name, metric in summary["metrics"].items():
        ci = f"  [{metric['ci'][0]:.4f}, {metric['ci'][1]:.4f}]" if metric.get("ci") else ""
        value = metric.get("value")
        shown = f"{value:.4f}{ci}" if value is not None else f"undefined ({metric['undefined']})"
        lines.append(f"{name:<24} {shown}")
    return "\n".join(lines + [summary["signature"]])


def _run_single_stored(args: argparse.Namespace, options: dict, flags: dict) -> int:
    """``--probe`` on models (checkpoints, runs, hub ids, translator specs): a one-probe suite
    through :func:`mtdebias.evaluation.runner.evaluate`, so the result is stored in the run store (shown by
    ``mtdebias report``; a rerun with the same settings reads it back instead of decoding), then
    printed from what was stored."""
    from ..store.atomic import write_jsonl
    from ..errors import InputError
    from ..probes.registry import PROBES
    from ..evaluation.runner import check_target_language, evaluate, single_suite
    from ..evaluation.suite import probe_options

    canonical = PROBES.canonical(args.probe, where="--probe")
    accepted = probe_options(canonical)
    if "beam" in accepted and "beam" not in options and any(t.decoder_only for t in args.targets):
        options["beam"] = 1  # greedy, as the LLM suites decode; a beam of 5 costs an LLM five times the time
    suite = single_suite(args.probe, options, flags)
    for target in args.targets:  # before any model is loaded
        if args.lang:
            check_target_language(target, args.lang)
    places = _places(args.targets, allow_empty=False, hint="train it first (mtdebias train RECIPE)")
    if args.attempts and len(places) > 1:
        raise InputError(f"--attempts writes the items of one checkpoint; {len(places)} are scored here",
                         hint="name one checkpoint, or read each one's attempts from its run's eval folder")
    if "beam" in accepted:  # what decodes is the costliest choice: say it before it starts
        beam = options.get("beam", accepted["beam"].default)
        print(f"eval: {canonical}: beam {beam}" + (" (greedy, the default for decoder-only LMs; --option beam=N "
                                                   "for a beam search)" if beam == 1 and "beam" not in
                                                   parse_pairs(args.option) else ""), file=sys.stderr, flush=True)
    languages = {k: v for k, v in (("src_lang", "en"), ("tgt_lang", args.lang)) if v}
    outcome = evaluate(args.targets, suite, backend=args.backend, compute_type=args.compute_type,
                       translator_options={**languages, **args.translator_options})
    for name, why in outcome.failed.items():
        print(f"FAILED   {name}: {why}", file=sys.stderr)
    if outcome.failed:
        return 1
    label = suite.probes[0].label
    summaries = []
    for store, checkpoint in places:
        request = outcome.requests[(str(checkpoint), label)]  # stored under another label if a suite computed it
        rows = [row for row in store.results(checkpoint) if row.get("request") == request]
        if f"{checkpoint.name}: {label}" in outcome.skipped:
            print(f"eval: {checkpoint.name}: {label}: stored with these settings, read back (not decoded again)",
                  file=sys.stderr)
        meta = next((row["meta"] for row in rows if isinstance(row.get("meta"), dict)), {})
        for finding in meta.get("data_findings", []):
            print(f"data check: {finding}", file=sys.stderr)
        metrics = [{key: row.get(key) for key in ("metric", "value", "ci", "n")} for row in rows
                   if row.get("metric") != "skipped"]
        summary = _summary(canonical, rows[0]["signature"] if rows else "", metrics, meta.get("truncated_inputs", 0),
                           meta.get("degenerate"))
        summaries.append({"checkpoint": str(checkpoint), **summary} if len(places) > 1 else summary)
    if args.json:
        print(json.dumps(summaries if len(places) > 1 else summaries[0], ensure_ascii=False, indent=2))
    else:
        print("\n".join(f"{s['checkpoint']}:\n{_lines(s)}" if len(places) > 1 else _lines(s) for s in summaries))
    if args.attempts:
        store, checkpoint = places[0]
        request = outcome.requests[(str(checkpoint), label)]
        stored_as = next((row["label"] for row in store.results(checkpoint) if row.get("request") == request), label)
        write_jsonl(args.attempts, store.read_attempts(checkpoint, stored_as)
                    if store.has_attempts(checkpoint, stored_as) else [])
    return 0
