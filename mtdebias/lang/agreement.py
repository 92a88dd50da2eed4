"""Agreement of a gender detector with hand-labelled gold items (eval/gold/winomt/).

A gold item is a translation, the target words that refer to the WinoMT entity (written by
the labeller) and the gender with which the translation refers to it: ``male``, ``female``,
``neutral`` or ``not_found`` (the entity has no target mention, e.g. rendered as a thing).

The detector is run on the labeller's span, so agreement measures the detector alone, not the
word aligner. ``undetected`` is its own outcome: neither right nor wrong, counted in the
undetected rate, left out of the agreement denominator::

    agreement      = agreeing / (agreeing + disagreeing)
    undetected rate = undetected / (items with a target mention)

``not_found`` items have no span and are only counted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from ..errors import InputError
from ..signature import Signature, hash_file
from ..textio import iter_tsv
from .base import UNDETECTED, Detection

GOLD_LABELS = ("male", "female", "neutral", "not_found")
SPLITS = ("dev", "heldout", "heldout2", "heldout3")  # heldout2/3: fresh rows drawn after the detectors changed
_ITEM_COLUMNS = ("line", "split", "stratum", "wino_gold", "stereotype", "profession", "source",
                 "translation", "aligned")
_LABEL_COLUMNS = ("line", "target", "label", "note")


@dataclass(frozen=True)
class GoldItem:
    lang: str
    line: int  # line of WinoMT en.txt (1-based)
    split: str  # "dev" | "heldout" | "heldout2"
    wino_gold: str  # the English gold gender
    stereotype: str  # "pro" | "anti" | "-"
    source: str
    translation: str
    target: str  # the labeller's target words; "-" when not found
    label: str  # one of GOLD_LABELS
    note: str

    def span(self) -> tuple[int, int] | None:
        """Character span of ``target`` in the translation (``word#2`` = 2nd occurrence)."""
        if self.label == "not_found":
            return None
        words, _, nth = self.target.partition("#")
        hits = [m.span() for m in re.finditer(r"(?<!\w)" + re.escape(words) + r"(?!\w)", self.translation)]
        k = int(nth) - 1 if nth else 0
        return hits[k] if k < len(hits) else None


def _read_tsv(path: Path, columns: tuple[str, ...]) -> list[dict[str, str]]:
    """Rows of a gold file as {column: value}; the last column (a note) may be left off."""
    hint = "see eval/gold/winomt/README.md"
    if not path.is_file():
        raise InputError("gold file is missing", path=path, hint=hint)
    rows = []
    for number, row in iter_tsv(path, columns, hint):
        if len(row) < len(columns) - 1:
            raise InputError(f"expected {len(columns)} tab-separated columns, found {len(row)}",
                             path=path, line=number, hint=hint)
        record = dict(zip(columns, row + [""] * (len(columns) - len(row))))
        record["_line"] = str(number)
        rows.append(record)
    return rows


def load_gold(directory: str | Path, lang: str) -> list[GoldItem]:
    """Join ``items/LANG.tsv`` (extracted) with ``labels/LANG.tsv`` (hand labels) on the line."""
    directory = Path(directory)
    items_path = directory / "items" / f"{lang}.tsv"
    labels_path = directory / "labels" / f"{lang}.tsv"
    items = {r["line"]: r for r in _read_tsv(items_path, _ITEM_COLUMNS)}
    out = []
    seen = set()
    for r in _read_tsv(labels_path, _LABEL_COLUMNS):
        where = {"path": labels_path, "line": int(r["_line"])}
        if r["line"] not in items:
            raise InputError(f"line {r['line']} is not among the extracted items", **where)
        if r["line"] in seen:
            raise InputError(f"line {r['line']} is labelled twice", **where)
        seen.add(r["line"])
        if r["label"] not in GOLD_LABELS:
            raise InputError(f"label {r['label']!r} is not one of {', '.join(GOLD_LABELS)}", **where)
        item = items[r["line"]]
        gold = GoldItem(lang, int(r["line"]), item["split"], item["wino_gold"], item["stereotype"],
                        item["source"], item["translation"], r["target"], r["label"], r["note"])
        if gold.label != "not_found" and gold.span() is None:
            raise InputError(f"target {gold.target!r} does not occur in the translation", **where,
                             hint="write the target words exactly as in the translation (word#2 for a 2nd occurrence)")
        out.append(gold)
    return out


@dataclass
class Agreement:
    """Tally of one detector on gold items (see the module docstring)."""

    items: int = 0
    agree: int = 0
    disagree: int = 0
    undetected: int = 0
    not_found: int = 0
    disagreements: list[tuple[GoldItem, Detection]] = field(default_factory=list)
    undetected_items: list[tuple[GoldItem, Detection]] = field(default_factory=list)

    @property
    def decided(self) -> int:
        return self.agree + self.disagree

    @property
    def agreement(self) -> float:
        return self.agree / self.decided if self.decided else float("nan")

    @property
    def undetected_rate(self) -> float:
        scored = self.items - self.not_found
        return self.undetected / scored if scored else float("nan")

    def as_dict(self) -> dict[str, float | int]:
        return {"items": self.items, "agree": self.agree, "disagree": self.disagree,
                "undetected": self.undetected, "not_found": self.not_found,
                "agreement": round(self.agreement, 4), "undetected_rate": round(self.undetected_rate, 4)}


def score(items: Iterable[GoldItem],
          detect: Callable[[str, str, tuple[int, int]], Detection]) -> Agreement:
    """Run ``detect(lang, translation, span)`` on every gold item with a target mention."""
    tally = Agreement()
    for item in items:
        tally.items += 1
        span = item.span()
        if span is None:
            tally.not_found += 1
            continue
        detection = detect(item.lang, item.translation, span)
        if detection.gender == UNDETECTED:
            tally.undetected += 1
            tally.undetected_items.append((item, detection))
        elif detection.gender == item.label:
            tally.agree += 1
        else:
            tally.disagree += 1
            tally.disagreements.append((item, detection))
    return tally


def signature(directory: str | Path, lang: str) -> str:
    directory = Path(directory)
    data = hash_file(directory / "items" / f"{lang}.tsv")[:6] + hash_file(directory / "labels" / f"{lang}.tsv")[:6]
    return str(Signature("gender_gold_agreement.v1", data, f"lang.{lang}", {"span": "hand"}))
