"""Figures for reports, drawn with matplotlib's Agg renderer and returned as PNG bytes: the
shared pieces (a figure, PNG bytes, lines against training step); probes draw their own views
with them.

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


# More series than this and the legend leaves the axes: inside, it would cover the lines, and past
# about twenty entries it runs off the figure, so most lines could not be told apart.
LEGEND_INSIDE = 12
_LINESTYLES = ["-", "--", "-.", ":"]
_MARKERS = ["o", "s", "^", "v", "D", "P", "X", "*", "<", ">"]


def line_style(k: int) -> dict:
    """Colour, line style and marker of the k-th series: the three vary at different rates, so
    the first 10 × 4 × 10 = 400 series each look different (colour alone repeats after 10)."""
    return {"color": f"C{k % 10}", "linestyle": _LINESTYLES[(k // 10) % len(_LINESTYLES)],
            "marker": _MARKERS[(k // 40) % len(_MARKERS)]}


def metric_figure(series: dict[str, list[SeriesPoint]], title: str, ylabel: str, xlabel: str = "training step",
                  warning: str | None = None):
    """:func:`metric_lines` as a Figure. With many series the legend goes below the axes in as
    many columns as the longest label allows, and the figure grows to hold every entry."""
    many = len(series) > LEGEND_INSIDE
    width = 10.0 if len(series) > 40 else 6.0
    columns = rows = 0
    if many:
        longest = max(len(label) for label in series)
        # a legend entry at 7 pt: about 0.45 in of handle and padding, 0.055 in a character
        columns = max(1, min(len(series), int((width - 0.3) // (0.45 + 0.055 * longest))))
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
    if many:  # constrained layout keeps an "outside" legend clear of the axes and inside the figure
        fig.legend(loc="outside lower center", ncols=columns, fontsize=7, frameon=False)
    elif series:
        ax.legend(fontsize=7, loc="best")
    return fig


def metric_lines(series: dict[str, list[SeriesPoint]], title: str, ylabel: str, xlabel: str = "training step",
                 warning: str | None = None) -> bytes:
    """One line per series against training step, with a shaded band where intervals exist."""
    return to_png(metric_figure(series, title, ylabel, xlabel, warning))


__all__ = ["DPI", "GENDER_COLOURS", "SeriesPoint", "figure", "to_png", "png_is_blank", "line_style", "metric_figure",
           "metric_lines"]
