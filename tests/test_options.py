"""The typed option layer (issue 40): every probe option, translator option, debias setting and
recipe key is checked by type and range from its one declaration (the constructor's annotation and
the owner's ``option_ranges``) before any model loads, with one message naming where the value came
from, the value (shortened) and what it must be; ``--watch --interval`` is a sane wait; deeply
nested TOML or JSON is one message, never a RecursionError; long values are never echoed whole.
The property tests at the end feed arbitrary values to every declared option of every probe and
translator through the real parsing paths (``--option``/``--translator-option`` and a suite file)."""

from __future__ import annotations

import json
import math
import re
import tempfile
import types
import typing
from pathlib import Path

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mtdebias.cli import main
from mtdebias.commands.key_values import parse_pairs
from mtdebias.errors import ConfigError, InputError, MtdebiasError
from mtdebias.options import Range, check_value, declared_ranges, fits
from mtdebias.probes.registry import PROBES
from mtdebias.resources import DATA_ROOT
from mtdebias.evaluation.suite import check_probe_options, load_suite, probe_options, probe_ranges
from mtdebias.translators.specs import _kind_class, check_translator_options, load_spec, translator_options

WINOMT = f"{DATA_ROOT}/templates/winomt_synth_en.txt"
OPENAI = "openai:m@http://127.0.0.1:9/v1"  # never contacted: every case here fails or builds before a request


def _clear_error(rc: int, err: str, *expected: str) -> None:
    assert rc == 2, err[-1500:]
    assert "Traceback" not in err, err[-3000:]
    for text in expected:
        assert text in err, f"{text!r} not in: {err[-1500:]}"


def _suite(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "suite.toml"
    path.write_text(body, encoding="utf-8")
    return path


NAME_GENDER = '[[probe]]\ntype = "name_gender"\nlang = "de"\n'


# --- the audit's cases ----------------------------------------------------------------------------

@pytest.mark.parametrize("line, expected", [
    ('names_limit = "5"', ["names_limit must be an integer >= 1", "got '5'"]),
    ("names_limit = -3", ["names_limit = -3 is out of range", ">= 1", "leave it out to use every name"]),
    ("resamples = 5", ["resamples = 5 is out of range", ">= 40 or 0"]),
    ("resamples = -1", ["resamples = -1 is out of range"]),
    ("beam = 0", ["beam = 0 is out of range"]),
    ("beam = 2.5", ["beam must be an integer"]),
    ("beam = true", ["beam must be an integer", "got True"]),
    ("seed = nan", ["seed must be an integer", "got nan"]),
])
def test_a_suite_value_of_the_wrong_type_or_range_names_file_line_key_and_value(tmp_path, line, expected):
    path = _suite(tmp_path, NAME_GENDER + line + "\n")
    with pytest.raises(ConfigError) as caught:
        load_suite(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:4: probe #1 (name_gender.v1): "), message
    for text in expected + ["fix it in the suite"]:
        assert text in message, message


def test_resamples_zero_is_the_declared_no_interval_setting(tmp_path):
    """0 bootstrap resamples is a setting with a meaning (metrics without an interval, what fast
    checks use), declared as such; 1 to 39 leave no draw in a 95% interval's tails and are refused."""
    assert load_suite(_suite(tmp_path, NAME_GENDER + "resamples = 0\n")).probes[0].options["resamples"] == 0
    assert load_suite(_suite(tmp_path, NAME_GENDER + "resamples = 40\n")).probes[0].options["resamples"] == 40


@pytest.mark.parametrize("option, expected", [
    ("names_limit=-3", "--option names_limit = -3 is out of range"),
    ('names_limit="5"', "--option names_limit must be an integer >= 1"),
    ("resamples=NaN", "--option resamples must be an integer"),
    ("templates_limit=1e999", "--option templates_limit must be an integer"),
])
def test_an_option_on_the_command_line_is_checked_before_any_work(tmp_path, capsys, option, expected):
    translations = tmp_path / "t.txt"  # never read: the option fails first
    rc = main(["eval", "--probe", "name_gender", "--lang", "de", "--translations", str(translations),
               "--option", option])
    _clear_error(rc, capsys.readouterr().err, expected, "fix it on the command line")


@pytest.mark.parametrize("option, expected", [
    ("retries=-1", "--translator-option retries = -1 is out of range: it must be >= 0"),
    ("timeout=x", "--translator-option timeout must be a number > 0 and <= 86400, got 'x'"),
    ("max_reply_bytes=abc", "--translator-option max_reply_bytes must be an integer >= 1, got 'abc'"),
    ("concurrency=0", "--translator-option concurrency = 0 is out of range"),
    ("top_p=2", "--translator-option top_p = 2 is out of range"),
    ("strict_model=1", "--translator-option strict_model must be true or false"),
])
def test_an_openai_option_of_the_wrong_type_or_range_is_one_message(capsys, option, expected):
    rc = main(["translate", OPENAI, "--tgt-lang", "de", "--translator-option", option])
    _clear_error(rc, capsys.readouterr().err, "translator openai: " + expected)


def test_a_suite_translator_table_is_checked_with_the_suite_named(tmp_path):
    path = _suite(tmp_path, NAME_GENDER + '[translator]\nkind = "openai"\nmodel = "m"\nurl = "http://127.0.0.1:9/v1"\n'
                  'retries = -1\n')
    with pytest.raises(ConfigError, match=rf"^{path}: translator openai: retries = -1 is out of range.*"
                                          r"\(fix it in the suite's \[translator\] table\)$"):
        load_suite(path)


def test_load_spec_checks_what_code_passes_too():
    with pytest.raises(ConfigError, match="timeout must be a number"):
        load_spec(OPENAI, tgt_lang="de", timeout="x")
    with pytest.raises(ConfigError, match="n_ctx = 0 is out of range"):
        load_spec("llamacpp:model.gguf", tgt_lang="de", n_ctx=0)


def test_debias_settings_are_typed_too(capsys, tmp_path):
    rc = main(["debias", str(tmp_path / "ckpt"), "--method", "inlp", "--out", str(tmp_path / "out"),
               "--option", 'n_iterations="5"'])
    _clear_error(rc, capsys.readouterr().err, "--option n_iterations must be an integer >= 1, got '5'")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("interval", ["-1", "0", "0.5", "nan", "inf", "1e300"])
def test_watch_interval_must_be_a_sane_wait(tmp_path, capsys, monkeypatch, interval):
    """-1 was a ValueError traceback from time.sleep, 0 a core spinning on the run folder."""
    import mtdebias.evaluation.runner

    monkeypatch.setattr(mtdebias.evaluation.runner, "watch", lambda *a, **k: pytest.fail("watch started"))
    rc = main(["eval", str(tmp_path), "--suite", str(_suite(tmp_path, NAME_GENDER)), "--watch",
               "--interval", interval])
    _clear_error(rc, capsys.readouterr().err, "--interval", ">= 1 and <= 86400")


DEEP = "[" * 50_000 + "]" * 50_000


@pytest.mark.parametrize("kind", ["suite", "recipe", "fairseq"])
def test_deeply_nested_toml_is_one_message_naming_the_file(tmp_path, kind):
    path = tmp_path / f"{kind}.toml"
    path.write_text(f"x = {DEEP}\n", encoding="utf-8")
    if kind == "suite":
        from mtdebias.evaluation.suite import load_suite as read
    elif kind == "recipe":
        from mtdebias.recipe.load import load_recipe as read
    else:
        from mtdebias.translators.source import load_spec_file as read
    with pytest.raises(InputError, match="nested too deeply") as caught:
        read(path)
    assert str(caught.value).startswith(str(path))


def test_deeply_nested_command_line_values_are_one_message(tmp_path):
    with pytest.raises(InputError, match=r"--option 'x': the value is nested too deeply"):
        parse_pairs([f"x={DEEP}"])
    from mtdebias.recipe.load import apply_overrides

    with pytest.raises(ConfigError, match=r"--set 'train.x': the value is nested too deeply"):
        apply_overrides({}, [f"train.x={DEEP}"])


def test_a_huge_key_or_value_is_not_echoed_whole(tmp_path):
    huge = "k" * 1_000_000
    for body, path in ((NAME_GENDER + f"{huge} = 1\n", "suite.toml"),
                       (NAME_GENDER + f'names_limit = "{huge}"\n', "suite.toml")):
        with pytest.raises(ConfigError) as caught:
            load_suite(_suite(tmp_path, body))
        assert len(str(caught.value)) < 1000 and "1,000,000 characters" in str(caught.value)
    recipe = tmp_path / "recipe.toml"
    recipe.write_text(f'[run]\nname = "r"\n{huge} = 1\n[data]\n', encoding="utf-8")
    from mtdebias.recipe.load import load_recipe

    with pytest.raises(ConfigError) as caught:
        load_recipe(recipe)
    assert len(str(caught.value)) < 5000
    with pytest.raises(InputError) as caught:
        parse_pairs([huge])
    assert len(str(caught.value)) < 1000


@pytest.mark.parametrize("body, expected", [
    ('[probe]\ntype = "quality"\n', "'probe' must be a list of tables"),  # one bracket where two belong
    ("probe = [5]\n", "'probe' must be a list of tables, got [5]"),
    ("suite = 5\n" + NAME_GENDER, "'suite' must be a table, got 5"),
    ("translator = 5\n" + NAME_GENDER, "'translator' must be a table, got 5"),
])
def test_a_suite_table_of_the_wrong_shape_is_one_message(tmp_path, body, expected):
    """Each was an AttributeError or TypeError traceback."""
    with pytest.raises(ConfigError, match=re.escape(expected)):
        load_suite(_suite(tmp_path, body))


def test_a_file_name_no_file_system_allows_is_one_message():
    """Found by the fuzz below: a 5000-character ``examples`` path was an OSError (ENAMETOOLONG)
    from ``Path.is_file``, which swallows only "not there"."""
    from mtdebias.textio import read_lines

    with pytest.raises(InputError, match=r"cannot read this path \(File name too long\)") as caught:
        read_lines("x" * 5000)
    assert len(str(caught.value)) < 5000
    with pytest.raises(ConfigError, match="longer than 255 bytes"):
        check_probe_options("name_gender", {"lang": "de", "templates": "x" * 300}, given_as="--option")


def test_a_nul_in_a_string_option_is_refused():
    with pytest.raises(ConfigError, match="holds a NUL character"):
        check_probe_options("name_gender", {"lang": "de", "templates": "a\x00b"}, given_as="--option")


# --- every declared option, arbitrary values --------------------------------------------------------

# required options that let each probe build from shipped data (the fuzzed option replaces its own)
BASE = {
    "quality.v1": {"src": WINOMT, "ref": WINOMT},
    "winomt.v1": {"lang": "de", "data": WINOMT},
    "name_gender.v1": {"lang": "de"},
    "sentiment.v1": {"lang": "zh"},
    "ambiguity.v1": {"lang": "de", "data": WINOMT},
    "wsd_bias.v1": {"lang": "de", "wordnet": False},
    "gest.v1": {"lang": "pl", "limit": 50},
    "gest_pref.v1": {"lang": "de"},
    "gest_choice.v1": {"lang": "de"},
}
SPECS = {"openai": OPENAI, "hf-causal": "hf-causal:model", "llamacpp": "llamacpp:model.gguf",
         "apertium": "apertium:en-es", "ct2-causal": "ct2-causal:model.gguf", "hf": "hf:model", "ct2": "ct2:model",
         "fairseq": "fairseq:model.pt", "file": "file:translations.txt"}

ANYTHING = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(-2, 2), st.sampled_from([10 ** 400, -10 ** 400]),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12),
    st.sampled_from(["5", "-3", "nan", "1e999", "true", "", "{tgt_lang}", "\x00", "x" * 5000]),
    st.lists(st.one_of(st.integers(), st.text(max_size=4)), max_size=3),
    st.dictionaries(st.text(max_size=4), st.integers(), max_size=2))


def _valid(annotation, bounds: Range | None):
    """Values of a scalar ``annotation`` (int, float, bool, None and unions of them) within
    ``bounds``: what the layer must accept."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return st.one_of([_valid(arg, bounds) for arg in typing.get_args(annotation)])
    if annotation is type(None):
        return st.none()
    if annotation is bool:
        return st.booleans()
    low = -1e6 if bounds is None or bounds.low is None else bounds.low
    high = 1e6 if bounds is None or bounds.high is None else bounds.high
    if annotation is int:
        numbers = st.integers(math.ceil(low), math.floor(high))
    else:
        numbers = st.floats(low, high, exclude_min=bool(bounds and bounds.low_open),
                            exclude_max=bool(bounds and bounds.high is not None and bounds.high_open))
    inside = numbers.filter(lambda v: bounds is None or bounds.contains(v))
    return st.one_of(inside, st.sampled_from(bounds.also)) if bounds and bounds.also else inside


def _scalar(annotation) -> bool:
    args = typing.get_args(annotation) if typing.get_origin(annotation) in (typing.Union, types.UnionType) \
        else (annotation,)
    return all(arg in (int, float, bool, type(None)) for arg in args)


def _text(value) -> str:
    """``value`` as a user would type it after ``--option KEY=``: JSON, or for some strings the bare text."""
    if isinstance(value, str) and value and not value.strip().startswith(("[", "{", '"')):
        try:
            json.loads(value)
        except ValueError:
            return value  # a bare word reads as itself
    return json.dumps(value)


def _through_a_suite(kind: str, options: dict) -> None:
    """The options written as a [[probe]] table and read back by load_suite (TOML has no null)."""
    table = {"type": kind, **{k: v for k, v in options.items() if v is not None}}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "suite.toml"
        try:
            path.write_text(tomli_w.dumps({"probe": [table]}), encoding="utf-8")
        except (TypeError, ValueError):
            return  # not a value TOML can hold
        try:
            load_suite(path)
        except ConfigError:
            pass


def _build(kind: str, options: dict) -> None:
    try:
        PROBES.load(kind)(**options)
    except MtdebiasError:
        pass  # refused with a message: fine (a language without a detector, a path that is not there)


BUDGETS = [pytest.param(25, id="quick"), pytest.param(800, id="many", marks=pytest.mark.slow)]


def _settings(budget: int):
    return settings(max_examples=budget, deadline=None, database=None, derandomize=budget < 100,
                    suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize("budget", BUDGETS)
@pytest.mark.parametrize("kind", sorted(BASE))
def test_every_probe_option_takes_what_it_declares_and_refuses_the_rest_with_a_message(kind, budget):
    options = probe_options(kind)
    ranges = probe_ranges(kind)
    assert set(BASE[kind]) <= set(options)
    numeric = [k for k, p in options.items() if _scalar(p.annotation)]

    @_settings(budget)
    @given(st.sampled_from(sorted(options)), ANYTHING)
    def anything(key, value):
        given_options = {**BASE[kind], **parse_pairs([f"{key}={_text(value)}"])}
        try:
            check_probe_options(kind, given_options, given_as="--option")
        except ConfigError as exc:
            assert len(str(exc)) < 1500  # never the whole value
        _through_a_suite(kind, {**BASE[kind], key: value})

    @_settings(budget)
    @given(st.data())
    def accepted(data):
        key = data.draw(st.sampled_from(numeric))
        value = data.draw(_valid(options[key].annotation, ranges.get(key)))
        given_options = {**BASE[kind], key: value}
        check_probe_options(kind, given_options, given_as="--option")  # accepted: no error at all
        _build(kind, given_options)  # and the probe takes it, or refuses it with a message

    anything()
    if numeric:
        accepted()


@pytest.mark.parametrize("budget", BUDGETS)
@pytest.mark.parametrize("kind", sorted(SPECS))
def test_every_translator_option_takes_what_it_declares_and_refuses_the_rest_with_a_message(kind, budget):
    cls = _kind_class(kind)
    options, ranges = translator_options(cls), declared_ranges(cls)

    @_settings(budget)
    @given(st.sampled_from(sorted(options)), ANYTHING)
    def anything(key, value):
        parsed = parse_pairs([f"{key}={_text(value)}"], "translator-option")
        try:
            check_translator_options(SPECS[kind], parsed, given_as="--translator-option")
        except ConfigError as exc:
            assert len(str(exc)) < 1500
            return
        if kind == "openai":  # builds without a request: the options it took must not crash it
            try:
                load_spec(SPECS[kind], **{"tgt_lang": "de", **parsed})
            except MtdebiasError:
                pass

    numeric = [k for k, p in options.items() if _scalar(p.annotation)]

    @_settings(budget)
    @given(st.data())
    def accepted(data):
        key = data.draw(st.sampled_from(numeric))
        value = data.draw(_valid(options[key].annotation, ranges.get(key)))
        check_translator_options(SPECS[kind], {key: value})  # accepted: no error at all
        if kind == "openai":
            load_spec(SPECS[kind], tgt_lang="de", **{key: value})  # and the translator takes it

    anything()
    if numeric:
        accepted()


def test_the_fuzz_covers_every_registered_probe_and_translator_kind():
    from mtdebias.translators.specs import KINDS

    assert set(BASE) == set(PROBES.entries) - {n for n in PROBES.entries if PROBES.plugin(n)}
    assert set(SPECS) == set(KINDS)


def test_fits_reads_the_annotations_probes_use():
    from typing import Any, Mapping, Optional, Sequence

    assert fits(["a"], Optional[Sequence[str]]) and not fits("a", Optional[Sequence[str]])
    assert fits({"female": ["Anna"]}, bool | str | Mapping[str, Any]) and not fits(3, bool | str | Mapping[str, Any])
    assert fits(0.5, float | str) and not fits(float("inf"), float) and not fits(True, int)
    with pytest.raises(ConfigError, match=r"x = 0 is out of range: it must be > 0 \(why\)"):
        check_value(0, float, Range(0, low_open=True, why="why"), "x")
