"""Throughput and memory of SwitchEntity annotation and switching.

Measures, on generated en→de sentences with person names:
* annotation pairs/s with 2 worker processes vs spaCy NER alone (n_process=2) on the same
  sentences (target ratio >= 0.8: alignment and bookkeeping must cost little beside NER);
* switching pairs/s for one epoch (target >= 200k);
* peak RSS of an annotation subprocess at 1x and 10x corpus size (target ratio <= 1.2).

The annotation/NER ratio comes from ``--rounds`` interleaved rounds (NER, annotation;
annotation, NER; …) in this one process, as the ratio of the medians, with each side's spread
(max − min) / median as its noise figure: a busy machine slows both sides alike on average, and
the spread says how far to trust the ratio.

Usage: .venv/bin/python bench/augment_throughput.py [--pairs 2000] [--rounds 3] [--out results.json]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

VERBS = [("met", "traf"), ("called", "rief"), ("visited", "besuchte"), ("thanked", "dankte")]
PLACES = [("in Berlin", "in Berlin"), ("at the station", "am Bahnhof"), ("today", "heute"),
          ("after the meeting", "nach dem Treffen")]
SURNAMES = ["Berger", "Novak", "Klein", "Moreau", "Lopez", "Fischer", "Weber", "Schmidt",
            "Keller", "Wagner", "Becker", "Hoffmann"]


def generate(n: int, seed: int = 0) -> tuple[list[str], list[str]]:
    from mtdebias.names import load_name_list

    first = load_name_list("first_female") + load_name_list("first_male")
    rng = random.Random(seed)
    sources, targets = [], []
    for _ in range(n):
        a = f"{rng.choice(first)} {rng.choice(SURNAMES)}"
        b = rng.choice(first)
        verb, place = rng.choice(VERBS), rng.choice(PLACES)
        sources.append(f"Yesterday {a} {verb[0]} {b} {place[0]}.")
        targets.append(f"Gestern {verb[1]} {a} {b} {place[1]}.")
    return sources, targets


MEMORY_CHILD = """
import resource, sys
sys.path.insert(0, sys.argv[4])
from mtdebias.augment import annotate_corpus
annotate_corpus(sys.argv[1], sys.argv[2], sys.argv[3], "en", "de", shard_size=1000)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def peak_rss_kib(src: Path, tgt: Path, out: Path) -> int:
    done = subprocess.run([sys.executable, "-c", MEMORY_CHILD, str(src), str(tgt), str(out),
                           str(ROOT)], capture_output=True, text=True, check=True)
    return int(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()

    from mtdebias.augment import SwitchEntity, annotate_corpus
    from mtdebias.ner import load_tagger

    results: dict = {"pairs": args.pairs}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for scale in (1, 10):
            sources, targets = generate(args.pairs * scale, seed=scale)
            (tmp / f"s{scale}").write_text("".join(s + "\n" for s in sources), encoding="utf-8")
            (tmp / f"t{scale}").write_text("".join(t + "\n" for t in targets), encoding="utf-8")
        sources = (tmp / "s1").read_text(encoding="utf-8").splitlines()

        tagger = load_tagger("en")
        tagger.tag(sources[:50])  # warm-up: model load and first-call costs

        def ner() -> None:
            tagger.tag(sources, n_process=2)

        def annotate(out: Path) -> None:
            # a fresh directory every round: annotation resumes (and would skip) a finished one
            annotate_corpus(tmp / "s1", tmp / "t1", out, "en", "de", n_process=2,
                            shard_size=max(1, args.pairs // 4))

        times: dict[str, list[float]] = {"ner": [], "annotate": []}
        for r in range(args.rounds):
            order = ["ner", "annotate"] if r % 2 == 0 else ["annotate", "ner"]
            for side in order:
                start = time.perf_counter()
                ner() if side == "ner" else annotate(tmp / ("ann" if r == 0 else f"ann{r}"))
                times[side].append(time.perf_counter() - start)
        ner_s, ann_s = statistics.median(times["ner"]), statistics.median(times["annotate"])
        results.update(ner_pairs_per_s=round(args.pairs / ner_s, 1), annotate_pairs_per_s=round(args.pairs / ann_s, 1),
                       annotate_over_ner=round(ner_s / ann_s, 3), rounds=args.rounds,
                       spread_ner=round((max(times["ner"]) - min(times["ner"])) / ner_s, 3),
                       spread_annotate=round((max(times["annotate"]) - min(times["annotate"])) / ann_s, 3))

        summary = json.loads((tmp / "ann" / "summary.json").read_text())
        results["accepted"] = summary["accepted"]
        results["rejected"] = summary["rejected"]

        # switching: repeat the annotation to 100k pairs so the timing is not noise
        lines = (tmp / "ann" / "annotated.jsonl").read_text(encoding="utf-8").splitlines()
        big = tmp / "big"
        big.mkdir()
        reps = max(1, 100_000 // len(lines))
        (big / "annotated.jsonl").write_text("\n".join(lines * reps) + "\n", encoding="utf-8")
        (big / "candidates.json").write_text((tmp / "ann" / "candidates.json").read_text())
        start = time.perf_counter()
        switch = SwitchEntity(big, seed=0)
        load_s = time.perf_counter() - start
        rates = []
        for epoch in range(3):
            start = time.perf_counter()
            out_sources, _ = switch.pairs(epoch)
            rates.append(len(out_sources) / (time.perf_counter() - start))
        results.update(switch_pairs=len(out_sources), switch_load_s=round(load_s, 2),
                       switch_pairs_per_s=round(min(rates)))

        rss1 = peak_rss_kib(tmp / "s1", tmp / "t1", tmp / "m1")
        rss10 = peak_rss_kib(tmp / "s10", tmp / "t10", tmp / "m10")
        results.update(peak_rss_mib_1x=round(rss1 / 1024, 1), peak_rss_mib_10x=round(rss10 / 1024, 1),
                       rss_ratio_10x_over_1x=round(rss10 / rss1, 3))
    results["targets_met"] = {"annotate_over_ner>=0.8": results["annotate_over_ner"] >= 0.8,
                              "switch>=200k/s": results["switch_pairs_per_s"] >= 200_000,
                              "rss_ratio<=1.2": results["rss_ratio_10x_over_1x"] <= 1.2}
    text = json.dumps(results, indent=2, sort_keys=True)
    print(text)
    if args.out:
        from mtdebias.store.atomic import write_text

        write_text(args.out, text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
