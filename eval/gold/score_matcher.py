"""Agreement of the wsd_bias lemma matcher with the hand-labelled gold sets, per file, with
Wilson 95% intervals. Two sets (each folder's README.md says how its labels were made):

* ``wsd/matcher_<lang>.tsv``: translations of the items' own sentences, written for the gold set;
* ``wsd_matcher/``: translations the labeller did not write (real MT output: Apertium eng-spa of
  the items; AWS translations of WinoMT and GEST sentences that use an item's word in the item's
  sense).

    python eval/gold/score_matcher.py                  # agreement per file, both sets
    python eval/gold/score_matcher.py wsd --show       # one set, and every disagreement

The labels were written by hand before this script was run; it only runs the matcher on the
same translations and counts how often its GOOD/BAD/MISS equals the label.

A file with ``source`` and ``span`` columns holds outside sentences: each row is judged with the
named item's lemma lists, but as an item whose sentence and word span are that row's (so an
aligner, when one is configured, aligns the right word), through the probe's own
``attempts_from_translations``.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import math
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from mtdebias.probes.wsd.probe import DEFAULT_ITEMS, WSDBiasProbe  # noqa: E402
from mtdebias.probes.wsd.items import WSDItem, load_items  # noqa: E402

# gold file (under eval/gold/) → target language
FILES = {**{f"wsd/matcher_{lang}.tsv": lang for lang in ("de", "es", "it", "ru")},
         "wsd_matcher/apertium_es.tsv": "es", "wsd_matcher/aws_de.tsv": "de", "wsd_matcher/aws_it.tsv": "it",
         "wsd_matcher/aws_ru.tsv": "ru"}


def wilson(successes: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval of a proportion (95% by default)."""
    if n == 0:
        return float("nan"), float("nan")
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def read_gold(name: str, folder: Path = HERE) -> list[dict[str, str]]:
    with open(folder / name, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


def item_for_row(item: WSDItem, row: dict[str, str], where: str) -> WSDItem:
    """The item to judge a gold row with: the item itself, or, when the row brings its own source
    sentence and word span, the item's lemma lists on that sentence."""
    if not row.get("source"):
        return item
    try:
        start, end = (int(v) for v in row["span"].split(":"))
    except (KeyError, AttributeError, ValueError):
        raise SystemExit(f"{where}: span {row.get('span')!r} is not START:END") from None
    source = row["source"]
    word = source[start:end] if 0 <= start < end <= len(source) else ""
    inside = (start == 0 or not source[start - 1].isalnum()) and (end == len(source) or not source[end].isalnum())
    if not word.strip() or word != word.strip() or not inside:
        raise SystemExit(f"{where}: span {start}:{end} does not cover a whole word of {source!r}")
    return dataclasses.replace(item, sentence=source, span=(start, end))


def agreement(name: str, items_path: Path = DEFAULT_ITEMS, folder: Path = HERE, **options) -> dict:
    """Matcher vs gold for one file: counts, agreement with its Wilson interval, confusion."""
    lang = FILES[name]
    items = {item.id: item for item in load_items(items_path, wordnet=False)}
    gold = read_gold(name, folder)
    missing = [row["id"] for row in gold if row["id"] not in items or lang not in items[row["id"]].targets]
    if missing:
        raise SystemExit(f"{name}: rows name items without a {lang} side: {missing[:5]}")
    probe = WSDBiasProbe(list(items.values()), lang, resamples=0, **options)
    judged = [item_for_row(items[row["id"]], row, f"{name} row {k}") for k, row in enumerate(gold, 2)]
    attempts = probe.attempts_from_translations([row["translation"] for row in gold], judged)
    wrong = [(row, a) for row, a in zip(gold, attempts) if row["label"] != a["status"]]
    agree = len(gold) - len(wrong)
    return {"file": name, "lang": lang, "n": len(gold), "agree": agree, "agreement": agree / len(gold),
            "wilson": wilson(agree, len(gold)), "wrong": wrong, "lemmatizer": probe.lemmatizer.name,
            "confusion": dict(Counter((row["label"], a["status"]) for row, a in zip(gold, attempts)))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="*", choices=("wsd", "wsd_matcher"), help="the gold sets (default both)")
    parser.add_argument("--show", action="store_true", help="list every disagreement")
    parser.add_argument("--no-compounds", action="store_true", help="switch German compound-head matching off")
    args = parser.parse_args()
    for name in FILES:
        if args.sets and name.split("/")[0] not in args.sets:
            continue
        r = agreement(name, compounds=not args.no_compounds)
        low, high = r["wilson"]
        print(f"{name} ({r['lang']}, lemmatiser {r['lemmatizer']}): {r['agree']}/{r['n']} = "
              f"{r['agreement']:.3f} agreement, Wilson 95% [{low:.3f}, {high:.3f}]")
        labels = ("GOOD", "BAD", "MISS")
        print("   gold\\matcher " + " ".join(f"{m:>5}" for m in labels))
        for g in labels:
            print(f"   {g:<13} " + " ".join(f"{r['confusion'].get((g, m), 0):>5}" for m in labels))
        if args.show:
            for row, a in r["wrong"]:
                print(f"   ✗ {row['id']}: gold {row['label']}, matcher {a['status']} ({a['rule']}; "
                      f"{[(m['lemma'], m['text'], m['how']) for m in a['matches']]}) — {row['translation']}")


if __name__ == "__main__":
    main()
