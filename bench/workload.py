"""The four decoder-only workloads of the probes, on the released GGUF models, through every
route, against the machine's matmul peak and llama.cpp (issue 44).

Gemma 3 270M and SmolLM2-135M-Instruct (runs/released/, ``make released-llms``) on ``--n``
WinoMT sentences en→de (default 200, drawn with the probes' seeded ``spread_sample``), with the
released suites' three German examples and ``max_new_tokens`` 64:

* ``translate``: greedy (beam 1), batched as the route batches;
* ``score``: forced decoding of the references (the commercial system's German translations
  shipped with WinoMT in ../shared/data/winomt/translations-aws/en-de.txt);
* ``sample``: ``--samples`` ε-samples per source (the default ε);
* ``respond``: GenderBench's GestTranslation question (gest_choice's template, both orders:
  two questions per sentence, 16 new tokens) asking which of two German translations of the
  sentence it prefers: the references of the sentence and of its WinoMT twin of the other
  gender (the same sentence with the pronouns swapped; sentences without one are not drawn).

Routes are ``--routes`` specs ``KIND[,KEY=VALUE…]``: any translator kind given the model file and
the options (``hf-causal,share_prefix=false``, ``ct2-causal``, …), and ``llamacpp-batched`` for
llama.cpp driven with multi-sequence batches (bench/llamacpp_batched.py; option ``batch``).
llama.cpp routes get ``n_threads`` = ``--threads``; the others run with torch's threads set to
it. The llama.cpp rows are the anchor; without llama-cpp-python they are listed as skipped.

For each model × route × workload, over ``--repeats`` repeats interleaved (routes in rotated
order each repeat):

* tokens/s and sentences/s: median and spread ((max − min) / median). Tokens are the reply's
  (``translate``, ``sample``, ``respond``: re-tokenized with the file's tokenizer, plus the
  token that ends it) or the scored ones (``score``: the reference and its end);
* the fraction of the machine's matmul peak: a ``--gemm``² matrix product in float32 and in
  bfloat16 on the same threads, timed after every repeat (best of 5; the median over repeats).
  A workload's FLOPs count the work it needs, whatever a route does: 2 × (body + output layer)
  parameters per reply or scored token, and 2 × body parameters per prompt token, the prefix
  all prompts of the call share counted once (``workload_flops``). The body is every parameter
  but the input embedding and the output layer; attention's own products (prompt length ×
  width per token) are left out;
* the ratio of its tokens/s to each llama.cpp row of the same model and workload.

    python bench/workload.py [--models gemma smollm2] [--n 200] [--samples 8] [--repeats 3]
        [--threads 2] [--routes hf-causal hf-causal,share_prefix=false llamacpp llamacpp-batched,batch=8]
        [--workloads translate score sample respond] [--out FILE.json] [--docs docs/released-models.md]
        [--note TEXT]
    python bench/workload.py --render FILE.json --docs docs/released-models.md [--note TEXT]

``--docs`` writes the table between the page's ``workload`` markers (``--marker NAME``: another
block, for a run of other sizes or workloads; the only way they change);
``--render`` writes it from a stored ``--out`` result without measuring.
No test asserts a timing; tests/test_workload_bench.py checks the arithmetic.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

REPO = Path(__file__).resolve().parents[1]
MODELS = {"gemma": "runs/released/gemma-3-270m-q4_k_m.gguf",
          "smollm2": "runs/released/smollm2-135m-instruct-q4_1.gguf"}
WORKLOADS = ("translate", "score", "sample", "respond")
DEFAULT_ROUTES = ("hf-causal", "hf-causal,share_prefix=false", "llamacpp", "llamacpp-batched,batch=8")
LLAMACPP_KINDS = ("llamacpp", "llamacpp-batched")
WINOMT = REPO.parent / "shared" / "data" / "winomt"
RESPOND_TOKENS = 16  # gest_choice's max_new_tokens
_PRONOUN = re.compile(r"\b(he|she|his|her|him|hers|himself|herself)\b", re.I)


# -- the arithmetic (tests/test_workload_bench.py checks it by hand) -------------------------------
def noise(values: Sequence[float]) -> dict[str, float]:
    """The median of repeated measurements and their spread, (max − min) / median."""
    middle = statistics.median(values)
    return {"median": middle, "spread": (max(values) - min(values)) / middle, "min": min(values),
            "max": max(values), "repeats": len(values)}


def workload_flops(body: int, output: int, prompt_tokens: Sequence[int], shared: int, out_tokens: int) -> int:
    """The matmul FLOPs a workload needs: 2 × body parameters per prompt token (the ``shared``
    prefix of all prompts once), 2 × (body + output layer) per reply or scored token."""
    evaluated = shared + sum(length - shared for length in prompt_tokens)
    return 2 * body * evaluated + 2 * (body + output) * out_tokens


def of_peak(flops: float, seconds: float, peak: float) -> float:
    """The fraction of a peak FLOP/s a workload of ``flops`` done in ``seconds`` reaches."""
    return flops / seconds / peak


def parameter_split(model) -> tuple[int, int]:
    """(body, output layer) parameters of a transformers causal LM: the output layer is its
    vocabulary × width matrix, counted once whether or not it is tied to the input embedding,
    which (a lookup, not a product) is not counted."""
    out_w = model.get_output_embeddings().weight
    in_w = model.get_input_embeddings().weight
    total = sum(p.numel() for p in model.parameters())  # parameters() yields a tied matrix once
    tied = out_w.data_ptr() == in_w.data_ptr()
    return total - in_w.numel() - (0 if tied else out_w.numel()), out_w.numel()


# -- routes --------------------------------------------------------------------------------------
@dataclass
class Route:
    spec: str
    kind: str
    options: dict[str, Any] = field(default_factory=dict)


def _value(text: str) -> Any:
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def parse_route(spec: str) -> Route:
    """``KIND[,KEY=VALUE…]``: a translator kind (or ``llamacpp-batched``) and its options."""
    kind, *pairs = spec.split(",")
    options = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key:
            raise ValueError(f"route {spec!r}: {pair!r} is not KEY=VALUE")
        options[key.strip()] = _value(value.strip())
    return Route(spec, kind.strip(), options)


def llama_cpp_missing() -> str | None:
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        return "llama-cpp-python not installed (make llamacpp)"
    return None


def load_route(route: Route, path: str, threads: int, options: dict[str, Any]):
    from mtdebias.translators.specs import load_spec

    if route.kind in LLAMACPP_KINDS:
        options = {**options, "n_threads": threads}
    if route.kind == "llamacpp-batched":
        from llamacpp_batched import LlamaCppBatched

        return LlamaCppBatched(path, **options, **route.options)
    return load_spec(f"{route.kind}:{path}", **options, **route.options)


# -- inputs --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Sentence:
    line: int
    source: str
    reference: str
    choice: tuple[str, str]  # (masculine, feminine) German translations, for respond


def winomt_sentences(folder: Path, count: int, seed: int = 0) -> list[Sentence]:
    """``count`` WinoMT sentences that have a twin of the other gender, with their German references."""
    from mtdebias.probes.base import spread_sample

    from mtdebias.errors import InputError

    rows = [line.split("\t") for line in (folder / "en.txt").read_text(encoding="utf-8").splitlines() if line.strip()]
    for number, row in enumerate(rows, start=1):
        if len(row) != 4:
            raise InputError(f"{len(row)} tab-separated fields, WinoMT has 4 (gender, index, sentence, profession)",
                             path=folder / "en.txt", line=number)
    refs = [line.partition(" ||| ")[2].strip() for line in
            (folder / "translations-aws" / "en-de.txt").read_text(encoding="utf-8").splitlines()]
    if len(refs) != len(rows):
        raise InputError(f"{len(refs)} lines for {len(rows)} WinoMT rows: one translation a row expected",
                         path=folder / "translations-aws" / "en-de.txt")
    by_gender: dict[str, dict[str, str]] = {}  # sentence with pronouns blanked → gender → reference
    for (gender, _, sentence, _), ref in zip(rows, refs):
        by_gender.setdefault(_PRONOUN.sub("*", sentence), {}).setdefault(gender, ref)
    items = []
    for line, ((gender, _, sentence, _), ref) in enumerate(zip(rows, refs), start=1):
        twins = by_gender[_PRONOUN.sub("*", sentence)]
        if "male" in twins and "female" in twins:
            items.append(Sentence(line, sentence, ref, (twins["male"], twins["female"])))
    return spread_sample(items, count, seed)


def questions(sentences: Sequence[Sentence]) -> list[str]:
    """gest_choice's question for each sentence, masculine option first and then feminine first."""
    from mtdebias.probes.gest.choice import DEFAULT_TEMPLATE

    return [DEFAULT_TEMPLATE.format(sentence=s.source, language="German", translated_sentence_1=a,
                                    translated_sentence_2=b)
            for s in sentences for a, b in (s.choice, s.choice[::-1])]


# -- measuring -----------------------------------------------------------------------------------
def _call(translator, workload: str, sentences: Sequence[Sentence], samples: int):
    sources = [s.source for s in sentences]
    if workload == "translate":
        return translator.translate(sources, beam=1)
    if workload == "score":
        return translator.score(sources, [s.reference for s in sentences])
    if workload == "sample":
        return translator.sample(sources, n=samples, seed=0)
    return translator.respond(questions(sentences), max_new_tokens=RESPOND_TOKENS)


def _work(ref, workload: str, sentences: Sequence[Sentence], result) -> tuple[list[int], int, int]:
    """(prompt lengths, their shared prefix, reply or scored tokens) of one call, in the file's tokens."""
    from llamacpp_batched import common_prefix

    texts = ([ref._question_text(q) for q in questions(sentences)] if workload == "respond"
             else [ref._prompt_text(s.source) for s in sentences])
    prompts = ref._encode_prompts(texts)
    if workload == "score":
        out = sum(len(s.tokens) for s in result)
    else:
        replies = [r for row in result for r in row] if workload == "sample" else result
        out = sum(len(ref._continuation(r)) for r in replies)
    return [len(p) for p in prompts], common_prefix(prompts), out


def gemm_peaks(size: int) -> dict[str, float]:
    import torch
    from prefix_sharing import gemm_flops

    return {"float32": gemm_flops(torch.float32, size), "bfloat16": gemm_flops(torch.bfloat16, size)}


def bench_model(name: str, path: str, routes: list[Route], workloads: Sequence[str], sentences: list[Sentence],
                samples: int, repeats: int, threads: int, gemm: int, peaks: dict[str, list[float]]) -> dict:
    options = {"src_lang": "en", "tgt_lang": "de", "max_new_tokens": 64,
               "examples": str(REPO / "eval" / "released" / "examples_de.tsv")}
    # the file's tokenizer and parameter counts, through hf-causal (the routes share the tokenizer)
    from mtdebias.translators.specs import load_spec

    ref = load_spec(f"hf-causal:{path}", **options, device="cpu")
    body, output = parameter_split(ref.model)
    missing = llama_cpp_missing()
    loaded, skipped = {}, {}
    for route in routes:
        if route.kind in LLAMACPP_KINDS and missing:
            skipped[route.spec] = missing
            continue
        loaded[route.spec] = load_route(route, path, threads, options)
        # warm-up (one forward pass): first-call allocations, kernel choice, the weights' page cache
        loaded[route.spec].score([sentences[0].source], [sentences[0].reference])
    seconds = {(r, w): [] for r in loaded for w in workloads}
    results: dict[tuple[str, str], Any] = {}
    order = list(loaded)
    for repeat in range(repeats):
        for workload in workloads:
            for spec in order[repeat % len(order):] + order[:repeat % len(order)] if order else []:
                start = time.perf_counter()
                results[spec, workload] = _call(loaded[spec], workload, sentences, samples)
                seconds[spec, workload].append(time.perf_counter() - start)
                print(f"{name} {spec} {workload}: {seconds[spec, workload][-1]:.1f} s", flush=True)
        for dtype, value in gemm_peaks(gemm).items():
            peaks[dtype].append(value)
    rows = []
    for workload in workloads:
        for spec in loaded:
            prompt_lengths, shared, out = _work(ref, workload, sentences, results[spec, workload])
            flops = workload_flops(body, output, prompt_lengths, shared, out)
            first = results[order[0], workload]
            same = (sum(a == b for a, b in zip(first, results[spec, workload]))
                    if workload in ("translate", "respond") else None)
            rows.append({"model": name, "route": spec, "workload": workload, "tokens": out,
                         "prompt_tokens": sum(prompt_lengths), "shared_prefix": shared, "flops": flops,
                         "seconds": seconds[spec, workload],
                         "tok_per_s": noise([out / s for s in seconds[spec, workload]]),
                         "sent_per_s": noise([len(sentences) / s for s in seconds[spec, workload]]),
                         "same_as_first_route": same, "asked": len(results[spec, workload]),
                         "signature": loaded[spec].signature()})
        rows += [{"model": name, "route": spec, "workload": workload, "skipped": why} for spec, why in skipped.items()]
    return {"model": name, "file": path, "body_parameters": body, "output_parameters": output, "rows": rows}


def finish(result: dict) -> None:
    """Fractions of the peak (the median GEMM of the whole run) and ratios to llama.cpp's rows."""
    peak = {dtype: statistics.median(v) for dtype, v in result["gemm_flops"].items()}
    for model in result["models"]:
        measured = [r for r in model["rows"] if "skipped" not in r]
        for row in measured:
            # the median over repeats of the rate, as for tokens/s (with two repeats the median of
            # the times would be their mean, and the rate of that mean another number)
            row["of_peak"] = {dtype: statistics.median(of_peak(row["flops"], s, p) for s in row["seconds"])
                              for dtype, p in peak.items()}
            anchors = [r for r in measured if r["workload"] == row["workload"]
                       and parse_route(r["route"]).kind in LLAMACPP_KINDS]
            row["over_llamacpp"] = {a["route"]: row["tok_per_s"]["median"] / a["tok_per_s"]["median"] for a in anchors}


def run(args) -> dict:
    import torch

    torch.set_num_threads(args.threads)
    routes = [parse_route(spec) for spec in args.routes]
    sentences = winomt_sentences(args.winomt, args.n)
    peaks: dict[str, list[float]] = {"float32": [], "bfloat16": []}
    result = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
              "machine": platform.machine(), "cpus": os.cpu_count(), "threads": args.threads,
              "torch": torch.__version__, "llama_cpp": _llama_cpp_version(), "n": len(sentences),
              "samples": args.samples, "repeats": args.repeats, "gemm_size": args.gemm,
              "load_before": os.getloadavg(), "routes": args.routes, "models": [], "gemm_flops": peaks}
    for name in args.models:
        result["models"].append(bench_model(name, str(REPO / MODELS[name]), routes, args.workloads, sentences,
                                            args.samples, args.repeats, args.threads, args.gemm, peaks))
        result["load_after"] = os.getloadavg()
        finish(result)
        if args.out:  # after every model, so an interrupted run keeps what it measured
            from mtdebias.store.atomic import write_json

            write_json(args.out, result)
    return result


def _llama_cpp_version() -> str | None:
    try:
        import llama_cpp
    except ImportError:
        return None
    return llama_cpp.__version__


def _spread(measured: dict) -> str:
    """A rate's spread, or "one repeat" where there is none to measure (0 % would claim no noise)."""
    return f"{measured['spread']:.0%}" if measured["repeats"] > 1 else "one repeat"


def table(result: dict, note: str = "") -> str:
    """The measured rows as the docs show them."""
    peak = {dtype: statistics.median(v) / 1e9 for dtype, v in result["gemm_flops"].items()}
    spread = {dtype: noise(v)["spread"] for dtype, v in result["gemm_flops"].items()}
    params = "; ".join(f"{m['model']} {m['body_parameters'] / 1e6:.0f}M body + {m['output_parameters'] / 1e6:.0f}M "
                       "output layer" for m in result["models"])
    sampled = (f"{result['samples']} ε-samples each, " if any(r["workload"] == "sample" for m in result["models"]
                                                             for r in m["rows"]) else "")
    load = f"load average {result['load_before'][0]:.1f} before, {result.get('load_after', (0,))[0]:.1f} after"
    lines = ["<!-- generated by `python bench/workload.py --docs …` (make bench-workload); do not edit by hand -->", "",
             f"Measured by `bench/workload.py` on {result['date']}, {result['machine']} with {result['cpus']} CPUs "
             f"({load}), {result['threads']} thread(s) per route, torch {result['torch']}, llama-cpp-python "
             f"{result['llama_cpp'] or 'absent'}: **N = {result['n']}** WinoMT sentences en→de, {sampled}"
             f"{result['repeats']} repeat{'s' if result['repeats'] != 1 else ''} (tokens/s: median, spread in brackets). The "
             f"{result['gemm_size']}² GEMM peak on the same threads, median over the run: {peak['float32']:.0f} GFLOP/s "
             f"float32 (spread {spread['float32']:.0%}), {peak['bfloat16']:.0f} GFLOP/s bfloat16 (spread "
             f"{spread['bfloat16']:.0%}). FLOPs: 2 × ({params}) per reply or scored token, 2 × body per prompt "
             f"token with the shared prefix once. `llamacpp` decodes one prompt at a time; `llamacpp-batched` "
             f"drives llama-cpp-python's low-level `llama_batch` with several sequence ids per batch; × llamacpp-batched "
             f"is against its fastest row. {note}".rstrip(),
             "", "| model | route | workload | tokens | tok/s (spread) | sentences/s | of fp32 peak | of bf16 peak | "
             "× llamacpp | × llamacpp-batched (fastest) | greedy as 1st route |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for model in result["models"]:
        for r in model["rows"]:
            if "skipped" in r:
                lines.append(f"| {r['model']} | `{r['route']}` | {r['workload']} | skipped: {r['skipped']} "
                             "| | | | | | | |")
                continue
            # against the fastest row of each llama.cpp kind (batches of 8 and of 16 are two rows of
            # one kind; the best-driven engine is the anchor): the smallest ratio
            ratios: dict[str, float] = {}
            for spec, value in r["over_llamacpp"].items():
                kind = parse_route(spec).kind
                ratios[kind] = min(ratios.get(kind, value), value)
            lines.append(f"| {r['model']} | `{r['route']}` | {r['workload']} | {r['tokens']} | "
                         f"{r['tok_per_s']['median']:.1f} ({_spread(r['tok_per_s'])}) | "
                         f"{r['sent_per_s']['median']:.2f} | {r['of_peak']['float32']:.1%} | "
                         f"{r['of_peak']['bfloat16']:.1%} | "
                         + " | ".join(f"{ratios[k]:.2f}" if k in ratios else "–" for k in LLAMACPP_KINDS) + " | "
                         + (f"{r['same_as_first_route']}/{r['asked']}" if r["same_as_first_route"] is not None else "–")
                         + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    parser.add_argument("--n", type=int, default=200, help="WinoMT sentences (default 200)")
    parser.add_argument("--samples", type=int, default=8, help="ε-samples per sentence")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--gemm", type=int, default=2048, help="the peak's square matrix size")
    parser.add_argument("--routes", nargs="+", default=list(DEFAULT_ROUTES), help="KIND[,KEY=VALUE…] each")
    parser.add_argument("--workloads", nargs="+", default=list(WORKLOADS), choices=WORKLOADS)
    parser.add_argument("--winomt", type=Path, default=WINOMT, help="a folder holding en.txt and translations-aws/")
    parser.add_argument("--note", default="", help="a sentence for the docs, e.g. what else ran on the machine")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--docs", type=Path, help="a Markdown page with workload markers to write the table into")
    parser.add_argument("--marker", default="workload",
                        help="the page's block to write (<!-- begin: MARKER -->; default workload): a run of "
                             "other sizes or workloads gets a block of its own beside the first")
    parser.add_argument("--render", type=Path, metavar="FILE.json",
                        help="measure nothing: write the table of a stored --out result into --docs")
    args = parser.parse_args()
    if args.docs:  # before hours of measuring: the page must have the markers
        page = args.docs.read_text(encoding="utf-8") if args.docs.is_file() else ""
        if f"<!-- begin: {args.marker} -->" not in page or f"<!-- end: {args.marker} -->" not in page:
            parser.error(f"{args.docs}: no <!-- begin: {args.marker} --> … <!-- end: {args.marker} --> markers to "
                         "write between")
    if args.render:
        import json

        if not args.docs:
            parser.error("--render writes into a page: give --docs PAGE.md")
        from mtdebias.report.readme import splice

        try:
            stored = json.loads(args.render.read_text(encoding="utf-8"))
            finish(stored)  # the fractions and ratios again, from the stored times, FLOPs and peaks
            text = table(stored, args.note)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            parser.error(f"{args.render}: not a result of bench/workload.py --out ({type(exc).__name__}: {exc})")
        splice(args.docs, args.marker, text)
        return
    from mtdebias.translators.specs import kinds

    for spec in args.routes:
        try:
            route = parse_route(spec)
        except ValueError as exc:
            parser.error(str(exc))
        if route.kind not in kinds() and route.kind != "llamacpp-batched":
            parser.error(f"route {spec!r}: no translator kind {route.kind!r} (kinds: {', '.join(kinds())}, "
                         "llamacpp-batched)")
    for name in args.models:
        if not (REPO / MODELS[name]).is_file():
            parser.error(f"{MODELS[name]} is missing: run `make released-llms`")
    for needed in (args.winomt / "en.txt", args.winomt / "translations-aws" / "en-de.txt"):
        if not needed.is_file():
            parser.error(f"{needed} is missing: pass --winomt FOLDER (WinoMT's en.txt and translations-aws/en-de.txt)")
    from mtdebias.errors import MtdebiasError

    try:
        result = run(args)
    except MtdebiasError as exc:  # bad input found on the way: one line, exit 2
        parser.error(str(exc))
    if args.docs:
        from mtdebias.report.readme import splice

        splice(args.docs, args.marker, table(result, args.note))


if __name__ == "__main__":
    main()
