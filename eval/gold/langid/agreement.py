"""The translation-validity gate (mtdebias.probes.validity) against the hand-written gold set.

    python eval/gold/langid/agreement.py [--json] [--record] [--show]

Three checks. ``own``: every sentence of ``<lang>.tsv`` as the translation of the line of
``en.tsv`` it translates (the files are parallel, line by line) must pass. ``english``: every
``en.tsv`` sentence handed back as its own translation into each other language must fail (as a
copy); ``english_detector`` asks the language detector alone, as if it were no copy.
``hard``: each row of ``hard.tsv`` must get the verdict its ``expected`` column gives (valid, or
the reason; ``a|b`` where both reasons hold). ``--record`` writes ``agreement.json``, the floor tests/test_validity_gate.py holds
the gate to; ``--show`` lists every disagreement.
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

from mtdebias.lang.identify import identify
from mtdebias.probes.validity import check

HERE = Path(__file__).resolve().parent


def read(lang: str) -> list[tuple[str, str]]:
    return [tuple(line.split("\t")) for line in (HERE / f"{lang}.tsv").read_text(encoding="utf-8").splitlines()]


def hard_rows() -> list[dict[str, str]]:
    with open(HERE / "hard.tsv", encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


def measure() -> tuple[dict, list[str]]:
    english = [text for _, text in read("en")]
    langs = sorted(p.stem for p in HERE.glob("*.tsv") if p.stem not in ("en", "hard"))
    table, misses = {}, []
    for lang in langs:
        own = read(lang)
        assert len(own) == len(english), f"{lang}.tsv is not parallel to en.tsv"
        passed = 0
        for (kind, text), source in zip(own, english):
            verdict = check(source, text, lang)
            passed += verdict["valid"]
            if not verdict["valid"]:
                misses.append(f"own {lang} {kind}: {verdict['reason']} {verdict['detected_lang']} {text}")
        caught = detected = 0
        for source in english:
            verdict = check(source, source, lang)
            caught += not verdict["valid"]
            if verdict["valid"]:
                misses.append(f"english→{lang}: passed {source}")
            found = identify(source, lang)
            detected += found.in_target is False
            if found.in_target is not False:
                misses.append(f"english→{lang}: the detector gives {lang} {found.target_share}: {source}")
        table[lang] = {"own_valid": passed / len(own), "english_caught": caught / len(english),
                       "english_detector": detected / len(english), "n": len(own)}
    rows = hard_rows()
    agreed = 0
    for row in rows:
        verdict = check(row["source"], row["reply"], row["target"])
        got = "valid" if verdict["valid"] else verdict["reason"]
        # "copy|wrong_language": both hold (a near-copy is English too); the gate names the first
        expected = row["expected"].replace("wrong_language", "not_target").split("|")
        agreed += got in expected
        if got not in expected:
            misses.append(f"hard {row['target']} {row['kind']}: expected {expected}, got {got} "
                          f"({verdict['detected_lang']}, share {verdict['target_share']}) {row['reply']!r}")
    table["hard"] = {"agreement": agreed / len(rows), "n": len(rows)}
    return table, misses


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--record", action="store_true", help="write agreement.json")
    parser.add_argument("--show", action="store_true", help="list the disagreements")
    args = parser.parse_args()
    table, misses = measure()
    if args.record:
        from mtdebias.store.atomic import write_json

        write_json(HERE / "agreement.json", table)
    if args.json:
        print(json.dumps(table, indent=1))
    else:
        print(f"{'lang':<5} {'own kept':>9} {'English caught':>15} {'by detector':>12} {'n':>4}")
        for lang, row in table.items():
            if lang != "hard":
                print(f"{lang:<5} {row['own_valid']:>9.1%} {row['english_caught']:>15.1%} "
                      f"{row['english_detector']:>12.1%} {row['n']:>4}")
        print(f"hard cases: {table['hard']['agreement']:.1%} of {table['hard']['n']} get the expected verdict")
    if args.show:
        print("\n".join(misses))


if __name__ == "__main__":
    main()
