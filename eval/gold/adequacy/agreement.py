"""The gate's adequacy test (mtdebias.probes.validity) against the hand-labelled gold set.

    python eval/gold/adequacy/agreement.py [--json] [--record] [--show]

Each row of ``de.tsv`` is an English WinoMT sentence, a German reply and the label it was given
by reading the pair (README.md): ``translation`` (of this source, possibly with errors) or
``not_translation``. Two measures of "invalid" (= not_translation) against the labels:

* ``held_out``: a floor chosen on the calibration half (odd ids) — the cosine that agrees best
  with its labels — scored on the other half (even ids), which played no part in choosing it;
* ``gate``: the gate's own German floor (:data:`~mtdebias.probes.validity.ADEQUACY_FLOOR`) on every row, and
  the valid rate it gives each origin (model) beside the rate the labels give.

``--record`` writes ``agreement.json``, the floor tests/test_adequacy.py holds the gate to;
``--show`` lists every disagreement.
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

from mtdebias.store.atomic import write_json
from mtdebias.probes.validity import ADEQUACY_FLOOR, adequacy

FLOOR = ADEQUACY_FLOOR["de"]

HERE = Path(__file__).resolve().parent
INVALID = "not_translation"


def rows() -> list[dict[str, str]]:
    with open(HERE / "de.tsv", encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


def scores(flagged: list[bool], gold: list[bool]) -> dict[str, float | int]:
    """Accuracy, and precision and recall of "invalid" (flagged = called invalid)."""
    hits = sum(f and g for f, g in zip(flagged, gold))
    return {"accuracy": sum(f == g for f, g in zip(flagged, gold)) / len(gold),
            "precision_invalid": hits / sum(flagged) if any(flagged) else float("nan"),
            "recall_invalid": hits / sum(gold) if any(gold) else float("nan"),
            "n": len(gold), "n_invalid": sum(gold)}


def best_floor(cosines: list[float], gold: list[bool]) -> float:
    """The floor (a midpoint between two neighbouring cosines) with the highest accuracy; of equally
    good ones the middle one, away from both classes' edges."""
    values = sorted(set(cosines))
    candidates = [values[0] - 1e-6] + [(a + b) / 2 for a, b in zip(values, values[1:])] + [values[-1] + 1e-6]
    accuracy = [sum((c < floor) == g for c, g in zip(cosines, gold)) for floor in candidates]
    best = [floor for floor, a in zip(candidates, accuracy) if a == max(accuracy)]
    return best[len(best) // 2]


def measure() -> tuple[dict, list[str]]:
    table_rows = rows()
    cosines = [float(c) for c in adequacy([r["source"] for r in table_rows], [r["translation"] for r in table_rows])]
    gold = [r["label"] == INVALID for r in table_rows]
    calibration = [n for n, r in enumerate(table_rows) if int(r["id"]) % 2 == 1]
    held = [n for n, r in enumerate(table_rows) if int(r["id"]) % 2 == 0]
    floor = best_floor([cosines[n] for n in calibration], [gold[n] for n in calibration])
    table = {"held_out": {"floor": round(floor, 4),
                          "calibration": scores([cosines[n] < floor for n in calibration],
                                                [gold[n] for n in calibration]),
                          "test": scores([cosines[n] < floor for n in held], [gold[n] for n in held])},
             "gate": {"floor": FLOOR, **scores([c < FLOOR for c in cosines], gold)}}
    origins = {}
    for origin in sorted({r["origin"] for r in table_rows}):
        mine = [n for n, r in enumerate(table_rows) if r["origin"] == origin]
        origins[origin] = {"n": len(mine), "labelled_valid_rate": sum(not gold[n] for n in mine) / len(mine),
                           "gate_valid_rate": sum(cosines[n] >= FLOOR for n in mine) / len(mine)}
    table["origins"] = origins
    misses = [f"{r['id']} {r['origin']}: labelled {r['label']}, cosine {c:.3f}: {r['source']} → {r['translation']}"
              for r, c, g in zip(table_rows, cosines, gold) if (c < FLOOR) != g]
    return table, misses


def rounded(value):
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    return round(value, 4) if isinstance(value, float) else value


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--record", action="store_true", help="write agreement.json")
    parser.add_argument("--show", action="store_true", help="list the disagreements")
    args = parser.parse_args()
    table, misses = measure()
    table = rounded(table)
    if args.record:
        write_json(HERE / "agreement.json", table)  # atomically: a reader never sees half a file
    if args.json:
        print(json.dumps(table, indent=2, sort_keys=True))
    else:
        held, gate = table["held_out"], table["gate"]
        print(f"held-out: floor {held['floor']} chosen on {held['calibration']['n']} rows; on the other "
              f"{held['test']['n']}: accuracy {held['test']['accuracy']}, precision(invalid) "
              f"{held['test']['precision_invalid']}, recall(invalid) {held['test']['recall_invalid']}")
        print(f"gate floor {gate['floor']} on all {gate['n']}: accuracy {gate['accuracy']}, precision(invalid) "
              f"{gate['precision_invalid']}, recall(invalid) {gate['recall_invalid']}")
        for origin, row in table["origins"].items():
            print(f"  {origin}: valid rate by the labels {row['labelled_valid_rate']}, by the gate "
                  f"{row['gate_valid_rate']} (n={row['n']})")
    if args.show:
        print("\n".join(misses))


if __name__ == "__main__":
    main()
