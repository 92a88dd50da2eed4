"""The report's figure per probe (issue 43), built from small hand-made result stores: each figure
shows the stored numbers (bar heights and interval ends read back from the matplotlib figure), a
probe without a figure of its own gets its headline metrics, the figures are written beside the
Markdown summary, and a headless Chromium shows every one of them."""

from __future__ import annotations

import base64
import math
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

from mtdebias.errors import InputError
from mtdebias.report import build_report
from mtdebias.report.build import _Builder
from mtdebias.signature import Signature
from mtdebias.store.runs import RunStore

CI = 0.05  # every stored interval here is value ± CI

WINOMT = {"accuracy": 0.6, "delta_g": 0.12, "delta_s": 0.2, "accuracy_pro": 0.7, "accuracy_anti": 0.5,
          "accuracy_pro.female": 0.55, "accuracy_pro.male": 0.85, "accuracy_anti.female": 0.35,
          "accuracy_anti.male": 0.65}
GEST = {**{f"male_rate_s{s}": 0.3 + 0.02 * s for s in range(1, 17)}, "masculine_rate": 0.47, "stereotype_rate": 0.18}
GEST_CHOICE = {**{f"masculine_rate_cs_{s}": 0.8 - 0.03 * s for s in range(1, 17)}, "masculine_rate": 0.55,
               "stereotype_rate": -0.2, "option_a_rate": 0.5, "same_letter_every_time": 0.0}
WSD = {"accuracy": 0.62, "miss_rate": 0.3, "sfii": 0.2, "spdi": 0.1, "accuracy_by_pos.NOUN": 0.7,
       "accuracy_by_pos.VERB": 0.4}
NAMES = {"first.acc_f": 0.4, "first.acc_m": 0.9, "first.delta_acc": 0.5, "full.acc_f": 0.6, "full.acc_m": 0.8,
         "full.delta_acc": 0.2}
AMBIGUITY = {"delta_i_se": -0.3, "delta_i_s3e": -0.2, "delta_h_se": math.nan, "delta_h_s3e": -0.15, "delta_h_ge": 0.1}
SENTIMENT = {"names.t_delta": 0.3, "names.t_mean[group=doctors,gender=female]": 0.6,
             "names.t_mean[group=doctors,gender=male]": 0.7, "names.t_mean[group=nurses,gender=female]": 0.5,
             "names.t_mean[group=nurses,gender=male]": 0.45, "names.t_mean[gender=female]": 0.55,
             "names.t_mean[gender=male]": 0.575, "names.t_mean[group=doctors]": 0.65}
QUALITY = {"bleu": 21.5, "chrf": 48.0}
PROBES = {"winomt.v1": WINOMT, "gest.v1": GEST, "gest_choice.v1": GEST_CHOICE, "wsd_bias.v1": WSD,
          "name_gender.v1": NAMES, "ambiguity.v1": AMBIGUITY, "sentiment.v1": SENTIMENT, "quality.v1": QUALITY}


def _rows(probe: str, metrics: dict[str, float], model: str) -> list[dict]:
    signature = str(Signature(probe, "abcdefabcdef", model, {"lang": "de"}, 0))
    return [{"probe": probe, "metric": name, "value": value, "n": 40, "signature": signature,
             "ci": None if math.isnan(value) else [value - CI, value + CI]} for name, value in metrics.items()]


def translator_store(root: Path, name: str = "dictionary", shift: float = 0.0) -> Path:
    """A translator scored once (checkpoint "translator", no training step) by every probe family."""
    store = RunStore(root / name)
    store.dir.mkdir(parents=True)
    store.add_results("translator", [row for probe, metrics in PROBES.items()
                                     for row in _rows(probe, {k: v + shift for k, v in metrics.items()}, name)])
    return store.dir


@pytest.fixture()
def drawn(monkeypatch):
    """Every figure the report adds, as (caption, matplotlib Figure), in page order."""
    seen: list[tuple[str, object]] = []
    original = _Builder.add_figure

    def spy(self, figure, caption):
        seen.append((caption, figure))
        original(self, figure, caption)

    monkeypatch.setattr(_Builder, "add_figure", spy)
    return seen


def _bars(ax) -> dict[str, list[float]]:
    """{series label: bar heights} of one axes."""
    return {c.get_label(): [p.get_height() for p in c] for c in ax.containers if hasattr(c, "patches")}


def _intervals(ax, label: str) -> list[float]:
    """The low and high ends of the error bars of one series, bar after bar."""
    container = next(c for c in ax.containers if hasattr(c, "patches") and c.get_label() == label)
    segments = container.errorbar.lines[2][0].get_segments()
    return [float(end) for s in segments for end in (s[0][1], s[1][1])]


def _figure(drawn, start: str):
    found = [fig for caption, fig in drawn if caption.startswith(start)]
    assert len(found) == 1, [c for c, _ in drawn]
    return found[0]


def test_each_probe_family_has_a_figure_of_its_stored_numbers(tmp_path, drawn):
    summary = build_report([translator_store(tmp_path)], tmp_path / "out" / "r.html")
    # WinoMT: (female, male, all) × (pro, anti), heights and intervals as stored
    [ax] = _figure(drawn, "WinoMT accuracy by gold gender × stereotype").axes
    assert _bars(ax) == {"pro-stereotypical": pytest.approx([0.55, 0.85, 0.7]),
                         "anti-stereotypical": pytest.approx([0.35, 0.65, 0.5])}
    assert _intervals(ax, "anti-stereotypical") == pytest.approx([0.30, 0.40, 0.60, 0.70, 0.45, 0.55])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["dictionary · female", "dictionary · male",
                                                            "dictionary · all"]
    # GEST and GEST choice: 16 stereotypes, the female ones (1–7) and the male ones (8–16) apart
    for caption, rates in (("gest.v1: male rate per stereotype", GEST),
                           ("gest_choice.v1: masculine rate per stereotype, cs", GEST_CHOICE)):
        [ax] = _figure(drawn, caption).axes
        heights = list(_bars(ax).values())
        assert [len(h) for h in heights] == [7, 9]
        assert heights[0] + heights[1] == pytest.approx([v for k, v in rates.items() if re.search(r"_s?\d+$", k)])
    # word senses per part of speech, then over all items
    [ax] = _figure(drawn, "Word-sense accuracy per part of speech").axes
    assert [t.get_text() for t in ax.get_xticklabels()] == ["NOUN", "VERB", "all"]
    assert _bars(ax) == {"dictionary": pytest.approx([0.7, 0.4, 0.62])}
    assert _intervals(ax, "dictionary")[2:4] == pytest.approx([0.35, 0.45])
    # name gender: Acc_f and Acc_m of first and full names
    [ax] = _figure(drawn, "Acc_f / Acc_m per run and name type").axes
    assert _bars(ax) == {"Acc_f (female names)": pytest.approx([0.4, 0.6]),
                         "Acc_m (male names)": pytest.approx([0.9, 0.8])}
    # ambiguity: a ΔI panel and a ΔH panel; the undefined ΔH(SE) is no bar but "n/a"
    axes = _figure(drawn, "Ambiguity ΔI and ΔH").axes
    assert [ax.get_title() for ax in axes] == ["ΔI (lower is better)", "ΔH (lower is better; < 0 desired)"]
    assert _bars(axes[0]) == {"dictionary": pytest.approx([-0.3, -0.2])}
    assert _bars(axes[1]) == {"dictionary": pytest.approx([0.0, -0.15, 0.1])}
    assert [t.get_text() for t in axes[1].texts] == ["n/a"]
    # sentiment: mean t per profession group and gender (and over all names), one series per gender
    [ax] = _figure(drawn, "Sentiment: mean t and s").axes
    assert [t.get_text() for t in ax.get_xticklabels()] == ["doctors", "nurses", "all names"]
    assert _bars(ax) == {"female": pytest.approx([0.6, 0.5, 0.55]), "male": pytest.approx([0.7, 0.45, 0.575])}
    # a probe without a figure of its own (quality): its summary metrics, a panel each
    axes = _figure(drawn, "quality.v1: headline metrics").axes
    assert [list(_bars(ax).values()) for ax in axes] == [[[pytest.approx(21.5)]], [[pytest.approx(48.0)]]]
    # one figure per probe, nothing over training (a translator has no steps): no empty heading
    assert len(summary.figures) == len(PROBES)
    html = summary.html.read_text(encoding="utf-8")
    assert "Figures per probe" in html and "Metrics over training" not in html
    for probe in PROBES:
        assert f">{probe}</h3>" in html


def test_figures_are_written_beside_the_markdown_and_linked_from_it(tmp_path):
    summary = build_report([translator_store(tmp_path)], tmp_path / "r.html")
    assert summary.figures_dir == tmp_path / "r_figures"
    files = sorted(p for p in summary.figures_dir.iterdir() if p.suffix == ".png")
    assert len(files) == len(summary.figures)
    markdown = summary.markdown.read_text(encoding="utf-8")
    links = re.findall(r"!\[([^\]]*)\]\((r_figures/[^)]+)\)", markdown)
    assert [caption for caption, _ in links] == summary.figures
    assert sorted(tmp_path / link for _, link in links) == files
    # the files are the very images the page embeds
    embedded = [base64.b64decode(m) for m in re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"',
                                                         summary.html.read_text(encoding="utf-8"))]
    assert sorted(embedded) == sorted(p.read_bytes() for p in files)
    # a second report replaces its own folder; a file of the user's in it stops the report untouched
    build_report([translator_store(tmp_path, "other")], tmp_path / "r.html")
    (summary.figures_dir / "my-notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(InputError, match="the figures folder holds 'my-notes.txt'"):
        build_report([translator_store(tmp_path, "third")], tmp_path / "r.html")
    assert (summary.figures_dir / "my-notes.txt").read_text(encoding="utf-8") == "mine"


def test_metrics_over_training_are_drawn_for_trained_runs(tmp_path, drawn):
    store = RunStore(tmp_path / "trained")
    store.dir.mkdir()
    for k, step in enumerate((100, 200)):
        store.add_results(f"step-{step:07d}", _rows("winomt.v1", {"accuracy": 0.5 + 0.1 * k}, f"m{k}")
                          + _rows("mystery.v3", {"mean[gender=female]": 0.5}, f"m{k}"))
    summary = build_report([store.dir], tmp_path / "r.html")
    html = summary.html.read_text(encoding="utf-8")
    assert "Metrics over training" in html
    # a caption's brackets are escaped in the Markdown, or they would end the image's alt text
    assert "![mystery.v3:mean\\[gender=female\\] against training step (band: 95% interval)](r_figures/" \
        in summary.markdown.read_text(encoding="utf-8")
    [ax] = _figure(drawn, "winomt.v1:accuracy against training step").axes
    assert list(ax.get_lines()[0].get_ydata()) == pytest.approx([0.5, 0.6])
    assert ax.get_legend() is None  # the legend is below the axes, on the figure, not over the lines
    # stored without stereotype groups: WinoMT's own figure has nothing to draw, its headline does
    [ax] = _figure(drawn, "winomt.v1: headline metrics").axes
    assert _bars(ax) == {"trained": [pytest.approx(0.6)]}  # at the headline checkpoint, the last


def test_no_heading_stands_over_figures_that_are_not_drawn(tmp_path):
    """Name gender stored at an early checkpoint only: at the headline checkpoint (the last) it has
    nothing to draw, so neither its heading nor the section's is written."""
    store = RunStore(tmp_path / "run")
    store.dir.mkdir()
    store.add_results("step-0000100", _rows("name_gender.v1", NAMES, "m1"))
    store.add_results("step-0000200", _rows("mystery.v3", {"weirdness": 1.0}, "m2"))  # a probe this version lacks
    summary = build_report([store.dir], tmp_path / "r.html")
    html = summary.html.read_text(encoding="utf-8")
    assert "Figures per probe" not in html and ">name_gender.v1</h3>" not in html
    assert not any("headline metrics" in caption for caption in summary.figures)


class _View:
    """What a probe's figure sees of a report (ReportView), over one stored checkpoint."""

    def __init__(self, rows):
        self.rows, self.drawn = rows, []

    def picked(self):
        return [("run", "translator")]

    def run_label(self, run, checkpoint):
        return "system"

    def results(self, run, checkpoint, label):
        return self.rows

    def shown(self, label):
        return ""

    @staticmethod
    def finite(value):
        return isinstance(value, float) and math.isfinite(value)

    @staticmethod
    def interval(row):
        return tuple(row["ci"]) if row.get("ci") else None

    def figure(self, figure, caption):
        self.drawn.append((caption, figure))


def test_the_default_figure_has_a_panel_per_headline_metric_with_its_interval():
    from mtdebias.probes.base import ZERO, BaseProbe, Headline, MetricSpec

    class Plugin(BaseProbe):
        name = "plugin.v1"
        specs = (MetricSpec("gap", ZERO),)
        headline = (Headline("rate", "a rate"), Headline("gap", "a gap"), Headline("absent", "not stored"))

    from mtdebias.report.headline_figure import headline_figure
    from mtdebias.report.views import view_of

    view = _View(_rows("plugin.v1", {"rate": 0.25, "gap": -0.1, "other": 3.0}, "m"))
    # a probe has no figure of its own unless a view (or a plugin's report_figure) draws one: the report draws this one
    assert view_of("plugin.v1", Plugin).figure is None
    headline_figure(view, Plugin, ["plugin"])
    [(caption, fig)] = view.drawn
    assert caption.startswith("plugin.v1: headline metrics")
    assert [[t.get_text() for t in ax.get_xticklabels()] for ax in fig.axes] == [["a rate"], ["a gap"]]
    assert [_bars(ax) for ax in fig.axes] == [{"system": [pytest.approx(0.25)]}, {"system": [pytest.approx(-0.1)]}]
    assert _intervals(fig.axes[1], "system") == pytest.approx([-0.15, -0.05])
    dashed = [line.get_ydata()[0] for ax in fig.axes for line in ax.get_lines() if line.get_linestyle() == "--"]
    assert dashed == [0.0]  # the gap's best value, on its panel only
    assert fig.legends and all(ax.get_legend() is None for ax in fig.axes)


@pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is not installed")
def test_chromium_shows_every_probe_figure(tmp_path):
    """The page as a browser draws it: every figure is laid out with a size and has drawn pixels
    (not one flat colour) inside its box. The boxes come from the page itself: a copy of it with a
    script that writes each image's box into the DOM, which Chromium dumps after loading."""
    from matplotlib import image

    summary = build_report([translator_store(tmp_path), translator_store(tmp_path, "baseline", shift=0.02)],
                           tmp_path / "r.html")
    html = summary.html.read_text(encoding="utf-8")
    script = ("<script>window.addEventListener('load', () => { document.querySelectorAll('figure img').forEach("
              "img => { const r = img.getBoundingClientRect(); img.setAttribute('data-box', "
              "[r.left + scrollX, r.top + scrollY, r.width, r.height].map(Math.round).join(',')); }); "
              "document.body.setAttribute('data-height', document.documentElement.scrollHeight); });</script>")
    probe = tmp_path / "boxes.html"
    probe.write_text(html.replace("</body>", script + "</body>"), encoding="utf-8")
    profile = tempfile.mkdtemp()
    base = [shutil.which("chromium"), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--hide-scrollbars", "--force-device-scale-factor=1", f"--user-data-dir={profile}"]
    try:
        dom = subprocess.run(base + ["--window-size=1200,900", "--dump-dom", probe.as_uri()], check=True,
                             capture_output=True, text=True, timeout=120).stdout
        boxes = [tuple(map(int, b.split(","))) for b in re.findall(r'data-box="([-\d,]+)"', dom)]
        height = int(re.search(r'data-height="(\d+)"', dom).group(1))
        shot = tmp_path / "shot.png"
        subprocess.run(base + [f"--window-size=1200,{height}", f"--screenshot={shot}", probe.as_uri()], check=True,
                       capture_output=True, timeout=120)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    alts = re.findall(r'<figure><img alt="([^"]*)"', dom)
    # one figure per probe, but GEST's and GEST choice's per stereotype are one per run
    assert len(boxes) == len(alts) == len(summary.figures) == len(PROBES) + 2
    for probe_name in PROBES:  # a figure under each probe's heading
        assert re.search(rf">{re.escape(probe_name)}</h3>\s*<div class=\"figs\">\s*<figure><img", dom), probe_name
    pixels = image.imread(str(shot))[..., :3]
    for alt, (left, top, width, height) in zip(alts, boxes):
        assert width > 200 and height > 150, alt
        assert top + height <= pixels.shape[0] and left + width <= pixels.shape[1], alt
        box = pixels[top:top + height, left:left + width]
        assert float(np.var(box)) > 1e-3, alt  # drawn, not blank
        assert float(np.mean(box < 0.5)) > 0.002, alt  # dark ink (text, bars) in it


def test_each_shipped_probe_finds_its_view_by_its_name():
    """A probe's figure and section are found in report/views/<its folder>.py by its name: the
    same ones the probes drew themselves before the views moved out of probes/ (gest_choice.v1
    shares GEST's module but has a figure of its own and no section)."""
    import re

    from mtdebias.probes.registry import PROBES
    from mtdebias.report.views import view_of
    from mtdebias.report.views.page import probe_class

    names = [name for name in PROBES.names() if re.search(r"\.v\d+$", name)]
    views = {name: view_of(name, probe_class(name)) for name in names}
    drawn = {name: (view.figure.__name__ if view.figure else None, view.section.__module__.rsplit(".", 1)[-1]
                    if view.section else None) for name, view in views.items()}
    assert drawn == {"quality.v1": (None, None), "winomt.v1": ("winomt_figure", None),
                     "name_gender.v1": ("figure_of", "name_gender"), "sentiment.v1": ("group_means_figure", "sentiment"),
                     "ambiguity.v1": ("delta_figure", "ambiguity"), "wsd_bias.v1": ("pos_figure", "wsd"),
                     "gest.v1": ("figure_of", "gest"), "gest_pref.v1": ("figure_of", "gest"),
                     "gest_choice.v1": ("choice_figure", None)}
