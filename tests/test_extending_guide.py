"""docs/extending.md, followed literally.

The guide's code blocks carry a marker on the line above them, which this test reads:

* ``<!-- guide: file PATH -->``: the block is the whole file PATH (a new module of the package
  when PATH is under ``mtdebias/``, else a file of the user's project: a suite, data);
* ``<!-- guide: registry FILE NAME -->``: the block is the line added to the registry ``NAME``
  (a dict, or a call listing entries) assigned in FILE; it goes after the last entry;
* ``<!-- guide: shell -->`` / ``<!-- guide: shell fails -->``: a command the user types, run
  with bash; it must succeed / fail (exit status not 0);
* ``<!-- guide: python -->``: a script the user runs with python;
* ``<!-- guide: output -->``: what the command or script above prints (stdout; stderr for a
  command that fails), line by line; ``…`` in a line stands for any text, a line of ``…``
  alone for any number of lines.

The steps are applied, in the order of the page, to a copy of the package in a project folder
(with ``runs/tiny-seed1``, a tiny en→de model trained here); commands run there with the copy
first on the import path, by the interpreter of a virtual environment of the project's own
(which sees this interpreter's packages), so the last section's ``pip install`` of a plugin
package goes there. Each section must change the package by exactly what it says: one new module
and one registry line (a language with data only: the line alone; a plugin package: nothing).
"""

from __future__ import annotations

import ast
import difflib
import json
import os
import re
import shutil
import site
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "extending.md"
PROBE, DEBIAS, LANGUAGE, TRANSLATOR = ("Adding a probe", "Adding a debiasing method", "Adding a language",
                                       "Adding a translator backend")
PACKAGE = "Shipping components in your own package"
SECTIONS = (PROBE, DEBIAS, LANGUAGE, TRANSLATOR, PACKAGE)
MARKER = re.compile(r"^<!-- guide: (\w+)(?: ([^>]*?))? -->\n```[\w-]*\n(.*?)^```$", re.M | re.S)
FENCE = re.compile(r"^```[\w-]*\n.*?^```$", re.M | re.S)


@dataclass(frozen=True)
class Step:
    kind: str  # file | registry | shell | python | output
    arg: str
    body: str
    line: int  # in the guide, for messages


def read_guide(text: str) -> dict[str, list[Step]]:
    """The tagged blocks of each ``## `` section, in page order."""
    headings = [(m.start(), m.group(1).strip()) for m in re.finditer(r"^## (.+)$", text, re.M)]
    steps: dict[str, list[Step]] = {}
    for match in MARKER.finditer(text):
        section = [title for start, title in headings if start < match.start()][-1]
        steps.setdefault(section, []).append(Step(match.group(1), match.group(2) or "", match.group(3),
                                                  text.count("\n", 0, match.start()) + 1))
    return steps


def insert_entry(path: Path, name: str, entry: str) -> None:
    """Add ``entry`` (the guide's line) after the last entry of the registry ``name`` in ``path``:
    the first dict in what is assigned to it, or the call it is assigned (``_langs(...)``)."""
    text = path.read_text(encoding="utf-8")
    def names(node: ast.stmt) -> list[str]:
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AnnAssign) else []
        return [target.id for target in targets if isinstance(target, ast.Name)]

    assigned = next(node.value for node in ast.parse(text).body if name in names(node))
    container = next((node for node in ast.walk(assigned) if isinstance(node, ast.Dict)), assigned)
    last = (container.values if isinstance(container, ast.Dict) else container.args)[-1]
    lines = text.splitlines(keepends=True)
    assert lines[last.end_lineno - 1].rstrip().endswith(","), f"{path}: {name}'s last entry has no trailing comma"
    lines.insert(last.end_lineno, entry if entry.endswith("\n") else entry + "\n")
    path.write_text("".join(lines), encoding="utf-8")
    ast.parse(path.read_text(encoding="utf-8"))  # still Python


def matches(expected: str, actual: str) -> bool:
    """Line by line; ``…`` is any text within a line, a line of ``…`` any number of lines."""
    pattern = "".join(r"(?:.*\n)*?" if line.strip() == "…" else re.escape(line).replace("…", ".*") + r"\n"
                        for line in expected.rstrip("\n").split("\n"))
    return re.fullmatch(pattern, actual.rstrip("\n") + "\n") is not None


def package_files(project: Path) -> dict[str, str]:
    return {path.relative_to(project).as_posix(): path.read_text(encoding="utf-8", errors="replace")
            for path in sorted((project / "mtdebias").rglob("*"))
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"}


@dataclass
class Followed:
    """What following one section did to the package."""

    new: list[str]  # files added under mtdebias/
    changed: dict[str, tuple[int, int]]  # file → (lines added, lines removed)


class Guide:
    def __init__(self, project: Path, bin_dir: Path, python: Path):
        self.project, self.python_exe = project, python
        self.steps = read_guide(GUIDE.read_text(encoding="utf-8"))
        self.followed: dict[str, Followed] = {}
        self.env = {**os.environ, "PYTHONPATH": str(project), "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
                    "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}

    def follow(self, section: str) -> Followed:
        """Apply ``section`` (and, first, every section before it on the page) as written."""
        for earlier in SECTIONS[:SECTIONS.index(section)]:
            if earlier not in self.followed:
                self.follow(earlier)
        if section in self.followed:
            return self.followed[section]
        before = package_files(self.project)
        steps = self.steps[section]
        for index, step in enumerate(steps):
            where = f"{GUIDE.name}:{step.line}"
            if step.kind == "file":
                self.write(step)
            elif step.kind == "registry":
                file, name = step.arg.split()
                assert step.body.count("\n") == 1, f"{where}: a registry step is one line"
                insert_entry(self.project / file, name, step.body)
            elif step.kind in ("shell", "python"):
                done = self.run(step)
                fails = step.arg == "fails"
                stream = done.stderr if fails else done.stdout
                assert (done.returncode != 0) == fails, f"{where}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
                following = steps[index + 1] if index + 1 < len(steps) else None
                if following is not None and following.kind == "output":
                    assert matches(following.body, stream), (f"{where}: the output differs from the guide's\n"
                                                             f"--- guide\n{following.body}--- actual\n{stream}")
            else:
                assert step.kind == "output" and steps[index - 1].kind in ("shell", "python"), \
                    f"{where}: unknown or misplaced step {step.kind!r}"
        after = package_files(self.project)
        changed = {}
        for name in sorted(set(before) & set(after)):
            if before[name] != after[name]:
                diff = list(difflib.unified_diff(before[name].splitlines(), after[name].splitlines(), n=0,
                                                 lineterm=""))[2:]
                changed[name] = (sum(d.startswith("+") for d in diff), sum(d.startswith("-") for d in diff))
        assert set(before) <= set(after), f"{section} removed files"
        self.followed[section] = Followed(sorted(set(after) - set(before)), changed)
        return self.followed[section]

    def write(self, step: Step) -> None:
        target = self.project / step.arg
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(step.body, encoding="utf-8")

    def run(self, step: Step) -> subprocess.CompletedProcess:
        command = ["bash", "-o", "pipefail", "-c", step.body] if step.kind == "shell" else [str(self.python_exe), "-"]
        return subprocess.run(command, input=None if step.kind == "shell" else step.body, cwd=self.project,
                              env=self.env, capture_output=True, text=True, timeout=300)

    def python(self, code: str) -> str:
        """Run ``code`` in the project with the package copy (for checks the guide does not show)."""
        done = subprocess.run([str(self.python_exe), "-c", code], cwd=self.project, env=self.env, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout


@pytest.fixture(scope="module")
def guide(tmp_path_factory) -> Guide:
    import torch

    from toy import train_tiny_checkpoint
    from tests.test_debias import gender_corpus

    project = tmp_path_factory.mktemp("guide") / "project"
    shutil.copytree(ROOT / "mtdebias", project / "mtdebias")  # compiled files too: each command starts faster
    # the project's environment: a venv whose own site-packages come first (a plugin installed
    # there is seen by nothing else) and which sees this interpreter's packages (torch, pip, …)
    env_dir = project.parent / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True)
    python = env_dir / "bin" / "python"
    own_site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                   capture_output=True, text=True, check=True).stdout.strip())
    (own_site / "_outer_packages.pth").write_text(
        "import site; " + "; ".join(f"site.addsitedir({path!r})" for path in site.getsitepackages()) + "\n",
        encoding="utf-8")
    # `mtdebias` and `pip` as the user types them, run by that interpreter, so the copy is what is imported
    bin_dir = project.parent / "bin"
    bin_dir.mkdir()
    for command, module in (("mtdebias", "mtdebias"), ("pip", "pip")):
        (bin_dir / command).write_text(f'#!/bin/sh\nexec "{python}" -m {module} "$@"\n', encoding="utf-8")
        (bin_dir / command).chmod(0o755)
    torch.set_num_threads(1)
    # professions and definitional words (she/he, woman/man, …) often enough to be one token each,
    # which debiasing needs; the checkpoint is runs/tiny-seed1/checkpoints/step-0000020
    checkpoint = train_tiny_checkpoint(project / "runs" / "tiny-seed1", pairs=gender_corpus(), steps=20,
                                       vocab_size=150)
    assert checkpoint.name == "step-0000020"
    made = Guide(project, bin_dir, python)
    imported = made.python("import mtdebias; print(mtdebias.__file__)").strip()
    assert Path(imported).parent == project / "mtdebias"  # the guide's edits are what runs
    return made


def test_every_code_block_of_the_guide_is_a_tagged_step():
    """Nothing on the page is left unchecked: every fenced block carries a marker, and every
    section has the steps this test expects."""
    text = GUIDE.read_text(encoding="utf-8")
    assert len(FENCE.findall(text)) == len(MARKER.findall(text))
    steps = read_guide(text)
    assert list(steps) == list(SECTIONS)
    for section in SECTIONS:
        kinds = [step.kind for step in steps[section]]
        assert kinds.count("registry") == (0 if section == PACKAGE else 1), section
        assert "shell" in kinds, section


def test_the_new_probe_example_stays_short():
    """A new probe declares its metrics and options and the contract derives the rest (specs,
    headline, metrics, signature): the guide's example module was 78 non-blank lines when each
    probe wrote those by hand, and must not grow back."""
    [module] = [step for step in read_guide(GUIDE.read_text(encoding="utf-8"))[PROBE]
                if step.kind == "file" and step.arg.startswith("mtdebias/")]
    assert sum(1 for line in module.body.splitlines() if line.strip()) <= 60


def test_matching_of_outputs():
    assert matches("scored   …: copy_rate\n", "scored   step-0000060: copy_rate\n")
    assert not matches("scored   …: copy_rate\n", "scored   step-0000060: copy_rate\nmore\n")
    assert matches("a\n…\nz\n", "a\nb\nc\nz\n") and matches("a\n…\nz\n", "a\nz\n")
    assert not matches("a\n…\nz\n", "a\nb\n")
    assert not matches("1.0000\n", "0.0000\n")


def test_a_new_probe_is_one_module_and_one_registry_line(guide):
    followed = guide.follow(PROBE)
    assert followed.new == ["mtdebias/probes/copy_rate/__init__.py"]  # one folder
    assert followed.changed == {"mtdebias/probes/registry.py": (1, 0)}
    # stored as a result with its interval and signature, and its attempts, one per source line
    from mtdebias.store.runs import RunStore

    store = RunStore(guide.project / "runs" / "tiny-seed1")
    rows = [row for row in store.results("step-0000020") if row["probe"] == "copy_rate.v1"]
    assert [(row["metric"], row["n"]) for row in rows] == [("copy_rate", 8)]
    assert rows[0]["signature"].startswith("copy_rate.v1|") and rows[0]["ci"] is not None
    attempts = store.read_attempts("step-0000020", "copy_rate")
    assert [a["source"] for a in attempts][-2:] == ["Thank you!", "OK."] and len(attempts) == 8
    assert all(isinstance(a["copied"], bool) for a in attempts)
    # its signature's settings follow from the options given: beam, not the unsigned resamples or the hashed src
    assert "|settings:beam=5|seed:0" in rows[0]["signature"]
    # in the report under its label, with a line plot of its own; in the generated reference
    html = (guide.project / "report.html").read_text(encoding="utf-8")
    assert "copy rate" in html and "copy_rate.v1:copy_rate" in html
    reference = guide.python(f"import sys; sys.path.insert(0, {str(ROOT / 'docs' / 'hooks')!r}); "
                             "from docs_reference import probe_reference; print(probe_reference())")
    assert "## `copy_rate.v1`" in reference and "| `copy_rate` | lower | mcnemar |" in reference


def test_a_new_debiasing_method_is_one_module_and_one_registry_line(guide):
    followed = guide.follow(DEBIAS)
    assert followed.new == ["mtdebias/debias/mean_diff.py"]
    assert followed.changed == {"mtdebias/debias/methods.py": (1, 0)}
    debiased = guide.project / "runs" / "tiny-seed1" / "checkpoints" / "step-0000020-debiased"
    report = json.loads((debiased / "debias_report.json").read_text(encoding="utf-8"))
    assert report["eraser"]["method"] == "mean_diff" and report["eraser"]["strength"] == 0.5
    assert report["counts"]["rows_changed"] > 0 and report["decoder_unchanged"]
    assert not (guide.project / "runs" / "x").exists()  # the refused commands wrote nothing
    # what the guide says of recipes: the method and its [debias.options] are checked the same way
    checked = guide.python("""
from pathlib import Path
from mtdebias.errors import ConfigError
from mtdebias.experiments.pipeline import check_recipe
from mtdebias.recipe import parse_recipe
Path("t.en").write_text("a\\n"); Path("t.de").write_text("b\\n")
base = {"run": {"name": "r"}, "data": {"synth": True, "train_src": "t.en", "train_tgt": "t.de", "src_lang": "en",
                                       "tgt_lang": "de"}}
debias = {"method": "mean_diff.v1", "options": {"strength": 0.5}}
check_recipe(parse_recipe({**base, "debias": debias}, base=Path(".")))
try:
    check_recipe(parse_recipe({**base, "debias": {**debias, "options": {"strength": 2}}}, base=Path(".")))
except ConfigError as exc:
    print(exc)
""")
    assert "debias.options: strength = 2: must be within [0, 1]" in checked


def test_a_language_with_data_only_is_one_registry_line(guide):
    guide.follow(DEBIAS)  # the sections before it
    if LANGUAGE not in guide.followed:
        # the guide's command without its registry line: refused before any work (the probe needs
        # a lemmatiser for its language), so the line is what makes the difference
        steps = guide.steps[LANGUAGE]
        for step in steps:
            if step.kind == "file":
                guide.write(step)
        before = guide.run(next(step for step in steps if step.kind == "shell" and step.arg != "fails"))
        assert before.returncode == 2 and "language 'ro' has no lemmatiser" in before.stderr, before.stderr
    followed = guide.follow(LANGUAGE)
    assert followed.new == []
    assert followed.changed == {"mtdebias/lang/languages.py": (1, 0)}
    assert "'ro'" in guide.python("from mtdebias.lang.languages import langs_with; print(langs_with('lemmatiser'))")


def test_a_new_translator_kind_is_one_module_and_one_registry_line(guide):
    followed = guide.follow(TRANSLATOR)
    assert followed.new == ["mtdebias/translators/dictionary.py"]
    assert followed.changed == {"mtdebias/translators/specs.py": (1, 0)}
    # the spec's identity is the lexicon's content: an edited lexicon is scored again
    lexicon = guide.project / "eval" / "en-de.tsv"
    lexicon.write_text(lexicon.read_text(encoding="utf-8") + "thank\tdanke\nyou\tdir\n", encoding="utf-8")
    again = subprocess.run(["bash", "-c", "mtdebias eval dictionary:eval/en-de.tsv --suite eval/copy_rate.toml"],
                           cwd=guide.project, env=guide.env, capture_output=True, text=True)
    assert again.returncode == 0 and "1 scored, 0 already stored" in again.stdout, again.stderr



def test_a_plugin_package_ships_a_probe_without_changing_mtdebias(guide):
    followed = guide.follow(PACKAGE)
    assert followed.new == [] and followed.changed == {}
    # found through the installed distribution's entry point, loaded from the package, not mtdebias
    found = guide.python("from mtdebias.probes.registry import PROBES; "
                         "print(PROBES.plugin('length_ratio.v1').distribution, "
                         "PROBES.load('length_ratio.v1').__self__.__module__)")
    assert found.split() == ["mtdebias-length", "0.1", "mtdebias_length"]
    from mtdebias.store.runs import RunStore

    rows = [row for row in RunStore(guide.project / "runs" / "tiny-seed1").results("step-0000020")
            if row["probe"] == "length_ratio.v1"]
    assert [(row["metric"], row["n"]) for row in rows] == [("length_ratio", 8)]
