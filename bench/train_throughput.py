"""Trainer throughput against a bare PyTorch loop (sampling speed: ``bench/eval_speed.py``).

Both comparisons run in one process on the same model, data and batches, so the printed ratios
are meaningful on a noisy machine (absolute numbers are not). Target: trainer/bare >= 0.95.

    python bench/train_throughput.py [--preset tiny|small|base] [--steps 60]
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


def _bare_loop(model, batches, lr: float, clip: float) -> float:
    """The reference: the same forward/backward/step with nothing around it."""
    loss_fn = torch.nn.CrossEntropyLoss(ignore_index=-100, reduction="sum")
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, betas=(0.9, 0.98), eps=1e-9)
    model.train()
    tokens = 0
    start = time.perf_counter()
    for batch in batches:
        batch = dict(batch)
        labels = batch.pop("labels")
        logits = model(**batch).logits
        n = int((labels != -100).sum())
        loss = loss_fn(logits.float().view(-1, logits.size(-1)), labels.view(-1)) / n
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        tokens += n
    return tokens / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--preset", default="small")
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--max-tokens", type=int, default=2048)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    from mtdebias.models.model import build_model, marian_config
    from mtdebias.recipe.schema import TrainConfig
    from mtdebias.models.tokenizer import train_tokenizer, vocab_sizes
    from mtdebias.train.batching import collate, encode_pairs, make_batches
    from mtdebias.train.trainer import StaticPairs, Trainer
    from toy import toy_corpus

    sources, targets = toy_corpus(4000, seed=1)
    work = Path(tempfile.mkdtemp())
    tokenizer = train_tokenizer(sources, targets, work / "tok", vocab_size=400)
    config = marian_config(args.preset, *vocab_sizes(tokenizer), max_positions=128, dropout=0.0)

    # the same batches for both: one epoch of the trainer's own batching, cut to --steps
    encoded = encode_pairs(tokenizer, sources, targets, 128)
    batch_ids = make_batches(encoded, args.max_tokens, seed=1, epoch=0)[:args.steps]
    batches = [collate(encoded, ids, tokenizer.pad_token_id) for ids in batch_ids]
    pairs = StaticPairs([sources[i] for ids in batch_ids for i in ids], [targets[i] for ids in batch_ids for i in ids])

    results = {}
    for name in ("bare", "mtdebias", "bare again"):  # bare twice: the spread shows the machine's noise
        model = build_model(config, seed=1)
        if name.startswith("bare"):
            results[name] = _bare_loop(model, batches, 5e-4, 1.0)
            continue
        train_config = TrainConfig(epochs=1, max_tokens=args.max_tokens, lr=5e-4, warmup_steps=1, label_smoothing=0.0,
                                   save_every_epochs=10_000, validate_bleu=False, log_every_steps=10_000)
        trainer = Trainer(config=train_config, run_dir=work / "run", model=model, tokenizer=tokenizer,
                          source=pairs, seed=1)
        # the trainer batches the same pairs with the same function; the clock stops when the
        # epoch's training ends, before the final checkpoint is written
        stopped: list[float] = []
        trainer.before_save.append(lambda: stopped.append(time.perf_counter()))
        start = time.perf_counter()
        state = trainer.train(epochs=1)
        results[name] = state.tokens / (stopped[0] - start)
    bare = (results["bare"] + results["bare again"]) / 2
    print(f"preset={args.preset} steps={len(batches)} max_tokens={args.max_tokens} threads={args.threads}")
    for name, value in results.items():
        print(f"  {name:<12} {value:10.0f} target tokens/s")
    print(f"trainer / bare loop throughput ratio: {results['mtdebias'] / bare:.3f}  (target >= 0.95; "
          f"bare-vs-bare spread {abs(results['bare'] - results['bare again']) / bare:.1%})")


if __name__ == "__main__":
    main()
