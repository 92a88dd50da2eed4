"""Greedy decoder-only translation by route: hf-causal in float32 (today's route) and bfloat16,
against CTranslate2 Generators of the same GGUF model in several compute types.

On the first ``--sentences`` WinoMT sentences (../shared/data/winomt/en.txt), with the released
suites' three German examples and ``max_new_tokens`` 64 (the prompts of ``eval/released/de.toml``),
for each route: sentences/s, generated tokens/s (up to and including the token that ends each
reply), and how many greedy translations are identical to the float32 hf-causal route's. The
routes run one after another in one process, so their ratios are measured under the same load;
``--rounds`` repeats the whole sequence (interleaved: later rounds run the routes in reverse) and
the medians are reported with the spread ((max − min) / median) as the noise.

The CTranslate2 routes use the ``ct2-causal`` translator (:mod:`mtdebias.translators.ct2_causal`):
the GGUF file dequantized by transformers, converted once by CTranslate2's converter, the few-shot
prefix given as ``static_prompt`` so that its state is computed once.

    python bench/ct2_causal_routes.py [--model FILE.gguf] [--sentences 48] [--rounds 1]
        [--routes hf-float32 hf-bfloat16 ct2-int8 ct2-int8-whole ct2-float32] [--out FILE.json]

No test asserts a timing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))
from prefix_sharing import _count_generated, _spread  # noqa: E402  (a sibling script)

WINOMT = REPO.parent / "shared" / "data" / "winomt" / "en.txt"
# ENGINE-COMPUTE[-whole]: "-whole" runs every prompt whole (share_prefix = false). CTranslate2's
# bfloat16 and int8_bfloat16 are not in this build's CPU compute types (get_supported_compute_types)
ROUTES = ("hf-float32", "hf-bfloat16", "ct2-int8", "ct2-int8-whole", "ct2-float32")


def _sources(count: int) -> list[str]:
    lines = [line for line in WINOMT.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [line.split("\t")[2] for line in lines[:count]]


def _translator(route: str, model: str, lang: str):
    from mtdebias.translators.specs import load_spec

    engine, kind, *whole = route.split("-")
    options = dict(tgt_lang=lang, max_new_tokens=64, examples=str(REPO / "eval" / "released" / f"examples_{lang}.tsv"))
    if engine == "hf":
        return load_spec(f"hf-causal:{model}", device="cpu", dtype=kind, **options)
    return load_spec(f"ct2-causal:{model}", compute_type=kind, share_prefix=not whole, **options)


def _timed_translate(translator, sources: list[str]) -> tuple[list[str], float, int]:
    """(translations, seconds, generated tokens)."""
    if translator.backend == "hf-causal":
        counts = _count_generated(translator)
        start = time.perf_counter()
        out = translator.translate(sources, beam=1)
        return out, time.perf_counter() - start, sum(counts)
    translator.generated_tokens = 0
    start = time.perf_counter()
    out = translator.translate(sources, beam=1)
    return out, time.perf_counter() - start, translator.generated_tokens


def run(model: str, sentences: int, routes: list[str], rounds: int, lang: str = "de", out: Path | None = None) -> dict:
    sources = _sources(sentences)
    translators = {route: _translator(route, model, lang) for route in routes}
    seconds: dict[str, list[float]] = {r: [] for r in routes}
    outputs, tokens = {}, {}
    for r in range(rounds):
        for route in (routes if r % 2 == 0 else routes[::-1]):
            outputs[route], took, tokens[route] = _timed_translate(translators[route], sources)
            seconds[route].append(took)
            print(f"round {r + 1} {route}: {took:.1f} s, {tokens[route]} tokens", flush=True)
    reference = outputs.get("hf-float32")
    rows = []
    for route in routes:
        tok_s = [tokens[route] / s for s in seconds[route]]
        rows.append({"route": route, "signature": translators[route].signature(), "tokens": tokens[route],
                     "sent_per_s": statistics.median(len(sources) / s for s in seconds[route]),
                     "tok_per_s": statistics.median(tok_s), "noise": _spread(tok_s) if len(tok_s) > 1 else None,
                     "identical_to_hf_float32": (sum(a == b for a, b in zip(outputs[route], reference))
                                                 if reference else None)})
    base = next((row["sent_per_s"] for row in rows if row["route"] == "hf-float32"), None)
    for row in rows:
        row["speedup"] = row["sent_per_s"] / base if base else None
        print(f"{row['route']:>18}: {row['sent_per_s']:.2f} sent/s, {row['tok_per_s']:.1f} tok/s, "
              f"x{row['speedup'] or 0:.2f} of hf-float32, identical {row['identical_to_hf_float32']}/{len(sources)}",
              flush=True)
    result = {"model": Path(model).name, "sentences": len(sources), "rounds": rounds, "rows": rows,
              "threads": torch.get_num_threads(), "torch": torch.__version__,
              "differing": {route: [(s, reference[i], outputs[route][i]) for i, s in enumerate(sources)
                                    if reference and outputs[route][i] != reference[i]] for route in routes}}
    if out:
        from mtdebias.store.atomic import write_json

        write_json(out, result)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="a GGUF file")
    parser.add_argument("--sentences", type=int, default=48)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--routes", nargs="+", default=list(ROUTES), choices=ROUTES)
    parser.add_argument("--threads", type=int, help="torch threads (default: torch's own choice)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    run(args.model, args.sentences, args.routes, args.rounds, out=args.out)


if __name__ == "__main__":
    main()
