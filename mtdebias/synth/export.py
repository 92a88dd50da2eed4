"""Export the authored profession lexicon for reuse by the template probes."""

from __future__ import annotations

from pathlib import Path

from ..atomic import write_text
from .frames import LANGS
from .vocab import PROFESSIONS

PROFESSION_HEADER = ("english", "masculine", "feminine")
DATA_DIR = Path(__file__).resolve().parents[2] / "data" / "synth"


def profession_table(lang: str) -> str:
    rows = ["\t".join(PROFESSION_HEADER)]
    rows += ["\t".join((n.en, *n.forms(lang))) for n in PROFESSIONS]
    return "\n".join(rows) + "\n"


def write_profession_tables(out: str | Path) -> list[Path]:
    """Write ``professions_<lang>.tsv`` (english, masculine, feminine) for de, fr, es."""
    paths = []
    for lang in LANGS:
        path = Path(out) / f"professions_{lang}.tsv"
        write_text(path, profession_table(lang))
        paths.append(path)
    return paths
