"""What a report calls each run: ``--label RUN=LABEL``, else a short name read off its folder.

A run folder's own name is the label when a person chose it (``quickstart-vanilla-seed1``). The
folders `eval` makes for systems it has no folder of are named after what was scored, with
every path separator flattened: ``runs/translators/hf-causal_runs_released_smollm2-135m-instruct-q4_1.gguf``
for ``hf-causal:runs/released/smollm2-135m-instruct-q4_1.gguf``, ``runs/hub/Helsinki-NLP--opus-mt-en-de``
for a hub model, ``opus-mt.mtdebias`` beside a checkpoint folder. A paper's table wants
``smollm2-135m-instruct-q4_1 (hf-causal)`` and ``opus-mt-en-de``: :func:`default_label` reads
them back. Where two runs would get one label, both keep their folder names instead (a report
never shows two rows under one name); ``--label`` names a run however the user likes.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Mapping, Sequence

from ..errors import InputError
from .collect import RunData

# file endings of a model given as a file (the label is the file's stem)
MODEL_FILES = (".gguf", ".safetensors", ".bin", ".pt")
# a leading part of a flattened path that names a folder, not the model: letters only ("runs",
# "released", "models", a hub organisation)
_FOLDER_WORD = re.compile(r"[A-Za-z]+")


def default_label(run_dir: Path) -> str:
    """The short name of the run in ``run_dir`` (its folder name when that is not one of the
    names `eval` makes up: see the module docstring)."""
    name = run_dir.name
    if run_dir.parent.name == "translators":
        from ..translators.specs import kinds

        kind = next((k for k in sorted(kinds(), key=len, reverse=True) if name.startswith(k + "_")), None)
        if kind is None:
            return name
        parts = name[len(kind) + 1:].split("_")
        # drop the folders of a path (or the organisation of a hub id) while a name is left
        while len(parts) > 1 and _FOLDER_WORD.fullmatch(parts[0]):
            parts = parts[1:]
        model = "_".join(parts)
        model = model.split("@", 1)[0] or model  # an API model's URL, a hub revision
        for ending in MODEL_FILES:
            if model.endswith(ending) and len(model) > len(ending):
                model = model[: -len(ending)]
                break
        return f"{model} ({kind})"
    if run_dir.parent.name == "hub" and "--" in name:
        return name.split("--", 1)[1]  # Helsinki-NLP--opus-mt-en-de → opus-mt-en-de
    if name.endswith(".mtdebias") and len(name) > len(".mtdebias"):
        return name[: -len(".mtdebias")]
    return name


def parse_labels(pairs: Sequence[str], flag: str = "--label") -> dict[str, str]:
    """``["RUN=LABEL", …]`` → {RUN: LABEL}; a malformed pair is an error naming it."""
    out: dict[str, str] = {}
    for pair in pairs:
        run, sep, label = pair.partition("=")
        if not sep or not run.strip() or not label.strip():
            raise InputError(f"{flag} {pair!r}: not RUN=LABEL",
                             hint=f"e.g. {flag} runs/translators/apertium_en-es='Apertium en-es'")
        if run.strip() in out:
            raise InputError(f"{flag}: {run.strip()!r} is labelled twice", hint="give each run one label")
        out[run.strip()] = label.strip()
    return out


def _names(key: str, run: RunData) -> bool:
    """Whether ``key`` of ``--label KEY=…`` names ``run``: its path as given, another path to the
    same folder, or the folder's name."""
    return key == run.dir.name or Path(key) == run.dir or os.path.realpath(key) == os.path.realpath(run.dir)


def _distinct_tail(path: Path, others: list[Path]) -> str:
    """The fewest trailing parts of ``path`` that no other of ``others`` ends with
    (``a/translators/x`` beside ``c/translators/x``: ``a/translators/x``)."""
    parts = path.parts
    for k in range(2, len(parts) + 1):
        tail = parts[-k:]
        if all(other.parts[-k:] != tail for other in others if other != path):
            return "/".join(tail)
    return str(path)


def assign_labels(runs: list[RunData], labels: Mapping[str, str] | None = None, flag: str = "--label") -> None:
    """Name every run for the report: the user's label, else :func:`default_label` where that is
    unique, else the folder name (with its parent's name where two folders share one)."""
    labels = dict(labels or {})
    for key, label in labels.items():
        if not any(_names(key, run) for run in runs):
            raise InputError(f"{flag} {key}={label}: {key!r} is none of the reported runs",
                             hint="name a run as given on the command line or by its folder name: "
                                  + ", ".join(str(run.dir) for run in runs[:8]))
    chosen = {id(run): next((label for key, label in labels.items() if _names(key, run)), None) for run in runs}
    shown = [label for label in chosen.values() if label]
    for label in shown:
        if shown.count(label) > 1:
            raise InputError(f"{flag}: two runs are labelled {label!r}",
                             hint="give each run its own label (runs named '<variant>-seed<k>' are averaged "
                                  "per variant: label them 'NAME-seed1', 'NAME-seed2')")
    defaults = {id(run): default_label(run.dir) for run in runs if not chosen[id(run)]}
    taken = list(defaults.values()) + shown
    folders = [run.dir.name for run in runs]
    for run in runs:
        label = chosen[id(run)]
        if label is None:
            label = defaults[id(run)]
            if taken.count(label) > 1:  # two runs under one short name: their folder names instead
                label = run.dir.name
                if folders.count(label) > 1:  # one name in two places: as much of the path as tells them apart
                    label = _distinct_tail(run.dir, [r.dir for r in runs if r.dir.name == label])
        if label != run.name:
            run.name = label
            for row in run.results:
                row["run"] = label
