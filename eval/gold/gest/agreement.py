"""Agreement of the speaker-gender detector with the hand labels in this folder.

    PYTHONPATH=. python eval/gold/gest/agreement.py [ru uk cs pl] [--show-errors]

Prints, per language and split (tune / heldout / all), the share of translations where
``mtdebias.lang.first_person.detect_speaker`` gives the hand label, and the confusion counts.
"""

import csv
import sys
from collections import Counter
from pathlib import Path

from mtdebias.lang.first_person import detect_speaker

HERE = Path(__file__).resolve().parent


def rows(lang):
    with open(HERE / f"{lang}.tsv", encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def main(argv):
    show = "--show-errors" in argv
    langs = [a for a in argv if not a.startswith("--")] or ["ru", "uk", "cs", "pl"]
    for lang in langs:
        results = [(r, detect_speaker(lang, r["translation"])) for r in rows(lang)]
        for split in ("tune", "heldout", "all"):
            part = [(r, d) for r, d in results if split == "all" or r["split"] == split]
            agree = sum(r["speaker"] == d.gender for r, d in part)
            print(f"{lang} {split:8s} {agree}/{len(part)} = {agree / len(part):.1%}")
        confusion = Counter((r["speaker"], d.gender) for r, d in results)
        print("   gold→detected:", ", ".join(f"{g}→{d}: {n}" for (g, d), n in sorted(confusion.items())))
        if show:
            for r, d in results:
                if r["speaker"] != d.gender:
                    print(f"   row {r['row']} ({r['split']}): gold {r['speaker']}, got {d.gender} | "
                          f"{r['translation']} | {'; '.join(d.evidence)}")


if __name__ == "__main__":
    main(sys.argv[1:])
