"""Output paths of `report` and `ablate --report`: a report replaces only what an earlier report
wrote. A folder (of runs, or a run), a file the user owns or a companion (.md, tables folder,
paired tests) that is not the report's own is refused with exit 2 before any run is read; --force
replaces foreign files but never a folder. Also: --metrics that match nothing, and a plot of 300
runs whose legend keeps every label."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mtdebias.cli import main
from mtdebias.store.runs import RunStore
from test_cli_failures import _clear_error
from test_ablation import RECIPE
from test_report import _rows


def _run(root: Path, name: str) -> Path:
    """A small scored run (one checkpoint, WinoMT and quality rows): a report of it takes a second."""
    store = RunStore(root / name)
    store.dir.mkdir(parents=True)
    store.log({"step": 100, "checkpoint": "step-0000100", "dev_loss": 3.0, "bleu": 10.0, "chrf": 30.0})
    store.add_results("step-0000100", _rows("winomt.v1", name, [("accuracy", 0.6, [0.5, 0.7]), ("delta_g", 0.1, None)])
                      + _rows("quality.v1", name, [("bleu", 12.0, None), ("chrf", 33.0, None)]))
    return store.dir


def _tree(root: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None) for p in sorted(root.rglob("*"))}


@pytest.fixture
def runs(tmp_path):
    folder = tmp_path / "runs"
    for name in ("base-seed1", "base-seed2"):
        _run(folder, name)
    return folder


def test_out_a_folder_of_runs_is_refused_and_nothing_is_deleted(runs, capsys):
    before = _tree(runs)
    for force in ([], ["--force"]):  # --force never removes a folder
        rc = main(["report", str(runs / "base-seed1"), "--out", str(runs), *force])
        _clear_error(rc, capsys.readouterr().err, str(runs), "a folder holding 2 run(s)", "never replaces a folder")
        assert _tree(runs) == before
    # checked before any run is read: a run that is not there is not what the error is about
    rc = main(["report", str(runs / "missing"), "--out", str(runs)])
    _clear_error(rc, capsys.readouterr().err, "a folder holding 2 run(s)")


def test_out_a_run_is_refused_even_with_force(runs, capsys):
    before = _tree(runs)
    for force in ([], ["--force"]):
        rc = main(["report", str(runs / "base-seed1"), "--out", str(runs / "base-seed2"), *force])
        _clear_error(rc, capsys.readouterr().err, str(runs / "base-seed2"), "a run folder")
    assert _tree(runs) == before


def test_a_file_of_a_run_is_refused_even_with_force(runs, capsys):
    log = runs / "base-seed1" / "log.jsonl"
    before = _tree(runs)
    rc = main(["report", str(runs / "base-seed1"), "--out", str(log), "--force"])
    _clear_error(rc, capsys.readouterr().err, str(log), "a file of a run")
    assert _tree(runs) == before
    # a page of the user's kept in the run folder is no file of the run: --force replaces it
    page = runs / "base-seed1" / "report.html"
    page.write_text("an older report\n")
    assert main(["report", str(runs / "base-seed1"), "--out", str(page), "--force"]) == 0
    assert "an older report" not in page.read_text() and log.read_bytes() == before["base-seed1/log.jsonl"]


@pytest.mark.parametrize("companion", ["notes.html", "notes.md"])
def test_a_foreign_file_is_refused_without_force_and_replaced_with_it(runs, tmp_path, capsys, companion):
    foreign = tmp_path / companion
    foreign.write_text("my own notes\n")
    rc = main(["report", str(runs / "base-seed1"), "--out", str(tmp_path / "notes.html")])
    _clear_error(rc, capsys.readouterr().err, str(foreign), "did not write", "--force")
    assert foreign.read_text() == "my own notes\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["runs", companion])
    assert main(["report", str(runs / "base-seed1"), "--out", str(tmp_path / "notes.html"), "--force"]) == 0
    assert "my own notes" not in foreign.read_text()
    assert (tmp_path / "notes_tables" / "headline.csv").is_file()


def test_a_report_replaces_its_own_output_without_force_but_not_a_file_put_beside_its_tables(runs, tmp_path, capsys):
    out = tmp_path / "site" / "report.html"
    assert main(["report", str(runs / "base-seed1"), "--out", str(out), "--title", "first"]) == 0
    assert main(["report", str(runs / "base-seed1"), "--out", str(out), "--title", "second"]) == 0
    assert "second" in out.read_text() and "second" in out.with_suffix(".md").read_text()
    # a file of the user's in the tables folder would go with the folder: refused, even with --force
    mine = out.parent / "report_tables" / "my-plot.py"
    mine.write_text("print(1)\n")
    for force in ([], ["--force"]):
        rc = main(["report", str(runs / "base-seed1"), "--out", str(out), "--title", "third", *force])
        _clear_error(rc, capsys.readouterr().err, "report_tables", "'my-plot.py'")
    assert mine.read_text() == "print(1)\n" and "second" in out.read_text()


def test_a_report_by_an_older_mtdebias_is_replaced_with_force(runs, tmp_path, capsys, monkeypatch):
    """Reports written before the markers: refused as foreign without --force; with it, even
    their tables folder goes, recognised by what Table.export writes. The folder lock, where the
    file system cannot lock a folder (NFS), is done without."""
    import errno

    from mtdebias.store import locking
    from mtdebias.report import outputs

    out = tmp_path / "r.html"
    assert main(["report", str(runs / "base-seed1"), "--out", str(out), "--title", "old"]) == 0
    out.write_text(out.read_text().replace(outputs.HTML_MARKER, ""))
    markdown = out.with_suffix(".md")
    markdown.write_text(markdown.read_text().replace(outputs.MARKDOWN_MARKER + "\n", ""))
    (tmp_path / "r_tables" / outputs.TABLES_MANIFEST).unlink()
    rc = main(["report", str(runs / "base-seed1"), "--out", str(out), "--title", "new"])
    _clear_error(rc, capsys.readouterr().err, str(out), "--force")

    def no_folder_locks(fd, operation):
        raise OSError(errno.EBADF, "Bad file descriptor")

    monkeypatch.setattr(locking.fcntl, "flock", no_folder_locks)  # output_lock lives there
    assert main(["report", str(runs / "base-seed1"), "--out", str(out), "--title", "new", "--force"]) == 0
    assert "new" in out.read_text() and "new" in markdown.read_text()
    assert (tmp_path / "r_tables" / outputs.TABLES_MANIFEST).is_file()


def test_a_tables_folder_the_report_did_not_write_is_refused_even_with_force(runs, tmp_path, capsys):
    tables = tmp_path / "r_tables"
    tables.mkdir()
    (tables / "data.csv").write_text("a,b\n")  # a lone CSV is no report's tables
    for force in ([], ["--force"]):
        rc = main(["report", str(runs / "base-seed1"), "--out", str(tmp_path / "r.html"), *force])
        _clear_error(rc, capsys.readouterr().err, str(tables), "the tables folder", "move the folder away")
    assert (tables / "data.csv").read_text() == "a,b\n"


def test_a_file_where_the_tables_folder_goes_is_refused_without_force(runs, tmp_path, capsys):
    tables = tmp_path / "r_tables"
    tables.write_text("not a folder\n")
    rc = main(["report", str(runs / "base-seed1"), "--out", str(tmp_path / "r.html")])
    _clear_error(rc, capsys.readouterr().err, str(tables), "the tables folder would replace a file", "--force")
    assert tables.read_text() == "not a folder\n"
    assert main(["report", str(runs / "base-seed1"), "--out", str(tmp_path / "r.html"), "--force"]) == 0
    assert (tables / "headline.csv").is_file()


def test_out_named_like_the_summary_is_refused(runs, tmp_path, capsys):
    rc = main(["report", str(runs / "base-seed1"), "--out", str(tmp_path / "r.md")])
    _clear_error(rc, capsys.readouterr().err, "r.md", "Markdown summary")


def test_replace_together_never_writes_a_file_over_a_folder(tmp_path):
    from mtdebias.store.atomic import replace_together, temporary_dir

    folder = tmp_path / "out"
    (folder / "runs" / "a-seed1").mkdir(parents=True)
    (folder / "runs" / "a-seed1" / "recipe.toml").write_text("x")
    staging = temporary_dir(folder / "runs")
    (staging / "page.html").write_text("new")
    (staging / "runs").write_text("a page")
    with pytest.raises(IsADirectoryError):
        replace_together(staging, ["page.html", "runs"], folder)
    assert (folder / "runs" / "a-seed1" / "recipe.toml").read_text() == "x"
    assert not (folder / "page.html").exists()  # nothing moved before the check


# --- ablate --report ------------------------------------------------------------------------------

@pytest.fixture
def ablation(tmp_path, monkeypatch):
    """A recipe whose variants are "trained" by making scored runs: records whether training started."""
    import mtdebias.experiments.ablation as ablation

    (tmp_path / "t.en").write_text("a\n")
    (tmp_path / "t.de").write_text("b\n")
    recipe = tmp_path / "abl.toml"
    recipe.write_text(RECIPE.replace("{runs}", str(tmp_path / "runs")))
    trained = []

    def fake_training(recipe_path, variants, overrides=(), jobs=1):
        trained.append([v.run_name for v in variants])
        return [d if d.is_dir() else _run(d.parent, d.name)
                for d in (tmp_path / "runs" / f"abl-{v.run_name}" for v in variants)]

    monkeypatch.setattr(ablation, "run_variants", fake_training)
    return recipe, trained


def test_ablate_report_onto_runs_or_a_foreign_file_is_refused_before_training(ablation, tmp_path, capsys):
    recipe, trained = ablation
    (tmp_path / "runs" / "abl-vanilla-seed1").mkdir(parents=True)
    (tmp_path / "runs" / "abl-vanilla-seed1" / "recipe.toml").write_text("kept")
    rc = main(["ablate", str(recipe), "--report", str(tmp_path / "runs"), "--force"])
    _clear_error(rc, capsys.readouterr().err, "--report", "a folder holding 1 run(s)")
    significance = tmp_path / "runs" / "abl-report-significance.json"
    significance.write_text('{"mine": true}\n')
    rc = main(["ablate", str(recipe)])
    _clear_error(rc, capsys.readouterr().err, str(significance), "paired tests", "--force")
    assert trained == [] and significance.read_text() == '{"mine": true}\n'
    assert (tmp_path / "runs" / "abl-vanilla-seed1" / "recipe.toml").read_text() == "kept"
    (tmp_path / "afile").write_text("x")  # and a report folder nothing can be written in
    rc = main(["ablate", str(recipe), "--report", str(tmp_path / "afile" / "report.html")])
    _clear_error(rc, capsys.readouterr().err, "--report: cannot create a folder here")
    assert trained == []


def test_ablate_reruns_onto_its_own_report(ablation, tmp_path, capsys):
    recipe, trained = ablation
    assert main(["ablate", str(recipe)]) == 0
    assert main(["ablate", str(recipe)]) == 0
    capsys.readouterr()
    assert len(trained) == 2 and len(trained[0]) == 4  # two variants × two seeds
    report = tmp_path / "runs" / "abl-report.md"
    assert report.read_text().count("## Paired tests") == 1  # the rerun replaced it, not appended to it
    assert json.loads((tmp_path / "runs" / "abl-report-significance.json").read_text()) == []


# --- --metrics ----------------------------------------------------------------------------------

def test_metrics_that_match_nothing_are_an_error_naming_them(runs, tmp_path, capsys):
    out = tmp_path / "r.html"
    rc = main(["report", str(runs / "base-seed1"), "--out", str(out), "--metrics", "nope:nope"])
    _clear_error(rc, capsys.readouterr().err, "--metrics 'nope:nope'", "winomt.v1:delta_g")
    rc = main(["report", str(runs / "base-seed1"), "--out", str(out), "--metrics", "delta_g", "delta_gg"])
    _clear_error(rc, capsys.readouterr().err, "'delta_gg'", "did you mean 'delta_g'?")
    assert not out.exists()


# --- plots of many runs -------------------------------------------------------------------------

def test_a_plot_of_300_runs_shows_every_label_inside_the_figure():
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from mtdebias.report import plots

    series = {f"variant-{k:03d}-seed{k % 3 + 1}": [plots.SeriesPoint(s, k / 300 + s / 1000) for s in (100, 200)]
              for k in range(300)}
    fig = plots.metric_figure(series, "winomt.v1:delta_g", "delta_g")
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    texts = [t for legend in fig.legends + [a.get_legend() for a in fig.axes if a.get_legend()]
             for t in legend.get_texts()]
    assert sorted(t.get_text() for t in texts) == sorted(series)
    box = fig.bbox
    for text in texts:  # drawn where the saved image has it, not cut off at its edge
        extent = text.get_window_extent(renderer)
        assert box.x0 <= extent.x0 and extent.x1 <= box.x1 and box.y0 <= extent.y0 and extent.y1 <= box.y1, \
            text.get_text()
    # and every line can be told from every other by colour, line style and marker
    styles = {(line.get_color(), line.get_linestyle(), line.get_marker()) for line in fig.axes[0].get_lines()}
    assert len(styles) == 300



def test_a_negative_control_is_listed_as_saying_nothing_and_must_be_a_run_given(tmp_path, capsys):
    """Fluent nonsense passes every probe's own degeneracy check (SmolLM2's made-up German is
    German to the validity gate), so a run scored as a negative control is named by --control."""
    measured, control = _run(tmp_path, "gemma"), _run(tmp_path, "smollm2")
    out = tmp_path / "report.html"
    assert main(["report", str(measured), str(control), "--out", str(out), "--control", str(control)]) == 0
    stdout = capsys.readouterr().out
    assert "warning: the result says nothing: smollm2: every result: a negative control" in stdout
    assert "the result says nothing: gemma" not in stdout
    summary = out.with_suffix(".md").read_text(encoding="utf-8")
    assert "## Results that say nothing" in summary and "- ⚠ smollm2: every result: a negative control" in summary
    # a control that is not among the runs reported is a mistake in the command, refused before any work
    other = tmp_path / "other.html"
    rc = main(["report", str(measured), "--out", str(other), "--control", str(control)])
    _clear_error(rc, capsys.readouterr().err, "--control", "not one of the runs given")
    assert not other.exists()
