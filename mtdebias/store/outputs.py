"""Where a command may write what the user names (``--out``, ``--attempts``): one rule for every verb.

Checked before any work starts, so a wrong path costs an error message, not a training log:

* never a run's own file or folder (its log, recipe, checkpoints, stored results), nor a run
  folder as a whole: the run could not be recovered, and a run's writers alone keep it;
* never one of the command's inputs (``--attempts dev.en`` beside ``--src dev.en``): compared
  as resolved paths and as the same file on disk, so a link or a hard link is caught too;
* never a folder where a file goes (replacing it would delete what it holds), nor a file where a
  folder goes, nor a file where a folder above the output must be;
* an existing file is replaced only when it is one the command wrote, as its ``ours`` test
  reads it; a folder output writes its own names into the folder, and one of those names held
  by a file the command did not write is refused.

``mtdebias report`` applies the same rules through :mod:`mtdebias.report.outputs`, which adds
its markers and ``--force`` for files.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Iterable

from .atomic import file_above
from ..errors import InputError
from .runs import RunStore

Ours = Callable[[Path], bool]


def entries(path: Path) -> list[Path]:
    try:
        return list(path.iterdir())
    except OSError:
        return []


def refuse_folder(path: Path, role: str, flag: str, *, why: str, hint: str) -> None:
    """Raise: ``role`` at ``flag`` would replace the folder ``path`` (saying whether it is a run, or
    how many runs it holds, since that is what would be lost); ``why``: the rule, ``hint``: the remedy."""
    if RunStore.is_run_folder(path):
        what = "a run folder"
    else:
        runs = RunStore.runs_in(path)
        what = f"a folder holding {runs} run(s)" if runs else "a folder"
    raise InputError(f"{flag}: {role} would replace {what}; {why}", path=path, hint=hint)


def refuse_run_file(path: Path, role: str, flag: str, force: bool = False) -> None:
    """Raise if ``path`` is one of a run's own files or folders, or lies inside one."""
    if RunStore.is_run_file(path):
        raise InputError(f"{flag}: {role} would replace a file of a run; refused" + (", even with --force"
                                                                                      if force else ""),
                         path=path, hint=f"choose another {flag}: a name no file of the run has, or a folder "
                                         "outside it")


def check_output_file(path: str | Path, flag: str, *, role: str = "the output", inputs: Iterable = (),
                      ours: Ours | None = None, example: str = "out.txt") -> None:
    """Raise :class:`InputError` unless the command may write the file ``path`` (the module's rules).
    ``ours``: whether an existing file there is one this command wrote (None: none is);
    ``example``: a file name to suggest inside a folder given by mistake."""
    path = Path(path)
    if path.name in ("", ".", ".."):
        raise InputError(f"{flag}: not a file name", path=path, hint="give the path of the file to write")
    _refuse_input(path, flag, role, inputs)
    if os.path.lexists(path) and path.is_dir():
        refuse_folder(path, role, flag, why="a folder is never replaced by a file",
                      hint=f"{flag} names the file to write, e.g. {flag} {path / example}")
    refuse_run_file(path, role, flag)
    if os.path.lexists(path) and (path.is_symlink() or not path.is_file() or ours is None or not ours(path)):
        what = "a link" if path.is_symlink() else ("not a regular file" if not path.is_file() else
                                                   "a file this command did not write")
        raise InputError(f"{flag}: {role} would replace {what}; refused", path=path,
                         hint=f"choose another {flag}, or move the file away yourself")
    _refuse_file_above(path, flag)


def check_output_folder(path: str | Path, flag: str, *, names: Iterable[str], role: str = "the output folder",
                        inputs: Iterable = (), ours: Ours | None = None) -> None:
    """Raise :class:`InputError` unless the command may write the files ``names`` into the folder
    ``path``. ``ours``: whether a file already at one of ``names`` is one this command wrote there.
    A command that resumes in its folder (annotate) or reuses what it left there (augment's fairseq
    shards) gives no names: it is only kept out of runs, inputs and files."""
    path = Path(path)
    _refuse_input(path, flag, role, inputs)
    if RunStore.is_run_folder(path):
        raise InputError(f"{flag}: {role} is a run folder; its files would be mixed with the run's", path=path,
                         hint=f"choose another {flag}, e.g. a folder beside the run")
    refuse_run_file(path, role, flag)
    if os.path.lexists(path) and not path.is_dir():
        raise InputError(f"{flag}: {role} is a file; it names a folder to write into", path=path,
                         hint=f"choose another {flag}: a folder, or a name nothing has yet")
    _refuse_file_above(path, flag)
    for name in names:
        target = path / name
        _refuse_input(target, flag, f"{role}'s {name}", inputs)
        if os.path.lexists(target) and (target.is_dir() or target.is_symlink() or ours is None or not ours(target)):
            raise InputError(f"{flag}: {role} already holds {name!r}, which this command did not write; "
                             "refused", path=target, hint=f"choose another {flag}, or move {name!r} away yourself")


def _refuse_input(path: Path, flag: str, role: str, inputs: Iterable) -> None:
    for given in inputs:
        if given is None:
            continue
        given = Path(given)
        same = given.resolve() == path.resolve()
        try:
            same = same or os.path.samefile(given, path)
        except OSError:  # one of them does not exist: only the resolved paths can tell
            pass
        if same:
            raise InputError(f"{flag}: {role} would replace {given}, an input of this command; refused",
                             path=path, hint=f"choose another {flag}")


def _refuse_file_above(path: Path, flag: str) -> None:
    # a file where a folder of the path must be: the write could only fail (or need the file removed)
    above = file_above(path)
    if above is not None:
        raise InputError(f"{flag}: {above} is a file, where a folder of this path must be", path=path,
                         hint=f"choose another path for {flag}")


def is_json_lines(path: Path) -> bool:
    """Whether ``path`` holds only JSON objects, one a line (what an attempts log is)."""
    import json

    try:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                if line.strip() and not isinstance(json.loads(line), dict):
                    return False
    except (OSError, ValueError, RecursionError):
        return False
    return True


__all__ = ["check_output_file", "check_output_folder", "refuse_folder", "refuse_run_file", "entries",
           "is_json_lines"]
