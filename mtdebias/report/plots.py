"""The report's figures, drawn with matplotlib's Agg renderer and returned as PNG bytes.

Figures are built on :class:`matplotlib.figure.Figure` directly (not pyplot), so drawing a
report neither needs a display nor touches pyplot's global state in the caller's process.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Sequence

import numpy as np

DPI = 90
GENDER_COLOURS = {"female": "#c2185b", "male": "#1565c0", "neutral": "#6a6a6a", "-": "#6a6a6a"}
AMBIGUITY_COLOURS = {"unambiguous": "#2e7d32", "ambiguous": "#ef6c00"}


@dataclass
class SeriesPoint:
    step: float
    value: float
    ci: tuple[float, float] | None = None


def _figure(width: float = 6.0, height: float = 3.6):
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
    fig = _figure()
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


def accuracy_bars(rows: Sequence[dict], title: str = "Acc_f and Acc_m per run and name type") -> bytes:
    """Grouped bars: one group per (run, name type), a female and a male bar, CI error bars.

    ``rows`` hold ``label`` (e.g. "baseline · first"), ``acc_f``, ``acc_m`` and optional
    ``acc_f_ci``/``acc_m_ci`` (low, high).
    """
    fig = _figure(max(6.0, 0.9 * len(rows) + 2), 3.8)
    ax = fig.add_subplot()
    x = np.arange(len(rows))
    width = 0.38
    for offset, key, gender in ((-width / 2, "acc_f", "female"), (width / 2, "acc_m", "male")):
        values = np.array([r.get(key, np.nan) for r in rows], dtype=float)
        errors = np.array([[v - r[f"{key}_ci"][0], r[f"{key}_ci"][1] - v] if r.get(f"{key}_ci") and np.isfinite(v)
                           else [0.0, 0.0] for r, v in zip(rows, values)]).T.reshape(2, -1)
        ax.bar(x + offset, np.nan_to_num(values), width, yerr=np.clip(errors, 0, None), capsize=3,
               color=GENDER_COLOURS[gender], label=f"Acc_{gender[0]} ({gender} names)")
    ax.set_xticks(x, [r["label"] for r in rows], rotation=30, ha="right", fontsize=8)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("accuracy")
    ax.set_title(title, fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8)
    return to_png(fig)


def positiveness(fillers: Sequence[dict], measure: str, title: str) -> bytes:
    """Per-filler ``measure`` (t or s) as points, grouped by profession group, coloured by gender,
    with the mean of each (group, gender) cell as a bar; the extreme fillers are labelled."""
    groups = sorted({str(f.get("group", "-")) for f in fillers})
    genders = sorted({str(f.get("gender", "-")) for f in fillers})
    fig = _figure(max(6.0, 1.2 * len(groups) + 2), 3.8)
    ax = fig.add_subplot()
    rng = np.random.default_rng(0)  # fixed jitter: the same data draw the same picture
    span = 0.7
    step = span / max(len(genders), 1)
    for g_index, gender in enumerate(genders):
        offset = -span / 2 + step * (g_index + 0.5)
        colour = GENDER_COLOURS.get(gender, f"C{g_index + 2}")
        xs_all, ys_all = [], []
        for x, group in enumerate(groups):
            values = [float(f[measure]) for f in fillers if str(f.get("group", "-")) == group
                      and str(f.get("gender", "-")) == gender]
            if not values:
                continue
            xs = x + offset + rng.uniform(-step / 4, step / 4, len(values))
            xs_all += list(xs)
            ys_all += values
            ax.hlines(np.mean(values), x + offset - step / 2.5, x + offset + step / 2.5, color=colour, linewidth=2.5)
        ax.scatter(xs_all, ys_all, s=14, alpha=0.75, color=colour, label=gender)
    ordered = sorted(fillers, key=lambda f: float(f[measure]))
    for f in (ordered[0], ordered[-1]) if len(ordered) > 1 else ():
        x = groups.index(str(f.get("group", "-")))
        ax.annotate(str(f.get("filler", "")), (x, float(f[measure])), fontsize=7, xytext=(4, 2),
                    textcoords="offset points")
    ax.set_xticks(range(len(groups)), groups, rotation=20, ha="right", fontsize=8)
    ax.set_ylabel(measure)
    ax.set_title(title, fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, title="gender", title_fontsize=8)
    return to_png(fig)


def entropy_violins(values: dict[str, dict[str, list[float]]], title: str) -> bytes:
    """One panel per entropy kind, a violin each for unambiguous and ambiguous inputs.

    ``values[kind][label]`` are the per-item entropies. A side with fewer than two distinct
    values has no density to draw, so its items are shown as points instead.
    """
    kinds = list(values)
    fig = _figure(max(4.0, 2.8 * len(kinds)), 3.6)
    axes = fig.subplots(1, len(kinds), squeeze=False)[0]
    labels = ["unambiguous", "ambiguous"]
    for ax, kind in zip(axes, kinds):
        for x, label in enumerate(labels):
            data = np.array([v for v in values[kind].get(label, []) if np.isfinite(v)], dtype=float)
            colour = AMBIGUITY_COLOURS[label]
            if len(data) >= 2 and np.ptp(data) > 0:
                parts = ax.violinplot([data], positions=[x], showmeans=True, widths=0.8)
                for body in parts["bodies"]:
                    body.set_facecolor(colour)
                    body.set_alpha(0.5)
                for key in ("cmeans", "cmins", "cmaxes", "cbars"):
                    if key in parts:
                        parts[key].set_color(colour)
            elif len(data):
                ax.scatter(np.full(len(data), x), data, color=colour, s=14)
        ax.set_xticks(range(len(labels)),
                      [f"{lab}\n(n={len(values[kind].get(lab, []))})" for lab in labels], fontsize=8)
        ax.set_title(kind, fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("entropy")
    fig.suptitle(title, fontsize=10)
    return to_png(fig)
