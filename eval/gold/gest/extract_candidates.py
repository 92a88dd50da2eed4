"""Pick the translations to label by hand for the GEST speaker-gender gold set.

This script only *chooses* items; it does not label them. Per language: 100 rows drawn uniformly
from GEST's Amazon translations, plus 50 rows drawn from those that contain a word which *might*
be feminine (a crude regex, so that the set holds enough female speakers to measure recall on
them — machine translation defaults to the masculine). A third of each language's items, chosen
at random here, before any tuning, is marked ``heldout``.

    python eval/gold/gest/extract_candidates.py ../shared/data/gest/translations-amazon > /tmp/cands.tsv
"""

import csv
import random
import re
import sys
from pathlib import Path

MAYBE_FEMININE = {
    "ru": r"\w(ла|лась)\b|\b(рада|готова|сама|одна|должна|уверена|счастлива|довольна)\b",
    "uk": r"\w(ла|лася|лась)\b|\b(рада|готова|сама|одна|повинна|впевнена|щаслива|задоволена)\b",
    "cs": r"\w(la)\b|\b(sama|ráda|připravena|schopna|jedna)\b|\bjsem \w+á\b",
    "pl": r"\w(łam|łabym|łamś)\b|\b(powinnam|sama|gotowa)\b|\bjestem \w+a\b",
}


def main(folder: str) -> None:
    writer = csv.writer(sys.stdout, delimiter="\t", lineterminator="\n")
    writer.writerow(["lang", "row", "split", "source", "translation"])
    for lang, pattern in MAYBE_FEMININE.items():
        rows = list(csv.DictReader(open(Path(folder) / f"{lang}.csv", encoding="utf-8")))
        rng = random.Random(f"gest-gold-{lang}")
        numbered = list(enumerate(rows, 2))  # row 2 = first data line of the CSV (after the header)
        uniform = rng.sample(numbered, 100)
        taken = {n for n, _ in uniform}
        flagged = [(n, r) for n, r in numbered if n not in taken and re.search(pattern, r["to"])]
        chosen = uniform + rng.sample(flagged, 50)
        chosen.sort(key=lambda x: x[0])
        heldout = set(rng.sample([n for n, _ in chosen], 50))
        for n, r in chosen:
            writer.writerow([lang, n, "heldout" if n in heldout else "tune", r["from"], r["to"]])


if __name__ == "__main__":
    main(sys.argv[1])
