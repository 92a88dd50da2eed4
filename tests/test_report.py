"""Report generation from hand-built stored results (2 runs × 3 checkpoints, plus a debiased copy)."""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

from mtdebias.store.atomic import write_json
from mtdebias.errors import InputError
from mtdebias.report import build_report
from mtdebias.report.plots import png_is_blank
from mtdebias.signature import Signature
from mtdebias.store.runs import RunStore

STEPS = (100, 200, 300)
DATA = {"winomt.v1": "aaaaaaaaaaaa", "name_gender.v1": "bbbbbbbbbbbb", "sentiment.v1": "cccccccccccc",
        "quality.v1": "dddddddddddd", "ambiguity.v1": "eeeeeeeeeeee", "mystery.v3": "ffffffffffff"}
FILLERS = [("Anna", "doctors", "female"), ("Peter", "doctors", "male"), ("Maria", "nurses", "female"),
           ("Jan", "nurses", "male"), ("Olga", "engineers", "female"), ("Tomas", "engineers", "male")]


def _sig(probe: str, model: str, data: str | None = None) -> str:
    return str(Signature(probe, data or DATA[probe], model, {"beam": 5}, 0))


def _rows(probe, model, metrics, data=None, meta=None):
    out = []
    for name, value, ci in metrics:
        row = {"probe": probe, "metric": name, "value": value, "ci": ci, "n": 100, "signature": _sig(probe, model, data)}
        if meta:
            row["meta"] = meta
        out.append(row)
    return out


def make_run(root: Path, name: str, *, shift: float, winomt_data: str | None = None, debiased: bool = False) -> Path:
    """A run as `mtdebias train` + `mtdebias eval` would leave it, with made-up numbers."""
    store = RunStore(root / name)
    store.dir.mkdir(parents=True)
    for k, step in enumerate(STEPS):
        store.log({"step": step - 50, "loss": 5.0 - k - shift})
        store.log({"step": step, "loss": 4.5 - k - shift})
        store.log({"step": step, "checkpoint": f"step-{step:07d}", "dev_loss": 4.0 - k * 0.5 - shift,
                   "bleu": 10.0 + 5 * k + shift, "chrf": 30.0 + 4 * k + shift})
    write_json(store.dir / "best.json", {"bleu": {"value": 20.0 + shift, "checkpoint": "step-0000300"}})
    checkpoints = [f"step-{s:07d}" for s in STEPS] + (["step-0000300-debiased"] if debiased else [])
    for k, ckpt in enumerate(checkpoints):
        model = f"{name[:4]}{k:08d}"
        acc = 0.5 + 0.05 * k + shift
        per_filler = [{"filler": f, "group": g, "gender": s, "t": 0.3 + 0.1 * i, "s": 0.2 + 0.05 * i}
                      for i, (f, g, s) in enumerate(FILLERS)]
        rows = (_rows("winomt.v1", model, [("accuracy", acc, [acc - 0.03, acc + 0.03]),
                                           ("delta_g", 0.2 - 0.03 * k - shift, [0.1, 0.3]),
                                           ("delta_s", 0.15 - 0.02 * k, None)], data=winomt_data)
                + _rows("name_gender.v1", model, [("first.acc_f", 0.4 + 0.1 * k, [0.3 + 0.1 * k, 0.5 + 0.1 * k]),
                                                  ("first.acc_m", 0.9, [0.85, 0.95]),
                                                  ("first.delta_acc", 0.5 - 0.1 * k, None),
                                                  ("full.acc_f", 0.6, None), ("full.acc_m", 0.8, None)])
                + _rows("sentiment.v1", model, [("names.t_delta", 0.3 - 0.05 * k, [0.2, 0.4])])
                + _rows("quality.v1", model, [("bleu", 12.0 + 4 * k + shift, None), ("chrf", 33.0 + 3 * k, None)])
                + _rows("ambiguity.v1", model, [("delta_h_s3e", -0.1 * k, None)])
                + _rows("mystery.v3", model, [("weirdness", 1.0 + k, [0.5 + k, 1.5 + k])]))
        store.add_results(ckpt, rows)
        store.write_table(ckpt, "sentiment.v1", "per_filler", per_filler)  # the probe's declared table
    last = checkpoints[-1]
    rng = np.random.default_rng(1)
    attempts = []
    for kind, names in (("first_female", ["Anna", "Maria"]), ("first_male", ["Peter", "Jan"])):
        for n in names:
            for t in range(4):
                attempts.append({"kind": kind, "name": n, "gender": kind.split("_")[1], "template": t,
                                 "correct": bool(kind.endswith("_male") or t < 2)})
    store.write_attempts(last, "name_gender.v1", attempts)
    sentiment = [{"filler": f, "group": g, "gender": s, "template": t,
                  "label": "positive" if (i + t) % 3 else "negative", "s": float(rng.uniform(0, 1))}
                 for i, (f, g, s) in enumerate(FILLERS) for t in range(5)]
    store.write_attempts(last, "sentiment.v1", sentiment)
    ambiguity = [{"id": i, "group": i // 2, "in_group": True, "ambiguous": i % 2 == 0, "split": "test", "cues": {},
                  "entropy": {"se": float(rng.uniform(0.5, 2.0) + (0.5 if i % 2 == 0 else 0)),
                              "ge": float(rng.uniform(0, 0.7))}, "s3e": {"1": float(rng.uniform(0.2, 1.0))}}
                 for i in range(40)]
    store.write_attempts(last, "ambiguity.v1", ambiguity)
    store.write_table(last, "ambiguity.v1", "anova", {"dropped": [], "rows": [
        {"response": "norm_h_s3e", "cue": "ambiguity", "level": "ambiguous", "reference": "unambiguous",
         "coef": 0.21, "std_err": 0.05, "t": 4.2, "p": 0.0001, "n_level": 20, "n_reference": 20,
         "f": 17.6, "f_p": 0.0001, "n": 40}]})
    return store.dir


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    a = make_run(root, "baseline", shift=0.0, debiased=True)
    # run B's WinoMT numbers come from other test data: a signature mismatch beyond the model
    b = make_run(root, "inlp", shift=0.05, winomt_data="999999999999")
    out = root / "out" / "report.html"
    summary = build_report([a, b], out, title="Test report")
    return summary, out.read_text(encoding="utf-8")


def _images(html: str) -> list[bytes]:
    return [base64.b64decode(m) for m in re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', html)]


def test_every_plot_is_embedded_and_not_blank(report):
    summary, html = report
    # expected figures, counted by hand from what make_run stores:
    #  line plots: winomt 3 metrics + name_gender 5 + sentiment 1 + quality 2 + ambiguity 1 + mystery 1 = 13
    #  training log: dev loss, dev BLEU, dev chrF, training loss = 4
    #  a figure per known probe: Acc_f/Acc_m bars, ΔI/ΔH bars, and the headline metrics of quality,
    #    WinoMT (no gender × stereotype cells stored) and sentiment (no group means) = 5
    #  positiveness (t, s) from the sentiment probe's per-filler table: baseline step-300, baseline
    #    debiased, inlp step-300 → 3 picked checkpoints × 2 = 6
    #  entropy and norm-H violins (norm-H computed from the attempts' contrast sets): the 2 picked
    #    checkpoints with ambiguity attempts (baseline's debiased copy, inlp's step-300) → 2 × 2 = 4
    expected = 13 + 4 + 5 + 6 + 4
    assert summary.images == expected
    images = _images(html)
    assert len(images) == html.count("<img ") == expected
    for png in images:
        assert png.startswith(b"\x89PNG")
        assert not png_is_blank(png)
    assert "mystery.v3:weirdness" in html  # an unknown probe still gets its plot and table entries


def test_html_is_self_contained(report):
    _, html = report
    assert html.startswith("<!DOCTYPE html>")
    assert not re.search(r'(src|href)="(https?:|//)', html)
    assert "<script" not in html


def test_signature_mismatch_is_warned_where_it_happens(report):
    summary, html = report
    winomt_warnings = [w for w in summary.warnings if "winomt.v1" in w]
    assert winomt_warnings, summary.warnings
    assert any("data: 999999999999 vs aaaaaaaaaaaa" in w for w in winomt_warnings)
    assert "⚠ WinoMT accuracy" in summary.headline_markdown  # the flagged headline column, by its label
    assert html.count('class="warn"') >= 4  # top list, headline, runs table, and each WinoMT plot
    # comparable probes are not flagged: name_gender signatures differ only in the model
    assert not any("name_gender" in w for w in summary.warnings)
    # the mismatched numbers are not joined into one line: each signature group is its own series
    assert "Comparability warnings" in html


def test_headline_has_quality_next_to_bias_and_a_row_per_debiased_copy(report, tmp_path):
    summary, _ = report
    md = summary.headline_markdown
    header = md.splitlines()[0]
    for column in ("ΔG (WinoMT)", "ΔAcc (first names)", "BLEU", "chrF"):  # the probes' own labels
        assert column in header
    assert "mystery" not in header  # not a headline metric unless asked for
    body = md.splitlines()[2:]
    assert [line.split("|")[1].strip() for line in body] == ["baseline", "baseline (debiased)", "inlp"]
    # baseline step-300: BLEU from the quality probe, 12 + 4·2 = 20.000; the debiased copy has its own
    # quality row (12 + 4·3 = 24.000)
    data = json.loads((summary.tables_dir / "headline.json").read_text())
    by_variant = {r["variant"]: r for r in data["rows"]}
    assert by_variant["baseline"]["BLEU"] == pytest.approx(20.0)
    assert by_variant["baseline (debiased)"]["BLEU"] == pytest.approx(24.0)
    assert by_variant["inlp"]["WinoMT accuracy"] == pytest.approx(0.5 + 0.1 + 0.05)


def test_exports_and_markdown(report):
    summary, _ = report
    assert summary.markdown.exists() and summary.markdown.read_text().startswith("# Test report")
    for name in summary.tables:
        assert (summary.tables_dir / f"{name}.csv").exists()
        assert json.loads((summary.tables_dir / f"{name}.json").read_text())["columns"]
    assert {"headline", "runs", "signatures", "results", "name_gender_accuracy"} <= set(summary.tables)
    assert any(n.startswith("anova_") for n in summary.tables)
    results = (summary.tables_dir / "results.csv").read_text().splitlines()
    # 2 runs × 3 checkpoints + 1 debiased copy = 7 checkpoints × 13 metrics (3+5+1+2+1+1), plus the header
    assert len(results) == 7 * 13 + 1
    # stored Acc_f at step 300: 0.4 + 0.1·2 = 0.6; at the debiased copy (4th checkpoint) 0.4 + 0.1·3 = 0.7
    acc = json.loads((summary.tables_dir / "name_gender_accuracy.json").read_text())["rows"]
    first = {r["run"]: r["acc_f"] for r in acc if r["name_type"] == "first"}
    assert first == pytest.approx({"baseline": 0.6, "baseline (debiased)": 0.7, "inlp": 0.6})


def test_entropies_from_the_ambiguity_probe_layout():
    from mtdebias.probes.ambiguity.probe import entropy_values as _entropies

    # one contrast set of two test items (norm-H = entropy over the set's mean; GE is 0 on both,
    # so its norm-H is undefined and left out) and an α-tuning item, left out of both
    def attempt(i, split, ambiguous, se, s3e):
        return {"id": i, "group": "g", "in_group": True, "split": split, "ambiguous": ambiguous,
                "entropy": {"se": se, "ge": 0.0}, "s3e": {"1": s3e}}

    values = _entropies([attempt(0, "test", True, 1.0, 0.5), attempt(1, "test", False, 0.4, 0.3),
                         attempt(2, "validation", True, 9.0, 9.0)])
    assert values["entropy"] == {"se": {"ambiguous": [1.0], "unambiguous": [0.4]},
                                 "s3e": {"ambiguous": [0.5], "unambiguous": [0.3]},
                                 "ge": {"ambiguous": [0.0], "unambiguous": [0.0]}}
    assert values["norm-H"] == {"se": {"ambiguous": [pytest.approx(1.0 / 0.7)], "unambiguous": [pytest.approx(0.4 / 0.7)]},
                                "s3e": {"ambiguous": [pytest.approx(1.25)], "unambiguous": [pytest.approx(0.75)]}}


def test_seeds_are_averaged_with_a_t_interval(tmp_path):
    runs = [make_run(tmp_path, f"base-seed{k}", shift=0.01 * k) for k in (1, 2, 3)]
    summary = build_report(runs, tmp_path / "r.html", metrics=["winomt*:accuracy"])
    rows = json.loads((summary.tables_dir / "headline.json").read_text())["rows"]
    assert len(rows) == 1 and rows[0]["runs"] == 3
    # accuracies 0.61, 0.62, 0.63: mean 0.62, sd 0.01, t(0.975, 2) = 4.302653 → ± 0.02484
    assert rows[0]["WinoMT accuracy"] == pytest.approx(0.62)
    low, high = rows[0]["WinoMT accuracy ci"]
    assert (high - low) / 2 == pytest.approx(4.302653 * 0.01 / 3 ** 0.5, rel=1e-5)
    assert "0.620 ± 0.025 (3 seeds)" in summary.headline_markdown
    assert summary.warnings == []


def test_best_checkpoint_and_metric_patterns(tmp_path):
    run = make_run(tmp_path, "solo", shift=0.0)
    summary = build_report([run], tmp_path / "r.html", metrics=["weirdness"], at="best:bleu")
    # a probe this version does not know has no label to give: its metric's name, with the probe's
    assert "| weirdness (mystery.v3) |" in summary.headline_markdown
    # a pattern that matches nothing is a typo, not a column quietly left out
    with pytest.raises(InputError, match="'nothing_like_this': no stored metric matches it"):
        build_report([run], tmp_path / "r.html", metrics=["weirdness", "nothing_like_this"])
    with pytest.raises(InputError):
        build_report([run], tmp_path / "r2.html", at="median")


def test_bad_input_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="not a run directory"):
        build_report([tmp_path / "missing"], tmp_path / "r.html")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="mtdebias eval"):
        build_report([tmp_path / "empty"], tmp_path / "r.html")
    bad = tmp_path / "bad"
    (bad / "eval" / "step-0000100").mkdir(parents=True)
    (bad / "eval" / "step-0000100" / "results.jsonl").write_text('{"probe": "x", \n')
    with pytest.raises(InputError, match=r"results.jsonl:1"):
        build_report([bad], tmp_path / "r.html")


def test_cli_writes_the_report(tmp_path, capsys):
    import argparse

    from mtdebias.commands import report as command

    run = make_run(tmp_path, "cli", shift=0.0)
    parser = argparse.ArgumentParser()
    command.add_parser(parser.add_subparsers())
    args = parser.parse_args(["report", str(run), "--out", str(tmp_path / "cli.html"), "--metrics", "delta_g"])
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert "cli.html" in out and "ΔG (WinoMT)" in out
    assert (tmp_path / "cli.md").exists()


@pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is not installed")
def test_rendered_page_is_not_blank(report, tmp_path):
    from matplotlib import image

    summary, _ = report
    shot = tmp_path / "shot.png"
    profile = tempfile.mkdtemp()
    try:
        subprocess.run([shutil.which("chromium"), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                        "--no-first-run", "--disable-background-networking", "--disable-component-update",
                        "--disable-sync", f"--user-data-dir={profile}", f"--screenshot={shot}",
                        "--window-size=1200,2000", summary.html.resolve().as_uri()],
                       check=True, capture_output=True, timeout=120)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    pixels = image.imread(str(shot))
    assert pixels.shape[0] >= 1000 and pixels.shape[1] >= 1000
    assert float(np.var(pixels[..., :3])) > 1e-3
    # the page is mostly white background with dark text and coloured plots: not a flat colour
    assert float(np.mean(pixels[..., :3] < 0.5)) > 0.005


def test_two_signatures_within_one_run_are_split_and_warned(tmp_path):
    run = make_run(tmp_path, "mixed", shift=0.0)
    store = RunStore(run)
    # the same metric re-evaluated at step 200 with greedy decoding: stored beside the beam-5 number
    store.add_results("step-0000200", [{"probe": "winomt.v1", "metric": "accuracy", "value": 0.4, "ci": None,
                                        "n": 100, "signature": str(Signature("winomt.v1", DATA["winomt.v1"],
                                                                             "mixe00000001", {"beam": 1}, 0))}])
    summary = build_report([run], tmp_path / "r.html")
    warning = [w for w in summary.warnings if w.startswith("winomt.v1:accuracy: this plot")]
    assert warning and "settings: beam=1 vs beam=5" in warning[0]
    assert any("winomt.v1: 2 incompatible signatures" in w for w in summary.warnings)


def test_suite_labels_keep_two_evaluations_of_one_probe_apart(tmp_path):
    run = make_run(tmp_path, "twolangs", shift=0.0)
    store = RunStore(run)
    # the runner stores the suite label: "winomt" (the default) and "winomt_fr" (a second language)
    for k, step in enumerate(STEPS):
        ckpt = f"step-{step:07d}"
        rows = [dict(r, label="winomt") for r in store.results(ckpt) if r["probe"] == "winomt.v1"]
        fr = [{**r, "label": "winomt_fr", "value": r["value"] - 0.1,
               "signature": str(Signature("winomt.v1", "0123456789ab", f"m{k}", {"lang": "fr"}, 0))} for r in rows]
        store.add_results(ckpt, rows + fr)
    summary = build_report([run], tmp_path / "r.html", metrics=["winomt*:accuracy"])
    assert summary.warnings == []  # other data, but another label: not a clash
    header = summary.headline_markdown.splitlines()[0]
    assert "WinoMT accuracy |" in header and "WinoMT accuracy [winomt_fr]" in header
    assert "winomt.v1@winomt_fr:accuracy against training step (band: 95% interval)" in summary.figures


def test_a_delta_h_below_its_floor_shows_as_undefined_with_its_reason(tmp_path):
    """ΔH(SE) that would have been −245 (H̄_u near 0) is stored NaN: the headline says why."""
    store = RunStore(tmp_path / "run")
    store.dir.mkdir(parents=True)
    sig = str(Signature("ambiguity.v1", DATA["ambiguity.v1"], "m", {"min_items": 10}, 0))
    store.add_results("step-0000100", [
        {"probe": "ambiguity.v1", "metric": "delta_h_se", "value": float("nan"), "ci": None, "n": 90, "signature": sig}])
    build_report([store.dir], tmp_path / "report.html", metrics=["ambiguity.v1:delta_h_se"])
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "undefined (n=90) ¹" in html
    assert "¹ ΔH (se): undefined: H̄_unamb under a tenth of H̄_amb" in html


def test_a_delta_resting_on_too_few_items_shows_as_undefined_with_its_count(tmp_path):
    """ΔI(SE) the ambiguity probe left NaN (1 item, below its min_items of 10): the headline says
    "undefined (n=1)", not 0.000 or a dash, and the probe's ΔI/ΔH table gives n and the minimum."""
    store = RunStore(tmp_path / "run")
    store.dir.mkdir(parents=True)
    sig = str(Signature("ambiguity.v1", DATA["ambiguity.v1"], "m", {"min_items": 10}, 0))
    store.add_results("step-0000100", [
        {"probe": "ambiguity.v1", "metric": "delta_i_se", "value": float("nan"), "ci": None, "n": 1, "signature": sig},
        {"probe": "ambiguity.v1", "metric": "delta_i_s3e", "value": -0.25, "ci": [-0.3, -0.2], "n": 60,
         "signature": sig}])
    summary = build_report([store.dir], tmp_path / "report.html", metrics=["ambiguity.v1:delta_i_*"])
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "undefined (n=1)" in html and "0.000" not in html
    rows = json.loads((summary.tables_dir / "ambiguity_deltas.json").read_text())["rows"]
    cells = {r["metric"]: (r["value"], r["n"]) for r in rows}
    assert cells == {"delta_i_se": ("undefined (n = 1 < 10)", 1), "delta_i_s3e": ("-0.250", 60)}


def test_a_plot_says_where_a_delta_h_is_undefined_and_why(tmp_path):
    """ΔH(SE) defined at step 200 and below its floor at step 100: the line has one point, and a
    note beside the plot names the checkpoint left out, its n and why."""
    store = RunStore(tmp_path / "run")
    store.dir.mkdir(parents=True)
    sig = str(Signature("ambiguity.v1", DATA["ambiguity.v1"], "m", {"min_items": 10}, 0))
    store.add_results("step-0000100", [
        {"probe": "ambiguity.v1", "metric": "delta_h_se", "value": float("nan"), "ci": None, "n": 90, "signature": sig}])
    store.add_results("step-0000200", [
        {"probe": "ambiguity.v1", "metric": "delta_h_se", "value": -0.5, "ci": [-0.7, -0.3], "n": 90, "signature": sig}])
    build_report([store.dir], tmp_path / "report.html", metrics=["ambiguity.v1:delta_h_se"])
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "ambiguity.v1:delta_h_se: undefined, so not drawn, at run step-0000100 (n=90; H̄_unamb under a tenth" in html
    assert "step-0000200 (n=90" not in html
