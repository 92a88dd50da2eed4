"""Agreement of the WinoMT probe's detected gender with mt_gender's human annotations.

    python eval/gold/mt_gender_human/agreement.py [LANG ...] [--shared ../shared/data]
                                                  [--show] [--json] [--record]

The annotation files in this folder are mt_gender's (see README.md): each row is one
translated WinoMT sentence with the row index of ``en.txt``, and a human's answer to "is the
entity in the translation?" and "with which gender?". Each translation goes through the
probe's own judge (:meth:`mtdebias.probes.winomt.probe.WinoMTProbe.judge`: fast_align, then
:func:`mtdebias.lang.detect_gender` on the aligned words), exactly as ``mtdebias eval --probe
winomt`` would score it. fast_align learns from the pairs it aligns; 100 pairs are too few, so
it also gets a same-domain extra corpus (training data only): the AWS translations of all of
``en.txt`` for de/es/fr/it/ru, Amazon's GEST translations for uk (no WinoMT uk file here).

Human labels are mapped, never changed: Find entity ``N`` → ``not_found``; ``Y`` with ``M``/
``F``/``N`` → ``male``/``female``/``neutral``; anything else (no answer, ``M/N``) → unlabelled,
counted and left out. Agreement is computed as for eval/gold/winomt: ``undetected`` is its own
outcome (left out of the denominator, reported as a rate); human ``not_found`` rows are only
counted (with what the probe said for them).

``--record`` writes ``agreement.json``, the floor tests/test_mt_gender_human_agreement.py
holds the probe to.
"""

from __future__ import annotations

import argparse
import csv
import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from mtdebias.errors import InputError
from mtdebias.probes.winomt.probe import WinoMTProbe, load_winomt
from mtdebias.signature import Signature, hash_file, hash_json

HERE = Path(__file__).resolve().parent
DEFAULT_SHARED = HERE.parents[2].parent / "shared" / "data"
LABELS = {"M": "male", "F": "female", "N": "neutral"}
OUTCOMES = ("male", "female", "neutral", "undetected")
HUMAN = ("male", "female", "neutral", "not_found")

# lang -> (annotation files: annotator id -> file, system that translated, extra alignment corpus)
SETS = {
    "de": ({"a": "de.aws.csv"}, "Amazon Translate", "winomt/translations-aws/en-de.txt"),
    "es": ({"a": "es.csv"}, "not AWS (mt_gender does not say which)", "winomt/translations-aws/en-es.txt"),
    "fr": ({"a": "fr.csv"}, "not AWS (mt_gender does not say which)", "winomt/translations-aws/en-fr.txt"),
    "it": ({"a": "it.google.csv", "b": "it.google.2.csv"}, "Google Translate", "winomt/translations-aws/en-it.txt"),
    "ru": ({"a": "ru.google.csv"}, "Google Translate", "winomt/translations-aws/en-ru.txt"),
    "uk": ({"a": "uk.google.csv"}, "Google Translate", "gest/translations-amazon/uk.csv"),
}


@dataclass(frozen=True)
class HumanRow:
    index: int  # 0-based row of en.txt (mt_gender's "Index")
    entity: str
    translation: str
    find: str  # raw "Find entity? [Y/N]"
    gender: str  # raw "Gender? [M/F/N]"
    comment: str

    @property
    def label(self) -> str | None:
        """The human label in the project's vocabulary; None when the row has none."""
        if self.find == "N":
            return "not_found"
        if self.find == "Y" and self.gender in LABELS:
            return LABELS[self.gender]
        return None


def read_annotations(path: Path) -> list[HumanRow]:
    """Read one of mt_gender's CSVs (columns by position: the uk file's header is shifted)."""
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    if not rows or rows[0][0] != "Index":
        raise InputError("expected mt_gender's annotation header starting with 'Index'", path=path, line=1)
    has_ambiguous = "Ambiguous" in rows[0]  # fr: Index, Entity, Sentence, Find, Gender, Ambiguous, Comments
    out = []
    for number, row in enumerate(rows[1:], 2):
        if len(row) < 5:
            raise InputError(f"expected at least 5 columns, found {len(row)}", path=path, line=number)
        comment = row[6] if has_ambiguous and len(row) > 6 else (row[5] if len(row) > 5 and not has_ambiguous else "")
        out.append(HumanRow(int(row[0]), row[1], row[2], row[3].strip(), row[4].strip(), comment))
    return out


def judge(lang: str, shared: Path):
    """Run the probe's judge on one language's annotated translations.

    Returns (rows per annotator, attempts in row order, signature)."""
    files, _system, extra = SETS[lang]
    annotations = {who: read_annotations(HERE / name) for who, name in files.items()}
    first = next(iter(annotations.values()))
    for who, rows in annotations.items():  # several annotators label the same sentences
        if [(r.index, r.translation) for r in rows] != [(r.index, r.translation) for r in first]:
            raise InputError(f"annotator {who} did not label the same rows", path=HERE / files[who])
    en_path = shared / "winomt" / "en.txt"
    wino = load_winomt(en_path)
    items = []
    for row in first:
        item = wino[row.index]
        if item.profession.lower() != row.entity.lower().removeprefix("the ").removeprefix("a "):
            raise InputError(f"row {row.index}: entity {row.entity!r} is not the profession "
                             f"{item.profession!r} of en.txt line {row.index + 1}", path=HERE / files["a"])
        items.append(item)
    extra_s, extra_t = _extra_corpus(shared / extra)
    probe = WinoMTProbe(items, lang, extra_sources=extra_s, extra_targets=extra_t, resamples=0)
    attempts = list(probe.judge(items, [r.translation for r in first]))
    data = hash_json([hash_file(HERE / name) for name in files.values()] + [hash_file(en_path), hash_file(shared / extra)])
    sig = Signature("mt_gender_human_agreement.v1", data[:12], f"lang.{lang}",
                    {"align": "fast_align", "align_extra": len(extra_s)})
    return annotations, attempts, str(sig)


def _extra_corpus(path: Path) -> tuple[list[str], list[str]]:
    if not path.is_file():
        raise InputError("extra alignment corpus is missing", path=path, hint="pass --shared PATH/TO/shared/data")
    if path.suffix == ".csv":  # GEST: from,to
        with path.open(encoding="utf-8", newline="") as handle:
            rows = list(csv.reader(handle))[1:]
        return [r[0] for r in rows], [r[1] for r in rows]
    pairs = [line.rstrip("\n").split(" ||| ", 1) for line in path.open(encoding="utf-8")]
    return [p[0] for p in pairs if len(p) == 2], [p[1] for p in pairs if len(p) == 2]


def tally(rows: list[HumanRow], attempts: list[dict]) -> dict:
    """Agreement figures and the confusion table (human label × probe outcome)."""
    confusion = {h: Counter() for h in HUMAN}
    unlabelled = 0
    for row, attempt in zip(rows, attempts):
        if row.label is None:
            unlabelled += 1
            continue
        confusion[row.label][attempt["detected"]] += 1
    agree = sum(confusion[g][g] for g in ("male", "female", "neutral"))
    decided = sum(confusion[h][o] for h in ("male", "female", "neutral") for o in ("male", "female", "neutral"))
    undetected = sum(confusion[h]["undetected"] for h in ("male", "female", "neutral"))
    scored = decided + undetected
    # the probe's WinoMT accuracy on these rows next to the accuracy a human reading gives
    labelled = [(r, a) for r, a in zip(rows, attempts) if r.label is not None]
    return {
        "rows": len(rows), "unlabelled": unlabelled, "not_found": sum(confusion["not_found"].values()),
        "agree": agree, "disagree": decided - agree, "undetected": undetected,
        "agreement": round(agree / decided, 4) if decided else None,
        "undetected_rate": round(undetected / scored, 4) if scored else None,
        "probe_accuracy": round(sum(a["detected"] == a["gold"] for _, a in labelled) / len(labelled), 4),
        "human_accuracy": round(sum(r.label == a["gold"] for r, a in labelled) / len(labelled), 4),
        "confusion": {h: {o: confusion[h][o] for o in OUTCOMES} for h in HUMAN},
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("langs", nargs="*")
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED)
    parser.add_argument("--show", action="store_true", help="list disagreements and undetected rows")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--record", action="store_true", help="write agreement.json")
    args = parser.parse_args()
    table = {}
    for lang in args.langs or sorted(SETS):
        annotations, attempts, sig = judge(lang, args.shared)
        row = {who: tally(rows, attempts) for who, rows in annotations.items()}
        if len(annotations) == 2:
            a, b = annotations.values()
            both = [(x.label, y.label) for x, y in zip(a, b) if x.label and y.label]
            row["annotators_agree"] = {"rows": len(both), "same": sum(x == y for x, y in both)}
        row["signature"] = sig
        table[lang] = row
        if args.show:
            for who, rows in annotations.items():
                for r, att in zip(rows, attempts):
                    if r.label in (None, "not_found") or att["detected"] == r.label:
                        continue
                    print(f"{lang}/{who} {r.index} human={r.label} probe={att['detected']} wino={att['gold']} "
                          f"aligned={att['target_words']!r}\n   {r.translation}\n   {' | '.join(att['evidence'])}"
                          + (f"\n   comment: {r.comment}" if r.comment else ""))
    if args.record:
        from mtdebias.store.atomic import write_json

        recorded = HERE / "agreement.json"
        # a run on some languages updates theirs and keeps the others
        merged = json.loads(recorded.read_text(encoding="utf-8")) if recorded.is_file() else {}
        write_json(recorded, {**merged, **table})
    if args.json:
        print(json.dumps(table, indent=1, ensure_ascii=False))
        return
    print(f"{'lang':<7} {'agree':>7} {'undet.':>7} {'n':>4} {'n/f':>4} {'unlab':>5} {'probe acc':>9} {'human acc':>9}")
    for lang, row in table.items():
        for who in SETS[lang][0]:
            r = row[who]
            print(f"{lang}/{who:<4} {r['agreement']:>7.1%} {r['undetected_rate']:>7.1%} "
                  f"{r['agree'] + r['disagree'] + r['undetected']:>4} {r['not_found']:>4} {r['unlabelled']:>5} "
                  f"{r['probe_accuracy']:>9.1%} {r['human_accuracy']:>9.1%}")


if __name__ == "__main__":
    main()
