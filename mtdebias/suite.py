"""Evaluation suites: TOML files naming probes, their options and decoding/sampling settings.

::

    [suite]
    name = "quick"

    [[probe]]
    type = "quality"                       # BLEU/chrF
    src = "{data_dir}/test.{src_lang}"
    ref = "{data_dir}/test.{tgt_lang}"

    [[probe]]
    type = "name_gender"
    lang = "{tgt_lang}"
    names_limit = 20

``[suite]`` may also set ``backend = "ct2"`` (CTranslate2 for beam search and scoring; ε-samples
still come from transformers) and ``compute_type = "int8"``; ``mtdebias eval --backend`` overrides.

Placeholders in string options are filled from the run being scored (``{src_lang}``,
``{tgt_lang}``, ``{data_dir}`` = folder of the training source file, ``{run_dir}``) or from
``--set key=value`` on the command line. Unknown probe types and unfilled placeholders are
errors before any checkpoint is loaded.
"""

from __future__ import annotations

import difflib
import inspect
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .errors import ConfigError, InputError


def probe_constructors() -> dict[str, Callable[..., Any]]:
    """Probe type → constructor taking keyword options (imported on use: probes pull heavy deps)."""
    from .probes.registry import PROBES
    from .quality import QualityProbe

    def quality(src: str, ref: str, tgt_lang: str | None = None, lang: str | None = None, beam: int = 5,
                max_sentences: int | None = None) -> QualityProbe:
        from .textio import read_parallel

        corpus = read_parallel(src, ref)
        if not len(corpus):
            raise InputError(f"the quality probe's files hold no sentence pairs ({corpus.skipped_empty} "
                             "empty line(s))", path=src, hint=f"give src and ref files with text (ref: {ref})")
        limit = max_sentences or len(corpus)
        return QualityProbe(corpus.sources[:limit], corpus.targets[:limit], tgt_lang or lang, beam=beam)

    return {"quality": quality, **PROBES}


# options every suite entry may carry besides its probe's own
SUITE_OPTIONS = ("label",)
# probes whose `lang` is the language a gender detector must read
DETECTION_PROBES = ("winomt", "name_gender", "ambiguity")


def check_probe_options(kind: str, options: dict[str, Any], constructor: Callable[..., Any] | None = None,
                        where: str = "", path: str | Path | None = None, flags: dict[str, str] | None = None) -> None:
    """Refuse options the probe does not know (``beem = 3`` would silently be ignored) and
    missing required ones, before anything is built. ``flags`` maps an option to the command-line
    flag that sets it, for messages."""
    constructor = constructor or probe_constructors()[kind]
    params = inspect.signature(constructor).parameters
    named = [n for n, p in params.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    known = set(named) | set(getattr(getattr(constructor, "__self__", None), "EXTRA_OPTIONS", ())) | set(SUITE_OPTIONS)
    where = where or f"probe '{kind}'"
    flags = flags or {}
    for key in options:
        if key not in known:
            close = difflib.get_close_matches(key, sorted(known), n=1)
            name = flags.get(key, key)
            raise ConfigError(f"{where}: unknown option {name!r}", path=path,
                              hint=f"did you mean '{flags.get(close[0], close[0])}'?" if close
                              else f"{kind} takes: {', '.join(sorted(known - set(SUITE_OPTIONS)))}")
    for name in named:
        if params[name].default is inspect.Parameter.empty and name not in options:
            raise ConfigError(f"{where}: missing required option {flags.get(name, name)!r}", path=path,
                              hint=f"{kind} needs {', '.join(flags.get(n, n) for n in named if params[n].default is inspect.Parameter.empty)}")
    lang = options.get("lang")
    if kind in DETECTION_PROBES and isinstance(lang, str) and "{" not in lang:
        from .lang import SUPPORTED_LANGS

        if lang not in SUPPORTED_LANGS:
            raise ConfigError(f"{where}: no gender detector for lang = {lang!r}", path=path,
                              hint=f"{kind} reads target-side gender; supported: {', '.join(SUPPORTED_LANGS)}")


@dataclass(frozen=True)
class ProbeSpec:
    type: str
    options: dict[str, Any] = field(default_factory=dict)

    def resolved(self, context: dict[str, str]) -> "ProbeSpec":
        return ProbeSpec(self.type, {k: _fill(v, context, f"{self.type}.{k}") for k, v in self.options.items()})

    @property
    def label(self) -> str:
        return self.options.get("label", self.type)


@dataclass(frozen=True)
class Suite:
    name: str
    probes: tuple[ProbeSpec, ...]
    path: str = ""
    backend: str = "hf"  # how checkpoints are opened: hf or ct2 (translate/score; sampling is hf)
    compute_type: str = "default"  # ct2 only


def _fill(value: Any, context: dict[str, str], where: str) -> Any:
    if not isinstance(value, str):
        return value
    missing = [m for m in re.findall(r"\{(\w+)\}", value) if m not in context]
    if missing:
        raise ConfigError(f"{where} = '{value}': no value for {{{missing[0]}}}",
                          hint=f"score a run directory, or pass --set {missing[0]}=...")
    return value.format(**context)


def load_suite(path: str | Path) -> Suite:
    path = Path(path)
    if not path.is_file():
        raise ConfigError("suite file not found", path=path, hint="see eval/ for the shipped suites")
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"not valid TOML: {exc}", path=path) from None
    unknown = set(raw) - {"suite", "probe"}
    if unknown:
        raise ConfigError(f"unknown table [{sorted(unknown)[0]}]", path=path, hint="a suite has [suite] and [[probe]]")
    known = probe_constructors()
    specs = []
    for number, table in enumerate(raw.get("probe", []), 1):
        kind = table.get("type")
        if kind not in known:
            close = difflib.get_close_matches(str(kind), known, n=1)
            raise ConfigError(f"probe #{number}: unknown type {kind!r}", path=path,
                              hint=f"did you mean '{close[0]}'?" if close else f"known: {', '.join(sorted(known))}")
        specs.append(ProbeSpec(kind, {k: v for k, v in table.items() if k != "type"}))
    if not specs:
        raise ConfigError("the suite names no [[probe]]", path=path)
    labels = [spec.label for spec in specs]
    for label in labels:
        if labels.count(label) > 1:  # per-item logs are stored under the label
            raise ConfigError(f"two probes share the label '{label}'", path=path,
                              hint="give one of them label = \"...\"")
    header = raw.get("suite", {})
    unknown_keys = set(header) - {"name", "backend", "compute_type"}
    if unknown_keys:
        key = sorted(unknown_keys)[0]
        close = difflib.get_close_matches(key, ["name", "backend", "compute_type"], n=1)
        raise ConfigError(f"[suite] has no key '{key}'", path=path,
                          hint=f"did you mean '{close[0]}'?" if close else "keys: name, backend, compute_type")
    from .translators.load import check_backend

    backend, compute_type = header.get("backend", "hf"), header.get("compute_type", "default")
    check_backend(backend, compute_type, where=f"{path}: [suite] backend")
    return Suite(header.get("name", path.stem), tuple(specs), str(path), backend, compute_type)
