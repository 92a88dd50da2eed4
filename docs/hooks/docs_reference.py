"""Reference pages of the documentation, generated from the code at build time.

The MkDocs hook beside this file (``docs/hooks/reference.py``) calls these, so the pages cannot drift from what
the code accepts: every CLI verb and option (from the argparse parser), every probe with its
options, metrics, direction and paired test (from the registry and the probes' MetricSpecs),
and every recipe and suite key with its type, default, choices and range (from the schema).

It lives beside the hook, outside the package: only the documentation uses it (MkDocs puts
this folder on ``sys.path`` while it loads the hook; the tests do the same).
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import inspect
import math
import re
import tomllib
import typing
from pathlib import Path
from typing import Any

PAGES = {"reference/cli.md": "cli_reference", "reference/probes.md": "probe_reference",
         "reference/recipe.md": "recipe_reference", "reference/shipped.md": "shipped_reference"}
ROOT = Path(__file__).resolve().parents[2]  # the checkout: recipes/ and eval/ live beside docs/
# the shipped files of a checkout (the repository's eval/, not a run directory's)
SHIPPED_RECIPES, SHIPPED_SUITES = "recipes/*.toml", "eval/*.toml"


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ").strip() or "—"


def _table(header: list[str], rows: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


# --------------------------------------------------------------------------- CLI


def _option_rows(parser: argparse.ArgumentParser) -> list[list[Any]]:
    rows = []
    for action in parser._actions:  # argparse keeps no public list of its arguments
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        name = ", ".join(f"`{s}`" for s in action.option_strings) or f"`{action.dest}`"
        default = "" if action.default in (None, argparse.SUPPRESS, [], False, "") else f"`{action.default}`"
        if action.choices:
            default = (default + " " if default else "") + "(one of " + ", ".join(map(str, action.choices)) + ")"
        rows.append([name, action.help or "", default])
    return rows


def cli_reference(parser: argparse.ArgumentParser | None = None) -> str:
    from mtdebias.cli import build_parser

    parser = parser or build_parser()
    out = ["# Command reference", "",
           "Generated from the command-line parser (`mtdebias/cli.py` and `mtdebias/commands/`).", ""]
    verbs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for verb, sub in verbs.choices.items():
        out += [f"## `mtdebias {verb}`", "", sub.description or "", ""]
        out += [_table(["argument", "what", "default"], _option_rows(sub)), ""]
        nested = [a for a in sub._actions if isinstance(a, argparse._SubParsersAction)]
        for group in nested:
            for name, subsub in group.choices.items():
                out += [f"### `mtdebias {verb} {name}`", "", subsub.description or "", ""]
                out += [_table(["argument", "what", "default"], _option_rows(subsub)), ""]
    return "\n".join(out)


# --------------------------------------------------------------------------- probes


def _slug(name: str) -> str:
    """The anchor MkDocs' toc gives the heading ``## `name```."""
    return re.sub(r"[^\w-]", "", name.lower())


# Modules whose docstrings define a probe's metrics where the probe's own module does not.
METRIC_MODULES = {"mtdebias.probes.ambiguity.probe": ("mtdebias.uncertainty.entropy", "mtdebias.uncertainty.metrics"),
                  "mtdebias.probes.wsd.probe": ("mtdebias.probes.wsd.metrics",)}


def markdown_docstring(text: str) -> str:
    """A module docstring (reST-flavoured: ``code``, :func:`name`, ``::`` before a literal block)
    as Markdown."""
    text = re.sub(r":(?:func|mod|meth|class|data|attr):`~?\.?([^`]+)`", r"`\1`", text)
    text = re.sub(r"``([^`]+)``", r"`\1`", text)
    return re.sub(r"(?m)::$", ":", text)


def _how_it_works(module_name: str) -> list[str]:
    modules = (module_name, *METRIC_MODULES.get(module_name, ()))
    docs = [inspect.getdoc(importlib.import_module(m)) or "" for m in modules]
    return ["**How it works** (from the docstrings of " + ", ".join(f"`{m}`" for m in modules) + ")", "",
            *[markdown_docstring(doc) + "\n" for doc in docs if doc]]


def probe_reference() -> str:
    from mtdebias.probes.base import OPTION_HELP
    from mtdebias.probes.registry import PROBES
    from mtdebias.evaluation.suite import probe_options, probe_ranges

    out = ["# Probe reference", "",
           "Generated from the probe registry (`mtdebias/probes/registry.py`), each probe's constructor and "
           "its declared metrics (`MetricSpec`: which direction is better, which paired test an "
           "ablation runs against the baseline, and the values the metric's definition allows: a stored "
           "value outside them, or NaN where it cannot be undefined, is a damaged row, not reported and "
           "computed again; the first pattern that matches a metric applies), and the docstrings that "
           "define the metrics.", ""]
    explained: dict[str, str] = {}
    for name in PROBES.entries:
        if PROBES.plugin(name):  # the reference documents mtdebias, not what is installed beside it
            continue
        constructor = PROBES.load(name)
        probe_class = getattr(constructor, "__self__", constructor)
        doc = inspect.cleandoc(probe_class.__doc__ or "")  # its own, not BaseProbe's
        out += [f"## `{name}`", "", markdown_docstring(doc.split("\n\n")[0]), ""]
        module = probe_class.__module__
        if module in explained:  # two probes of one module (gest.v1, gest_pref.v1): explained once
            out += [f"How it works: as [`{explained[module]}`](#{_slug(explained[module])}).", ""]
        else:
            explained[module] = name
            out += _how_it_works(module)
        out += ["**Options**", ""]
        rows = []
        ranges = probe_ranges(name)
        for option, parameter in probe_options(name).items():
            default = "required" if parameter.default is inspect.Parameter.empty else f"`{parameter.default!r}`"
            bounds = ranges.get(option)
            allowed = bounds.describe() + (f" ({bounds.why})" if bounds.why else "") if bounds else ""
            what = getattr(probe_class, "option_help", {}).get(option) or OPTION_HELP.get(option, "")
            rows.append([f"`{option}`", _type_name(parameter.annotation), default, allowed, what])
        out += [_table(["option", "type", "default", "allowed", "what"], rows), "", "**Metrics**", ""]
        specs = getattr(probe_class, "specs", ())
        out += [_table(["metric (pattern)", "better", "paired test", "values"],
                       [[f"`{s.pattern}`", s.better, s.test or "none", _values(s)] for s in specs]) if specs
                else "(none declared)", ""]
    return "\n".join(out)


def _built_in_probes() -> list[tuple[str, Any]]:
    """(name, class) of every probe mtdebias ships, in registry order (plugins left out)."""
    from mtdebias.probes.registry import PROBES

    out = []
    for name in PROBES.entries:
        if not PROBES.plugin(name):
            constructor = PROBES.load(name)
            out.append((name, getattr(constructor, "__self__", constructor)))
    return out


PROBES_TABLE = "probes-table"  # the marker of docs/probes.md's generated table
PROBES_TABLE_NOTE = "<!-- generated by `python docs/hooks/docs_reference.py` from the probe registry; do not edit by hand -->"


def probes_table() -> str:
    """docs/probes.md's table of probes, from the registry: each probe's one-line summary (its
    class docstring, less the name it opens with) and the metrics its report headline shows."""
    rows = []
    for name, probe_class in _built_in_probes():
        summary = markdown_docstring(inspect.cleandoc(probe_class.__doc__ or "").split("\n\n")[0])
        summary = re.sub(rf"^`{re.escape(name)}`:\s*", "", " ".join(summary.split()))
        shown = [h.label for h in (*getattr(probe_class, "headline", ()), *getattr(probe_class, "quality", ()))]
        rows.append([f"[`{name}`](reference/probes.md#{_slug(name)})", summary[:1].upper() + summary[1:],
                     ", ".join(shown)])
    return _table(["probe", "what it measures", "headline"], rows)


def _values(spec: Any) -> str:
    """A metric's declared range as an interval (a stored value outside it is a damaged row)."""
    if spec.bounds is None:
        return "not declared"
    low, high = spec.bounds
    text = ("(-∞" if low == -math.inf else f"[{low:g}") + ", " + ("∞)" if high == math.inf else f"{high:g}]")
    return text + (" or undefined (NaN)" if spec.nan else "")


# --------------------------------------------------------------------------- recipes and suites


def _type_name(annotation: Any) -> str:
    if isinstance(annotation, str):
        return annotation
    args = typing.get_args(annotation)
    if args:
        return " or ".join(_type_name(a) for a in args if a is not type(None)) + \
            (" (optional)" if type(None) in args else "")
    return getattr(annotation, "__name__", str(annotation))


def recipe_reference() -> str:
    from mtdebias.recipe import schema

    out = ["# Recipe and suite reference", "",
           "Generated from `mtdebias/recipe/schema.py` (recipes) and `mtdebias/evaluation/suite.py` (suites). "
           "Every key is checked before any work starts: unknown keys get a did-you-mean, numbers "
           "their range, strings their choices.", ""]
    hints = typing.get_type_hints(schema.Recipe)
    for section in dataclasses.fields(schema.Recipe):
        if section.name == "source":
            continue
        config = hints[section.name]
        doc = inspect.getdoc(config) or ""
        if doc.startswith(f"{config.__name__}("):  # the dataclass's generated signature, not a description
            doc = ""
        out += [f"## `[{section.name}]`", "", markdown_docstring(doc.split("\n\n")[0]), ""]
        field_hints = typing.get_type_hints(config)
        rows = []
        for item in dataclasses.fields(config):
            if item.default is not dataclasses.MISSING:
                default = f"`{item.default!r}`"
            elif item.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
                default = f"`{item.default_factory()!r}`"  # type: ignore[misc]
            else:
                default = "required"
            allowed = schema.CHOICES.get((section.name, item.name))
            bounds = schema.RANGES.get((section.name, item.name))
            limit = ", ".join(map(str, allowed)) if allowed else (bounds.describe() if bounds else "")
            rows.append([f"`{item.name}`", _type_name(field_hints[item.name]), default, limit])
        out += [_table(["key", "type", "default", "allowed"], rows), ""]
    return "\n".join(out + _suite_reference())


def _suite_reference() -> list[str]:
    """The keys of a suite file: ``[suite]`` from the Suite dataclass, ``[[probe]]`` and
    ``[translator]`` from what ``load_suite`` accepts."""
    from mtdebias.probes.registry import PROBES
    from mtdebias.evaluation.suite import IF_EXISTS, SUITE_HEADER_KEYS, SUITE_KEYS, Suite
    from mtdebias.translators.load import BACKENDS, COMPUTE_TYPES
    from mtdebias.translators.specs import KINDS

    hints = typing.get_type_hints(Suite)
    fields = {item.name: item for item in dataclasses.fields(Suite)}
    allowed = {"backend": ", ".join(BACKENDS), "compute_type": ", ".join(COMPUTE_TYPES) + " (ct2 only)"}
    header_rows = []
    for key in SUITE_HEADER_KEYS:
        default = fields[key].default
        header_rows.append([f"`{key}`", _type_name(hints[key]),
                            "the file's name" if default is dataclasses.MISSING else f"`{default!r}`",
                            allowed.get(key, "")])
    probe_rows = [["`type`", "str", "required", ", ".join(f"`{name}`" for name in PROBES.entries
                                                      if not PROBES.plugin(name))]]
    defaults = {"label": "the probe's name (`winomt`)", IF_EXISTS: "always run"}
    probe_rows += [[f"`{key}`", "str", defaults.get(key, "—"), ""] for key in SUITE_KEYS if key != "type"]
    return ["## Suites", "",
            "Generated from `mtdebias/evaluation/suite.py`. A suite file has one `[suite]` table, one `[[probe]]` "
            "table per probe and optionally a `[translator]` table; any other table or key is an error "
            "with a did-you-mean.", "",
            "### `[suite]`", "", _table(["key", "type", "default", "allowed"], header_rows), "",
            "### `[[probe]]`", "",
            f"Every other key of a probe table is an option of that probe (see the [probe reference](probes.md)). "
            f"`label` names the probe's results when a suite runs one type twice (letters, digits, `_ . -`); "
            f"`{IF_EXISTS}` leaves the probe out when that path does not exist.", "",
            _table(["key", "type", "default", "allowed"], probe_rows), "",
            "### `[translator]`", "",
            "The system the suite scores when `mtdebias eval` gets no target: `kind`, then `model` "
            "(with `url` for `openai`, or `pair` for `apertium`); every other key is an option of that kind.", "",
            _table(["kind", "implemented by"], [[f"`{kind}`", f"`{target}`"] for kind, target in KINDS.items()]), ""]


# --------------------------------------------------------------------------- shipped files


def _leading_comment(path: Path) -> str:
    """The comment block a shipped file opens with, as Markdown: what it is for, in its author's
    words; lines indented past the ``#`` (commands) become a code block."""
    out: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        text = line[1:].removeprefix(" ")
        if text.startswith("  ") or text.startswith(("mtdebias ", "accelerate ", "torchrun ", "make ")):
            if not out or not out[-1].startswith("    "):
                out.append("")
            out.append("    " + text.strip())
        else:
            if out and out[-1].startswith("    "):
                out.append("")
            out.append(text)
    return "\n".join(out).strip("\n")


def shipped_reference(root: Path = ROOT) -> str:
    """The recipes under recipes/ and the suites under eval/ of a checkout, read from the files."""
    out = ["# Shipped recipes and suites", "",
           "Generated from the files under `recipes/` and `eval/` (their opening comments and keys); "
           "the keys themselves are described in the [recipe and suite reference](recipe.md).", "",
           "## Recipes", ""]
    for path in sorted(root.glob(SHIPPED_RECIPES)):
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
        model = raw.get("model", {})
        facts = {"model": model.get("init") or model.get("preset"), "augment": raw.get("augment", {}).get("method"),
                 "debias": raw.get("debias", {}).get("method"), "suite": raw.get("eval", {}).get("suite"),
                 "ablation variants": ", ".join(v.split(":", 1)[0] for v in raw.get("ablate", {}).get("variants", []))}
        out += [f"### `{path.relative_to(root).as_posix()}`", "", _leading_comment(path), "",
                "; ".join(f"{key}: `{value}`" for key, value in facts.items() if value), ""]
    out += ["## Suites", ""]
    for path in sorted(root.glob(SHIPPED_SUITES)):
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
        probes = [f"`{p.get('type')}`" + (f" ({p['label']})" if "label" in p else "") for p in raw.get("probe", [])]
        translator = raw.get("translator", {}).get("kind")
        facts = "probes: " + ", ".join(probes) + (f"; translator: `{translator}`" if translator else "")
        out += [f"### `{path.relative_to(root).as_posix()}`", "", _leading_comment(path), "", facts, ""]
    return "\n".join(out)


def generate(page: str) -> str:
    """The Markdown of a reference page (a key of :data:`PAGES`)."""
    return globals()[PAGES[page]]() + "\n"


def main(argv: list[str] | None = None) -> int:
    """``python docs/hooks/docs_reference.py [PAGE]``: write :func:`probes_table` into the
    ``probes-table`` block of PAGE (default docs/probes.md), the one way that table changes."""
    import sys

    from mtdebias.report.readme import splice

    args = sys.argv[1:] if argv is None else argv
    splice(Path(args[0]) if args else ROOT / "docs" / "probes.md", PROBES_TABLE,
           f"{PROBES_TABLE_NOTE}\n{probes_table()}\n")
    return 0


if __name__ == "__main__":
    import sys

    sys.path.insert(0, str(ROOT))  # run from a checkout: the package beside docs/, installed or not
    raise SystemExit(main())
