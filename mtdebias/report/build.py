"""Build a report from stored run results: one self-contained HTML page, a Markdown summary and
CSV/JSON exports of every table.

Layout (``out.html`` → ``out.md`` and ``out_tables/`` beside it):

1. headline table: runs (or variants, mean ± t-interval over seeds) × chosen bias metrics at the
   last (or best) checkpoint, with BLEU and chrF beside them, so that a debiasing that costs
   translation quality shows in the same row;
2. every stored metric against training step, one line per run, bands from the stored intervals;
   the training log's dev loss / BLEU / chrF curves;
3. each stored probe's own section (:meth:`mtdebias.probes.base.BaseProbe.report_section`:
   accuracy bars, entropy violins, stereotype bars, …), drawn by the probe through a
   :class:`~mtdebias.report.probe_view.PageView`; this module knows no probe by name;
4. the signatures of everything shown, and a warning wherever numbers whose signatures differ in
   more than the model end up in one plot or table column.
"""

from __future__ import annotations

import difflib
import fnmatch
import html as html_lib
import shutil
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from .. import __version__
from ..atomic import clean_stale_temporaries, replace_together, temporary_dir, write_text
from ..errors import DiskFull, InputError, disk_full
from ..significance import seed_interval
from .. import plots
from ..store import checkpoint_suffix
from .collect import RunData, distinct_runs, finite, load_run, row_key
from .html import Document
from .outputs import (MARKDOWN_MARKER, TABLES_MANIFEST, check_report_outputs, output_lock, report_paths,
                      tables_manifest)
from .probe_view import (PageView, label_of, probe_class, run_label, stored_probes, stored_value_check,
                         undefined_reason)
from .signatures import comparability_key, model_of, signature_differences
from .tables import Table, format_value

LOG_CURVES = (("dev_loss", "dev loss"), ("bleu", "dev BLEU"), ("chrf", "dev chrF"))


@dataclass
class ReportSummary:
    html: Path
    markdown: Path
    tables_dir: Path
    runs: list[str]
    figures: list[str]  # captions of the embedded figures, in page order
    tables: list[str]  # names of the exported tables
    warnings: list[str]
    headline_markdown: str
    exports: list[Path] = field(default_factory=list)
    # results at the headline checkpoints that their probe declares degenerate (they say nothing)
    degenerate: list[str] = field(default_factory=list)

    @property
    def images(self) -> int:
        return len(self.figures)




def _metric_hint(pattern: str, candidates: list[str]) -> str:
    """Did-you-mean over the stored ``probe:metric`` keys (and, for a bare pattern, their metrics),
    then the keys there are (the first dozen: a large study stores hundreds)."""
    metrics = sorted({key.partition(":")[2] for key in candidates})
    close = difflib.get_close_matches(pattern, candidates if ":" in pattern else metrics, n=1)
    if not candidates:
        return "these runs store no bias metric; run `mtdebias eval` on them first"
    shown = ", ".join(candidates[:12]) + (f", … ({len(candidates)} in all)" if len(candidates) > 12 else "")
    return (f"did you mean '{close[0]}'? " if close else "") + f"stored: {shown}"


def _with_ci(value: Any, ci: Any) -> str:
    text = format_value(value)
    if isinstance(ci, (list, tuple)) and len(ci) == 2 and all(finite(c) for c in ci):
        text += f" [{format_value(float(ci[0]))}, {format_value(float(ci[1]))}]"
    return text


def _why_undefined(cell: dict[str, Any]) -> str:
    """"; <why>" for a NaN metric whose probe says why it can be undefined, else ""."""
    why = undefined_reason(cell.get("probe", ""), cell.get("metric", ""))
    return f"; {why}" if why else ""


def _unique_names(runs: list[RunData]) -> None:
    """Two run folders with the same name (in different parents) get their parent prefixed."""
    seen: dict[str, int] = {}
    for run in runs:
        seen[run.name] = seen.get(run.name, 0) + 1
    for run in runs:
        if seen[run.name] > 1:
            run.name = f"{run.dir.parent.name}/{run.dir.name}"
            for row in run.results:
                row["run"] = run.name


class _Builder:
    def __init__(self, runs: list[RunData], title: str, metrics: Sequence[str] | None, at: str,
                 metrics_source: str = "--metrics"):
        self.runs, self.title, self.at = runs, title, at
        self.metrics_source = metrics_source
        self.doc = Document(title)
        self.tables: list[Table] = []
        self.summary_tables: list[Table] = []  # probe tables the Markdown summary repeats
        self.figures: list[str] = []
        self.warnings: list[str] = []
        self.keys = sorted({row_key(r) for run in runs for r in run.results})
        self.probes = stored_probes(runs)  # {probe name: class}, asked for labels, quality and views
        self.quality_probes = {name for name, cls in self.probes.items() if cls.quality}
        # (metric, column label) of translation quality, shown beside every headline
        self.quality_columns = list(dict.fromkeys((h.metric, h.label) for cls in self.probes.values()
                                                  for h in cls.quality)) or [("bleu", "BLEU"), ("chrf", "chrF")]
        self.column_labels: dict[str, str] = {}
        self.headline_keys = self._headline_keys(metrics)
        self.picks = {run.name: run.pick(at) for run in runs}
        self.seeded = False  # set by headline(): whether runs were averaged over seeds

    # ------------------------------------------------------------------ helpers
    def warn(self, text: str) -> None:
        self.warnings.append(text)

    def add_table(self, table: Table, collapsed: str | None = None) -> None:
        self.tables.append(table)
        self.warnings.extend(table.warnings)
        if collapsed:
            self.doc.details(collapsed, table)
        else:
            self.doc.table(table)

    def add_figure(self, png: bytes, caption: str) -> None:
        self.figures.append(caption)
        self.doc.image(png, caption, alt=caption)

    def _is_quality(self, key: str) -> bool:
        return key.split(":", 1)[0].split("@", 1)[0] in self.quality_probes

    def _declared(self) -> list[str]:
        """The stored keys of every stored probe's declared headline metrics, and their labels."""
        chosen = []
        for name, cls in self.probes.items():
            for headline in cls.headline:
                for key in self.keys:
                    probe, _, metric = key.partition(":")
                    if probe.split("@", 1)[0] == name and metric == headline.metric and key not in chosen:
                        chosen.append(key)
        return chosen

    def _headline_keys(self, patterns: Sequence[str] | None) -> list[str]:
        candidates = [k for k in self.keys if not self._is_quality(k)]
        chosen: list[str] = []
        for pattern in patterns or ():
            full = pattern if ":" in pattern else f"*:{pattern}"
            matched = [k for k in candidates if fnmatch.fnmatchcase(k, full) and k not in chosen]
            if not matched:
                # a headline the user asked for and would not get: a typo, said before any figure is drawn
                raise InputError(f"{self.metrics_source} {pattern!r}: no stored metric matches it",
                                 hint=_metric_hint(pattern, candidates))
            chosen += matched
        if not patterns:
            chosen = self._declared()
        if not chosen and not patterns:
            # no probe declares a stored headline metric: show the first few summary metrics there are
            chosen = [k for k in candidates if "[" not in k][:6]
        for key in chosen:  # the label a reader expects, with the suite label where there is one
            probe, _, metric = key.partition(":")
            name, _, suite_label = probe.partition("@")
            cls = self.probes.get(name)
            label = next((h.label for h in (cls.headline if cls else ()) if h.metric == metric), None)
            if label:
                self.column_labels[key] = label + (f" [{suite_label}]" if suite_label else "")
        # two metrics under one label would share a column (and overwrite each other's cells)
        taken = [self.column_labels.get(key, key) for key in chosen]
        for key in chosen:
            if taken.count(self.column_labels.get(key, key)) > 1:
                self.column_labels[key] = f"{self.column_labels[key]} ({key.partition(':')[0]})"
        return chosen

    def degenerate(self) -> list[str]:
        """The stored results at the headline checkpoints that their probe called degenerate when
        they were scored (``meta.degenerate``): a column of zeros from a barely trained model."""
        found = []
        for run, checkpoint in self.picked():
            for row in run.rows_at(checkpoint):
                for reason in (row.get("meta") or {}).get("degenerate", ()):
                    found.append(f"{run_label(run, checkpoint)}: {label_of(row)}: {reason}")
        return list(dict.fromkeys(found))  # each metric row repeats its result's meta

    def picked(self) -> list[tuple[RunData, str]]:
        return [(run, ckpt) for run in self.runs for _, ckpt in sorted(self.picks[run.name].items())]

    # ------------------------------------------------------------------ headline
    def _cell(self, run: RunData, checkpoint: str, key: str) -> dict[str, Any] | None:
        for row in run.rows_at(checkpoint):
            if row_key(row) == key:
                return row
        return None

    def headline(self) -> tuple[Table, Table]:
        quality_names = [label for _, label in self.quality_columns]
        names = {key: self.column_labels.get(key, key) for key in self.headline_keys}  # key → column
        columns = list(names.values()) + quality_names
        per_run_rows, per_run_display, signatures = [], {}, {c: [] for c in columns}
        for run, ckpt in self.picked():
            i = len(per_run_rows)
            row: dict[str, Any] = {"run": run_label(run, ckpt), "variant": run.variant, "seed": run.seed,
                                   "checkpoint": ckpt, "step": run.step_of(ckpt)}
            for key, column in names.items():
                cell = self._cell(run, ckpt, key)
                row[column] = float(cell["value"]) if cell and finite(cell["value"]) else None
                row[f"{column} ci"] = cell.get("ci") if cell else None
                if cell:
                    per_run_display[(i, column)] = _with_ci(row[column], cell.get("ci"))
                    if row[column] is None and cell.get("n") is not None:
                        # a metric its probe left undefined (e.g. too few items): said, with its n and why
                        per_run_display[(i, column)] = row[f"{column} undefined"] = \
                            f"undefined (n={cell['n']}{_why_undefined(cell)})"
                    signatures[column].append(cell["signature"])
            quality = run.quality(ckpt, self.quality_probes, [name for name, _ in self.quality_columns])
            for name, label in self.quality_columns:
                value, signature = quality.get(name, (None, None))
                row[label] = value
                if signature:
                    signatures[label].append(signature)
            per_run_rows.append(row)

        flagged, warnings = set(), []
        for column, sigs in signatures.items():
            reasons = signature_differences(sigs)
            if reasons:
                flagged.add(column)
                warnings.append(f"column {column!r} compares numbers with different signatures — "
                                + "; ".join(reasons))
        note = (f"Checkpoint: {self.at} of each run (derived copies such as 'debiased' are their own rows). "
                "Brackets: 95% bootstrap interval over items. BLEU/chrF from the quality probe when stored, "
                "else the training log's dev-set score.")
        per_run = Table("runs", "All runs at the chosen checkpoint",
                        ["run", "checkpoint", *columns], per_run_rows, note, warnings, per_run_display, flagged)

        # variants: runs named <variant>-seed<k> averaged, mean ± 95% t-interval over seeds
        groups: dict[str, list[dict[str, Any]]] = {}
        for row in per_run_rows:
            suffix = checkpoint_suffix(row["checkpoint"])
            groups.setdefault(row["variant"] + (f" ({suffix})" if suffix else ""), []).append(row)
        variant_rows, display = [], {}
        for index, (variant, members) in enumerate(groups.items()):
            out: dict[str, Any] = {"variant": variant, "runs": len(members),
                                   "checkpoints": ", ".join(sorted({m["checkpoint"] for m in members}))}
            for column in columns:
                values = [m[column] for m in members if finite(m.get(column))]
                if not values:
                    out[column] = None
                    if len(members) == 1 and members[0].get(f"{column} undefined"):
                        display[(index, column)] = members[0][f"{column} undefined"]
                    continue
                if len(members) == 1:
                    out[column] = values[0]
                    out[f"{column} ci"] = members[0].get(f"{column} ci")
                    display[(index, column)] = _with_ci(values[0], members[0].get(f"{column} ci"))
                else:
                    interval = seed_interval(values)
                    out[column], out[f"{column} ci"] = interval.mean, interval.ci
                    out[f"{column} seeds"] = interval.n
                    display[(index, column)] = interval.format() + (f" (n={interval.n})" if interval.n > 1 else "")
            variant_rows.append(out)
        seeded = self.seeded = any(len(m) > 1 for m in groups.values())
        headline_note = ("Rows are variants: runs named '<variant>-seed<k>' are averaged, mean ± half-width of the "
                         "95% Student-t interval over seeds (n = seeds); single runs show their bootstrap interval."
                         if seeded else note)
        headline = Table("headline", "Headline", ["variant", "runs", *columns], variant_rows, headline_note,
                         list(warnings), display, set(flagged))
        return headline, per_run

    # ------------------------------------------------------------------ line plots
    def metric_plots(self) -> None:
        quality_first = sorted(self.keys, key=lambda k: (not self._is_quality(k), k))
        current_probe = None
        for key in quality_first:
            probe, metric = key.split(":", 1)  # probe here includes a suite label (probe@label)
            cls = self.probes.get(probe.split("@", 1)[0])
            if cls is not None and any(fnmatch.fnmatchcase(metric, p) for p in cls.own_plots):
                continue  # the probe draws these in its own section (GEST's 16 stereotype bars)
            series: dict[str, list[plots.SeriesPoint]] = {}
            sigs: list[str] = []
            skipped = 0
            undefined: list[str] = []  # points a line cannot draw: said beside the plot, with n and why
            for run in self.runs:
                undefined += [f"{run_label(run, r['checkpoint'])} {r['checkpoint']} (n={r.get('n')}{_why_undefined(r)})"
                              for r in run.results if row_key(r) == key and not finite(r["value"])]
                rows = [r for r in run.results if row_key(r) == key and finite(r["value"])]
                groups = sorted({comparability_key(r["signature"]) for r in rows})
                for row in rows:
                    step = run.step_of(row["checkpoint"])
                    if step is None:
                        skipped += 1
                        continue
                    label = run_label(run, row["checkpoint"])
                    if len(groups) > 1:  # never join numbers of different signatures into one line
                        label += f" [sig {groups.index(comparability_key(row['signature'])) + 1}]"
                    ci = row.get("ci")
                    ci = (float(ci[0]), float(ci[1])) if isinstance(ci, (list, tuple)) and len(ci) == 2 \
                        and all(finite(c) for c in ci) else None
                    series.setdefault(label, []).append(plots.SeriesPoint(step, float(row["value"]), ci))
                    sigs.append(row["signature"])
            if not series:
                continue
            if probe != current_probe:
                self.doc.heading(("Translation quality: " if self._is_quality(key) else "Probe: ") + probe, 3)
                current_probe = probe
            reasons = signature_differences(sigs)
            warning = None
            if reasons:
                warning = f"{key}: this plot shows numbers with different signatures — " + "; ".join(reasons)
                self.warn(warning)
                self.doc.warning(warning)
            if skipped:
                self.doc.paragraph(f"{key}: {skipped} value(s) at checkpoints without a step number are in the "
                                   "tables only.", "note")
            if undefined:
                self.doc.paragraph(f"{key}: undefined, so not drawn, at " + "; ".join(undefined) + ".", "note")
            self.add_figure(plots.metric_lines(series, key, metric, warning=warning),
                            f"{key} against training step (band: 95% interval)")

    def log_plots(self) -> None:
        drawn = False
        for name, label in (*LOG_CURVES, ("loss", "training loss")):
            series: dict[str, list[plots.SeriesPoint]] = {}
            for run in self.runs:
                for row in run.log:
                    if name == "loss" and "checkpoint" in row:
                        continue
                    if name != "loss" and "checkpoint" not in row:
                        continue
                    step = row.get("step")
                    if step is None and "checkpoint" in row:
                        step = run.step_of(row["checkpoint"])
                    if finite(row.get(name)) and finite(step):
                        series.setdefault(run.name, []).append(plots.SeriesPoint(step, float(row[name])))
            if series:
                if not drawn:
                    self.doc.heading("Training log", 3)
                    drawn = True
                self.add_figure(plots.metric_lines(series, f"training log: {label}", label),
                                f"training log: {label} against step")

    # ------------------------------------------------------------------ probes' own sections
    def probe_sections(self) -> None:
        """Each stored probe's own plots and tables, as the probe draws them."""
        for name, cls in self.probes.items():
            labels = list(dict.fromkeys(label_of(r) for run in self.runs for r in run.results if r["probe"] == name))
            view = PageView(self, name)
            try:
                cls.report_section(view, labels)
            except InputError as error:  # stored data the probe cannot read (an older layout): said, not fatal
                view.warning(f"{name}: its own plots and tables are left out: {error}")

    # ------------------------------------------------------------------ signatures
    def signatures(self) -> None:
        groups: dict[tuple[str, str], dict[str, Any]] = {}
        full = []
        for run in self.runs:
            for row in run.results:
                probe = row_key(row).split(":", 1)[0]  # probe@label: two suite labels are two probes here
                key = (probe, comparability_key(row["signature"]))
                entry = groups.setdefault(key, {"probe": probe, "signature (model: *)": key[1],
                                                "runs": set(), "models": set(), "checkpoints": set(),
                                                "metrics": set()})
                entry["runs"].add(run.name)
                entry["models"].add(model_of(row["signature"]))
                entry["checkpoints"].add((run.name, row["checkpoint"]))
                entry["metrics"].add(row["metric"])
                full.append({"run": run.name, "checkpoint": row["checkpoint"], "probe": probe,
                             "metric": row["metric"], "signature": row["signature"]})
        rows = [{**{k: v for k, v in e.items() if not isinstance(v, set)},
                 "runs": ", ".join(sorted(e["runs"])), "models": len(e["models"]),
                 "checkpoints": len(e["checkpoints"]), "metrics": len(e["metrics"])}
                for _, e in sorted(groups.items())]
        by_probe: dict[str, int] = {}
        for row in rows:
            by_probe[row["probe"]] = by_probe.get(row["probe"], 0) + 1
        warnings = [f"{probe}: {count} incompatible signatures — its numbers are not all comparable"
                    for probe, count in sorted(by_probe.items()) if count > 1]
        self.doc.heading("Signatures")
        self.doc.paragraph("Numbers are comparable when their signatures agree on everything but the model. "
                           "One row per probe and signature with the model field blanked.", "note")
        self.add_table(Table("signatures", "Signatures", ["probe", "signature (model: *)", "metrics", "runs",
                                                          "checkpoints", "models"], rows, warnings=warnings))
        self.add_table(Table("signatures_full", "Every signature", ["run", "checkpoint", "probe", "metric",
                                                                    "signature"], full),
                       collapsed="every number's full signature")

    def results_table(self) -> None:
        rows = [{"run": run.name, "checkpoint": r["checkpoint"], "step": run.step_of(r["checkpoint"]),
                 "probe": r["probe"], "metric": r["metric"], "value": r.get("value"),
                 "ci_low": (r.get("ci") or [None, None])[0], "ci_high": (r.get("ci") or [None, None])[1],
                 "n": r.get("n"), "signature": r["signature"]}
                for run in self.runs for r in run.results]
        self.doc.heading("All stored results")
        self.add_table(Table("results", "All stored results", ["run", "checkpoint", "step", "probe", "metric",
                                                               "value", "ci_low", "ci_high", "n", "signature"],
                             rows), collapsed=f"{len(rows)} stored numbers")


def build_report(run_dirs: Sequence[str | Path], out_html: str | Path, title: str = "mtdebias report", *,
                 metrics: Sequence[str] | None = None, at: str = "last", force: bool = False,
                 metrics_source: str = "--metrics", out_flag: str = "--out") -> ReportSummary:
    """Write ``out_html`` (self-contained), ``out.md`` and ``out_tables/*.csv|json`` from stored runs.

    ``metrics``: headline metrics as ``probe:metric`` patterns (``probe*:delta_g``; a bare
    ``delta_g`` matches any probe); default: the metrics each stored probe declares (``headline``). ``at``: "last" or
    "best:bleu" / "best:chrf" / "best:dev_loss" (from the run's best.json). ``force``: replace files
    at the output paths that no report wrote (:mod:`mtdebias.report.outputs`; never a folder);
    ``metrics_source`` and ``out_flag`` name where ``metrics`` and ``out_html`` came from in errors.
    """
    if not run_dirs:
        raise InputError("no run directories given", hint="pass one or more directories `mtdebias train` created")
    check_report_outputs(out_html, force=force, flag=out_flag)  # before any run is read
    check = stored_value_check()
    run_dirs, repeats = distinct_runs(run_dirs)
    for repeat in repeats:  # `report` names them itself, before it gets here
        warnings.warn(repeat, stacklevel=2)
    runs = [load_run(d, check) for d in run_dirs]
    _unique_names(runs)
    out_html = Path(out_html)
    builder = _Builder(runs, title, metrics, at, metrics_source)
    doc = builder.doc

    doc.heading("Headline")
    headline, per_run = builder.headline()
    builder.add_table(headline)
    doc.heading("Runs at the chosen checkpoint", 3)
    builder.add_table(per_run)

    doc.heading("Metrics over training")
    builder.metric_plots()
    builder.log_plots()
    builder.probe_sections()
    builder.signatures()
    builder.results_table()

    # warnings gathered from every section, listed once near the top as well
    unique_warnings = list(dict.fromkeys(builder.warnings))
    degenerate = builder.degenerate()
    intro = (f'<p class="note">mtdebias {html_lib.escape(__version__)} · runs: '
             + ", ".join(html_lib.escape(r.name) for r in runs) + f" · headline checkpoint: {html_lib.escape(at)}</p>")
    if unique_warnings:
        intro += ('<div class="warn"><b>Comparability warnings</b><ul>'
                  + "".join(f"<li>{html_lib.escape(w)}</li>" for w in unique_warnings) + "</ul></div>")
    if degenerate:
        intro += ('<div class="warn"><b>Results that say nothing</b> (their probe calls them degenerate; the '
                  'numbers are in the tables, but do not read them as findings)<ul>'
                  + "".join(f"<li>{html_lib.escape(w)}</li>" for w in degenerate) + "</ul></div>")
    # the three parts are one report: built in a folder beside it, then renamed into place
    # together (a kill mid-way leaves the old set and a temporary the next report removes)
    paths = report_paths(out_html)
    tables_dir, markdown_path = paths.tables, paths.markdown
    clean_stale_temporaries(out_html.parent, recursive=False)
    staging = None
    try:
        staging = temporary_dir(out_html)
        (staging / tables_dir.name).mkdir()
        exports = [tables_dir / path.name for table in builder.tables
                   for path in table.export(staging / tables_dir.name)]
        write_text(staging / tables_dir.name / TABLES_MANIFEST, tables_manifest([p.name for p in exports]))
        write_text(staging / markdown_path.name,
                   _markdown(title, runs, headline, per_run, unique_warnings, builder, out_html, at, degenerate))
        write_text(staging / out_html.name, doc.render(intro))
        with output_lock(out_html.parent):  # checked again: the paths may have changed while the report was built
            check_report_outputs(out_html, force=force, flag=out_flag)
            replace_together(staging, [tables_dir.name, markdown_path.name, out_html.name], out_html.parent)
    except BaseException as exc:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
        if disk_full(exc) or isinstance(exc, DiskFull):  # the previous report, if any, is left whole
            raise DiskFull(out_html) from None
        raise
    return ReportSummary(out_html, markdown_path, tables_dir, [r.name for r in runs], builder.figures,
                         [t.name for t in builder.tables], unique_warnings, headline.to_markdown(), exports,
                         degenerate)


def _markdown(title: str, runs: list[RunData], headline: Table, per_run: Table, warnings: list[str],
              builder: _Builder, out_html: Path, at: str, degenerate: Sequence[str] = ()) -> str:
    # the marker under the title tells a later report this file is its own to replace (outputs.py)
    lines = [f"# {title}", MARKDOWN_MARKER, "",
             f"Runs: {', '.join(r.name for r in runs)}. Headline checkpoint: {at}.",
             f"Full report with {len(builder.figures)} figures: `{out_html.name}`; tables as CSV/JSON in "
             f"`{out_html.stem}_tables/`.", "", "## Headline", "", headline.note, "", headline.to_markdown(), ""]
    if warnings:
        lines += ["## Warnings", ""] + [f"- ⚠ {w}" for w in warnings] + [""]
    if degenerate:
        lines += ["## Results that say nothing", "", "Their probe calls them degenerate: do not read them as "
                  "findings.", ""] + [f"- ⚠ {w}" for w in degenerate] + [""]
    if builder.seeded:
        lines += ["## Runs", "", per_run.to_markdown(), ""]
    for table in builder.summary_tables:
        lines += [f"## {table.title}", "", table.note, "", table.to_markdown(), ""]
    signatures = next((t for t in builder.tables if t.name == "signatures"), None)
    if signatures is not None:
        lines += ["## Signatures", ""] + [f"- `{r['signature (model: *)']}` ({r['runs']})" for r in signatures.rows]
    return "\n".join(lines) + "\n"


__all__ = ["build_report", "ReportSummary"]
