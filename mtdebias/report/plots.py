"""Figures for reports, drawn with matplotlib's Agg renderer and returned as PNG bytes: the
shared pieces (a figure, PNG bytes, lines against training step); each probe family's view
(``report/views/``) draws its own with them.

Figures are built on :class:`matplotlib.figure.Figure` directly (not pyplot), so drawing a
report neither needs a display nor touches pyplot's global state in the caller's process.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np

DPI = 90
GENDER_COLOURS = {"female": "#c2185b", "male": "#1565c0", "neutral": "#6a6a6a", "-": "#6a6a6a"}


@dataclass
class SeriesPoint:
    step: float
    value: float
    ci: tuple[float, float] | None = None


def figure(width: float = 6.0, height: float = 3.6):
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=DPI, layout="constrained")


def to_png(fig) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI)
    return buffer.getvalue()


def png_is_blank(png: bytes, threshold: float = 1e-3) -> bool:
    """True when an image is (nearly) one flat colour: no pixel variance to speak of."""
    from matplotlib import image

    pixels = image.imread(io.BytesIO(png), format="png")
    return float(np.var(pixels[..., :3])) < threshold


_LINESTYLES = ["-", "--", "-.", ":"]
_MARKERS = ["o", "s", "^", "v", "D", "P", "X", "*", "<", ">"]


def line_style(k: int) -> dict:
    """Colour, line style and marker of the k-th series: the three vary at different rates, so
    the first 10 × 4 × 10 = 400 series each look different (colour alone repeats after 10)."""
    return {"color": f"C{k % 10}", "linestyle": _LINESTYLES[(k // 10) % len(_LINESTYLES)],
            "marker": _MARKERS[(k // 40) % len(_MARKERS)]}


def metric_figure(series: dict[str, list[SeriesPoint]], title: str, ylabel: str, xlabel: str = "training step",
                  warning: str | None = None):
    """:func:`metric_lines` as a Figure. The legend goes below the axes (inside, it would cover
    the lines; past about twenty entries it would run off the figure) in as many columns as the
    longest label allows, and the figure grows to hold every entry."""
    width = 10.0 if len(series) > 40 else 6.0
    columns = legend_columns(list(series), width) if series else 1
    rows = -(-len(series) // columns)
    fig = figure(width, 3.6 + 0.15 * rows)
    ax = fig.add_subplot()
    for k, (label, points) in enumerate(sorted(series.items())):
        points = sorted(points, key=lambda p: p.step)
        x = np.array([p.step for p in points], dtype=float)
        y = np.array([p.value for p in points], dtype=float)
        line, = ax.plot(x, y, markersize=4, label=label, **line_style(k))
        if any(p.ci is not None for p in points):
            lo = np.array([p.ci[0] if p.ci else p.value for p in points], dtype=float)
            hi = np.array([p.ci[1] if p.ci else p.value for p in points], dtype=float)
            ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.18, linewidth=0)
    ax.set_title(("⚠ " if warning else "") + title, fontsize=10, color="#b00020" if warning else "black")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    if series:  # below the axes, never over the lines (issue 43: the legend covered the data)
        legend_below(fig, columns)
    return fig


def legend_columns(labels: list[str], width: float) -> int:
    """How many legend entries fit side by side in ``width`` inches: an entry at 7 pt takes about
    0.45 in of handle and padding and 0.055 in a character."""
    longest = max((len(label) for label in labels), default=1)
    return max(1, min(len(labels), int((width - 0.3) // (0.45 + 0.055 * longest))))


def legend_below(fig, columns: int | None = None, fontsize: float = 7, **options) -> None:
    """The figure's legend under its axes: inside them it covers bars or lines wherever it goes.
    Constrained layout makes room for an "outside" legend, so it also stays inside the figure.
    ``columns``: as many as fit the figure's width unless given."""
    handles, labels = [], []
    for ax in fig.axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            if label not in labels:
                handles.append(handle)
                labels.append(label)
    if not labels:
        return
    fig.legend(handles, labels, loc="outside lower center", ncols=columns or legend_columns(labels, fig.get_figwidth()),
               fontsize=fontsize, frameon=False, **options)


@dataclass
class Bar:
    """One bar of :func:`interval_bars`: a stored value and its 95% interval."""

    value: float | None
    ci: tuple[float, float] | None = None


def interval_bars(ax, groups: list[str], series: dict[str, list[Bar | None]], *, colours: dict[str, str] | None = None,
                  reference: float | None = None) -> None:
    """Grouped bars on ``ax``: one group per entry of ``groups``, one bar per series in each,
    with 95% interval error bars. ``series[label][i]`` is the bar of group ``i`` (None or a NaN
    value: no bar, and "n/a" written where it would stand, so a missing number is not read as
    0). ``reference``: a dashed line (0.5: no preference; 0: no gap). Each series is one
    :class:`~matplotlib.container.BarContainer` labelled with its name (what tests read back)."""
    x = np.arange(len(groups), dtype=float)
    count = max(len(series), 1)
    width = 0.8 / count
    for k, (label, bars) in enumerate(series.items()):
        offset = (k - (count - 1) / 2) * width
        values = np.array([b.value if b is not None and b.value is not None else np.nan for b in bars], dtype=float)
        errors = np.array([[v - b.ci[0], b.ci[1] - v] if b is not None and b.ci is not None and np.isfinite(v)
                           else [0.0, 0.0] for b, v in zip(bars, values)], dtype=float).T.reshape(2, -1)
        colour = (colours or {}).get(label, f"C{k % 10}")
        ax.bar(x + offset, np.where(np.isfinite(values), values, 0.0), width * 0.92,
               yerr=np.clip(np.nan_to_num(errors), 0, None), capsize=2.5, color=colour, label=label,
               error_kw={"elinewidth": 1, "ecolor": "#333333"})
        for position, value in zip(x + offset, values):
            if not np.isfinite(value):
                ax.text(position, 0, "n/a", ha="center", va="bottom", fontsize=6, color="#555555", rotation=90)
    if reference is not None:
        ax.axhline(reference, color="#444444", linestyle="--", linewidth=1)
    ax.set_xticks(x, groups, rotation=30 if max((len(g) for g in groups), default=0) > 8 else 0,
                  ha="right" if max((len(g) for g in groups), default=0) > 8 else "center", fontsize=8)
    ax.grid(axis="y", alpha=0.3)


def bar_figure(groups: list[str], series: dict[str, list[Bar | None]], title: str, ylabel: str, *,
               ylim: tuple[float, float] | None = None, colours: dict[str, str] | None = None,
               reference: float | None = None):
    """:func:`interval_bars` on a figure of its own, wide enough for its bars, legend below."""
    bars = len(groups) * max(len(series), 1)
    fig = figure(min(16.0, max(6.0, 0.28 * bars + 1.5)), 3.9)
    ax = fig.add_subplot()
    interval_bars(ax, groups, series, colours=colours, reference=reference)
    if ylim is not None:
        ax.set_ylim(*ylim)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    legend_below(fig)
    return fig


def metric_lines(series: dict[str, list[SeriesPoint]], title: str, ylabel: str, xlabel: str = "training step",
                 warning: str | None = None) -> bytes:
    """One line per series against training step, with a shaded band where intervals exist."""
    return to_png(metric_figure(series, title, ylabel, xlabel, warning))


__all__ = ["DPI", "GENDER_COLOURS", "SeriesPoint", "Bar", "figure", "to_png", "png_is_blank", "line_style",
           "legend_columns", "legend_below", "interval_bars", "bar_figure", "metric_figure", "metric_lines"]
