"""Suites are validated like recipes: unknown types and options fail with file:line and a
did-you-mean before any model is loaded; relative paths are taken from the suite's folder."""

from __future__ import annotations

import pytest

from mtdebias.errors import ConfigError
from mtdebias.resources import DATA_ROOT
from mtdebias.evaluation.suite import load_suite

SUITE = """[suite]
name = "t"

[[probe]]
type = "winomt"
lang = "de"
data = "wino/en.txt"
pro = ""
beam = 1

[[probe]]
type = "name_gender.v1"
label = "ng"
lang = "de"
templates = "{shipped}/templates/name_gender_de.tsv"
names_limit = 3
"""


def test_types_are_canonical_and_relative_paths_follow_the_suite_file(tmp_path, monkeypatch):
    folder = tmp_path / "suites"
    folder.mkdir()
    (folder / "s.toml").write_text(SUITE)
    monkeypatch.chdir(tmp_path)  # the working directory plays no part
    suite = load_suite("suites/s.toml")
    winomt, names = suite.probes
    assert winomt.type == "winomt.v1" and winomt.label == "winomt"
    assert names.type == "name_gender.v1" and names.label == "ng"
    resolved = winomt.resolved({})
    assert resolved.options["data"] == str(folder.resolve() / "wino" / "en.txt")
    assert resolved.options["pro"] == ""  # "" = no file: left alone
    assert names.resolved({}).options["templates"] == str(DATA_ROOT / "templates" / "name_gender_de.tsv")


@pytest.mark.parametrize("line, key, message", [
    ("beam = 1", "beem = 1", r"s\.toml:9: probe #1 \(winomt\.v1\): unknown option 'beem' \(did you mean 'beam'\?\)"),
    ('pro = ""', 'align_metod = "eflomal"', r"s\.toml:8: .*unknown option 'align_metod' \(did you mean 'align_method'\?\)"),
    ('type = "winomt"', 'type = "winomtt"', r"s\.toml:5: probe #1: unknown type 'winomtt' \(did you mean 'winomt'\?\)"),
    ('data = "wino/en.txt"', "", r"s\.toml:4: probe #1 \(winomt\.v1\): missing required option 'data' \(winomt\.v1 needs lang, data\)"),
])
def test_bad_suites_name_the_file_line_and_a_fix(tmp_path, line, key, message):
    text = SUITE.replace(line, key, 1)
    (tmp_path / "s.toml").write_text(text)
    with pytest.raises(ConfigError, match=message):
        load_suite(tmp_path / "s.toml")


def test_a_label_shared_by_two_probes_is_refused(tmp_path):
    (tmp_path / "s.toml").write_text(SUITE.replace('label = "ng"', 'label = "winomt"'))
    with pytest.raises(ConfigError, match=r"s\.toml:11: two probes share the label 'winomt'"):
        load_suite(tmp_path / "s.toml")


def test_probe_constructors_take_no_catch_all_options():
    """Every registered probe lists its options explicitly: a typo cannot pass silently."""
    import inspect

    from mtdebias.probes.registry import PROBES

    for name in PROBES.entries:
        parameters = inspect.signature(PROBES.load(name)).parameters.values()
        assert not any(p.kind is p.VAR_KEYWORD for p in parameters), name


def test_the_shipped_suites_validate():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "eval"
    for path in sorted(root.glob("*.toml")):
        suite = load_suite(path)
        assert all("." in spec.type for spec in suite.probes)


def test_if_exists_is_a_suite_key_read_from_the_suite_folder(tmp_path, monkeypatch):
    """``if_exists`` is not passed to the probe; its path takes placeholders and is read from
    the suite's folder; a probe whose path is absent is left out, the others are built."""
    from mtdebias.evaluation.runner import build_probes

    folder = tmp_path / "suites"
    folder.mkdir()
    text = SUITE.replace('lang = "de"\ndata', 'if_exists = "{corpus}/wino/en.txt"\nlang = "de"\ndata', 1)
    (folder / "s.toml").write_text(text)
    monkeypatch.chdir(tmp_path)
    suite = load_suite("suites/s.toml")
    winomt = suite.probes[0]
    assert "if_exists" not in winomt.options and winomt.if_exists == "{corpus}/wino/en.txt"
    assert winomt.resolved({"corpus": "."}).if_exists == str(folder.resolve() / "wino" / "en.txt")
    assert not winomt.resolved({"corpus": "."}).available()
    assert [spec.label for spec, _ in build_probes(suite, {"corpus": "."})] == ["ng"]
    with pytest.raises(ConfigError, match=r"winomt\.if_exists = .*no value for \{corpus\}"):
        winomt.resolved({})
    (folder / "s.toml").write_text(SUITE.replace('lang = "de"\ndata', 'if_exists = 3\nlang = "de"\ndata', 1))
    with pytest.raises(ConfigError, match=r"s\.toml:6: probe #1: if_exists must be a path"):
        load_suite(folder / "s.toml")


def test_probes_declare_what_their_language_needs():
    """The suite asks the probe (``needs``), not a list of probe names, what its `lang` must
    have: a gender detector, a lemmatiser."""
    from mtdebias.errors import ConfigError
    from mtdebias.probes.registry import PROBES
    from mtdebias.evaluation.suite import ProbeSpec, check_resolved_options

    needs = {name: PROBES.load(name).__self__.needs for name in PROBES.entries if PROBES.load(name).__self__.needs}
    assert needs == {"winomt.v1": ("detector",), "name_gender.v1": ("detector",), "ambiguity.v1": ("detector",),
                     "wsd_bias.v1": ("lemmatiser",)}
    with pytest.raises(ConfigError, match="language 'sw' has no target-side gender detector"):
        check_resolved_options(ProbeSpec("name_gender.v1", {"lang": "sw"}))
    with pytest.raises(ConfigError, match=r"probe 'wsd_bias' \(wsd_bias.v1\): language 'sw' has no lemmatiser"):
        check_resolved_options(ProbeSpec("wsd_bias.v1", {"lang": "sw"}))
    check_resolved_options(ProbeSpec("quality.v1", {"lang": "sw"}))  # needs nothing: any language
