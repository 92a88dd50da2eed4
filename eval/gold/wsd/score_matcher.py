"""Agreement of the wsd_bias lemma matcher with the hand-labelled gold sets in this folder.

    python eval/gold/wsd/score_matcher.py            # both languages, shipped items
    python eval/gold/wsd/score_matcher.py --show     # also list every disagreement

The labels were written by hand (see README.md); this script only runs the matcher on the
same translations and counts how often its GOOD/BAD/MISS equals the label.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from mtdebias.probes.wsd_bias import DEFAULT_ITEMS, WSDBiasProbe  # noqa: E402
from mtdebias.probes.wsd_items import load_items  # noqa: E402

LANGS = ("de", "es", "it", "ru")


def read_gold(lang: str, folder: Path = HERE) -> list[dict[str, str]]:
    with open(folder / f"matcher_{lang}.tsv", encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


def agreement(lang: str, items_path: Path = DEFAULT_ITEMS, **options) -> dict:
    """Matcher vs gold for one language: counts, agreement, confusion and disagreements."""
    items = {item.id: item for item in load_items(items_path, wordnet=False)}
    probe = WSDBiasProbe(list(items.values()), lang, resamples=0, **options)
    gold = read_gold(lang)
    missing = [row["id"] for row in gold if row["id"] not in items or lang not in items[row["id"]].targets]
    if missing:
        raise SystemExit(f"gold rows name items without a {lang} side: {missing[:5]}")
    attempts = probe.attempts_from_translations([row["translation"] for row in gold],
                                                [items[row["id"]] for row in gold])
    confusion = Counter((row["label"], a["status"]) for row, a in zip(gold, attempts))
    wrong = [(row, a) for row, a in zip(gold, attempts) if row["label"] != a["status"]]
    return {"lang": lang, "n": len(gold), "agree": len(gold) - len(wrong),
            "agreement": (len(gold) - len(wrong)) / len(gold), "confusion": dict(confusion), "wrong": wrong,
            "lemmatizer": probe.lemmatizer.name}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="store_true", help="list every disagreement")
    parser.add_argument("--no-compounds", action="store_true", help="switch German compound-head matching off")
    args = parser.parse_args()
    for lang in LANGS:
        result = agreement(lang, compounds=not args.no_compounds)
        print(f"{lang}: {result['agree']}/{result['n']} = {result['agreement']:.3f} agreement "
              f"(lemmatiser {result['lemmatizer']})")
        labels = ("GOOD", "BAD", "MISS")
        print("   gold\\matcher " + " ".join(f"{m:>5}" for m in labels))
        for g in labels:
            print(f"   {g:<13} " + " ".join(f"{result['confusion'].get((g, m), 0):>5}" for m in labels))
        if args.show:
            for row, attempt in result["wrong"]:
                print(f"   ✗ {row['id']}: gold {row['label']}, matcher {attempt['status']} ({attempt['rule']}; "
                      f"{[(m['lemma'], m['text'], m['how']) for m in attempt['matches']]}) — {row['translation']}")


if __name__ == "__main__":
    main()
