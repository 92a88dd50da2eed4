"""Components from other distributions (entry points): a throw-away distribution — a
``*.dist-info`` folder with ``METADATA`` and ``entry_points.txt`` beside its module, put on the
import path — ships a probe, a translator kind, a debiasing method and a language; mtdebias finds
them by name on the command line, in a suite, in the run store and in the report, and refuses the
ones that clash with a name it has, name the wrong kind of object or fail to import."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

MODULE = '''
"""Echo rate: the share of sources a system returns unchanged; and a system that reverses words."""
from typing import Sequence

from mtdebias.debias.base import Eraser
from mtdebias.lang.languages import Language
from mtdebias.probes.base import LOWER, MCNEMAR, Attempts, BaseProbe, Headline, Metric, MetricSpec
from mtdebias.signature import Signature, hash_lines
from mtdebias.stats import bootstrap_ci
from mtdebias.textio import read_lines
from mtdebias.translators.base import UnsupportedCall


class EchoRateProbe(BaseProbe):
    name = "echo_rate.v1"
    specs = (MetricSpec("echo_rate", LOWER, MCNEMAR),)
    headline = (Headline("echo_rate", "echo rate"),)

    def __init__(self, sources, *, beam=5):
        self.sources, self.beam = list(sources), beam
        self.data_hash = hash_lines(self.sources)

    @classmethod
    def from_options(cls, src, *, beam: int = 5):
        return cls([line.strip() for line in read_lines(src) if line.strip()], beam=beam)

    def items(self):
        return list(self.sources)

    def decode(self, translator, items):
        return translator.translate(list(items), beam=self.beam)

    def judge(self, items, outputs):
        return Attempts({"source": s, "output": o, "correct": s != o} for s, o in zip(items, outputs))

    def metrics(self, attempts, *, ci=True):
        echoed = [float(not a["correct"]) for a in attempts]
        return [Metric("echo_rate", sum(echoed) / len(echoed), bootstrap_ci(echoed, seed=0) if ci else None,
                       len(echoed))]

    def signature(self, translator, attempts=None):
        return str(Signature(self.name, self.data_hash, translator.signature(), {"beam": self.beam}, 0))


class EchoFigureProbe(EchoRateProbe):
    """The same probe with a figure of its own: its rate as one bar per system."""
    name = "echo_figure.v1"

    @classmethod
    def report_figure(cls, view, labels):
        from mtdebias.report.plots import figure

        fig = figure(4, 3)
        ax = fig.add_subplot()
        rows = [row for run, checkpoint in view.picked() for label in labels
                for row in view.results(run, checkpoint, label) if row["metric"] == "echo_rate"]
        ax.bar(range(len(rows)), [row["value"] for row in rows])
        view.figure(fig, "echo: the declared figure")


class ReverseTranslator:
    """Reverses the word order of each source: 'a b a' comes back as it was."""

    @classmethod
    def from_spec(cls, rest, src_lang=None, tgt_lang=None, **options):
        return cls()

    def translate(self, sources: Sequence[str], beam: int = 5):
        return [" ".join(reversed(s.split())) for s in sources]

    def sample(self, sources, n=128, epsilon=0.02, temperature=1.0, seed=0):
        raise UnsupportedCall("reverse cannot sample")

    def score(self, sources, targets):
        raise UnsupportedCall("reverse gives no probabilities")

    def signature(self):
        return "reverse:1"


class KeepEraser(Eraser):
    name = "keep"

    def _fit(self, female, male):
        pass

    def transform(self, rows):
        return rows


ROMANIAN = Language("ro", simplemma=True)
GERMAN_AGAIN = Language("de")
NOT_A_LANGUAGE = "ro"
'''

ENTRY_POINTS = '''
[mtdebias.probes]
echo_rate.v1 = mtd_plugin_demo:EchoRateProbe.from_options
echo_figure.v1 = mtd_plugin_demo:EchoFigureProbe.from_options
winomt.v1 = mtd_plugin_demo:EchoRateProbe.from_options
reverse_probe.v1 = mtd_plugin_demo:ReverseTranslator
broken.v1 = mtd_plugin_missing:Nothing
unversioned = mtd_plugin_demo:EchoRateProbe.from_options

[mtdebias.translators]
reverse = mtd_plugin_demo:ReverseTranslator
apertium = mtd_plugin_demo:ReverseTranslator

[mtdebias.debias]
keep.v1 = mtd_plugin_demo:KeepEraser

[mtdebias.languages]
ro = mtd_plugin_demo:ROMANIAN
de = mtd_plugin_demo:GERMAN_AGAIN
'''


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """A project folder, and an environment whose import path holds the installed distribution."""
    root = tmp_path_factory.mktemp("plugins")
    site = root / "site"
    info = site / "mtd_plugin_demo-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mtd-plugin-demo\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(ENTRY_POINTS, encoding="utf-8")
    (site / "mtd_plugin_demo.py").write_text(MODULE, encoding="utf-8")
    (root / "src.en").write_text("ok\na b a\nhello world\nthe cat\n", encoding="utf-8")
    (root / "echo.toml").write_text('[suite]\nname = "echo"\n\n[[probe]]\ntype = "echo_rate.v1"\nsrc = "src.en"\n',
                                    encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(site)]), "HF_HUB_OFFLINE": "1"}
    return root, env


def mtdebias(project, *args: str) -> subprocess.CompletedProcess:
    root, env = project
    return subprocess.run([sys.executable, "-m", "mtdebias", *args], cwd=root, env=env, capture_output=True,
                          text=True, timeout=120)


def python(project, code: str) -> subprocess.CompletedProcess:
    root, env = project
    return subprocess.run([sys.executable, "-W", "always", "-c", code], cwd=root, env=env, capture_output=True,
                          text=True, timeout=120)


def test_a_plugin_probe_is_in_the_help_a_suite_the_store_and_the_report(project):
    root, _ = project
    helped = mtdebias(project, "eval", "--help")
    assert helped.returncode == 0 and "echo_rate.v1" in helped.stdout and "reverse" in helped.stdout
    # every verb that lists components lists the installed ones too
    assert "keep.v1" in mtdebias(project, "debias", "--help").stdout
    assert "reverse" in mtdebias(project, "translate", "--help").stdout
    done = mtdebias(project, "eval", "reverse:", "--suite", "echo.toml")
    assert done.returncode == 0, done.stderr
    assert "scored   translator: echo_rate" in done.stdout
    # "(or without the version)", as the help says: for plugin probes too
    assert "(or without the version)" in " ".join(helped.stdout.split())  # argparse wraps it where it likes
    unversioned = python(project, "from mtdebias.probes.registry import PROBES; print(PROBES.canonical('echo_rate'))")
    assert unversioned.stdout.strip() == "echo_rate.v1", unversioned.stderr
    # two of four sources read the same reversed ("ok", "a b a")
    from mtdebias.store.runs import RunStore

    stored = root / "runs" / "translators" / "reverse"
    echo = [row for row in RunStore(stored).results("translator") if row["probe"] == "echo_rate.v1"]
    assert [(row["metric"], row["value"], row["n"]) for row in echo] == [("echo_rate", 0.5, 4)]
    assert echo[0]["signature"].startswith("echo_rate.v1|")
    reported = mtdebias(project, "report", str(stored), "--out", "report.html")
    assert reported.returncode == 0, reported.stderr
    assert "echo rate" in reported.stdout and "0.500" in reported.stdout
    assert "<td>echo_rate.v1|mtdebias:" in (root / "report.html").read_text(encoding="utf-8")  # its signature


def test_a_plugin_probe_draws_its_declared_figure_and_one_without_gets_its_headline(project):
    root, _ = project
    (root / "figure.toml").write_text('[suite]\nname = "figure"\n\n[[probe]]\ntype = "echo_figure.v1"\n'
                                      'src = "src.en"\n\n[[probe]]\ntype = "echo_rate.v1"\nsrc = "src.en"\n',
                                      encoding="utf-8")
    stored = root / "runs" / "translators" / "reverse"
    done = mtdebias(project, "eval", "reverse:", "--suite", "figure.toml")
    assert done.returncode == 0, done.stderr
    reported = mtdebias(project, "report", str(stored), "--out", "figures.html")
    assert reported.returncode == 0, reported.stderr
    html = (root / "figures.html").read_text(encoding="utf-8")
    figures = re.findall(r'<h3 id="[^"]*">([^<]*)</h3>\s*<div class="figs">\s*<figure><img alt="([^"]*)"', html)
    assert ("echo_figure.v1", "echo: the declared figure") in figures
    assert ("echo_rate.v1", "echo_rate.v1: headline metrics at the headline checkpoints (error bars: 95% "
                            "interval)") in figures
    markdown = (root / "figures.md").read_text(encoding="utf-8")
    assert "![echo: the declared figure](figures_figures/" in markdown


def test_clashing_misnamed_and_broken_plugins_are_refused_by_name(project):
    listed = python(project, "from mtdebias.probes.registry import PROBES, DEBIAS_METHODS\n"
                             "print(sorted(PROBES.entries)); print(sorted(DEBIAS_METHODS.entries))\n"
                             "print(PROBES.load('winomt.v1').__self__.__module__)")
    assert listed.returncode == 0, listed.stderr
    probes, methods, winomt = listed.stdout.splitlines()
    assert "'echo_rate.v1'" in probes and "'broken.v1'" in probes and "unversioned" not in probes
    assert "'keep.v1'" in methods
    assert winomt == "mtdebias.probes.winomt.probe"  # a plugin never shadows a built-in name
    assert "entry point 'winomt.v1' of mtd-plugin-demo 0.1 (group mtdebias.probes): the name is mtdebias's own" \
        in listed.stderr
    assert "entry point 'unversioned' of mtd-plugin-demo 0.1 (group mtdebias.probes): a probe is named NAME.vN" \
        in listed.stderr
    # an import that fails, and an entry point naming something that is not a probe: errors naming both
    broken = mtdebias(project, "eval", "--probe", "broken.v1", "--translations", "src.en")
    assert broken.returncode == 2
    assert "entry point 'broken.v1' of mtd-plugin-demo 0.1 (group mtdebias.probes): cannot load " \
           "'mtd_plugin_missing:Nothing': ModuleNotFoundError" in broken.stderr
    wrong = mtdebias(project, "eval", "--probe", "reverse_probe.v1", "--translations", "src.en")
    assert wrong.returncode == 2 and "ReverseTranslator is not a probe: it lacks" in wrong.stderr


def test_plugin_translator_kinds_and_languages(project):
    done = python(project, "from mtdebias.translators.specs import kinds, split_spec\n"
                           "from mtdebias.lang.languages import LANGUAGES, langs_with\n"
                           "print(kinds()['apertium']); print(split_spec('reverse:x'))\n"
                           "print('ro' in langs_with('lemmatiser'), LANGUAGES['de'].detector)")
    assert done.returncode == 0, done.stderr
    apertium, split, languages = done.stdout.splitlines()
    assert apertium == "mtdebias.translators.apertium:ApertiumTranslator" and split == "('reverse', 'x')"
    assert languages == "True True"  # ro added; de stays mtdebias's own
    assert "entry point 'apertium' of mtd-plugin-demo 0.1 (group mtdebias.translators): the name is " \
           "mtdebias's own" in done.stderr


def test_builtin_entries_pass_the_checks_plugins_get():
    """The load-time checks are the same for built-in entries: every built-in one passes them, and
    a built-in table naming the wrong kind of object would fail the same way."""
    from mtdebias.errors import ConfigError
    from mtdebias.probes.registry import Registry

    wrong = Registry("probe", {"x.v1": "mtdebias.debias.hard:HardDebiasEraser"},
                     check="mtdebias.probes.base:check_probe")
    with pytest.raises(ConfigError, match="probe 'x.v1': HardDebiasEraser is not a probe"):
        wrong.load("x.v1")
    misnamed = Registry("probe", {"x.v1": "mtdebias.probes.winomt.probe:WinoMTProbe.from_options"},
                        check="mtdebias.probes.base:check_probe")
    with pytest.raises(ConfigError, match="WinoMTProbe.name is 'winomt.v1', registered as 'x.v1'"):
        misnamed.load("x.v1")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no plugin installed here: nothing to warn about
        from mtdebias.translators.specs import load_spec  # noqa: F401
