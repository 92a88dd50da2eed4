"""The gate's adequacy test (mtdebias.probes.validity) against the hand-labelled gold sets.

    python eval/gold/adequacy/agreement.py [--lang de] [--json] [--record] [--show]

Each row of ``LANG.tsv`` is an English WinoMT sentence, a reply in LANG and the label it was given
by reading the pair (README.md): ``translation`` (of this source, possibly with errors) or
``not_translation``. For each language, three measures of "invalid" (= not_translation):

* ``held_out``: a floor chosen on the calibration half (odd ids) — the cosine that agrees best
  with its labels — scored on the other half (even ids), which played no part in choosing it;
* ``gate``: the gate's own floor for the language
  (:data:`~mtdebias.probes.validity.ADEQUACY_FLOOR`; absent when it has none) on every row, and
  the valid rate it gives each origin (model) beside the rate the labels give;
* ``references``: the share of reference translations (``eval/gold/winomt/items``: AWS Translate's,
  or the labeller's own for uk and cs) of sources long enough to be measured that fall below the
  held-out floor and below the gate's: good translations the floor would throw out;
* ``aws`` (only with ``--aws``, where ``../shared`` is present): the same share over every WinoMT
  sentence AWS Translate rendered into the language (de es fr it ru), a larger sample of good
  translations than the references, none of them seen when a floor was chosen;
* ``second_reader`` (where ``second/LANG.tsv`` holds a second reader's labels of the same pairs,
  given blind to the first's): how often the two readers agree and Cohen's kappa, the gate's
  floor against the second reader's labels, and against the pairs both readers labelled alike.

A language gets a floor in the gate (:func:`adopted`) only when its held-out accuracy reaches
:data:`MIN_HELD_OUT` and its held-out floor throws out at most :data:`MAX_REFERENCE_REJECTED` of the
reference translations; the floor adopted is the held-out one.

``--record`` writes ``agreement.json``, the figures tests/test_adequacy.py holds the gate to;
``--show`` lists every disagreement with the gate (or, without a floor, with the held-out floor).
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

from mtdebias.errors import InputError
from mtdebias.store.atomic import write_json
from mtdebias.probes.validity import ADEQUACY_FLOOR, ADEQUACY_MIN_WORDS, adequacy, word_count

HERE = Path(__file__).resolve().parent
REFERENCES = HERE.parent / "winomt" / "items"
SECOND = HERE / "second"
AWS = HERE.parents[2].parent / "shared" / "data" / "winomt" / "translations-aws"
INVALID = "not_translation"
# the adoption rule: a floor must agree with the labels it was not chosen on nearly as well as
# German's (0.90), and cost at most one good translation in twenty, a quarter of what the
# degenerate line (a valid rate under 0.8) tolerates. The cap was first set at one in fifty and
# raised after Czech's floor was seen to throw out 3 of 145 (README.md says so)
MIN_HELD_OUT = 0.85
MAX_REFERENCE_REJECTED = 0.05


def languages() -> list[str]:
    return sorted(path.stem for path in HERE.glob("*.tsv"))


def _read(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


def rows(lang: str = "de") -> list[dict[str, str]]:
    return _read(HERE / f"{lang}.tsv")


def second_reader(lang: str, table_rows: list[dict[str, str]]) -> list[bool] | None:
    """The second reader's labels (True = not_translation) in the order of ``table_rows``; None
    where the language has no second reader."""
    path = SECOND / f"{lang}.tsv"
    if not path.is_file():
        return None
    read = _read(path)
    labels = {r["id"]: r["label"] for r in read}
    if sorted(r["id"] for r in read) != sorted(r["id"] for r in table_rows):  # each id once, none missing
        raise InputError(f"the second reader's ids are not those of {lang}.tsv", path=path,
                         hint="label every pair of the first set once")
    wrong = sorted(set(labels.values()) - {INVALID, "translation"})
    if wrong:
        raise InputError(f"labels {wrong}: expected translation or {INVALID}", path=path)
    return [labels[r["id"]] == INVALID for r in table_rows]


def kappa(first: list[bool], second: list[bool]) -> float:
    """Cohen's kappa of two readers' yes/no labels: their agreement beyond what chance gives two
    readers who say yes as often as these do."""
    n = len(first)
    observed = sum(a == b for a, b in zip(first, second)) / n
    p1, p2 = sum(first) / n, sum(second) / n
    chance = p1 * p2 + (1 - p1) * (1 - p2)
    return (observed - chance) / (1 - chance) if chance < 1 else float("nan")


def references(lang: str) -> list[dict[str, str]]:
    """The reference translations of sources the gate measures (long enough), none if the language has none."""
    path = REFERENCES / f"{lang}.tsv"
    return [r for r in _read(path) if word_count(r["source"]) >= ADEQUACY_MIN_WORDS] if path.is_file() else []


def aws_rejected(lang: str) -> dict[str, float | int] | None:
    """How many of AWS Translate's WinoMT translations into ``lang`` (sources long enough to be
    measured) fall below the gate's floor; None without the file or without a floor."""
    path, floor = AWS / f"en-{lang}.txt", ADEQUACY_FLOOR.get(lang)
    if not path.is_file() or floor is None:
        return None
    pairs = [line.rstrip("\n").split(" ||| ", 1) for line in path.open(encoding="utf-8")]
    pairs = [(s, t) for s, t in (p for p in pairs if len(p) == 2)
             if t.strip() and word_count(s) >= ADEQUACY_MIN_WORDS]
    return _rejected([float(c) for c in adequacy([s for s, _ in pairs], [t for _, t in pairs])], floor)


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


def adopted(table: dict) -> bool:
    """Whether a language's measured table meets the rule for a floor in the gate."""
    held = table["held_out"]
    return (held["test"]["accuracy"] >= MIN_HELD_OUT
            and held["references_rejected"]["rate"] <= MAX_REFERENCE_REJECTED)


def _rejected(cosines: list[float], floor: float) -> dict[str, float | int]:
    below = sum(c < floor for c in cosines)
    return {"n": len(cosines), "below": below, "rate": below / len(cosines) if cosines else float("nan")}


def measure(lang: str = "de") -> tuple[dict, list[str]]:
    table_rows = rows(lang)
    cosines = [float(c) for c in adequacy([r["source"] for r in table_rows], [r["translation"] for r in table_rows])]
    refs = references(lang)
    ref_cosines = [float(c) for c in adequacy([r["source"] for r in refs], [r["translation"] for r in refs])]
    gold = [r["label"] == INVALID for r in table_rows]
    calibration = [n for n, r in enumerate(table_rows) if int(r["id"]) % 2 == 1]
    held = [n for n, r in enumerate(table_rows) if int(r["id"]) % 2 == 0]
    floor = best_floor([cosines[n] for n in calibration], [gold[n] for n in calibration])
    table: dict = {"held_out": {"floor": round(floor, 4),
                                "calibration": scores([cosines[n] < floor for n in calibration],
                                                      [gold[n] for n in calibration]),
                                "test": scores([cosines[n] < floor for n in held], [gold[n] for n in held]),
                                "references_rejected": _rejected(ref_cosines, floor)}}
    gate = ADEQUACY_FLOOR.get(lang)
    if gate is not None:
        table["gate"] = {"floor": gate, **scores([c < gate for c in cosines], gold),
                         "references_rejected": _rejected(ref_cosines, gate)}
    table["adopted"] = adopted(table)
    shown = floor if gate is None else gate
    origins = {}
    for origin in sorted({r["origin"] for r in table_rows}):
        mine = [n for n, r in enumerate(table_rows) if r["origin"] == origin]
        origins[origin] = {"n": len(mine), "labelled_valid_rate": sum(not gold[n] for n in mine) / len(mine),
                           "floor_valid_rate": sum(cosines[n] >= shown for n in mine) / len(mine)}
    table["origins"] = origins
    second = second_reader(lang, table_rows)
    if second is not None:
        agreed = [n for n in range(len(gold)) if gold[n] == second[n]]
        table["second_reader"] = {
            "n": len(second), "same": len(agreed), "kappa": kappa(gold, second),
            "floor": shown, "floor_vs_second": scores([c < shown for c in cosines], second),
            "floor_where_readers_agree": scores([cosines[n] < shown for n in agreed], [gold[n] for n in agreed])}
    misses = [f"{r['id']} {r['origin']}: labelled {r['label']}, cosine {c:.3f}: {r['source']} → {r['translation']}"
              for r, c, g in zip(table_rows, cosines, gold) if (c < shown) != g]
    return table, misses


def rounded(value):
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    return round(value, 4) if isinstance(value, float) else value


def _print(lang: str, table: dict) -> None:
    held = table["held_out"]
    refs = held["references_rejected"]
    print(f"{lang}: held-out floor {held['floor']} chosen on {held['calibration']['n']} rows; on the other "
          f"{held['test']['n']}: accuracy {held['test']['accuracy']}, precision(invalid) "
          f"{held['test']['precision_invalid']}, recall(invalid) {held['test']['recall_invalid']}; "
          f"below it {refs['below']} of {refs['n']} reference translations")
    if "gate" in table:
        gate = table["gate"]
        print(f"  gate floor {gate['floor']} on all {gate['n']}: accuracy {gate['accuracy']}, precision(invalid) "
              f"{gate['precision_invalid']}, recall(invalid) {gate['recall_invalid']}; below it "
              f"{gate['references_rejected']['below']} of {gate['references_rejected']['n']} reference translations")
    else:
        print(f"  no floor in the gate; the rule {'would adopt' if table['adopted'] else 'adopts no'} floor")
    if "aws_rejected" in table:
        aws = table["aws_rejected"]
        print(f"  AWS Translate's WinoMT translations below the gate's floor: {aws['below']} of {aws['n']} ({aws['rate']})")
    if "second_reader" in table:
        two = table["second_reader"]
        print(f"  second reader: same label on {two['same']} of {two['n']} (Cohen's kappa {two['kappa']}); the "
              f"floor {two['floor']} against the second reader: accuracy {two['floor_vs_second']['accuracy']}; on "
              f"the {two['floor_where_readers_agree']['n']} pairs both readers labelled alike: accuracy "
              f"{two['floor_where_readers_agree']['accuracy']}")
    for origin, row in table["origins"].items():
        print(f"  {origin}: valid rate by the labels {row['labelled_valid_rate']}, by the floor "
              f"{row['floor_valid_rate']} (n={row['n']})")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lang", action="append", help="one language (repeatable); default: every gold set")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--record", action="store_true", help="write agreement.json (every language)")
    parser.add_argument("--show", action="store_true", help="list the disagreements")
    parser.add_argument("--aws", action="store_true",
                        help="also count the AWS WinoMT translations in ../shared the gate's floor throws out")
    args = parser.parse_args()
    langs = languages() if args.record or not args.lang else args.lang
    tables, misses = {}, {}
    for lang in langs:
        table, miss = measure(lang)
        if args.aws and (found := aws_rejected(lang)) is not None:
            table["aws_rejected"] = found
        tables[lang], misses[lang] = rounded(table), miss
    if args.record:
        write_json(HERE / "agreement.json", tables)  # atomically: a reader never sees half a file
    if args.json:
        print(json.dumps(tables, indent=2, sort_keys=True))
    else:
        for lang, table in tables.items():
            _print(lang, table)
            if args.show:
                print("\n".join(misses[lang]))


if __name__ == "__main__":
    main()
