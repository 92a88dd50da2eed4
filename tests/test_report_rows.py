"""`report --rows label` (issue 44's released table): one headline row per run and suite label,
one column per metric, so a model scored on WinoMT in seven languages is seven rows of five
columns, not one row of 35. The store is made by hand: one translator with WinoMT under the
labels winomt_de and winomt_es (each language its own data and `lang` setting)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from mtdebias.cli import main
from mtdebias.errors import InputError
from mtdebias.report import build_report
from mtdebias.signature import Signature
from mtdebias.store.runs import RunStore

ROOT = Path(__file__).resolve().parents[1]
GEMMA = "ct2-causal_runs_released_gemma-3-270m-q4_k_m.gguf"


def _row(label, metric, value, ci, n, lang, *, data=None, probe="winomt.v1", beam=1, seed=0, model="gemma"):
    settings = {"lang": lang, "beam": beam}
    return {"probe": probe, "label": label, "metric": metric, "value": value, "ci": ci, "n": n,
            "signature": str(Signature(probe, data or f"data-{lang}", model, settings, seed))}


def _store(root: Path, name: str, rows: list[dict]) -> Path:
    store = RunStore(root / "translators" / name)
    store.dir.mkdir(parents=True)
    store.add_results("translator", rows)
    return store.dir


def two_languages(root: Path) -> Path:
    return _store(root, GEMMA, [
        _row("winomt_de", "accuracy", 0.445, [0.417, 0.472], 1192, "de"),
        _row("winomt_de", "delta_g", 0.175, [0.128, 0.224], 1192, "de"),
        _row("winomt_es", "accuracy", 0.49, [0.463, 0.515], 1199, "es"),
        _row("winomt_es", "delta_g", 0.084, [0.044, 0.13], 1199, "es")])


GOLDEN_BY_LABEL = """\
| variant | runs | label | WinoMT accuracy | ΔG (WinoMT) | BLEU | chrF |
|---|---|---|---|---|---|---|
| gemma-3-270m-q4_k_m (ct2-causal) | 1 | winomt_de | 0.445 [0.417, 0.472] (n=1192) | 0.175 [0.128, 0.224] (n=1192) | — | — |
| gemma-3-270m-q4_k_m (ct2-causal) | 1 | winomt_es | 0.490 [0.463, 0.515] (n=1199) | 0.084 [0.044, 0.130] (n=1199) | — | — |"""

GOLDEN_BY_LABEL_CSV = """\
variant,runs,label,WinoMT accuracy,WinoMT accuracy ci_low,WinoMT accuracy ci_high,WinoMT accuracy n,ΔG (WinoMT),ΔG (WinoMT) ci_low,ΔG (WinoMT) ci_high,ΔG (WinoMT) n,BLEU,BLEU ci_low,BLEU ci_high,BLEU n,chrF,chrF ci_low,chrF ci_high,chrF n
gemma-3-270m-q4_k_m (ct2-causal),1,winomt_de,0.445,0.417,0.472,1192,0.175,0.128,0.224,1192,,,,,,,,
gemma-3-270m-q4_k_m (ct2-causal),1,winomt_es,0.49,0.463,0.515,1199,0.084,0.044,0.13,1199,,,,,,,,
"""


def test_a_row_per_label_and_a_column_per_metric(tmp_path):
    """Two languages of one probe: two rows, the metric's label alone as the header, the cell as
    in a column per label; data and `lang` differ from label to label by design, so nothing is
    flagged; the CSV and the per-run table carry the label."""
    run = two_languages(tmp_path / "runs")
    summary = build_report([run], tmp_path / "out" / "report.html", rows="label",
                           metrics=["*@winomt_*:accuracy", "*@winomt_*:delta_g"])
    assert summary.headline_markdown == GOLDEN_BY_LABEL
    assert summary.warnings == []
    assert (summary.tables_dir / "headline.csv").read_text(encoding="utf-8") == GOLDEN_BY_LABEL_CSV
    runs_csv = (summary.tables_dir / "runs.csv").read_text(encoding="utf-8").splitlines()
    assert runs_csv[0].startswith("run,checkpoint,label,WinoMT accuracy,")
    assert runs_csv[2].startswith("gemma-3-270m-q4_k_m (ct2-causal),translator,winomt_es,0.49,")
    # the default is today's table: a column per metric and label
    by_run = build_report([run], tmp_path / "out2" / "report.html",
                          metrics=["*@winomt_*:accuracy", "*@winomt_*:delta_g"])
    assert by_run.headline_markdown.splitlines()[0] == (
        "| variant | runs | WinoMT accuracy [winomt_de] | WinoMT accuracy [winomt_es] | ΔG (WinoMT) [winomt_de] "
        "| ΔG (WinoMT) [winomt_es] | BLEU | chrF |")


def test_a_quality_probes_bleu_is_on_its_own_labels_row_not_on_the_runs_other_rows(tmp_path):
    """A released model's suite scores BLEU on Bible verses under the label bible_es: on the
    WinoMT rows it would read as the quality of those translations; it gets a row of its own."""
    rows = [_row("winomt_de", "accuracy", 0.445, [0.417, 0.472], 1192, "de"),
            _row("bible_es", "bleu", 4.412, None, 24, "es", probe="quality.v1"),
            _row("bible_es", "chrf", 24.64, None, 24, "es", probe="quality.v1")]
    run = _store(tmp_path / "runs", GEMMA, rows)
    summary = build_report([run], tmp_path / "a" / "report.html", rows="label", metrics=["*@winomt_*:accuracy"])
    lines = {line.split(" | ")[2]: line for line in summary.headline_markdown.splitlines()[2:]}
    assert lines["winomt_de"].endswith("| winomt_de | 0.445 [0.417, 0.472] (n=1192) | — | — |")
    assert lines["bible_es"].endswith("| bible_es | — | 4.412 (n=24) | 24.640 (n=24) |") and len(lines) == 2


def test_signatures_are_checked_down_a_column_and_along_a_row(tmp_path):
    """Across labels only the model, the data and the language may differ: another seed (es)
    flags the column. Along a row, one probe's cells are one result: de's ΔG stored with another
    beam than its accuracy flags the row's label (and ΔG's column, beam 5 against es's 1)."""
    run = _store(tmp_path / "runs", GEMMA, [
        _row("winomt_de", "accuracy", 0.445, None, 1192, "de"),
        _row("winomt_de", "delta_g", 0.175, None, 1192, "de", beam=5),
        _row("winomt_es", "accuracy", 0.49, None, 1199, "es", seed=1),
        _row("winomt_es", "delta_g", 0.084, None, 1199, "es", seed=1)])
    summary = build_report([run], tmp_path / "out" / "report.html", rows="label",
                           metrics=["winomt*:accuracy", "winomt*:delta_g"])
    lines = summary.headline_markdown.splitlines()
    assert lines[0] == "| variant | runs | label | ⚠ WinoMT accuracy | ⚠ ΔG (WinoMT) | BLEU | chrF |"
    assert "| 1 | ⚠ winomt_de | 0.445 (n=1192) |" in lines[2] and "| 1 | winomt_es | 0.490 (n=1199) |" in lines[3]
    assert "column 'WinoMT accuracy' compares numbers with different signatures — across labels: seed: 0 vs 1" \
        in summary.warnings
    assert any(w.startswith("column 'ΔG (WinoMT)' compares") and "beam=1 vs beam=5" in w for w in summary.warnings)
    assert any(w.startswith("row 'gemma-3-270m-q4_k_m (ct2-causal)' · 'winomt_de' compares") and
               "beam=1,lang=de vs beam=5,lang=de" in w for w in summary.warnings)


def test_each_languages_own_adequacy_floor_is_no_difference_across_labels_but_another_gate_is(tmp_path):
    """The gate signs the language's own adequacy floor (de 0.8575, es 0.8663): calibrated per
    language, it does not flag a column across labels; a gate without the adequacy test (pl has
    no floor) does."""
    def gated(label, metric, lang, gate):
        row = _row(label, metric, 0.5, None, 100, lang)
        parsed = Signature("winomt.v1", f"data-{lang}", "gemma", {"lang": lang, "beam": 1, "gate": gate}, 0)
        return {**row, "signature": str(parsed)}

    floors = [gated("winomt_de", "accuracy", "de", "py3langid0.05-copy0.9-rep5-e5simde0.8575-min8"),
              gated("winomt_es", "accuracy", "es", "py3langid0.05-copy0.9-rep5-e5simes0.8663-min8")]
    run = _store(tmp_path / "runs", GEMMA, floors)
    summary = build_report([run], tmp_path / "out" / "report.html", rows="label", metrics=["winomt*:accuracy"])
    assert summary.headline_markdown.splitlines()[0].startswith("| variant | runs | label | WinoMT accuracy |")
    assert not [w for w in summary.warnings if "compares numbers with different signatures" in w]
    run = _store(tmp_path / "runs2", GEMMA, floors + [gated("winomt_pl", "accuracy", "pl", "py3langid0.05-copy0.9-rep5")])
    summary = build_report([run], tmp_path / "out2" / "report.html", rows="label", metrics=["winomt*:accuracy"])
    assert any("across labels: " in w and "gate=" in w for w in summary.warnings)


def test_a_run_without_a_label_has_no_row_and_shared_headers_name_their_probe(tmp_path):
    """A second model with no result under winomt_es gets one row, not an empty second; GEST's
    and GEST-preference's undetected rate (one header, two probes) are two columns named by probe."""
    gemma = two_languages(tmp_path / "runs")
    smol = _store(tmp_path / "runs", "ct2-causal_runs_released_smollm2-135m-instruct-q4_1.gguf", [
        _row("winomt_de", "accuracy", 0.2, None, 100, "de", model="smol"),
        _row("gest_ru", "undetected_rate", 0.1, None, 50, "ru", probe="gest.v1", model="smol"),
        _row("gest_pref_ru", "undetected_rate", 0.2, None, 50, "ru", probe="gest_pref.v1", model="smol")])
    summary = build_report([gemma, smol], tmp_path / "out" / "report.html", rows="label",
                           metrics=["*:accuracy", "*:undetected_rate"])
    lines = summary.headline_markdown.splitlines()
    assert lines[0] == ("| variant | runs | label | WinoMT accuracy | GEST undetected rate (gest.v1) "
                        "| GEST undetected rate (gest_pref.v1) | BLEU | chrF |")
    gemma_name, smol_name = "gemma-3-270m-q4_k_m (ct2-causal)", "smollm2-135m-instruct-q4_1 (ct2-causal)"
    labels = [(row.split(" | ")[0].lstrip("| "), row.split(" | ")[2]) for row in lines[2:]]
    assert labels == [(gemma_name, "winomt_de"), (gemma_name, "winomt_es"), (smol_name, "winomt_de"),
                      (smol_name, "gest_ru"), (smol_name, "gest_pref_ru")]


def test_the_cli_option_and_its_errors(tmp_path, capsys):
    run = two_languages(tmp_path / "runs")
    assert main(["report", str(run), "--out", str(tmp_path / "r.html"), "--rows", "label",
                 "--metrics", "winomt*:accuracy"]) == 0
    assert "| variant | runs | label | WinoMT accuracy | BLEU | chrF |" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_info:
        main(["report", str(run), "--out", str(tmp_path / "r2.html"), "--rows", "language"])
    assert exit_info.value.code == 2
    with pytest.raises(InputError, match="--rows 'language'"):
        build_report([run], tmp_path / "r3.html", rows="language")
    assert not (tmp_path / "r3.html").exists()
    sys.path.insert(0, str(ROOT / "docs" / "hooks"))
    from docs_reference import cli_reference

    report = cli_reference().split("## `mtdebias report`", 1)[1].split("\n## ", 1)[0]
    assert "`--rows`" in report and "one per run and suite label" in report


def test_seeds_are_averaged_per_variant_and_label(tmp_path):
    """Runs named <variant>-seed<k> are averaged label by label: de's two seeds (0.4, 0.5) give
    one row with their mean, es (one seed stored) a row of its own."""
    dirs = []
    for seed, values in ((1, {"winomt_de": 0.4, "winomt_es": 0.6}), (2, {"winomt_de": 0.5})):
        store = RunStore(tmp_path / "runs" / f"tiny-seed{seed}")
        store.dir.mkdir(parents=True)
        store.add_results("step-0000100", [_row(label, "accuracy", value, None, 100, label[-2:])
                                           for label, value in values.items()])
        dirs.append(store.dir)
    summary = build_report(dirs, tmp_path / "out" / "report.html", rows="label", metrics=["winomt*:accuracy"])
    lines = summary.headline_markdown.splitlines()
    assert lines[0] == "| variant | runs | label | WinoMT accuracy | BLEU | chrF |"
    assert lines[2].startswith("| tiny | 2 | winomt_de | 0.450 ± ") and "(2 seeds)" in lines[2]
    assert lines[3] == "| tiny | 1 | winomt_es | 0.600 (n=100) | — | — |"
