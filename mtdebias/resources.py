"""Where the shipped data lives: ``mtdebias/data/`` inside the package, so that a plain
(non-editable) ``pip install`` carries every default template, lexicon and name list.

Every module that reads shipped data asks here; none computes the folder itself.
"""

from __future__ import annotations

from pathlib import Path

DATA_ROOT = Path(__file__).resolve().parent / "data"


def data_dir(*parts: str) -> Path:
    """A folder of the shipped data, e.g. ``data_dir("templates")``."""
    return DATA_ROOT.joinpath(*parts)


def data_path(*parts: str) -> Path:
    """A shipped file, e.g. ``data_path("names", "first_female.txt")``."""
    return DATA_ROOT.joinpath(*parts)


__all__ = ["DATA_ROOT", "data_dir", "data_path"]
