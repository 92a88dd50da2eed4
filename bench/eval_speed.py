"""Evaluation speed: CTranslate2 against transformers, and the ε-sampler against a naive loop.

Every comparison runs in this one process on the same model and inputs, interleaved over
``--rounds`` rounds (A B, B A, A B, …), and prints the ratio of the medians with its own noise
figure: the spread (max − min) / median of each side's repeated timings. A ratio is only as
good as that spread on the machine it ran on.

* ``beam``: ``CT2Translator.translate`` vs ``HFTranslator.translate`` (beam 5), base-size
  Transformer, ``--sentences`` sentences (target ≥ 3× on CPU), CT2 in float32 and int8;
* ``score``: ``CT2Translator.score`` vs ``HFTranslator.score`` on the same pairs;
* ``sample``: ``HFTranslator.sample(n=128)`` vs one ``generate(num_return_sequences=128)`` call
  per sentence (target ≥ 2×), on a trained tiny model (peaked, as real models are) and on the
  random base-size model at ε = 1e-4 (flat: samples part at once, the worst case for prefix
  sharing);
* the same on CUDA when a GPU is present (skipped otherwise).

The base-size model has random weights: every output runs to the length limit, so both
backends do the same amount of work. Its vocabulary comes from a SentencePiece model trained
on WordNet's glosses (Debian ``wordnet-base``) when present, else on the toy corpus (a small
vocabulary under-weights the output layer; the script says which).

A trained model ends its outputs at different lengths, which the random one never does:
``--checkpoint DIR --sources FILE`` adds the beam and score rows for any local checkpoint (a
run's ``checkpoints/step-*``, a local Opus-MT directory) on the first ``--sentences`` lines of
FILE, labelled with the checkpoint's size.

    python bench/eval_speed.py [--sentences 200] [--rounds 3] [--threads 2]
                               [--checkpoint DIR --sources FILE] [--skip-synthetic]
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch

# The toy corpus and the tiny checkpoint trainer are test fixtures (tests/toy.py), not package
# code; this script runs as `python bench/NAME.py`, so tests/ is put on the path to reach them.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from mtdebias.translators.base import DEFAULT_EPSILON

WORDNET_GLOSSES = Path("/usr/share/wordnet/data.noun")


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def compare(name: str, a_name: str, a, b_name: str, b, rounds: int) -> None:
    """Interleaved timings of ``a`` and ``b``; prints b/a (how many times faster ``a`` is)."""
    times: dict[str, list[float]] = {a_name: [], b_name: []}
    a(), b()  # warm-up: conversion, allocation, first-call overheads
    for r in range(rounds):
        order = [(a_name, a), (b_name, b)] if r % 2 == 0 else [(b_name, b), (a_name, a)]
        for label, fn in order:
            times[label].append(_timed(fn))

    def spread(values: list[float]) -> float:
        return (max(values) - min(values)) / statistics.median(values)

    ta, tb = statistics.median(times[a_name]), statistics.median(times[b_name])
    print(f"{name}: {a_name} {ta:.2f}s, {b_name} {tb:.2f}s (medians of {rounds}) -> {a_name} is "
          f"{tb / ta:.2f}x faster  [noise: {a_name} spread {spread(times[a_name]):.0%}, "
          f"{b_name} spread {spread(times[b_name]):.0%}]", flush=True)


def _training_text(limit: int = 40_000) -> tuple[list[str], str]:
    if WORDNET_GLOSSES.exists():
        glosses = []
        for line in WORDNET_GLOSSES.read_text(encoding="utf-8", errors="replace").splitlines():
            if "|" in line and not line.startswith("  "):
                gloss = re.sub(r'"[^"]*"|;', " ", line.split("|", 1)[1]).strip()
                if len(gloss.split()) >= 4:
                    glosses.append(gloss)
            if len(glosses) >= limit:
                break
        return glosses, "WordNet glosses"
    from toy import toy_corpus

    return toy_corpus(2000)[0], "toy corpus (WordNet absent: small vocabulary)"


def _base_checkpoint(workdir: Path, vocab_size: int, device: str) -> tuple[Path, list[str]]:
    from mtdebias.models.model import build_model, marian_config
    from mtdebias.models.tokenizer import train_tokenizer, vocab_sizes

    text, origin = _training_text()
    tokenizer = train_tokenizer(text, text, workdir / "tok", vocab_size=vocab_size)
    model = build_model(marian_config("base", *vocab_sizes(tokenizer), max_positions=256, dropout=0.0), seed=1)
    out = workdir / "checkpoints" / "step-0000001"
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    print(f"base-size model: vocabulary {vocab_sizes(tokenizer)[0]} pieces from {origin}; random weights")
    return out, text


def _sampling(label: str, translator, sources: list[str], n: int, max_new: int, rounds: int,
              epsilon: float = DEFAULT_EPSILON) -> None:
    model, tokenizer = translator.model, translator.tokenizer

    def naive():
        with torch.inference_mode():
            for sentence in sources:
                enc = {k: v.to(translator.device) for k, v in tokenizer([sentence], return_tensors="pt").items()}
                out = model.generate(**enc, do_sample=True, num_beams=1, top_k=0, top_p=1.0, epsilon_cutoff=epsilon,
                                     num_return_sequences=n, max_new_tokens=max_new)
                tokenizer.batch_decode(out, skip_special_tokens=True)

    compare(f"sample n={n} eps={epsilon}, {len(sources)} sources, {label}", "sample()",
            lambda: translator.sample(sources, n=n, epsilon=epsilon, seed=1), "per-sentence generate loop", naive,
            rounds)


def backend_rows(device: str, checkpoint: Path, sentences: list[str], label: str, args, trained: bool) -> None:
    """Beam 5 (CT2 float32 and int8) and score (float32) against transformers on one checkpoint.
    Scored targets: a trained model's own greedy outputs; for the random model, the next
    sentence of the list (its outputs are noise of the maximum length)."""
    from mtdebias.translators.ct2 import CT2Translator
    from mtdebias.translators.hf import HFTranslator

    hf = HFTranslator(checkpoint, device=device, max_new_tokens=args.max_new_tokens)
    for compute_type in ("float32", "int8"):
        ct2 = CT2Translator(checkpoint, compute_type=compute_type, device=device, threads=args.threads,
                            max_new_tokens=args.max_new_tokens)
        compare(f"[{device}] beam 5, {len(sentences)} sentences, {label}", f"ct2 {compute_type}",
                lambda: ct2.translate(sentences, beam=5), "hf", lambda: hf.translate(sentences, beam=5),
                args.rounds)
    ct2 = CT2Translator(checkpoint, compute_type="float32", device=device, threads=args.threads)
    targets = hf.translate(sentences, beam=1) if trained else sentences[1:] + sentences[:1]
    compare(f"[{device}] score, {len(sentences)} pairs, {label}", "ct2 float32",
            lambda: ct2.score(sentences, targets), "hf", lambda: hf.score(sentences, targets), args.rounds)


def _size(checkpoint: Path) -> str:
    import json

    config = json.loads((checkpoint / "config.json").read_text(encoding="utf-8"))
    return (f"trained d_model {config.get('d_model')}, {config.get('encoder_layers')}+"
            f"{config.get('decoder_layers')} layers, vocabulary {config.get('vocab_size')}")


def run_device(device: str, args, workdir: Path) -> None:
    from mtdebias.translators.hf import HFTranslator
    from toy import toy_corpus, train_tiny_checkpoint

    if args.checkpoint is not None:
        lines = [line.strip() for line in args.sources.read_text(encoding="utf-8").splitlines() if line.strip()]
        backend_rows(device, args.checkpoint, lines[:args.sentences], _size(args.checkpoint), args, trained=True)
    if args.skip_synthetic:
        return
    checkpoint, text = _base_checkpoint(workdir / "base", args.vocab, device)
    sentences = [t for t in text if 6 <= len(t.split()) <= 20][:args.sentences]
    backend_rows(device, checkpoint, sentences, "base size", args, trained=False)

    tiny = train_tiny_checkpoint(workdir / "tiny", steps=args.tiny_steps)
    trained = HFTranslator(tiny, device=device)
    _sampling(f"[{device}] trained tiny model", trained, toy_corpus(200, seed=3)[0][:16], 128, 32, args.rounds)
    base = HFTranslator(checkpoint, device=device, max_new_tokens=24)
    # a random model's next-token distribution is nearly flat: at ε = 0.02 every token is cut but
    # the top one (sampling is greedy), so ε = 1e-4 keeps the samples apart, the worst case here
    _sampling(f"[{device}] random base-size model", base, sentences[:args.sample_sources], 128, 24, args.rounds,
              epsilon=1e-4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sentences", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2, help="torch and CTranslate2 threads (CPU)")
    parser.add_argument("--vocab", type=int, default=8000)
    parser.add_argument("--max-new-tokens", type=int, default=48)
    parser.add_argument("--sample-sources", type=int, default=4)
    parser.add_argument("--tiny-steps", type=int, default=300)
    parser.add_argument("--checkpoint", type=Path, default=None, help="a local trained checkpoint to add rows for")
    parser.add_argument("--sources", type=Path, default=None, help="source sentences for --checkpoint, one a line")
    parser.add_argument("--skip-synthetic", action="store_true",
                        help="only the --checkpoint rows (no random base-size model, no sampler rows)")
    args = parser.parse_args()
    if (args.checkpoint is None) != (args.sources is None):
        parser.error("--checkpoint and --sources go together")
    torch.set_num_threads(args.threads)
    print(f"threads={args.threads} rounds={args.rounds} torch={torch.__version__}")
    with tempfile.TemporaryDirectory() as tmp:
        run_device("cpu", args, Path(tmp) / "cpu")
        if torch.cuda.is_available():
            run_device("cuda", args, Path(tmp) / "cuda")
        else:
            print("[cuda] skipped: no GPU on this machine")


if __name__ == "__main__":
    main()
