"""Extract the WinoMT items to be labelled by hand (the labels are NOT produced here).

Usage (from the repository root, with ../shared present):

    python eval/gold/winomt/extract_items.py LANG [BEFORE_ATTEMPTS.jsonl]
    python eval/gold/winomt/extract_items.py --fresh LANG   # 50 more rows, split heldout2
    python eval/gold/winomt/extract_items.py --own LANG N   # N English rows to translate (uk, cs)

Writes eval/gold/winomt/items/LANG.tsv: 150 rows of one translation file
(../shared/data/winomt/translations-aws/en-LANG.txt), chosen with a fixed seed:

* 30 each of pro-/anti-stereotypical × male/female WinoMT gold (120),
* 10 of the remaining rows (neutral gold or in neither pro nor anti),
* 20 "hard" rows: where the detector of commit 8a693b8 (before issue 11) returned
  ``undetected`` — read from its attempts log when given, else drawn at random.

Each row gets a split: ``heldout`` for about a third (hash of the line number), ``dev`` for
the rest. The ``aligned`` column is what fast_align linked to the profession: a reading aid
for the labeller, who writes the entity's target words and gender in LANG.labels.tsv.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT.parent / "shared" / "data" / "winomt"
OUT = Path(__file__).resolve().parent / "items"
COLUMNS = ("line", "split", "stratum", "wino_gold", "stereotype", "profession", "source",
           "translation", "aligned")


def split_of(line: int) -> str:
    digest = hashlib.sha256(f"winomt-gold:{line}".encode()).digest()
    return "heldout" if digest[0] % 3 == 0 else "dev"


def main(lang: str, before: str | None = None) -> None:
    rows = [l.rstrip("\n").split("\t") for l in (DATA / "en.txt").open(encoding="utf-8")]
    pro = {tuple(l.rstrip("\n").split("\t")) for l in (DATA / "en_pro.txt").open(encoding="utf-8")}
    anti = {tuple(l.rstrip("\n").split("\t")) for l in (DATA / "en_anti.txt").open(encoding="utf-8")}
    pairs = [l.rstrip("\n").split(" ||| ", 1)
             for l in (DATA / "translations-aws" / f"en-{lang}.txt").open(encoding="utf-8")]
    assert len(pairs) == len(rows)
    aligned: dict[int, str] = {}
    undetected: set[int] = set()
    if before:
        for rec in map(json.loads, Path(before).open(encoding="utf-8")):
            aligned[rec["line"]] = rec["target_words"] or "-"
            if rec["detected"] == "undetected":
                undetected.add(rec["line"])
    seen_sources: set[str] = set()
    strata: dict[str, list[int]] = {}
    for number, row in enumerate(rows, 1):
        if pairs[number - 1][0].strip() != row[2].strip() or row[2] in seen_sources:
            continue  # a source the file does not translate, or a duplicate sentence
        seen_sources.add(row[2])
        group = "pro" if tuple(row) in pro else "anti" if tuple(row) in anti else "other"
        key = f"{group}-{row[0]}" if group != "other" else "other"
        strata.setdefault(key, []).append(number)
    rng = random.Random(f"winomt-gold-{lang}")
    chosen: dict[int, str] = {}
    for key in ("pro-male", "pro-female", "anti-male", "anti-female"):
        for n in rng.sample(strata[key], 30):
            chosen[n] = key
    for n in rng.sample(strata["other"], 10):
        chosen[n] = "other"
    pool = sorted((undetected or set(range(1, len(rows) + 1))) - set(chosen))
    pool = [n for s in strata.values() for n in s if n in set(pool)]
    for n in rng.sample(sorted(pool), 20):
        chosen[n] = "hard"
    OUT.mkdir(exist_ok=True)
    with (OUT / f"{lang}.tsv").open("w", encoding="utf-8") as handle:
        handle.write("\t".join(COLUMNS) + "\n")
        for n in sorted(chosen):
            gold, _, sentence, profession = rows[n - 1]
            group = "pro" if tuple(rows[n - 1]) in pro else "anti" if tuple(rows[n - 1]) in anti else "-"
            handle.write("\t".join([str(n), split_of(n), chosen[n], gold, group, profession, sentence,
                                    pairs[n - 1][1].strip(), aligned.get(n, "-")]) + "\n")
    print(f"{lang}: {len(chosen)} items → {OUT / (lang + '.tsv')}")


def _untaken_strata(rows, pro, anti, taken, usable=lambda number, row: True) -> dict[str, list[int]]:
    """Line numbers by stratum (pro/anti × gender, or other): first occurrence of each
    sentence, usable, not yet in the items file."""
    seen: set[str] = set()
    strata: dict[str, list[int]] = {}
    for number, row in enumerate(rows, 1):
        if not usable(number, row) or row[2] in seen:
            continue
        seen.add(row[2])
        if number in taken:
            continue
        group = "pro" if tuple(row) in pro else "anti" if tuple(row) in anti else "other"
        strata.setdefault(f"{group}-{row[0]}" if group != "other" else "other", []).append(number)
    return strata


def fresh(lang: str, n_per_stratum: int = 10) -> None:
    """Append a fresh random sample (split ``heldout2``: 10 per stratum, no "hard" rows,
    lines not yet extracted) to items/LANG.tsv — a second held-out set, drawn after the
    detectors had been changed with the first held-out split in view."""
    rows = [l.rstrip("\n").split("\t") for l in (DATA / "en.txt").open(encoding="utf-8")]
    pro = {tuple(l.rstrip("\n").split("\t")) for l in (DATA / "en_pro.txt").open(encoding="utf-8")}
    anti = {tuple(l.rstrip("\n").split("\t")) for l in (DATA / "en_anti.txt").open(encoding="utf-8")}
    pairs = [l.rstrip("\n").split(" ||| ", 1)
             for l in (DATA / "translations-aws" / f"en-{lang}.txt").open(encoding="utf-8")]
    path = OUT / f"{lang}.tsv"
    taken = {int(l.split("\t", 1)[0]) for l in path.read_text(encoding="utf-8").splitlines()[1:]}
    strata = _untaken_strata(rows, pro, anti, taken,
                             usable=lambda number, row: pairs[number - 1][0].strip() == row[2].strip())
    rng = random.Random(f"winomt-gold-fresh-{lang}")
    chosen = {n: key for key in ("pro-male", "pro-female", "anti-male", "anti-female", "other")
              for n in rng.sample(strata[key], n_per_stratum)}
    with path.open("a", encoding="utf-8") as handle:
        for n in sorted(chosen):
            gold, _, sentence, profession = rows[n - 1]
            group = "pro" if tuple(rows[n - 1]) in pro else "anti" if tuple(rows[n - 1]) in anti else "-"
            handle.write("\t".join([str(n), "heldout2", chosen[n], gold, group, profession, sentence,
                                    pairs[n - 1][1].strip(), "-"]) + "\n")
    print(f"{lang}: {len(chosen)} fresh items appended to {path}")


def own(lang: str, n: int) -> None:
    """Print N English rows (not yet in items/LANG.tsv) for the labeller to translate by hand,
    MT-style, where no MT output exists (uk, cs): 22 % per pro/anti × male/female stratum, 12 %
    others, fixed seed; split ``heldout3`` for a third (hash of the line number), else ``dev``.
    The labeller appends the rows with the translation to items/LANG.tsv and labels them."""
    rows = [l.rstrip("\n").split("\t") for l in (DATA / "en.txt").open(encoding="utf-8")]
    pro = {tuple(l.rstrip("\n").split("\t")) for l in (DATA / "en_pro.txt").open(encoding="utf-8")}
    anti = {tuple(l.rstrip("\n").split("\t")) for l in (DATA / "en_anti.txt").open(encoding="utf-8")}
    taken = {int(l.split("\t", 1)[0]) for l in (OUT / f"{lang}.tsv").read_text(encoding="utf-8").splitlines()[1:]}
    strata = _untaken_strata(rows, pro, anti, taken)
    rng = random.Random(f"winomt-gold-own-{lang}")
    quota = [(k, n * 22 // 100) for k in ("pro-male", "pro-female", "anti-male", "anti-female")]
    quota.append(("other", n - sum(q for _, q in quota)))
    chosen = {m: key for key, q in quota for m in rng.sample(strata[key], q)}
    for m in sorted(chosen):
        gold, _, sentence, profession = rows[m - 1]
        group = "pro" if tuple(rows[m - 1]) in pro else "anti" if tuple(rows[m - 1]) in anti else "-"
        digest = hashlib.sha256(f"winomt-gold-own:{m}".encode()).digest()
        print("\t".join([str(m), "heldout3" if digest[0] % 3 == 0 else "dev", chosen[m], gold, group,
                         profession, sentence]))


if __name__ == "__main__":
    if sys.argv[1] == "--fresh":
        fresh(sys.argv[2])
    elif sys.argv[1] == "--own":
        own(sys.argv[2], int(sys.argv[3]))
    else:
        main(*sys.argv[1:])
