"""Which paths a report may replace: only what an earlier report wrote, unless told otherwise.

A report is a set of paths beside each other: ``out.html``, ``out.md``, ``out_tables/``,
``out_figures/`` and, from ``ablate``, ``out-significance.json``. Rerunning a report replaces its
previous set; anything else at one of those paths belongs to the user and is refused before any
run is read (exit 2, naming the path), so that ``--out runs`` or ``--out RUN`` can never take a
folder of runs with it.

"Written by a report" is read from what it vouches for, not from a list kept beside the report:
a marker inside the file (or folder) travels with the set when it is copied or moved, a list beside
it would not, and a stale list could vouch for a file the user has since put in its place. So:

* the HTML page carries ``<meta name="generator" content="mtdebias report">`` in its head (the
  tag HTML has for exactly this);
* the Markdown summary has the line ``<!-- generator: mtdebias report -->`` under its title
  (invisible once rendered; the title stays the first line);
* the tables folder holds ``.mtdebias-report.json`` naming every file the report put there, and
  is ours only while it holds nothing else: a file the user added would go with the folder (the
  figures folder the same);
* the paired tests (a JSON list, which has no room for a marker) are recognised by their shape:
  a list of the rows :func:`mtdebias.experiments.ablation.compare_to_baseline` writes.

``force`` lets a report replace a *file* it did not write (an old ``notes.html`` the user wants
overwritten, a report from before these markers existed). It never removes a folder of the
user's: a folder at a file's path, a run, or a tables folder holding files the report did not
write is refused even then, because a report can always be written elsewhere and a folder of runs
cannot be recovered. The one folder it does replace is the tables folder of a report from before
the manifest, recognised by holding nothing but what :meth:`Table.export` writes.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..store.locking import output_lock  # noqa: F401  (shared with `debias --out`; re-exported here)
from ..store.outputs import entries as _entries, refuse_folder, refuse_run_file
from ..store.runs import RunStore

GENERATOR = "mtdebias report"
HTML_MARKER = f'<meta name="generator" content="{GENERATOR}">'
MARKDOWN_MARKER = f"<!-- generator: {GENERATOR} -->"
TABLES_MANIFEST = ".mtdebias-report.json"
# the keys compare_to_baseline gives every row of the paired tests
_SIGNIFICANCE_KEYS = {"variant", "baseline", "probe", "checkpoints"}
_HEAD = 4096  # the markers stand at the very start of what a report writes


@dataclass(frozen=True)
class ReportPaths:
    html: Path
    markdown: Path
    tables: Path
    significance: Path
    figures: Path


def report_paths(out_html: str | Path) -> ReportPaths:
    out_html = Path(out_html)
    return ReportPaths(out_html, out_html.with_suffix(".md"), out_html.with_name(out_html.stem + "_tables"),
                       out_html.with_name(out_html.stem + "-significance.json"),
                       out_html.with_name(out_html.stem + "_figures"))


def tables_manifest(names: list[str]) -> str:
    return json.dumps({"generator": GENERATOR, "files": sorted(names)}, indent=2) + "\n"


def check_report_outputs(out_html: str | Path, *, force: bool = False, significance: bool = False,
                         flag: str = "--out") -> None:
    """Raise :class:`InputError` naming the first path of the report set (``significance``: with
    the ablation's paired tests) that the report may not replace; see the module's rules."""
    out_html = Path(out_html)
    paths = report_paths(out_html)
    if out_html.name in ("", ".", "..") or out_html.suffix == ".md":
        raise InputError(f"{flag}: not a name for the HTML page (the Markdown summary takes the same name "
                         "with .md)", path=out_html, hint="give a file name such as report.html")
    checks = [(paths.html, "the report page", _is_our_html), (paths.markdown, "the Markdown summary", _is_our_markdown)]
    if significance:
        checks.append((paths.significance, "the paired tests", _is_our_significance))
    for path, role, ours in checks:
        _check_file(path, role, ours, force, flag)
    _check_tables(paths.tables, force, flag)
    _check_tables(paths.figures, force, flag, role="the figures folder")


def _check_file(path: Path, role: str, ours, force: bool, flag: str) -> None:
    if not os.path.lexists(path):
        return
    if path.is_dir():
        _refuse_folder(path, role, flag)
    if path.is_symlink() or not path.is_file() or not ours(path):
        refuse_run_file(path, role, flag, force=True)  # a run's log overwritten by a page: the run is broken
        if force:
            return  # a file only: replacing it removes the file (or the link), never a folder
        what = "a link" if path.is_symlink() else ("not a regular file" if not path.is_file() else
                                                   "a file mtdebias report did not write")
        raise InputError(f"{flag}: {role} would replace {what}; refused", path=path,
                         hint=f"choose another {flag}, or pass --force to replace this file")


def _check_tables(path: Path, force: bool, flag: str, role: str = "the tables folder") -> None:
    """``role``: the tables or the figures folder (the same rules; only tables had a layout
    before the manifest, so only they can be a legacy folder)."""
    if not os.path.lexists(path):
        return
    if not path.is_dir() or path.is_symlink():
        if force and not path.is_dir() and not RunStore.is_run_file(path):
            return  # a file where the tables folder goes: --force replaces files
        kind = "a link to a folder" if path.is_dir() else "a file"
        raise InputError(f"{flag}: {role} would replace {kind}; refused", path=path,
                         hint=f"choose another {flag}" + ("" if path.is_dir() else ", or pass --force to replace it"))
    if RunStore.is_run_folder(path):
        _refuse_folder(path, role, flag)
    try:
        manifest = json.loads((path / TABLES_MANIFEST).read_text(encoding="utf-8"))
        listed = set(manifest["files"]) if manifest.get("generator") == GENERATOR else None
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        listed = None
    if listed is None and _entries(path):  # an empty folder loses nothing when replaced
        legacy = role == "the tables folder" and _is_legacy_tables(path)
        if legacy and force:
            return
        raise InputError(f"{flag}: {role} would replace a folder mtdebias report did not write (it has "
                         f"no {TABLES_MANIFEST}); refused" + ("" if legacy else ", even with --force"), path=path,
                         hint="it holds the tables of a report by an older mtdebias: pass --force to replace it"
                         if legacy else f"choose another {flag}, or move the folder away yourself")
    foreign = sorted(entry.name for entry in _entries(path) if entry.name != TABLES_MANIFEST
                     and (entry.name not in (listed or ()) or entry.is_dir() or entry.is_symlink()))
    if foreign:
        raise InputError(f"{flag}: {role} holds {foreign[0]!r}, which mtdebias report did not write; "
                         "replacing the folder would delete it, so it is refused, even with --force",
                         path=path, hint=f"move {foreign[0]!r} out of the folder, or choose another {flag}")


def _is_legacy_tables(path: Path) -> bool:
    """Whether ``path`` holds only what reports wrote before the manifest existed: pairs of
    ``NAME.csv`` and ``NAME.json``, each JSON starting the way :meth:`Table.export` writes one
    (sorted keys, so ``"columns"`` first). Specific enough that ``--force`` may replace such a
    folder; without this, upgrading mtdebias would leave every earlier report folder in the way."""
    entries = _entries(path)
    names = {entry.name for entry in entries}
    if not all(entry.is_file() and not entry.is_symlink() and entry.suffix in (".csv", ".json") for entry in entries):
        return False
    if any(name.rsplit(".", 1)[0] + (".json" if name.endswith(".csv") else ".csv") not in names for name in names):
        return False
    return all(_head(entry).startswith('{\n  "columns": ') for entry in entries if entry.suffix == ".json")


def _refuse_folder(path: Path, role: str, flag: str):
    refuse_folder(path, role, flag, why="a report never replaces a folder, even with --force",
                  hint=f"give a file path for the report, e.g. {path / 'report.html'}")


def _head(path: Path) -> str:
    try:
        with open(path, "rb") as handle:
            return handle.read(_HEAD).decode("utf-8", errors="replace")
    except OSError:
        return ""


def _is_our_html(path: Path) -> bool:
    return HTML_MARKER in _head(path)


def _is_our_markdown(path: Path) -> bool:
    return MARKDOWN_MARKER in _head(path).splitlines()


def _is_our_significance(path: Path) -> bool:
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(rows, list) and all(isinstance(r, dict) and _SIGNIFICANCE_KEYS <= r.keys() for r in rows)


__all__ = ["GENERATOR", "HTML_MARKER", "MARKDOWN_MARKER", "TABLES_MANIFEST", "ReportPaths", "report_paths",
           "tables_manifest", "check_report_outputs", "output_lock"]
