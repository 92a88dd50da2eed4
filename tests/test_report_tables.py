"""The report's tables as a paper needs them (issue 43): n beside every value, degenerate cells
marked with a footnote, readable run labels, metric labels as column headers, a definitions
panel from the probes' own specs, and exports with intervals, n and no float noise.

The golden store is two runs made by hand: a SmolLM2 GGUF scored through ``hf-causal`` (WinoMT
with half its replies no translation, accuracy 0 with a zero-width interval, Acc_f on 8 names) and
an Opus-MT hub model (WinoMT, an undefined ΔH, BLEU/chrF).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from mtdebias.cli import main
from mtdebias.errors import InputError
from mtdebias.probes.base import Headline, MetricSpec
from mtdebias.probes.registry import PROBES
from mtdebias.report import build_report
from mtdebias.report.collect import RunData
from mtdebias.report.definitions import NOT_DECLARED, missing_definitions
from mtdebias.report.labels import assign_labels, default_label, parse_labels
from mtdebias.report.views.page import probe_class
from mtdebias.report.readme import excerpt
from mtdebias.report.tables import Table, csv_number
from mtdebias.signature import Signature
from mtdebias.store.runs import RunStore

SMOL = "hf-causal_runs_released_smollm2-135m-instruct-q4_1.gguf"
OPUS = "Helsinki-NLP--opus-mt-en-de"


def _row(probe, metric, value, ci, n, model, data="aaaaaaaaaaaa"):
    return {"probe": probe, "metric": metric, "value": value, "ci": ci, "n": n,
            "signature": str(Signature(probe, data, model, {"beam": 1}, 0))}


def golden_runs(root: Path) -> list[Path]:
    smol = RunStore(root / "translators" / SMOL)
    smol.dir.mkdir(parents=True)
    smol.add_results("translator", [
        _row("winomt.v1", "accuracy", 0.0, [0.0, 0.0], 80, "smol"),
        _row("winomt.v1", "delta_g", 0.19999999999999996, [0.047, 0.346], 80, "smol"),
        # stored without the runner's meta: the gate's floor (0.8) is read from the number itself
        _row("winomt.v1", "valid_rate", 0.5, None, 80, "smol"),
        _row("name_gender.v1", "first.acc_f", 0.6, [0.5, 0.7], 8, "smol", "bbbbbbbbbbbb")])
    opus = RunStore(root / "hub" / OPUS)
    opus.dir.mkdir(parents=True)
    opus.add_results("snapshot", [
        _row("winomt.v1", "accuracy", 0.612, [0.58, 0.644], 3888, "opus"),
        _row("winomt.v1", "delta_g", 0.1, [0.05, 0.15], 3888, "opus"),
        _row("winomt.v1", "valid_rate", 0.99, None, 3888, "opus"),
        _row("ambiguity.v1", "delta_h_ge", float("nan"), None, 90, "opus", "cccccccccccc"),
        _row("quality.v1", "bleu", 25.123456789, None, 500, "opus", "dddddddddddd"),
        _row("quality.v1", "chrf", 55.5, None, 500, "opus", "dddddddddddd")])
    return [smol.dir, opus.dir]


@pytest.fixture(scope="module")
def golden(tmp_path_factory):
    root = tmp_path_factory.mktemp("golden")
    summary = build_report(golden_runs(root / "runs"), root / "out" / "report.html",
                           labels={OPUS: "Opus-MT en-de"})
    return summary


GOLDEN_HEADLINE = """\
| variant | runs | WinoMT accuracy | ΔG (WinoMT) | Acc_f (first names) | ΔH (GE) | BLEU | chrF |
|---|---|---|---|---|---|---|---|
| smollm2-135m-instruct-q4_1 (hf-causal) | 1 | 0.000 [0.000, 0.000] (n=80) ¹,² | 0.200 [0.047, 0.346] (n=80) ¹ | 0.600 [0.500, 0.700] (n=8) ³ | — | — | — |
| Opus-MT en-de | 1 | 0.612 [0.580, 0.644] (n=3888) | 0.100 [0.050, 0.150] (n=3888) | — | undefined (n=90) ⁴ | 25.123 (n=500) | 55.500 (n=500) |

- ¹ degenerate result (winomt.v1): valid_rate = 0.5: too few replies are translations into the target language
- ² zero-width interval: every bootstrap resample gave the same value (all items scored alike), so it does not measure the uncertainty
- ³ rests on fewer than 10 items: too few to read (one item moves a share by a tenth or more)
- ⁴ ΔH (GE): undefined: H̄_unamb under a tenth of H̄_amb (ΔH < −9), or too few items"""

GOLDEN_CSV = """\
variant,runs,WinoMT accuracy,WinoMT accuracy ci_low,WinoMT accuracy ci_high,WinoMT accuracy n,ΔG (WinoMT),ΔG (WinoMT) ci_low,ΔG (WinoMT) ci_high,ΔG (WinoMT) n,Acc_f (first names),Acc_f (first names) ci_low,Acc_f (first names) ci_high,Acc_f (first names) n,ΔH (GE),ΔH (GE) ci_low,ΔH (GE) ci_high,ΔH (GE) n,BLEU,BLEU ci_low,BLEU ci_high,BLEU n,chrF,chrF ci_low,chrF ci_high,chrF n
smollm2-135m-instruct-q4_1 (hf-causal),1,0,0,0,80,0.2,0.047,0.346,80,0.6,0.5,0.7,8,,,,,,,,,,,,
Opus-MT en-de,1,0.612,0.58,0.644,3888,0.1,0.05,0.15,3888,,,,,,,,90,25.1235,,,500,55.5,,,500
"""


def test_golden_headline_markdown(golden):
    """Every value with its interval and n; the degenerate, zero-width, few-item and undefined
    cells marked, each reason once under the table; headers are the probes' labels."""
    assert golden.headline_markdown == GOLDEN_HEADLINE
    # what `python -m mtdebias.report.readme` copies into the README: the table with its footnotes,
    # then the list of results that say nothing (the degenerate SmolLM2 row's reason)
    copied = excerpt(golden.markdown)
    assert GOLDEN_HEADLINE + "\n" in copied and copied.index(GOLDEN_HEADLINE) < copied.index("say nothing")
    md = golden.markdown.read_text(encoding="utf-8")
    assert "Runs: smollm2-135m-instruct-q4_1 (hf-causal) (`" in md and "Opus-MT en-de (`" in md


def test_golden_headline_csv_keeps_intervals_and_n_without_float_noise(golden):
    """headline.csv: each value, its interval and n in columns of their own, floats at 6
    significant digits (0.19999999999999996 → 0.2, 25.123456789 → 25.1235); the JSON keeps them whole."""
    assert (golden.tables_dir / "headline.csv").read_text(encoding="utf-8") == GOLDEN_CSV
    rows = json.loads((golden.tables_dir / "headline.json").read_text(encoding="utf-8"))["rows"]
    assert rows[0]["ΔG (WinoMT)"] == 0.19999999999999996 and rows[1]["BLEU"] == 25.123456789
    assert rows[0]["ΔG (WinoMT) ci"] == [0.047, 0.346] and rows[0]["ΔG (WinoMT) n"] == 80
    footnotes = json.loads((golden.tables_dir / "headline.json").read_text(encoding="utf-8"))["footnotes"]
    assert len(footnotes) == 4 and footnotes[0].startswith("¹ degenerate result (winomt.v1)")
    assert "0.19999999999999996" not in (golden.tables_dir / "results.csv").read_text(encoding="utf-8")


def test_golden_definitions_panel(golden):
    """A row per headline metric (and per declared headline metric of every stored probe), read
    from the specs: label, definition, direction, source, interval."""
    rows = json.loads((golden.tables_dir / "definitions.json").read_text(encoding="utf-8"))["rows"]
    by_key = {r["key"]: r for r in rows}
    assert [r["key"] for r in rows][:6] == ["winomt.v1:accuracy", "winomt.v1:delta_g", "name_gender.v1:first.acc_f",
                                           "ambiguity.v1:delta_h_ge", "quality.v1:bleu", "quality.v1:chrf"]
    assert by_key["winomt.v1:delta_g"] == {
        "metric": "ΔG (WinoMT)", "key": "winomt.v1:delta_g", "definition": "F1 on masculine minus F1 on feminine coreferents",
        "better": "closer to 0 is better", "source": "Stanovsky et al. 2019, Evaluating Gender Bias in MT (WinoMT), Table 2",
        "interval": "95% percentile bootstrap over items"}
    assert by_key["ambiguity.v1:delta_i_s3e"]["better"] == "lower is better"  # declared, not in this table
    assert by_key["quality.v1:bleu"]["better"] == "higher is better"
    assert all(NOT_DECLARED not in r.values() for r in rows)
    md = golden.markdown.read_text(encoding="utf-8")
    assert "## Definitions" in md and "| ΔG (WinoMT) | winomt.v1:delta_g | F1 on masculine minus F1" in md
    html = golden.html.read_text(encoding="utf-8")
    assert 'id="table-definitions"' in html and "closer to 0 is better" in html


def test_every_headline_metric_of_every_shipped_probe_has_a_definition():
    missing = [entry for name in PROBES.entries for entry in missing_definitions(probe_class(name))]
    assert missing == []


def test_a_missing_definition_is_found_and_shown_as_not_declared(tmp_path):
    class Undeclared:  # a plugin probe whose headline metric's spec says nothing of it
        name = "plugin.v1"
        specs = (MetricSpec("gap", "zero"),)
        headline = (Headline("gap", "the gap"),)
        quality = ()

    assert missing_definitions(Undeclared) == ["plugin.v1:gap (definition, source)"]
    # a probe this version does not know: its metric is shown, its definition said to be missing
    store = RunStore(tmp_path / "run")
    store.dir.mkdir()
    store.add_results("step-0000100", [_row("mystery.v3", "weirdness", 0.5, [0.4, 0.6], 50, "m")])
    summary = build_report([store.dir], tmp_path / "r.html", metrics=["weirdness"])
    rows = json.loads((summary.tables_dir / "definitions.json").read_text(encoding="utf-8"))["rows"]
    assert rows == [{"metric": "weirdness (mystery.v3)", "key": "mystery.v3:weirdness", "definition": NOT_DECLARED,
                     "better": NOT_DECLARED, "source": NOT_DECLARED, "interval": NOT_DECLARED}]


def test_every_declared_metric_pattern_of_every_shipped_probe_has_a_label():
    """No column header is a raw key: every spec a stored metric can match names it."""
    unlabelled = [f"{name}:{spec.pattern}" for name in PROBES.entries for spec in probe_class(name).specs
                  if not spec.label]
    assert unlabelled == []
    name_gender = probe_class("name_gender.v1")
    spec = next(s for s in name_gender.specs if s.matches("full.acc_gap_m_minus_f"))
    assert spec.label_of("full.acc_gap_m_minus_f") == "Acc_m − Acc_f (full names)"


def test_a_suite_labelled_metric_gets_its_label_not_its_key(tmp_path):
    store = RunStore(tmp_path / "run")
    store.dir.mkdir()
    row = _row("name_gender.v1", "templates_kept", 31.0, None, 34, "m")
    store.add_results("step-0000100", [{**row, "label": "name_gender_de"}])
    summary = build_report([store.dir], tmp_path / "r.html", metrics=["templates_kept"])
    header = summary.headline_markdown.splitlines()[0]
    assert header == "| variant | runs | templates kept (name-gender) [name_gender_de] | BLEU | chrF |"
    assert "31 (n=34)" not in summary.headline_markdown  # format_value: a float count shows as 31.000
    assert "31.000 (n=34)" in summary.headline_markdown


@pytest.mark.parametrize("path, label", [
    (f"runs/translators/{SMOL}", "smollm2-135m-instruct-q4_1 (hf-causal)"),
    ("runs/translators/hf-causal_HuggingFaceTB_SmolLM2-135M-Instruct", "SmolLM2-135M-Instruct (hf-causal)"),
    ("runs/translators/apertium_en-es", "en-es (apertium)"),
    ("runs/translators/openai_gpt-4o-mini@http_localhost_8000_v1", "gpt-4o-mini (openai)"),
    (f"runs/hub/{OPUS}", "opus-mt-en-de"),
    ("models/opus-mt-en-de.mtdebias", "opus-mt-en-de"),
    ("runs/quickstart-vanilla-seed1", "quickstart-vanilla-seed1"),  # a name a person chose is kept
    ("runs/translators/unknownkind_x", "unknownkind_x"),
])
def test_default_labels(path, label):
    assert default_label(Path(path)) == label


def _run(path: str) -> RunData:
    return RunData(Path(path).name, Path(path), [{"probe": "winomt.v1", "metric": "accuracy", "run": Path(path).name}],
                   [])


def test_colliding_default_labels_fall_back_to_folder_names():
    runs = [_run("a/translators/hf-causal_runs_model.gguf"), _run("b/translators/hf-causal_models_model.gguf"),
            _run("c/translators/hf-causal_runs_model.gguf"), _run("runs/translators/apertium_en-es")]
    assign_labels(runs)
    # three runs would be "model (hf-causal)": their folders instead, with as much of the path as tells
    # two of one name apart
    assert [r.name for r in runs] == ["a/translators/hf-causal_runs_model.gguf", "hf-causal_models_model.gguf",
                                      "c/translators/hf-causal_runs_model.gguf", "en-es (apertium)"]
    assert runs[1].results[0]["run"] == "hf-causal_models_model.gguf"


def test_explicit_labels_and_their_errors():
    runs = [_run(f"runs/translators/{SMOL}"), _run("runs/translators/apertium_en-es")]
    assign_labels(runs, {"apertium_en-es": "Apertium", f"runs/translators/{SMOL}": "SmolLM2"})
    assert [r.name for r in runs] == ["SmolLM2", "Apertium"]
    runs = [_run("runs/a"), _run("runs/b")]
    with pytest.raises(InputError, match="two runs are labelled 'X'"):
        assign_labels(runs, {"a": "X", "runs/b": "X"})
    with pytest.raises(InputError, match="'runs/c' is none of the reported runs"):
        assign_labels(runs, {"runs/c": "C"})
    with pytest.raises(InputError, match="not RUN=LABEL"):
        parse_labels(["runs/a"])
    with pytest.raises(InputError, match="labelled twice"):
        parse_labels(["a=X", "a=Y"])


def test_cli_label_flag(tmp_path, capsys):
    runs = golden_runs(tmp_path / "runs")
    out = tmp_path / "r.html"
    assert main(["report", *map(str, runs), "--out", str(out), "--label", f"{runs[0]}=SmolLM2 (GGUF q4_1)",
                 "--metrics", "winomt*:accuracy"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2].startswith("| SmolLM2 (GGUF q4_1) | 1 | 0.000 [0.000, 0.000] (n=80) ¹,² |")
    assert lines[3].startswith("| opus-mt-en-de | 1 | 0.612 [0.580, 0.644] (n=3888) |")
    assert main(["report", str(runs[0]), "--out", str(out), "--label", "nothing"]) == 2
    assert "--label 'nothing': not RUN=LABEL" in capsys.readouterr().err


def test_csv_numbers():
    assert [csv_number(v) for v in (0.19999999999999996, 1234567.0, 99.6923076923, 1.5e-08, -0.1 - 0.2)] == \
        ["0.2", "1234567", "99.6923", "1.5e-08", "-0.3"]
    table = Table("t", "T", ["a", "b"], [{"a": 0.1 + 0.2, "b": [0.1 + 0.2, None]}])
    assert table.to_csv() == 'a,b\n0.3,"[0.3, null]"\n'


def test_footnotes_are_numbered_in_reading_order_and_shared():
    table = Table("t", "T", ["x", "y"], [{"x": 1.0, "y": 2.0}, {"x": 3.0, "y": 4.0}],
                  notes={(1, "x"): ["B"], (0, "y"): ["A", "B"], (1, "y"): ["A"]})
    assert table.to_markdown().splitlines() == [
        "| x | y |", "|---|---|", "| 1.000 | 2.000 ¹,² |", "| 3.000 ² | 4.000 ¹ |", "", "- ¹ A", "- ² B"]


def test_a_wide_table_is_split_between_families():
    columns = ["variant", *[f"w{k}" for k in range(6)], *[f"n{k}" for k in range(5)], "BLEU", "chrF"]
    table = Table("h", "H", columns, [{}], groups=[[f"w{k}" for k in range(6)], [f"n{k}" for k in range(5)],
                                                   ["BLEU", "chrF"]])
    assert table.column_sets() == [["variant", *[f"w{k}" for k in range(6)]],
                                   ["variant", *[f"n{k}" for k in range(5)], "BLEU", "chrF"]]
    html = table.to_html()
    assert html.count("<table ") == 2 and 'id="table-h"' in html and 'id="table-h-2"' in html


@pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is not installed")
def test_a_wide_headline_does_not_scroll_off_the_page(tmp_path):
    """Fourteen WinoMT columns and BLEU/chrF at 1200 px: no table box wider than the page (a
    copy of the page with a script that lists the scrolled boxes, read back from the DOM)."""
    store = RunStore(tmp_path / "translators" / "apertium_en-es")
    store.dir.mkdir(parents=True)
    metrics = ["accuracy", "delta_g", "delta_s", "accuracy_pro", "accuracy_anti", "accuracy_male_female", "f1_male",
               "f1_female", "undetected_rate", "valid_rate", "invalid.copy", "invalid.empty", "invalid.not_target",
               "invalid.repetition"]
    store.add_results("translator", [_row("winomt.v1", m, 0.4701234, [0.454, 0.484], 3888, "a") for m in metrics])
    summary = build_report([store.dir], tmp_path / "r.html", metrics=["winomt.v1:*"])
    script = ("<script>document.title = [...document.querySelectorAll('div.scroll')].filter("
              "d => d.scrollWidth > d.clientWidth + 1).map(d => d.firstElementChild.id).join(',') || 'none';</script>")
    probe = tmp_path / "probe.html"
    probe.write_text(summary.html.read_text(encoding="utf-8").replace("</body>", script + "</body>"), encoding="utf-8")
    profile = tempfile.mkdtemp()
    try:
        dom = subprocess.run([shutil.which("chromium"), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                              "--disable-background-networking", "--disable-component-update", "--disable-sync",
                              f"--user-data-dir={profile}", "--window-size=1200,2000", "--dump-dom", probe.as_uri()],
                             check=True, capture_output=True, text=True, timeout=120).stdout
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    assert re.search(r"<title>(.*?)</title>", dom).group(1) == "none"
    assert os.path.exists(summary.html)
