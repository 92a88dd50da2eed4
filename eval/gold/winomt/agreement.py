"""Print each detector's agreement with the hand-labelled WinoMT gold set.

    python eval/gold/winomt/agreement.py [LANG ...] [--show dev|heldout|all] [--json] [--record]

``--show`` lists the disagreements and undetected items of that split (fixing detectors is
done on ``dev`` only; ``heldout`` is for the final report). ``--record`` writes the figures to
``agreement.json``, the floor that tests/test_lang_gold_agreement.py holds every detector to.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from mtdebias.lang import detect_gender
from mtdebias.lang.agreement import SPLITS, load_gold, score, signature

HERE = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("langs", nargs="*")
    parser.add_argument("--show", choices=SPLITS + ("all",))
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--record", action="store_true", help="write agreement.json")
    args = parser.parse_args()
    langs = args.langs or sorted(p.stem for p in (HERE / "labels").glob("*.tsv"))
    table = {}
    for lang in langs:
        gold = load_gold(HERE, lang)
        row = {}
        for split in SPLITS + ("all",):
            items = [g for g in gold if split == "all" or g.split == split]
            if not items:
                continue
            tally = score(items, lambda l, t, s: detect_gender(l, t, s))
            row[split] = tally.as_dict()
            if args.show == split:
                for item, det in tally.disagreements + tally.undetected_items:
                    print(f"{lang} {item.line} gold={item.label} got={det.gender} target={item.target!r}"
                          f"\n   {item.translation}\n   {' | '.join(det.evidence)}")
        row["signature"] = signature(HERE, lang)
        table[lang] = row
    if args.record:
        from mtdebias.store.atomic import write_json

        write_json(HERE / "agreement.json", table)
    if args.json:
        print(json.dumps(table, indent=1, ensure_ascii=False))
        return
    print(f"{'lang':<5} {'split':<9} {'agreement':>9} {'undetected':>10} {'n':>4}")
    for lang, row in table.items():
        for split in SPLITS + ("all",):
            if split in row:
                r = row[split]
                print(f"{lang:<5} {split:<9} {r['agreement']:>9.1%} {r['undetected_rate']:>10.1%} {r['items']:>4}")


if __name__ == "__main__":
    main()
