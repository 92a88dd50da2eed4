"""docs/getting-started.md, run as written.

The page's blocks carry the markers of the extending guide (tests/test_extending_guide.py):
``file PATH`` (the block is that file of the user's project), ``shell`` (a command, which must
succeed) and ``output`` (what it prints on stdout; ``…`` is any text, a line of ``…`` alone any
number of lines), plus ``setup``: a ``make`` target this test's environment stands in for
(``make install`` is the interpreter running the tests; ``make apertium``'s packages are either
installed, or the Apertium section is skipped).

The blocks run in page order in a fresh project folder holding copies of ``recipes/`` and
``eval/`` and a ``.venv/bin/mtdebias`` that runs this checkout, so every file a block names must
have been made by a block before it. Scoring Apertium takes seconds, the two trainings about
40 s each on 2 cores: the whole page runs in `make test`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_extending_guide import FENCE, MARKER, matches

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "getting-started.md"
PREAMBLE, APERTIUM, TRAIN, SWITCH = ("", "Score a system you did not build", "Train a model in a minute or two",
                                     "SwitchEntity on your own corpus")


def read_page(text: str) -> dict[str, list[tuple[str, str, str, int]]]:
    """(kind, argument, body, line) of each tagged block, by ``## `` section ("" before the first)."""
    headings = [(m.start(), m.group(1).strip()) for m in re.finditer(r"^## (.+)$", text, re.M)]
    steps: dict[str, list[tuple[str, str, str, int]]] = {}
    for match in MARKER.finditer(text):
        section = ([title for start, title in headings if start < match.start()] or [PREAMBLE])[-1]
        steps.setdefault(section, []).append((match.group(1), match.group(2) or "", match.group(3),
                                              text.count("\n", 0, match.start()) + 1))
    return steps


class Walkthrough:
    def __init__(self, project: Path):
        self.project = project
        self.steps = read_page(PAGE.read_text(encoding="utf-8"))
        self.done: list[str] = []
        self.env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1",
                    "MKL_NUM_THREADS": "1"}

    def follow(self, section: str) -> None:
        """Run ``section``'s blocks, and first those of every section above it not yet run."""
        order = list(self.steps)
        for earlier in order[:order.index(section) + 1]:
            if earlier not in self.done:
                self._run(earlier)
                self.done.append(earlier)

    def _run(self, section: str) -> None:
        steps = self.steps[section]
        for index, (kind, arg, body, line) in enumerate(steps):
            where = f"{PAGE.name}:{line}"
            if kind == "file":
                target = self.project / arg
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(body, encoding="utf-8")
            elif kind == "shell":
                done = subprocess.run(["bash", "-o", "pipefail", "-c", body], cwd=self.project, env=self.env,
                                      capture_output=True, text=True, timeout=600)
                assert done.returncode == 0, f"{where}: exit {done.returncode}\n{done.stdout}\n{done.stderr[-3000:]}"
                following = steps[index + 1] if index + 1 < len(steps) else None
                if following is not None and following[0] == "output":
                    assert matches(following[2], done.stdout), (f"{where}: the output differs from the page's\n"
                                                                f"--- page\n{following[2]}--- actual\n{done.stdout}")
            elif kind == "setup":
                assert all(command.startswith("make ") for command in body.strip().splitlines()), where
            else:
                assert kind == "output" and steps[index - 1][0] == "shell", f"{where}: misplaced {kind!r} block"


@pytest.fixture(scope="module")
def walkthrough(tmp_path_factory) -> Walkthrough:
    project = tmp_path_factory.mktemp("getting-started") / "mtdebias"
    project.mkdir()
    for folder in ("recipes", "eval"):
        shutil.copytree(ROOT / folder, project / folder, ignore=shutil.ignore_patterns("gold", "__pycache__"))
    (project / ".venv" / "bin").mkdir(parents=True)
    wrapper = project / ".venv" / "bin" / "mtdebias"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m mtdebias "$@"\n', encoding="utf-8")
    wrapper.chmod(0o755)
    return Walkthrough(project)


def test_every_block_of_the_page_is_a_tagged_step():
    text = PAGE.read_text(encoding="utf-8")
    assert len(FENCE.findall(text)) == len(MARKER.findall(text))
    steps = read_page(text)
    assert list(steps) == [PREAMBLE, APERTIUM, TRAIN, SWITCH]
    commands = [body for section in steps.values() for kind, _, body, _ in section if kind == "shell"]
    # the same spelling of the command throughout, and no `mtdebias` the PATH may not have
    assert all(re.findall(r"(?<![\w/.])mtdebias ", command) == [] for command in commands), commands


def test_the_tiny_recipe_and_suite_validate():
    """Checked here too, without training: the recipe, its suite and the files the suite reads
    (the synthetic corpus writes the test split on first use)."""
    from mtdebias.experiments.pipeline import check_recipe
    from mtdebias.recipe import load_recipe

    reads = check_recipe(load_recipe(ROOT / "recipes" / "tiny.toml"))
    assert any("probe 'quality', src = '{data_dir}/test.{src_lang}'" in line and "(written by data.synth)" in line
               for line in reads)


@pytest.mark.skipif(shutil.which("apertium") is None, reason="apertium is not installed (make apertium)")
def test_scoring_apertium_as_written(walkthrough):
    walkthrough.follow(APERTIUM)
    from mtdebias.store.runs import RunStore

    rows = RunStore(walkthrough.project / "runs" / "translators" / "apertium_en-es").results("translator")
    assert {row["probe"] for row in rows} == {"name_gender.v1", "winomt.v1"}
    assert (walkthrough.project / "my" / "apertium.md").is_file()


def test_training_the_tiny_recipe_as_written(walkthrough):
    if shutil.which("apertium") is None and APERTIUM not in walkthrough.done:  # the page's order, where it runs
        walkthrough.done.append(APERTIUM)
    walkthrough.follow(TRAIN)
    report = (walkthrough.project / "my" / "tiny.md").read_text(encoding="utf-8")
    assert "## Results that say nothing" in report  # what the page says a model this small gives


def test_switch_entity_on_your_own_corpus_as_written(walkthrough):
    if shutil.which("apertium") is None and APERTIUM not in walkthrough.done:
        walkthrough.done.append(APERTIUM)
    walkthrough.follow(SWITCH)
    from mtdebias.store.runs import RunStore

    run = RunStore(walkthrough.project / "runs" / "mine-switch")
    assert [c.name for c in run.checkpoints()] == [c.name for c in RunStore(walkthrough.project / "runs" /
                                                                            "tiny").checkpoints()]
    assert run.recipe_file.read_text(encoding="utf-8").count("switch_entity.v1") == 1  # trained with SwitchEntity
    compare = (walkthrough.project / "my" / "compare.md").read_text(encoding="utf-8")
    assert "mine-switch" in compare and "mine-vanilla" in compare
    # issue 43: the page compared runs scored on two corpora's test sets and hid the warning (| tail -1)
    assert "different signatures" not in compare


def test_no_step_of_the_page_hides_what_a_command_says():
    """A `| tail` or `| head` after a command cuts off its warnings: a reader following the page
    must see what the command printed."""
    text = PAGE.read_text(encoding="utf-8")
    shell = [body for kind, _, body, _ in (step for steps in read_page(text).values() for step in steps)
             if kind == "shell"]
    assert not [body for body in shell if re.search(r"mtdebias [^\n]*\|\s*(tail|head)\b", body)]
