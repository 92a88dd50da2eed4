"""Export the authored profession lexicon for reuse by the template probes."""

from __future__ import annotations

from pathlib import Path

from ..store.atomic import write_text
from ..resources import data_dir
from .frames import LANGS, loves_job
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
    in the corpus's own frame (:func:`~mtdebias.synth.frames.loves_job`). Each profession appears
    with "he" and with "she", so the ambiguity probe can also build its he/she/they contrast sets.
    """
    lines = []
    for noun in PROFESSIONS:
        for gender, g in (("male", "m"), ("female", "f")):
            lines.append(f"{gender}\t6\t{loves_job('de', noun, g).en}\t{noun.en}")
    return "\n".join(lines) + "\n"


def synth_winomt_references(lang: str) -> str:
    """``source<TAB>correct<TAB>incorrect`` for every item of :func:`synth_winomt_items`: the
    corpus's own translation, and the same sentence with the profession in the other gender.
    The ambiguity probe scores both for ΔI and ΔLogProb."""
    lines = []
    for noun in PROFESSIONS:
        for g, other in (("m", "f"), ("f", "m")):
            right, wrong = loves_job(lang, noun, g), loves_job(lang, noun, g, noun_g=other)
            lines.append(f"{right.en}\t{right.tgt}\t{wrong.tgt}")
    return "\n".join(lines) + "\n"


def write_synth_winomt(out: str | Path = TEMPLATE_DIR) -> list[Path]:
    """The items (``winomt_synth_en.txt``) and their references per target language."""
    path = Path(out) / "winomt_synth_en.txt"
    write_text(path, synth_winomt_items())
    paths = [path]
    for lang in LANGS:
        paths.append(Path(out) / f"winomt_synth_refs_{lang}.tsv")
        write_text(paths[-1], synth_winomt_references(lang))
    return paths
