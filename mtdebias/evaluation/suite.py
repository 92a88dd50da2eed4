"""Evaluation suites: TOML files naming probes, their options and decoding/sampling settings.

::

    [suite]
    name = "quick"

    [[probe]]
    type = "quality.v1"                    # BLEU/chrF
    src = "{data_dir}/test.{src_lang}"
    ref = "{data_dir}/test.{tgt_lang}"

    [[probe]]
    type = "name_gender.v1"
    label = "ng_first"                     # optional: the name results and logs are stored under
    lang = "{tgt_lang}"
    names_limit = 20

A suite is validated like a recipe, before any model is loaded: an unknown probe type or an
option the probe does not take is an error naming the file and line, with a did-you-mean.
Probe types are registry names (:mod:`mtdebias.probes.registry`; ``winomt`` is read as ``winomt.v1``).

A probe with ``if_exists = "PATH"`` is left out (and said so) when PATH does not exist, so a
suite can use data that is not shipped (WinoMT from ../shared) where it is present; PATH takes
placeholders and is read from the suite file's folder like the probe's own file options.

``[suite]`` may also set ``backend = "ct2"`` (CTranslate2 for beam search and scoring; ε-samples
still come from transformers) and ``compute_type = "int8"``; ``mtdebias eval --backend`` overrides.

Placeholders in string options are filled from the run being scored (``{src_lang}``,
``{tgt_lang}``, ``{data_dir}`` = folder of the training source file, ``{run_dir}``), ``{shipped}``
(the package's data folder, :mod:`mtdebias.resources`) or from ``--set key=value`` on the
command line; an unfilled placeholder is an error. Relative file paths are taken from the
suite file's folder.
"""

from __future__ import annotations

import difflib
import inspect
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError, shorten, shown
from ..options import Range, check_options, declared_ranges, signature_types
from ..probes.registry import PROBES
from ..resources import DATA_ROOT
from ..textio import parse_toml, read_text

if TYPE_CHECKING:
    from ..probes.base import Probe

IF_EXISTS = "if_exists"
SUITE_KEYS = ("type", "label", IF_EXISTS)  # keys of a [[probe]] table that are not probe options


@dataclass(frozen=True)
class ProbeSpec:
    type: str  # canonical registry name, e.g. "winomt.v1"
    options: dict[str, Any] = field(default_factory=dict)
    label_: str | None = None
    paths: frozenset[str] = frozenset()  # options that name files, resolved against `base`
    base: str = ""  # the suite file's folder
    if_exists: str | None = None  # optional data: the probe is left out when this path is absent

    def resolved(self, context: dict[str, str], partial: bool = False) -> "ProbeSpec":
        """Placeholders filled from ``context`` (``partial``: those it lacks stay as they are)."""
        context = {"shipped": str(DATA_ROOT), **context}
        options = {}
        for key, value in self.options.items():
            if partial and isinstance(value, str) and any(m not in context for m in re.findall(r"\{(\w+)\}", value)):
                options[key] = value
                continue
            value = _fill(value, context, f"{self.label}.{key}")
            if key in self.paths and isinstance(value, str) and value and not Path(value).is_absolute():
                value = str(Path(self.base) / value)
            options[key] = value
        if_exists = self.if_exists
        if if_exists is not None and not (partial and any(m not in context for m in re.findall(r"\{(\w+)\}", if_exists))):
            if_exists = _fill(if_exists, context, f"{self.label}.{IF_EXISTS}")
            if not Path(if_exists).is_absolute():
                if_exists = str(Path(self.base) / if_exists)
        return ProbeSpec(self.type, options, self.label_, self.paths, self.base, if_exists)

    @property
    def label(self) -> str:
        """What results and attempt logs are stored under: the suite's label, else the probe's
        unversioned name (``winomt``)."""
        return self.label_ or self.type.split(".", 1)[0]

    def available(self) -> bool:
        """False when the probe names optional data (``if_exists``) that is not there."""
        return self.if_exists is None or Path(self.if_exists).exists()

    def build(self) -> "Probe":
        """The probe, built from the (resolved) options."""
        return PROBES.load(self.type)(**self.options)


SUITE_HEADER_KEYS = ("name", "backend", "compute_type")


@dataclass(frozen=True)
class Suite:
    name: str
    probes: tuple[ProbeSpec, ...]
    path: str = ""
    backend: str = "hf"  # how checkpoints are opened: hf or ct2 (translate/score; sampling is hf)
    compute_type: str = "default"  # ct2 only
    # a [translator] table: the system the suite scores when no target is given (apertium:en-es, …)
    translator: str | None = None
    translator_options: dict[str, Any] = field(default_factory=dict)


def _fill(value: Any, context: dict[str, str], where: str) -> Any:
    if not isinstance(value, str):
        return value
    missing = [m for m in re.findall(r"\{(\w+)\}", value) if m not in context]
    if missing:
        raise ConfigError(f"{where} = '{value}': no value for {{{missing[0]}}}",
                          hint=f"score a run directory, or pass --set {missing[0]}=...")
    return value.format(**context)


def probe_options(probe_type: str) -> dict[str, inspect.Parameter]:
    """The options a probe type takes (the keyword parameters of its registered constructor),
    their annotations evaluated: each option's type, as :func:`check_probe_options` checks it."""
    constructor = PROBES.load(probe_type)
    return {name: p for name, p in signature_types(constructor).items()
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def probe_ranges(probe_type: str) -> dict[str, Range]:
    """The declared ranges of a probe type's numeric options (its class's ``option_ranges``)."""
    constructor = PROBES.load(probe_type)
    return declared_ranges(getattr(constructor, "__self__", constructor))


def check_probe_options(kind: str, options: dict[str, Any], *, where: str = "", path: str | Path | None = None,
                        line_of: Any = None, flags: dict[str, str] | None = None, given_as: str = "") -> None:
    """Refuse options the probe does not take (``beem = 3`` would otherwise be ignored), missing
    required ones, and values not of an option's type and range (``names_limit = "5"``,
    ``resamples = 5``), before anything is built. ``kind``: the probe type as the user wrote
    it; ``line_of(key)``: the line of an option, for messages; ``flags`` maps an option to the
    command-line flag that sets it; ``given_as``: the flag that set the others (``--option``)."""
    accepted = probe_options(PROBES.canonical(kind))
    where = where or f"probe '{kind}'"
    flags = flags or {}
    for key in options:
        if key not in accepted:
            close = difflib.get_close_matches(key, sorted(accepted), n=1, cutoff=0.6)
            raise ConfigError(f"{where}: unknown option {shown(flags.get(key, key))}", path=path,
                              line=line_of(key) if line_of else None,
                              hint=f"did you mean '{flags.get(close[0], close[0])}'?" if close
                              else f"{kind} takes: {', '.join(sorted(accepted))}")
    required = [name for name, p in accepted.items() if p.default is inspect.Parameter.empty]
    for name in required:
        if name not in options:
            raise ConfigError(f"{where}: missing required option {flags.get(name, name)!r}", path=path,
                              line=line_of(None) if line_of else None,
                              hint=f"{kind} needs {', '.join(flags.get(n, n) for n in required)}")
    check_options(options, accepted, probe_ranges(PROBES.canonical(kind)), where=where, path=path,
                  name_of=lambda key: flags.get(key, f"{given_as} {key}" if given_as else key),
                  line_of=line_of, how="fix it in the suite" if path else "fix it on the command line")


def check_resolved_options(spec: "ProbeSpec", path: str | Path | None = None) -> None:
    """Checks that need the filled-in values: the probe's ``lang`` has what the probe ``needs``
    (a gender detector, a lemmatiser: capabilities of the language registry)."""
    lang = spec.options.get("lang")
    constructor = PROBES.load(spec.type)
    needs = tuple(getattr(getattr(constructor, "__self__", constructor), "needs", ()))
    if needs and isinstance(lang, str) and "{" not in lang:
        from ..lang.languages import require

        require(lang, needs, f"probe '{spec.label}' ({spec.type})", path=path)


def _takes_path(parameter: inspect.Parameter) -> bool:
    return "Path" in str(parameter.annotation)


def _probe_lines(text: str) -> list[int]:
    """Line number of every ``[[probe]]`` header, in order."""
    return [n for n, line in enumerate(text.splitlines(), 1) if re.match(r"\s*\[\[\s*probe\s*\]\]", line)]


def _key_line(text: str, start: int | None, key: str) -> int | None:
    """The line of ``key = …`` in the table that starts at line ``start``."""
    if start is None:
        return None
    lines = text.splitlines()
    for number in range(start + 1, len(lines) + 1):
        line = lines[number - 1]
        if re.match(r"\s*\[", line):
            break
        if re.match(rf"\s*{re.escape(key)}\s*=", line):
            return number
    return start


def load_suite(path: str | Path) -> Suite:
    path = Path(path)
    if not path.is_file():
        raise ConfigError("suite file not found", path=path, hint="see eval/ for the shipped suites")
    text = read_text(path)
    raw = parse_toml(text, path, ConfigError)
    unknown = set(raw) - {"suite", "probe", "translator"}
    if unknown:
        raise ConfigError(f"unknown table [{shorten(sorted(unknown)[0])}]", path=path,
                          hint="a suite has [suite], [[probe]] and optionally [translator]")
    for name in ("suite", "translator"):
        if not isinstance(raw.get(name, {}), dict):
            raise ConfigError(f"'{name}' must be a table, got {shown(raw[name])}", path=path,
                              hint=f"write it as a [{name}] header with its keys below")
    probes = raw.get("probe", [])
    if not (isinstance(probes, list) and all(isinstance(table, dict) for table in probes)):
        raise ConfigError(f"'probe' must be a list of tables, got {shown(probes)}", path=path,
                          hint="start each probe with a [[probe]] header (two brackets)")
    for key in raw.get("suite", {}):
        if key not in SUITE_HEADER_KEYS:
            close = difflib.get_close_matches(key, SUITE_HEADER_KEYS, n=1)
            raise ConfigError(f"unknown key {shown(f'suite.{key}')}", path=path,
                              hint=f"did you mean '{close[0]}'?" if close else f"[suite] has {', '.join(SUITE_HEADER_KEYS)}")
    headers = _probe_lines(text)
    specs = []
    for number, table in enumerate(probes, 1):
        start = headers[number - 1] if number - 1 < len(headers) else None
        kind = table.get("type")
        if not isinstance(kind, str):
            raise ConfigError(f"probe #{number} has no type", path=path, line=start,
                              hint=f"add type = \"...\" (one of {', '.join(PROBES.entries)})")
        if kind not in PROBES:
            close = difflib.get_close_matches(kind, PROBES.names(), n=1, cutoff=0.6)
            raise ConfigError(f"probe #{number}: unknown type {kind!r}", path=path, line=_key_line(text, start, "type"),
                              hint=f"did you mean '{close[0]}'?" if close else f"known: {', '.join(PROBES.entries)}")
        canonical = PROBES.canonical(kind)
        accepted = probe_options(canonical)
        options = {k: v for k, v in table.items() if k not in SUITE_KEYS}
        check_probe_options(canonical, options, where=f"probe #{number} ({canonical})", path=path,
                            line_of=lambda key, start=start: _key_line(text, start, key) if key else start)
        label = table.get("label")
        if label is not None and not (isinstance(label, str) and re.fullmatch(r"[\w.-]+", label)):
            raise ConfigError(f"probe #{number}: label must be a word (letters, digits, _ . -), got {label!r}",
                              path=path, line=_key_line(text, start, "label"))
        if_exists = table.get(IF_EXISTS)
        if if_exists is not None and not (isinstance(if_exists, str) and if_exists):
            raise ConfigError(f"probe #{number}: {IF_EXISTS} must be a path, got {if_exists!r}",
                              path=path, line=_key_line(text, start, IF_EXISTS))
        paths = frozenset(k for k in options if _takes_path(accepted[k]))
        specs.append(ProbeSpec(canonical, options, label, paths, str(path.parent.resolve()), if_exists))
    if not specs:
        raise ConfigError("the suite names no [[probe]]", path=path)
    labels = [spec.label for spec in specs]
    for number, label in enumerate(labels, 1):
        if label in labels[:number - 1]:  # per-item logs are stored under the label
            raise ConfigError(f"two probes share the label '{label}'", path=path, line=headers[number - 1]
                              if number - 1 < len(headers) else None, hint="give one of them label = \"...\"")
    header = raw.get("suite", {})
    from ..translators.load import check_backend

    backend, compute_type = header.get("backend", "hf"), header.get("compute_type", "default")
    check_backend(backend, compute_type, where=f"{path}: [suite] backend")
    translator, translator_options = None, {}
    if "translator" in raw:
        from ..translators.specs import check_translator_options, spec_from_table

        try:
            translator, translator_options = spec_from_table(raw["translator"])
        except ConfigError as exc:
            raise ConfigError(exc.message, path=path, hint=exc.hint) from None
        check_translator_options(translator, translator_options, path=path)
    return Suite(header.get("name", path.stem), tuple(specs), str(path), backend, compute_type, translator,
                 translator_options)
