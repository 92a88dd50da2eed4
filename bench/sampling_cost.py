"""What ε-sampling costs per checkpoint, and what deduplication saves.

Times ``n`` ε-samples per source on a few sources with randomly initialised Marian models of a
tiny and a base (Opus-MT-sized) configuration, and extrapolates to one WinoMT-sized evaluation
(``--set-size`` sources, default 5,628 = 1,876 contrast sets × {he, she, they}). With
``--trained`` it also trains the tiny test checkpoint (``tests/toy.py``) and samples through
:class:`mtdebias.translators.hf.HFTranslator` on real WinoMT-like sentences, where duplicates
actually occur, to measure the share of embedding calls deduplication saves. Random weights give
near-uniform next-token distributions whose every token falls below ε, so ε-sampling keeps only
the top token and all samples coincide: their timing is valid (every sample runs to the length
limit) but their dedup share is meaningless and is not printed.

    .venv/bin/python bench/sampling_cost.py --items 4 --samples 32          # quick
    .venv/bin/python bench/sampling_cost.py --items 16 --samples 128 --trained
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import torch

# The toy corpus and the tiny checkpoint trainer are test fixtures (tests/toy.py), not package
# code; this script runs as `python bench/NAME.py`, so tests/ is put on the path to reach them.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from mtdebias.translators.base import DEFAULT_EPSILON
from mtdebias.uncertainty.entropy import dedup, dedup_saving

PRESETS = {
    # name: (d_model, layers, heads, ffn, vocab)
    "tiny": (64, 2, 2, 128, 8000),
    "base": (512, 6, 8, 2048, 32000),  # the Opus-MT transformer-base shape
}
SENTENCES = [
    "The developer argued with the designer because she did not like the design.",
    "The mechanic gave the clerk a present because he won the lottery.",
    "The nurse asked the doctor about her schedule because she was late.",
    "The technician told the customer that they could pay with cash.",
]


def random_marian(preset: str, device: str):
    from transformers import MarianConfig, MarianMTModel

    d, layers, heads, ffn, vocab = PRESETS[preset]
    config = MarianConfig(vocab_size=vocab, d_model=d, encoder_layers=layers, decoder_layers=layers,
                          encoder_attention_heads=heads, decoder_attention_heads=heads, encoder_ffn_dim=ffn,
                          decoder_ffn_dim=ffn, max_position_embeddings=256, pad_token_id=2, eos_token_id=0,
                          decoder_start_token_id=2, forced_eos_token_id=0)
    torch.manual_seed(0)
    return MarianMTModel(config).to(device).eval()


@torch.inference_mode()
def time_random(preset: str, items: int, samples: int, src_len: int, epsilon: float, device: str):
    model = random_marian(preset, device)
    vocab = model.config.vocab_size
    gen = torch.Generator().manual_seed(0)
    texts: list[list[str]] = []
    start = time.perf_counter()
    for _ in range(items):
        ids = torch.randint(3, vocab, (1, src_len), generator=gen).to(device)
        out = model.generate(input_ids=ids, do_sample=True, top_k=0, epsilon_cutoff=epsilon,
                             num_return_sequences=samples, max_new_tokens=int(src_len * 1.5))
        texts.append([" ".join(map(str, row.tolist())) for row in out.cpu()])
    seconds = (time.perf_counter() - start) / items
    return seconds, dedup_saving([dedup(t) for t in texts])


def time_trained(items: int, samples: int, epsilon: float):
    from mtdebias.translators.hf import HFTranslator
    from toy import train_tiny_checkpoint

    with tempfile.TemporaryDirectory() as tmp:
        checkpoint = train_tiny_checkpoint(tmp)
        translator = HFTranslator(checkpoint)
        sources = (SENTENCES * (items // len(SENTENCES) + 1))[:items]
        start = time.perf_counter()
        drawn = translator.sample(sources, n=samples, epsilon=epsilon, seed=0)
        seconds = (time.perf_counter() - start) / items
    return seconds, dedup_saving([dedup(s) for s in drawn])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=4, help="sources to time (default 4)")
    parser.add_argument("--samples", type=int, default=128, help="samples per source (default 128)")
    parser.add_argument("--src-len", type=int, default=16, help="source length in tokens for random models")
    parser.add_argument("--epsilon", type=float, default=DEFAULT_EPSILON)
    parser.add_argument("--set-size", type=int, default=5628, help="sources of one evaluation to extrapolate to")
    parser.add_argument("--presets", default="tiny,base")
    parser.add_argument("--trained", action="store_true", help="also time the trained tiny HF checkpoint")
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    rows = []
    for preset in args.presets.split(","):
        sec, saving = time_random(preset, args.items, args.samples, args.src_len, args.epsilon, args.device)
        rows.append((f"random-{preset}", sec, saving))
    if args.trained:
        sec, saving = time_trained(args.items, args.samples, args.epsilon)
        rows.append(("trained-tiny(HFTranslator)", sec, saving))
    print(f"device={args.device} samples/source={args.samples} items timed={args.items}")
    print(f"{'model':28} {'s/source':>9} {'h/checkpoint':>13} {'dedup saves':>12}")
    for name, sec, saving in rows:
        shown = "n/a" if name.startswith("random") else f"{saving:.1%}"
        print(f"{name:28} {sec:9.3f} {sec * args.set_size / 3600:13.2f} {shown:>12}")
    if len(rows) > 1:
        base = rows[0][1]
        print("ratios to " + rows[0][0] + ": " + ", ".join(f"{n}={s / base:.1f}x" for n, s, _ in rows[1:]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
