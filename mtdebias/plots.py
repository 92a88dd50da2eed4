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


def metric_lines(series: dict[str, list[SeriesPoint]], title: str, ylabel: str, xlabel: str = "training step",
                 warning: str | None = None) -> bytes:
    """One line per series against training step, with a shaded band where intervals exist."""
    fig = figure()
    ax = fig.add_subplot()
    styles = ["-", "--", "-.", ":"]
    for k, (label, points) in enumerate(sorted(series.items())):
        points = sorted(points, key=lambda p: p.step)
        x = np.array([p.step for p in points], dtype=float)
        y = np.array([p.value for p in points], dtype=float)
        line, = ax.plot(x, y, marker="o", markersize=4, linestyle=styles[(k // 10) % len(styles)], label=label)
        if any(p.ci is not None for p in points):
            lo = np.array([p.ci[0] if p.ci else p.value for p in points], dtype=float)
            hi = np.array([p.ci[1] if p.ci else p.value for p in points], dtype=float)
            ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.18, linewidth=0)
    ax.set_title(("⚠ " if warning else "") + title, fontsize=10, color="#b00020" if warning else "black")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    if series:
        ax.legend(fontsize=7, loc="best")
    return to_png(fig)


__all__ = ["DPI", "GENDER_COLOURS", "SeriesPoint", "figure", "to_png", "png_is_blank", "metric_lines"]
