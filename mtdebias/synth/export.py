"""Export the authored profession lexicon for reuse by the template probes."""

from __future__ import annotations

from pathlib import Path

from ..atomic import write_text
from ..resources import data_dir
from .frames import LANGS
from .grammar import en_a
from .vocab import PROFESSIONS

PROFESSION_HEADER = ("english", "masculine", "feminine")
DATA_DIR = data_dir("synth")


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


TEMPLATE_DIR = data_dir("templates")


def synth_template_table(lang: str) -> str:
    """Name-gender templates in the synthetic corpus's own vocabulary (probe ``name_gender.v1``).

    A model trained on the synthetic corpus knows only its words, so the quickstart measures
    name-gender bias with sentences of the corpus's "works as" frame: one per profession.
    """
    rows = ["# Name-gender templates in the vocabulary of the synthetic corpus (mtdebias data synth).",
            "# Written by `mtdebias data professions`; format: data/templates/README.md",
            "id\ttemplate\tmale\tfemale"]
    for noun in PROFESSIONS:
        masculine, feminine = noun.forms(lang)
        rows.append(f"{noun.en.replace(' ', '_')}\t[PERSON] works as {en_a(noun.en)}.\t{masculine}\t{feminine}")
    return "\n".join(rows) + "\n"


def write_synth_templates(out: str | Path = TEMPLATE_DIR) -> list[Path]:
    paths = []
    for lang in LANGS:
        path = Path(out) / f"name_gender_synth_{lang}.tsv"
        write_text(path, synth_template_table(lang))
        paths.append(path)
    return paths


def synth_winomt_items() -> str:
    """WinoMT-format items (gold, profession index, sentence, profession) in the corpus's words.

    "She loves her job as a developer.": the pronouns fix the profession's gender, as in WinoMT,
    in the corpus's own frame. Each profession appears with "he" and with "she", so the
    ambiguity probe can also build its he/she/they contrast sets.
    """
    lines = []
    for noun in PROFESSIONS:
        for gender, pronoun, possessive in (("male", "He", "his"), ("female", "She", "her")):
            article = en_a(noun.en).split()[0]
            lines.append(f"{gender}\t6\t{pronoun} loves {possessive} job as {article} {noun.en}.\t{noun.en}")
    return "\n".join(lines) + "\n"


def write_synth_winomt(out: str | Path = TEMPLATE_DIR) -> Path:
    path = Path(out) / "winomt_synth_en.txt"
    write_text(path, synth_winomt_items())
    return path
