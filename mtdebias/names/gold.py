"""Agreement of :func:`mtdebias.names.locale.gender_of` with the hand-labelled name gold sets
(``eval/gold/names/<locale>.tsv``: ``name<TAB>male|female|unisex``, labelled by hand; see the
README there).

A ``unisex`` name agrees when the lookup says ``unknown``; a gendered one when it says that
gender. Besides agreement, the figures that matter for SwitchEntity are reported separately:
*flips* (a gendered name given the other gender — the error that corrupts training data),
*coverage* (gendered names given a gender at all) and *unisex_gendered* (names common for both
sexes that the lookup nevertheless genders).
"""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError
from .locale import LocaleNames

LABELS = ("male", "female", "unisex")


def read_gold(path: str | Path) -> list[tuple[str, str]]:
    path = Path(path)
    if not path.is_file():
        raise InputError("name gold set not found", path=path, hint="see eval/gold/names/README.md")
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if number == 1 or not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != 2 or fields[1] not in LABELS:
            raise InputError(f"expected name<TAB>{'|'.join(LABELS)}", path=path, line=number,
                             hint="fix the line")
        rows.append((fields[0], fields[1]))
    return rows


def agreement(locale: str, path: str | Path, names: LocaleNames | None = None) -> dict:
    """Counts and percentages of gender_of(·, locale) against the gold set of ``locale``."""
    rows = read_gold(path)  # the gold sets live in the repository (eval/gold/names/), not the package
    names = names or LocaleNames.load(locale)
    agree = flips = covered = gendered = unisex = unisex_gendered = 0
    errors = []
    for name, label in rows:
        got = names.gender_of(name).gender
        expected = "unknown" if label == "unisex" else label
        agree += got == expected
        if label == "unisex":
            unisex += 1
            unisex_gendered += got != "unknown"
        else:
            gendered += 1
            covered += got != "unknown"
            flips += got not in ("unknown", label)
        if got != expected:
            errors.append(f"{name}: gold {label}, got {got}")
    n = len(rows)
    return {"locale": locale, "n": n, "agreement_pct": round(100 * agree / n, 1),
            "flips": flips, "flip_pct": round(100 * flips / gendered, 1) if gendered else 0.0,
            "coverage_pct": round(100 * covered / gendered, 1) if gendered else 0.0,
            "unisex": unisex, "unisex_gendered": unisex_gendered, "errors": errors}
