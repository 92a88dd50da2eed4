"""The same GGUF weights two ways: transformers (``hf-causal``, dequantized to float32) against
llama.cpp (``llamacpp``, quantized kernels), on Gemma 3 270M and SmolLM2-135M-Instruct.

For each model, on the same prompts (the same token ids: both routes render and tokenize with the
tokenizer stored in the file):

* **agreement**: greedy translations of ``--sentences`` sources by each route, how many are
  identical; the per-token log-probabilities of the hf-causal translations under both routes
  (mean and largest absolute difference, in nats) — the quantized kernels' effect;
* **speed**: greedy tokens per second of each route on one thread (``torch.set_num_threads(1)``,
  ``n_threads=1``), interleaved over ``--rounds`` rounds (A B, B A, …) and reported as the ratio
  of medians with each side's spread ((max − min) / median) as its noise figure;
* **ε-sampling**: samples per second of ``sample(n=16)`` on one source through hf-causal (its
  prefix-sharing sampler) and through llama.cpp (one sample after another from the cached prompt).

    python bench/llm_routes.py [--models gemma smollm2] [--sentences 20] [--rounds 3] [--out FILE.json]
                               [--docs docs/released-models.md] [--engine ik]

``--docs`` writes the table between the page's ``llm-routes`` markers (the only way it changes).

Needs llama-cpp-python (``make llamacpp``) and the GGUF files under runs/released/
(``make released-llms``).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
import torch

MODELS = {"gemma": "runs/released/gemma-3-270m-q4_k_m.gguf",
          "smollm2": "runs/released/smollm2-135m-instruct-q4_1.gguf"}
# authored for this benchmark: everyday sentences, none from a probe's data
# (the few-shot examples' own sentences are not among them: a model that copies an example would agree with itself)
SOURCES = ["The library closes early on Sundays.", "We walked along the beach after lunch.",
           "The bus was late again this morning.", "My neighbour repaired the old bicycle.",
           "The children played in the garden until dinner.", "She wrote a long letter to her brother.",
           "The museum opens again next week.", "He forgot his umbrella on the bus.",
           "The soup needs more salt.", "Our teacher gave us a difficult test.",
           "The river was too deep to cross.", "They painted the kitchen yellow.",
           "I lost my keys somewhere in the park.", "The doctor asked the nurse for help.",
           "The baker sold the last cake before noon.", "A small dog barked at the postman.",
           "The concert was cancelled because of the storm.", "We will meet at the station tomorrow.",
           "The lawyer read the contract twice.", "The farmer sold his cows at the market."]


def _examples(lang: str) -> str:
    return str(Path(__file__).resolve().parents[1] / "eval" / "released" / f"examples_{lang}.tsv")


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _spread(values: list[float]) -> float:
    return (max(values) - min(values)) / statistics.median(values)


def bench_model(name: str, path: str, sentences: int, rounds: int, lang: str = "de",
                engine: str = "llama-cpp-python") -> dict:
    from mtdebias.translators.specs import load_spec

    options = {"tgt_lang": lang, "examples": _examples(lang), "max_new_tokens": 48}
    hf = load_spec(f"hf-causal:{path}", **options, device="cpu")
    if engine == "ik":  # the prebuilt ik_llama.cpp wheel, judged as a stand-in (docs/llm-backends.md)
        from ik_llama_route import IkLlamaTranslator

        cpp = IkLlamaTranslator.from_spec(path, **options, n_threads=1)
    else:
        cpp = load_spec(f"llamacpp:{path}", **options, n_threads=1)
    assert hf.prompt_hash == cpp.prompt_hash  # the same prompt, the same tokens
    sources = SOURCES[:sentences]
    torch.set_num_threads(1)
    hf_out = hf.translate(sources, beam=1)
    cpp_out = cpp.translate(sources, beam=1)
    agree = sum(a == b for a, b in zip(hf_out, cpp_out))
    scored_hf = hf.score(sources, hf_out)
    scored_cpp = cpp.score(sources, hf_out)
    diffs = np.concatenate([np.abs(np.array(a.tokens) - np.array(b.tokens)) for a, b in zip(scored_hf, scored_cpp)])
    totals = [(a.total, b.total) for a, b in zip(scored_hf, scored_cpp)]
    tokens = sum(len(s.tokens) for s in scored_hf)  # the greedy translations' tokens, with their ends

    # speed: one sentence at a time (what a CPU user sees), one thread each, interleaved
    speed: dict[str, list[float]] = {"hf-causal": [], "llamacpp": []}
    for r in range(rounds):
        order = [("hf-causal", hf), ("llamacpp", cpp)]
        for label, translator in (order if r % 2 == 0 else order[::-1]):
            seconds = sum(_timed(lambda s=s: translator.translate([s], beam=1)) for s in sources[:5])
            speed[label].append(sum(len(x.tokens) for x in scored_hf[:5]) / seconds)
    sampling = {}
    for label, translator in (("hf-causal", hf), ("llamacpp", cpp)):
        seconds = _timed(lambda: translator.sample([sources[0]], n=16, seed=1))
        sampling[label] = 16 / seconds
    ratio = statistics.median(speed["llamacpp"]) / statistics.median(speed["hf-causal"])
    return {"model": name, "engine": engine, "file": path, "signature_hf": hf.signature(), "signature_llamacpp": cpp.signature(),
            "sentences": len(sources), "greedy_identical": agree, "tokens_scored": int(tokens),
            "abs_logprob_diff_mean": float(diffs.mean()), "abs_logprob_diff_max": float(diffs.max()),
            "total_logprob_corr": float(np.corrcoef(np.array(totals).T)[0, 1]),
            "tok_per_s_hf": statistics.median(speed["hf-causal"]), "tok_per_s_llamacpp": statistics.median(speed["llamacpp"]),
            "noise_hf": _spread(speed["hf-causal"]), "noise_llamacpp": _spread(speed["llamacpp"]),
            "llamacpp_over_hf": ratio, "samples_per_s": sampling,
            "examples": [{"source": s, "hf-causal": a, "llamacpp": b} for s, a, b in zip(sources[:3], hf_out, cpp_out)]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    parser.add_argument("--sentences", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--engine", choices=["llama-cpp-python", "ik"], default="llama-cpp-python",
                        help="the llama.cpp side: llama-cpp-python (make llamacpp), or the ik-llama-cpp-python "
                             "wheel through bench/ik_llama_route.py")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--docs", type=Path, help="a Markdown page with llm-routes markers to write the table into")
    args = parser.parse_args()
    if args.docs and args.engine != "llama-cpp-python":
        parser.error("--docs writes the llama-cpp-python table: measure another engine with --out only")
    rows = []
    for name in args.models:
        row = bench_model(name, MODELS[name], args.sentences, args.rounds, engine=args.engine)
        rows.append(row)
        print(f"{name}: greedy identical {row['greedy_identical']}/{row['sentences']}; per-token |Δ log p| mean "
              f"{row['abs_logprob_diff_mean']:.3f}, max {row['abs_logprob_diff_max']:.3f} nats over "
              f"{row['tokens_scored']} tokens; corr of totals {row['total_logprob_corr']:.4f}")
        print(f"{name}: greedy tok/s on one thread: hf-causal {row['tok_per_s_hf']:.1f} (noise "
              f"{row['noise_hf']:.0%}), llama.cpp {row['tok_per_s_llamacpp']:.1f} (noise {row['noise_llamacpp']:.0%}); "
              f"llama.cpp / hf-causal = {row['llamacpp_over_hf']:.2f}; ε-samples/s "
              + ", ".join(f"{k} {v:.1f}" for k, v in row["samples_per_s"].items()), flush=True)
    if args.out:
        from mtdebias.store.atomic import write_json

        write_json(args.out, {"rows": rows, "torch": torch.__version__})
    if args.docs:
        from mtdebias.report.readme import splice

        splice(args.docs, "llm-routes", table(rows))


def table(rows: list[dict]) -> str:
    """The measured rows as the docs show them."""
    import platform

    lines = ["<!-- generated by `python bench/llm_routes.py --docs …` (make bench-llm); do not edit by hand -->", "",
             f"Measured by `bench/llm_routes.py` on {platform.machine()} with {torch.get_num_threads()} thread(s) "
             f"per route, torch {torch.__version__}; en→de with the released suites' three examples.", "",
             "| model | greedy identical | mean \\|Δ log p\\| per token | largest | tokens | greedy tok/s hf-causal "
             "(noise) | llama.cpp (noise) | llama.cpp / hf-causal | ε-samples/s hf-causal | llama.cpp |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['model']} | {r['greedy_identical']}/{r['sentences']} | {r['abs_logprob_diff_mean']:.3f} | "
                     f"{r['abs_logprob_diff_max']:.3f} | {r['tokens_scored']} | {r['tok_per_s_hf']:.1f} "
                     f"({r['noise_hf']:.0%}) | {r['tok_per_s_llamacpp']:.1f} ({r['noise_llamacpp']:.0%}) | "
                     f"{r['llamacpp_over_hf']:.2f} | {r['samples_per_s']['hf-causal']:.1f} | "
                     f"{r['samples_per_s']['llamacpp']:.1f} |")
    lines += ["", "Greedy outputs of the first sentences:", ""]
    for r in rows:
        for e in r["examples"]:
            lines.append(f"* {r['model']}: *{e['source']}* → hf-causal «{e['hf-causal']}», llama.cpp «{e['llamacpp']}»")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
