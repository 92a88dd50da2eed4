"""Results that say nothing are said to say nothing: a probe declares when its result is
degenerate (no template kept, most translations undetected, MISS or unmatched above a share);
the runner warns on the command line and stores why, and the report repeats it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from mtdebias.probes.base import SAYS_LITTLE, BaseProbe, Degenerate, Metric
from mtdebias.probes.registry import PROBES

ROOT = Path(__file__).resolve().parents[1]


def test_a_rule_names_the_metric_its_value_and_why():
    class Probe(BaseProbe):
        degenerate_when = (Degenerate("templates_kept", "nothing kept", at_most=0),
                           Degenerate("*.undetected_rate", "unread", at_least=SAYS_LITTLE))

    probe = Probe()
    assert probe.degenerate([Metric("templates_kept", 3.0), Metric("first.undetected_rate", 0.5)]) == []
    assert probe.degenerate([Metric("templates_kept", 0.0), Metric("first.undetected_rate", 0.95),
                             Metric("full.undetected_rate", float("nan"))]) == \
        ["templates_kept = 0: nothing kept", "first.undetected_rate = 0.95: unread"]


def test_the_probes_that_can_say_nothing_declare_when():
    declared = {name: [rule.pattern for rule in getattr(PROBES.load(name), "__self__").degenerate_when]
                for name in ("name_gender.v1", "winomt.v1", "wsd_bias.v1", "sentiment.v1", "gest.v1",
                             "gest_choice.v1")}
    assert declared["name_gender.v1"] == ["templates_kept", "*.undetected_rate", "valid_rate"]
    assert declared["sentiment.v1"][-1] == "valid_rate"  # every probe that reads a translation has the gate's rule
    assert declared["wsd_bias.v1"] == ["miss_rate", "valid_rate"] and declared["winomt.v1"] == ["undetected_rate", "valid_rate"]


def test_nothing_kept_warns_on_the_command_line_and_in_the_report(tiny_checkpoint, tmp_path):
    """The tiny animal-sentence model translates no he/she template, so name-gender keeps no
    template: zeros that are no finding (the case of a barely trained checkpoint)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}

    def mtdebias(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "mtdebias", *args], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=300)

    run = tmp_path / "run"  # a copy: the session's tiny run keeps no results of this test
    shutil.copytree(tiny_checkpoint.parents[1], run)
    (tmp_path / "suite.toml").write_text('[suite]\nname = "n"\n\n[[probe]]\ntype = "name_gender.v1"\nlang = "de"\n'
                                         'templates = "{shipped}/templates/name_gender_synth_de.tsv"\n'
                                         'names_limit = 5\nbeam = 1\nresamples = 50\n', encoding="utf-8")
    scored = mtdebias("eval", str(run), "--suite", "suite.toml")
    assert scored.returncode == 0, scored.stderr
    assert f"warning: {tiny_checkpoint.name}: name_gender: the result says nothing: templates_kept = 0: no " \
           f"template passed the he/she filter" in scored.stderr
    from mtdebias.store.runs import RunStore

    rows = RunStore(run).results(tiny_checkpoint.name)
    assert rows and all(row["meta"]["degenerate"][0].startswith("templates_kept = 0") for row in rows)
    reported = mtdebias("report", str(run), "--out", "report.html")
    assert reported.returncode == 0, reported.stderr
    assert "warning: the result says nothing: run: name_gender: templates_kept = 0" in reported.stdout
    assert "Results that say nothing" in (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "## Results that say nothing" in (tmp_path / "report.md").read_text(encoding="utf-8")
