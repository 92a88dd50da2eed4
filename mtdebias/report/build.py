"""Build a report from stored run results: one self-contained HTML page, a Markdown summary and
CSV/JSON exports of every table.

Layout (``out.html`` → ``out.md`` and ``out_tables/`` beside it):

1. headline table: runs (or variants, mean ± t-interval over seeds) × chosen bias metrics at the
   last (or best) checkpoint, with BLEU and chrF beside them, so that a debiasing that costs
   translation quality shows in the same row;
2. a figure per stored probe (its view's, :mod:`mtdebias.report.views`: WinoMT by gender ×
   stereotype, GEST per stereotype, …; a probe whose view draws none gets its headline metrics
   as bars with their intervals), also written as PNG files beside the Markdown;
3. every stored metric against training step, one line per run, bands from the stored intervals;
   the training log's dev loss / BLEU / chrF curves (no heading where nothing has a step: a
   translator scored once);
4. each stored probe's own section (its view's: accuracy bars, entropy violins, stereotype
   bars, …), drawn through a :class:`~mtdebias.report.views.page.PageView`; this module knows
   no probe by name (views are found by :func:`~mtdebias.report.views.view_of`);
5. the signatures of everything shown, and a warning wherever numbers whose signatures differ in
   more than the model end up in one plot or table column.
"""

from __future__ import annotations

import difflib
import fnmatch
import html as html_lib
import re
import shutil
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from .. import __version__
from ..store.atomic import clean_stale_temporaries, replace_together, temporary_dir, write_bytes, write_text
from ..errors import DiskFull, InputError, disk_full
from ..stats.seeds import seed_interval
from . import plots
from ..store.runs import checkpoint_suffix
from ..probes.base import Metric, metric_label
from .collect import TRAINING_LOG, RunData, distinct_runs, finite, load_run, row_key
from .definitions import definitions_table, key_label, split_key
from .headline_figure import headline_figure
from .html import Document, slug
from .labels import assign_labels
from .outputs import (MARKDOWN_MARKER, TABLES_MANIFEST, check_report_outputs, output_lock, report_paths,
                      tables_manifest)
from .views import view_of
from .views.page import (PageView, label_of, probe_class, run_label, stored_probes, stored_value_check,
                         undefined_reason)
from .signatures import across_labels, comparability_key, model_of, signature_differences
from .tables import Table, format_value

LOG_CURVES = (("dev_loss", "dev loss"), ("bleu", "dev BLEU"), ("chrf", "dev chrF"))
# a value resting on fewer items is marked in the tables: one item moves a share by a tenth or
# more, and a percentile bootstrap of so few is too narrow (the minimum of items the entropy
# metrics declare for a ΔI or ΔH is the same 10)
FEW_ITEMS = 10
ZERO_WIDTH = ("zero-width interval: every bootstrap resample gave the same value (all items scored alike), so it "
              "does not measure the uncertainty")
FROM_LOG = "the training log's dev-set score: how many sentences it rests on is not stored"
# what a headline row is (build_report's rows; `report --rows`)
ROWS = ("run", "label")


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
    figures_dir: Path | None = None  # every figure as a PNG file, beside the Markdown summary

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


def _interval(ci: Any) -> tuple[float, float] | None:
    if isinstance(ci, (list, tuple)) and len(ci) == 2 and all(finite(c) for c in ci):
        return float(ci[0]), float(ci[1])
    return None


def _with_ci(value: Any, ci: Any, n: Any = None) -> str:
    """"0.612 [0.580, 0.644] (n=140)": the value, its interval where there is one, its n."""
    text = format_value(value)
    interval = _interval(ci)
    if interval is not None:
        text += f" [{format_value(interval[0])}, {format_value(interval[1])}]"
    return text + (f" (n={n})" if isinstance(n, int) and not isinstance(n, bool) else "")


def _why_undefined(cell: dict[str, Any]) -> str:
    """Why a NaN metric is undefined, as its probe says it (a generic reason when it says none)."""
    return (undefined_reason(cell.get("probe", ""), cell.get("metric", ""))
            or "its probe could not compute it from these items")


def _put(row: dict[str, Any], column: str, value: float | None, ci: Any, n: Any) -> None:
    """A value and what the exports keep beside it: ``<column> ci`` (the pair, as JSON has it),
    ``<column> ci_low``, ``<column> ci_high`` and ``<column> n``."""
    interval = _interval(ci)
    row[column] = value
    row[f"{column} ci"] = list(interval) if interval is not None else None
    row[f"{column} ci_low"], row[f"{column} ci_high"] = interval if interval is not None else (None, None)
    row[f"{column} n"] = n


def _exported(columns: Sequence[str], seeded: bool = False) -> list[str]:
    """The CSV columns of the headline tables: each value with its interval and n (or seeds)."""
    parts = ("", " ci_low", " ci_high", " n") + ((" seeds",) if seeded else ())
    return [f"{column}{part}" for column in columns for part in parts]


class _Builder:
    def __init__(self, runs: list[RunData], title: str, metrics: Sequence[str] | None, at: str,
                 metrics_source: str = "--metrics", rows: str = "run"):
        self.runs, self.title, self.at, self.rows = runs, title, at, rows
        self.metrics_source = metrics_source
        self.doc = Document(title)
        self.tables: list[Table] = []
        self.summary_tables: list[Table] = []  # probe tables the Markdown summary repeats
        self.figures: list[str] = []
        self.figure_files: list[tuple[str, bytes]] = []  # (file name, PNG), in page order
        self._over_training = False  # whether "Metrics over training" has its heading yet
        self.warnings: list[str] = []
        self.keys = sorted({row_key(r) for run in runs for r in run.results})
        self.probes = stored_probes(runs)  # {probe name: class}, asked for labels, quality and views
        self.quality_probes = {name for name, cls in self.probes.items() if cls.quality}
        # (metric, column label) of translation quality, shown beside every headline
        self.quality_columns = list(dict.fromkeys((h.metric, metric_label(cls, h.metric) or h.metric)
                                                  for cls in self.probes.values() for h in cls.quality)) \
            or [("bleu", "BLEU"), ("chrf", "chrF")]
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

    def add_figure(self, figure: Any, caption: str) -> None:
        """Embed a figure (a matplotlib Figure or PNG bytes) and keep it for the figures folder."""
        png = figure if isinstance(figure, bytes) else plots.to_png(figure)
        self.figures.append(caption)
        self.figure_files.append((f"{len(self.figures):02d}-{slug(caption)[:60].strip('-')}.png", png))
        self.doc.image(png, caption, alt=caption)

    def over_training(self) -> None:
        """The "Metrics over training" heading, once, before the first thing under it: a
        translator scored once has nothing with a step to plot, and no empty heading either."""
        if not self._over_training:
            self.doc.heading("Metrics over training")
            self._over_training = True

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
            self.column_labels[key] = key_label(key, self.probes)
        # two metrics under one label would share a column (and overwrite each other's cells)
        taken = [self.column_labels.get(key, key) for key in chosen]
        for key in chosen:
            if taken.count(self.column_labels.get(key, key)) > 1:
                self.column_labels[key] = f"{self.column_labels[key]} ({key.partition(':')[0]})"
        return chosen

    def degenerate(self) -> list[str]:
        """The stored results at the headline checkpoints that their probe calls degenerate (a
        column of zeros from a barely trained model, replies that are no translations)."""
        found = []
        for run, checkpoint in self.picked():
            for row in run.rows_at(checkpoint):
                for reason in self.degenerate_reasons(run, checkpoint, row):
                    found.append(f"{run_label(run, checkpoint)}: {label_of(row)}: {reason}")
        return list(dict.fromkeys(found))  # each metric row of a result shares its reasons

    def degenerate_reasons(self, run: RunData, checkpoint: str, row: dict[str, Any]) -> list[str]:
        """Why the result ``row`` belongs to says nothing: what the probe said when it scored it
        (``meta.degenerate``), else its rules (``degenerate_when``) applied to the stored numbers, so
        that results stored before a rule existed are marked too."""
        said = (row.get("meta") or {}).get("degenerate")
        if said:
            return list(said)
        cls = self.probes.get(row["probe"])
        if cls is None or not getattr(cls, "degenerate_when", ()):
            return []
        metrics = [Metric(r["metric"], float(r["value"]) if finite(r["value"]) else float("nan"), None, r.get("n"))
                   for r in run.rows_at(checkpoint) if r["probe"] == row["probe"] and label_of(r) == label_of(row)]
        return [reason for rule in cls.degenerate_when for reason in rule.reasons(metrics)]

    def cell_notes(self, run: RunData, checkpoint: str, cell: dict[str, Any], column: str) -> list[str]:
        """Why a headline cell is not to be read as it stands: its footnotes."""
        notes = []
        if not finite(cell["value"]):
            notes.append(f"{column}: undefined: {_why_undefined(cell)}")
        notes += [f"degenerate result ({label_of(cell)}): {reason}"
                  for reason in self.degenerate_reasons(run, checkpoint, cell)]
        interval = _interval(cell.get("ci"))
        if interval is not None and interval[0] == interval[1]:
            notes.append(ZERO_WIDTH)
        n = cell.get("n")
        if finite(cell["value"]) and isinstance(n, int) and 0 < n < FEW_ITEMS:
            notes.append(f"rests on fewer than {FEW_ITEMS} items: too few to read (one item moves a share by a "
                         "tenth or more)")
        return notes

    def picked(self) -> list[tuple[RunData, str]]:
        return [(run, ckpt) for run in self.runs for _, ckpt in sorted(self.picks[run.name].items())]

    # ------------------------------------------------------------------ headline
    def _cell(self, run: RunData, checkpoint: str, key: str) -> dict[str, Any] | None:
        for row in run.rows_at(checkpoint):
            if row_key(row) == key:
                return row
        return None

    def _row_axes(self) -> list[tuple[str | None, dict[str, str]]]:
        """The rows each (run, checkpoint) gets, as (suite label or None, {key: column}): one row
        holding every headline key (``rows="run"``), or one row per suite label holding that
        label's keys under a column named by the metric alone (``rows="label"``), so that seven
        languages of one probe are seven rows, not seven times as many columns."""
        if self.rows == "run":
            return [(None, {key: self.column_labels.get(key, key) for key in self.headline_keys})]
        columns = {key: key_label(f"{split_key(key)[0]}:{split_key(key)[2]}", self.probes)
                   for key in self.headline_keys}
        # one header over two probes' metrics (GEST's and GEST-preference's undetected rate) would
        # put two measures in one column: each gets its probe's name beside it
        owners: dict[str, set[str]] = {}
        for key, column in columns.items():
            owners.setdefault(column, set()).add(split_key(key)[0])
        for key, column in columns.items():
            if len(owners[column]) > 1:
                columns[key] = f"{column} ({split_key(key)[0]})"
        axes: dict[str, dict[str, str]] = {}
        for key in self.headline_keys:
            name, label, _ = split_key(key)
            axes.setdefault(label or name, {})[key] = columns[key]
        for key in filter(self._is_quality, self.keys):  # a labelled quality result: a row of its own
            _, label, _ = split_key(key)
            if label:
                axes.setdefault(label, {})
        return list(axes.items())

    def headline(self) -> tuple[Table, Table]:
        quality_names = [label for _, label in self.quality_columns]
        axes = self._row_axes()
        by_label = self.rows == "label"
        lead = ["label"] if by_label else []
        columns = list(dict.fromkeys(c for _, names in axes for c in names.values())) + quality_names
        per_run_rows, per_run_display, signatures = [], {}, {c: [] for c in columns}
        notes: dict[tuple[int, str], list[str]] = {}
        row_warnings: list[str] = []
        for run, ckpt in self.picked():
            quality = run.quality(ckpt, self.quality_probes, [name for name, _ in self.quality_columns])
            cells_of = [{key: self._cell(run, ckpt, key) for key in names} for _, names in axes]
            stored = any(cell for cells in cells_of for cell in cells.values())
            for (label, names), cells in zip(axes, cells_of):
                # a label this run has no result under is no row of it (SmolLM2 keeps no name-gender
                # template); a run with no result at all still gets its rows, every cell empty
                if by_label and stored and not any(cells.values()) and \
                        not any(score.get("label") == label for score in quality.values()):
                    continue
                i = len(per_run_rows)
                row: dict[str, Any] = {"run": run_label(run, ckpt), "variant": run.variant, "seed": run.seed,
                                       "checkpoint": ckpt, "step": run.step_of(ckpt)}
                if by_label:
                    row["label"] = label
                for key, column in names.items():
                    cell = cells[key]
                    _put(row, column, float(cell["value"]) if cell and finite(cell["value"]) else None,
                         cell.get("ci") if cell else None, cell.get("n") if cell else None)
                    if cell:
                        per_run_display[(i, column)] = _with_ci(row[column], cell.get("ci"), cell.get("n"))
                        if row[column] is None and cell.get("n") is not None:
                            # a metric its probe left undefined (e.g. too few items): said, with its n and why
                            per_run_display[(i, column)] = row[f"{column} undefined"] = f"undefined (n={cell['n']})"
                        notes[(i, column)] = self.cell_notes(run, ckpt, cell, column)
                        signatures[column].append((label, cell["signature"]))
                if by_label:
                    # the cells of one row that one probe gave should be one result: where they are
                    # not (results stored by two versions or settings), the row's label says so
                    by_probe: dict[str, list[str]] = {}
                    for cell in cells.values():
                        if cell:
                            by_probe.setdefault(cell["probe"], []).append(cell["signature"])
                    reasons = [reason for sigs in by_probe.values() for reason in signature_differences(sigs)]
                    if reasons:
                        per_run_display[(i, "label")] = f"⚠ {label}"
                        row_warnings.append(f"row {row['run']!r} · {label!r} compares numbers with different "
                                            "signatures — " + "; ".join(reasons))
                for name, quality_label in self.quality_columns:
                    score = quality.get(name)
                    if by_label and score and score.get("label") and score["label"] != label:
                        # a quality probe's own result (a released model's Bible BLEU) is about its
                        # data: on its label's row, not on rows about other data
                        score = None
                    _put(row, quality_label, score["value"] if score else None, score and score["ci"],
                         score and score["n"])
                    if score:
                        per_run_display[(i, quality_label)] = _with_ci(score["value"], score["ci"], score["n"])
                        signatures[quality_label].append((label, score["signature"]))
                        if score["signature"] == TRAINING_LOG:
                            notes[(i, quality_label)] = [FROM_LOG]
                per_run_rows.append(row)

        flagged, warnings = set(), []
        for column, pairs in signatures.items():
            reasons = signature_differences([sig for _, sig in pairs])
            if by_label and column not in quality_names:  # quality: the run's one score on each of its rows
                # one label down the runs: everything but the model agrees, as in a column per label;
                # from one label to another: everything but the model, the data and the language
                # (signatures.across_labels says why)
                reasons = [f"{label}: {reason}" for label in dict.fromkeys(label for label, _ in pairs)
                           for reason in signature_differences([sig for other, sig in pairs if other == label])]
                reasons += [f"across labels: {reason}"
                            for reason in signature_differences([across_labels(sig) for _, sig in pairs])]
            if reasons:
                flagged.add(column)
                warnings.append(f"column {column!r} compares numbers with different signatures — "
                                + "; ".join(reasons))
        note = (f"Checkpoint: {self.at} of each run (derived copies such as 'debiased' are their own rows). "
                "Brackets: 95% bootstrap interval over items; n: the items (templates, names, sentences) a value "
                "rests on; numbered marks: footnotes under the table. BLEU/chrF from the quality probe when "
                "stored, else the training log's dev-set score.")
        if by_label:
            note += (" Rows: one per run and suite label (the label its suite gave the probe, e.g. winomt_de); a "
                     "column is one metric across labels; BLEU/chrF from a quality probe are on its own label's row, "
                     "the training log's on each of the run's rows.")
        warnings += row_warnings
        per_run = Table("runs", "All runs at the chosen checkpoint",
                        ["run", "checkpoint", *lead, *columns], per_run_rows, note, warnings, per_run_display,
                        flagged, {k: v for k, v in notes.items() if v},
                        ["run", "checkpoint", *lead, *_exported(columns)])

        # variants: runs named <variant>-seed<k> averaged, mean ± 95% t-interval over seeds
        groups: dict[tuple[str, str | None], list[int]] = {}
        for index, row in enumerate(per_run_rows):
            suffix = checkpoint_suffix(row["checkpoint"])
            groups.setdefault((row["variant"] + (f" ({suffix})" if suffix else ""), row.get("label")), []).append(index)
        variant_rows, display, variant_notes = [], {}, {}
        for index, ((variant, label), indices) in enumerate(groups.items()):
            members = [per_run_rows[i] for i in indices]
            out: dict[str, Any] = {"variant": variant, "runs": len(members),
                                   "checkpoints": ", ".join(sorted({m["checkpoint"] for m in members}))}
            if by_label:
                out["label"] = label
                if any((i, "label") in per_run_display for i in indices):
                    display[(index, "label")] = f"⚠ {label}"
            for column in columns:
                # a member's marks stay with the variant: a mean over seeds of degenerate results is one too
                marked = [text for i in indices for text in notes.get((i, column), ())]
                if marked:
                    variant_notes[(index, column)] = list(dict.fromkeys(marked))
                values = [m[column] for m in members if finite(m.get(column))]
                if len(members) == 1:
                    out.update({k: v for k, v in members[0].items() if k.startswith(f"{column} ")})
                    out[column] = values[0] if values else None
                    if (indices[0], column) in per_run_display:
                        display[(index, column)] = per_run_display[(indices[0], column)]
                elif not values:
                    out[column] = None
                else:
                    interval = seed_interval(values)
                    _put(out, column, interval.mean, interval.ci, None)
                    out[f"{column} seeds"] = interval.n
                    display[(index, column)] = interval.format() + (f" ({interval.n} seeds)" if interval.n > 1 else "")
            variant_rows.append(out)
        seeded = self.seeded = any(len(m) > 1 for m in groups.values())
        headline_note = ("Rows are variants: runs named '<variant>-seed<k>' are averaged, mean ± half-width of the "
                         "95% Student-t interval over seeds; single runs show their bootstrap interval and n (the "
                         "items it rests on); numbered marks: footnotes under the table."
                         if seeded else note)
        if seeded and by_label:
            headline_note += " " + note[note.index("Rows: "):]
        headline = Table("headline", "Headline", ["variant", "runs", *lead, *columns], variant_rows, headline_note,
                         list(warnings), display, set(flagged), variant_notes,
                         ["variant", "runs", *lead, *_exported(columns, seeded)])
        # a wide headline is shown one probe (and suite label, in a column per label) after another, quality last
        families: dict[str, list[str]] = {}
        for _, names in axes:
            for key, column in names.items():
                family = families.setdefault(split_key(key)[0] if by_label else key.partition(":")[0], [])
                if column not in family:
                    family.append(column)
        headline.groups = per_run.groups = [*families.values(), quality_names]
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
                undefined += [f"{run_label(run, r['checkpoint'])} {r['checkpoint']} (n={r.get('n')}; {_why_undefined(r)})"
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
            self.over_training()
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
            self.add_figure(plots.metric_figure(series, key, metric, warning=warning),
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
                    self.over_training()
                    self.doc.heading("Training log", 3)
                    drawn = True
                self.add_figure(plots.metric_figure(series, f"training log: {label}", label),
                                f"training log: {label} against step")

    # ------------------------------------------------------------------ probes' figures and sections
    def _labels(self, name: str) -> list[str]:
        return list(dict.fromkeys(label_of(r) for run in self.runs for r in run.results if r["probe"] == name))

    def probe_figures(self) -> None:
        """Each stored probe's figure (its view's) under a heading of its own name; a probe whose
        figure draws nothing (a breakdown its stored results lack), or that has none, gets its
        headline metrics as bars."""
        started = False

        def start() -> None:  # the section's heading, before its first figure (none: no heading)
            nonlocal started
            if not started:
                self.doc.heading("Figures per probe")
                self.doc.paragraph("One figure per probe at the headline checkpoints (error bars: 95% interval). "
                                   "Each is also a PNG file in the figures folder beside the Markdown summary.", "note")
                started = True

        for name, cls in self.probes.items():
            labels = self._labels(name)
            view = PageView(self, name, lead=name, before=start)
            before = len(self.figures)
            draw = view_of(name, cls).figure
            try:
                if callable(draw):
                    draw(view, labels)
                if len(self.figures) == before:
                    headline_figure(view, cls, labels)
            except InputError as error:  # stored data the probe cannot read: said, not fatal
                view.warning(f"{name}: its figure is left out: {error}")

    def probe_sections(self) -> None:
        """Each stored probe's own plots and tables, as the probe draws them."""
        for name, cls in self.probes.items():
            labels = self._labels(name)
            view = PageView(self, name)
            draw = view_of(name, cls).section
            if draw is None:
                continue
            try:
                draw(view, labels)
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

    def definitions(self) -> Table:
        """The definitions panel: every headline column's metric, then each stored probe's own
        headline metrics the table left out (a report names what every probe it ran measures)."""
        declared = [f"{name}:{h.metric}" for name, cls in self.probes.items() for h in (*cls.headline, *cls.quality)]
        quality = [f"{probe}:{name}" for probe in self.quality_probes for name, _ in self.quality_columns]
        keys = [*self.headline_keys, *sorted(quality), *declared]
        return definitions_table(keys, self.probes)

    def results_table(self) -> None:
        labels = {key: key_label(key, self.probes) for key in self.keys}
        rows = [{"run": run.name, "checkpoint": r["checkpoint"], "step": run.step_of(r["checkpoint"]),
                 "probe": r["probe"], "metric": r["metric"], "label": labels[row_key(r)], "value": r.get("value"),
                 "ci_low": (r.get("ci") or [None, None])[0], "ci_high": (r.get("ci") or [None, None])[1],
                 "n": r.get("n"), "signature": r["signature"]}
                for run in self.runs for r in run.results]
        self.doc.heading("All stored results")
        self.add_table(Table("results", "All stored results", ["run", "checkpoint", "step", "probe", "metric",
                                                               "label", "value", "ci_low", "ci_high", "n",
                                                               "signature"],
                             rows), collapsed=f"{len(rows)} stored numbers")


def build_report(run_dirs: Sequence[str | Path], out_html: str | Path, title: str = "mtdebias report", *,
                 metrics: Sequence[str] | None = None, at: str = "last", force: bool = False,
                 metrics_source: str = "--metrics", out_flag: str = "--out",
                 labels: Mapping[str, str] | None = None, controls: Sequence[str | Path] = (),
                 rows: str = "run") -> ReportSummary:
    """Write ``out_html`` (self-contained), ``out.md`` and ``out_tables/*.csv|json`` from stored runs.

    ``metrics``: headline metrics as ``probe:metric`` patterns (``probe*:delta_g``; a bare
    ``delta_g`` matches any probe); default: the metrics each stored probe declares (``headline``). ``at``: "last" or
    "best:bleu" / "best:chrf" / "best:dev_loss" (from the run's best.json). ``force``: replace files
    at the output paths that no report wrote (:mod:`mtdebias.report.outputs`; never a folder);
    ``metrics_source`` and ``out_flag`` name where ``metrics`` and ``out_html`` came from in errors.
    ``labels``: {run (as given, or its folder name): the name the report shows}; runs without one
    get a short default (:mod:`mtdebias.report.labels`).
    ``controls``: runs among ``run_dirs`` that are negative controls (a model that cannot do the
    task, scored to show what that looks like): every result of theirs is listed as saying nothing,
    since a probe's own degeneracy checks cannot tell fluent nonsense from a translation.
    ``rows``: the headline's rows, one per run (or variant; "run") or one per run and suite label
    with a column per metric ("label": a probe scored in seven languages is seven rows).
    """
    if rows not in ROWS:
        raise InputError(f"--rows {rows!r}: not one of {', '.join(ROWS)}", hint="--rows run (default) or --rows label")
    if not run_dirs:
        raise InputError("no run directories given", hint="pass one or more directories `mtdebias train` created")
    check_report_outputs(out_html, force=force, flag=out_flag)  # before any run is read
    check = stored_value_check()
    run_dirs, repeats = distinct_runs(run_dirs)
    given = {Path(d).resolve() for d in run_dirs}
    for control in controls:  # before any run is read
        if Path(control).resolve() not in given:
            raise InputError(f"--control {control}: not one of the runs given", path=control,
                             hint="name a RUN_DIR that is also passed to report")
    for repeat in repeats:  # `report` names them itself, before it gets here
        warnings.warn(repeat, stacklevel=2)
    runs = [load_run(d, check) for d in run_dirs]
    assign_labels(runs, labels)
    out_html = Path(out_html)
    builder = _Builder(runs, title, metrics, at, metrics_source, rows)
    doc = builder.doc

    doc.heading("Headline")
    headline, per_run = builder.headline()
    builder.add_table(headline)
    doc.heading("Runs at the chosen checkpoint", 3)
    builder.add_table(per_run)
    definitions = builder.definitions()
    doc.heading("Definitions")
    builder.add_table(definitions)

    builder.probe_figures()
    builder.metric_plots()
    builder.log_plots()
    builder.probe_sections()
    builder.signatures()
    builder.results_table()

    # warnings gathered from every section, listed once near the top as well
    unique_warnings = list(dict.fromkeys(builder.warnings))
    control_dirs = {Path(c).resolve() for c in controls}
    degenerate = [f"{run.name}: every result: a negative control, scored to show what a system that cannot do the "
                  "task gets" for run in runs if run.dir.resolve() in control_dirs] + builder.degenerate()
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
    tables_dir, markdown_path, figures_dir = paths.tables, paths.markdown, paths.figures
    clean_stale_temporaries(out_html.parent, recursive=False)
    staging = None
    try:
        staging = temporary_dir(out_html)
        (staging / tables_dir.name).mkdir()
        exports = [tables_dir / path.name for table in builder.tables
                   for path in table.export(staging / tables_dir.name)]
        write_text(staging / tables_dir.name / TABLES_MANIFEST, tables_manifest([p.name for p in exports]))
        (staging / figures_dir.name).mkdir()
        for name, png in builder.figure_files:
            write_bytes(staging / figures_dir.name / name, png)
        write_text(staging / figures_dir.name / TABLES_MANIFEST, tables_manifest([n for n, _ in builder.figure_files]))
        write_text(staging / markdown_path.name,
                   _markdown(title, runs, headline, per_run, unique_warnings, builder, out_html, at, degenerate,
                             definitions))
        write_text(staging / out_html.name, doc.render(intro))
        with output_lock(out_html.parent):  # checked again: the paths may have changed while the report was built
            check_report_outputs(out_html, force=force, flag=out_flag)
            replace_together(staging, [tables_dir.name, figures_dir.name, markdown_path.name, out_html.name],
                             out_html.parent)
    except BaseException as exc:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
        if disk_full(exc) or isinstance(exc, DiskFull):  # the previous report, if any, is left whole
            raise DiskFull(out_html) from None
        raise
    return ReportSummary(out_html, markdown_path, tables_dir, [r.name for r in runs], builder.figures,
                         [t.name for t in builder.tables], unique_warnings, headline.to_markdown(), exports,
                         degenerate, figures_dir)


def _markdown(title: str, runs: list[RunData], headline: Table, per_run: Table, warnings: list[str],
              builder: _Builder, out_html: Path, at: str, degenerate: Sequence[str] = (),
              definitions: Table | None = None) -> str:
    # the marker under the title tells a later report this file is its own to replace (outputs.py)
    named = [r.name + (f" (`{r.dir}`)" if r.name != r.dir.name else "") for r in runs]
    lines = [f"# {title}", MARKDOWN_MARKER, "",
             f"Runs: {', '.join(named)}. Headline checkpoint: {at}.",
             f"Full report with {len(builder.figures)} figure{'' if len(builder.figures) == 1 else 's'}: "
             f"`{out_html.name}`; tables as CSV/JSON in `{out_html.stem}_tables/`, figures as PNG in "
             f"`{report_paths(out_html).figures.name}/`.", "",
             "## Headline", "", headline.note, "", headline.to_markdown(), ""]
    if warnings:
        lines += ["## Warnings", ""] + [f"- ⚠ {w}" for w in warnings] + [""]
    if degenerate:
        lines += ["## Results that say nothing", "", "Their probe calls them degenerate: do not read them as "
                  "findings.", ""] + [f"- ⚠ {w}" for w in degenerate] + [""]
    if builder.seeded:
        lines += ["## Runs", "", per_run.to_markdown(), ""]
    if definitions is not None and definitions.rows:
        lines += ["## Definitions", "", definitions.note, "", definitions.to_markdown(), ""]
    for table in builder.summary_tables:
        lines += [f"## {table.title}", "", table.note, "", table.to_markdown(), ""]
    if builder.figure_files:  # linked, not inlined: the files are beside the summary
        folder = report_paths(out_html).figures.name
        # a bracket in a caption (names.t_mean[gender=female]) would end the image's alt text
        alts = [re.sub(r"([][])", r"\\\1", caption) for caption in builder.figures]
        lines += ["## Figures", ""] + [f"![{alt}]({folder}/{name})\n"
                                       for alt, (name, _) in zip(alts, builder.figure_files)]
    signatures = next((t for t in builder.tables if t.name == "signatures"), None)
    if signatures is not None:
        lines += ["## Signatures", ""] + [f"- `{r['signature (model: *)']}` ({r['runs']})" for r in signatures.rows]
    return "\n".join(lines) + "\n"


__all__ = ["build_report", "ReportSummary"]
