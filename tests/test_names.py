"""Name-gender lexicon, probe name lists and their deterministic rebuild."""

from __future__ import annotations

from pathlib import Path

import pytest

from mtdebias.errors import InputError
from mtdebias.names import NAME_LIST_KINDS, NameGenderLexicon, classify_counts, load_name_list
from mtdebias.names.build import build_entries, build_names, sample_lists, top_gendered
from mtdebias.names.lexicon import DATA_DIR, NameEntry
from mtdebias.names.surnames import SURNAMES

SHIPPED = DATA_DIR


@pytest.mark.parametrize("female, male, expected", [
    (400, 100, "female"),   # 400 > 3*100 = 300 and 400 - 100 = 300 > 100
    (300, 100, "unknown"),  # 300 is not *more* than 3*100
    (301, 100, "female"),   # 301 > 300, difference 201 > 100
    (110, 10, "unknown"),   # 110 > 30 but difference 100 is not > 100
    (111, 10, "female"),    # difference 101 > 100
    (0, 101, "male"),       # 101 > 0 and 101 > 100
    (0, 100, "unknown"),    # difference exactly 100
    (30, 500, "male"),      # 500 > 90, 470 > 100
    (200, 500, "unknown"),  # 500 < 3*200 = 600
    (0, 0, "unknown"),
])
def test_classify_counts_thresholds(female, male, expected):
    assert classify_counts(female, male) == expected


def test_classify_counts_custom_thresholds():
    # ratio 2: 250 > 2*100 and 150 > 100 → female; with min_difference 200 the gap is too small
    assert classify_counts(250, 100, ratio=2) == "female"
    assert classify_counts(250, 100, ratio=2, min_difference=200) == "unknown"
    with pytest.raises(ValueError):
        classify_counts(-1, 3)


def test_build_entries_keeps_only_names_that_can_be_gendered():
    counts = {"Ann": (5000, 10), "Bob": (3, 900), "Sam": (400, 300), "Rare": (60, 40), "Tiny": (101, 0)}
    entries = {e.name: e for e in build_entries(counts)}
    # "Rare" totals exactly 100: it can never differ by > 100, so it is left out
    assert sorted(entries) == ["Ann", "Bob", "Sam", "Tiny"]
    assert entries["Ann"].gender == "female" and entries["Bob"].gender == "male"
    assert entries["Sam"].gender == "unknown" and entries["Tiny"].gender == "female"


def test_top_gendered_orders_by_that_genders_count():
    entries = [NameEntry("A", 500, 0, "female"), NameEntry("B", 900, 0, "female"),
               NameEntry("C", 900, 1, "female"), NameEntry("D", 0, 700, "male")]
    # B and C tie on 900 → broken by name
    assert top_gendered(entries, "female", 2) == ["B", "C"]
    assert top_gendered(entries, "male") == ["D"]


def _write_lexicon(path: Path, rows: list[str]) -> Path:
    path.write_text("\n".join(["name\tfemale\tmale\tgender"] + rows) + "\n", encoding="utf-8")
    return path


def test_lexicon_load_is_case_insensitive(tmp_path):
    lex = NameGenderLexicon.load(_write_lexicon(tmp_path / "l.tsv", [
        "Maria\t900\t2\tfemale", "Jonas\t1\t800\tmale", "Robin\t500\t400\tunknown"]))
    assert len(lex) == 3
    assert lex.gender("maria") == "female" and lex.gender("MARIA ") == "female"
    assert lex.gender("Jonas") == "male" and lex.gender("Robin") == "unknown"
    assert lex.gender("Nobody") == "unknown"
    assert lex.entry("jonas").male == 800


@pytest.mark.parametrize("row, line, text", [
    ("Maria\t900\t2\tfemme", 2, "gender must be one of"),
    ("Maria\tlots\t2\tfemale", 2, "non-negative integers"),
    ("Maria\t900\tfemale", 2, "expected 4 tab-separated fields"),
])
def test_lexicon_bad_rows_name_the_line(tmp_path, row, line, text):
    path = _write_lexicon(tmp_path / "bad.tsv", [row])
    with pytest.raises(InputError) as info:
        NameGenderLexicon.load(path)
    assert info.value.line == line and text in str(info.value) and str(path) in str(info.value)


def test_lexicon_bad_header_and_missing_file(tmp_path):
    path = tmp_path / "x.tsv"
    path.write_text("first\tf\tm\tg\n", encoding="utf-8")
    with pytest.raises(InputError, match="header"):
        NameGenderLexicon.load(path)
    with pytest.raises(InputError, match="not found"):
        NameGenderLexicon.load(tmp_path / "missing.tsv")


def test_shipped_lexicon_on_real_names():
    lex = NameGenderLexicon.load()
    assert lex.gender("Mary") == "female" and lex.gender("john") == "male"
    # Taylor: 317,936 female vs 109,852 male births → ratio 2.89, not > 3
    assert lex.gender("Taylor") == "unknown"
    assert lex.entry("Taylor").female == 317936 and lex.entry("Taylor").male == 109852
    assert lex.gender("Qwertyzz") == "unknown"
    assert (SHIPPED / "name_gender.tsv").stat().st_size < 2_000_000


def test_wgnd_fallback_only_for_names_missing_from_ssa():
    plain = NameGenderLexicon.load()
    merged = NameGenderLexicon.load(wgnd_fallback=True)
    assert "Zbigniew" not in plain
    assert plain.gender("Zbigniew") == "unknown" and merged.gender("Zbigniew") == "male"
    # names present in the SSA table keep the SSA verdict
    assert merged.gender("Taylor") == "unknown"


@pytest.mark.parametrize("kind", NAME_LIST_KINDS)
def test_shipped_lists_size_and_gender(kind):
    names = load_name_list(kind)
    assert len(names) == 100 and len(set(names)) == 100
    lex = NameGenderLexicon.load()
    gender = kind.split("_")[1]
    entries = [NameEntry(e.name, e.female, e.male, e.gender) for e in lex._entries.values()]
    top = set(top_gendered(entries, gender))
    for name in names:
        first = name.split(" ", 1)[0]
        assert lex.gender(first) == gender, name
        assert first in top, name
        if kind.startswith("full"):
            assert name.split(" ", 1)[1] in SURNAMES


def test_full_names_use_each_surname_once():
    surnames = [n.split(" ", 1)[1] for kind in ("full_female", "full_male") for n in load_name_list(kind)]
    assert len(surnames) == 200 and len(set(surnames)) == 200


def test_sampling_is_deterministic_and_seed_dependent():
    lex = NameGenderLexicon.load()
    entries = sorted(lex._entries.values(), key=lambda e: e.name)
    a, b, c = sample_lists(entries, seed=13), sample_lists(entries, seed=13), sample_lists(entries, seed=14)
    assert vars(a) == vars(b)
    assert a.first_female != c.first_female
    assert a.first_female == load_name_list("first_female")


def test_surnames_are_not_common_first_names():
    assert len(SURNAMES) >= 200 and len(set(SURNAMES)) == len(SURNAMES)
    lex = NameGenderLexicon.load()
    common = [s for s in SURNAMES if lex.entry(s) and lex.entry(s).female + lex.entry(s).male >= 10_000]
    assert common == []


def test_rebuild_reproduces_shipped_files_byte_for_byte(tmp_path):
    manifest = build_names(tmp_path, seed=13)
    names = ["name_gender.tsv", "build.json"] + [f"{k}.txt" for k in NAME_LIST_KINDS]
    for name in names:
        assert (tmp_path / name).read_bytes() == (SHIPPED / name).read_bytes(), name
    assert manifest["lexicon"]["rows"] == manifest["lexicon"]["female"] + manifest["lexicon"]["male"] \
        + manifest["lexicon"]["unknown"]


def test_unknown_list_kind():
    with pytest.raises(InputError, match="unknown name list"):
        load_name_list("first_other")


def test_switch_candidates_avoid_probe_names_and_rebuild_identically(tmp_path):
    from mtdebias.names import load_name_list
    from mtdebias.names.build import switch_candidates, write_switch_candidates

    rows = switch_candidates(per_gender=300, seed=13)
    assert [g for g, _ in rows].count("female") == 300 and [g for g, _ in rows].count("male") == 300
    probe = {n.split()[0] for kind in ("first_female", "first_male", "full_female", "full_male")
             for n in load_name_list(kind)}
    assert not probe & {name for _, name in rows}
    lexicon = NameGenderLexicon.load()
    assert all(lexicon.gender(name) == gender for gender, name in rows)
    shipped = DATA_DIR / "switch_candidates.tsv"
    rebuilt = write_switch_candidates(tmp_path / "c.tsv", 300, 13)
    assert rebuilt.read_text().splitlines()[2:] == shipped.read_text().splitlines()[2:]
