"""The report's word-sense section: accuracy by sense frequency index μ and by polysemy degree δ.

The numbers come from the ``wsd_bias`` probe itself (its result meta holds
``accuracy_by_mu``/``accuracy_by_delta`` with intervals); nothing is re-derived here.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .plots import _figure, to_png

GROUPINGS = (("accuracy_by_mu", "μ: sense frequency index (1 = most frequent sense)"),
             ("accuracy_by_delta", "δ: number of senses of the lemma"))


def wsd_groups(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """Result rows of one checkpoint → {probe label: {"accuracy_by_mu": [...], ...}}."""
    out: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for row in rows:
        meta = row.get("meta") or {}
        if not str(row.get("probe", "")).startswith("wsd_bias") or "accuracy_by_mu" not in meta:
            continue
        label = row.get("label") or row["probe"]
        out.setdefault(label, {key: list(meta.get(key) or []) for key, _ in GROUPINGS})
    return out


def accuracy_by_group(series: dict[str, list[dict[str, Any]]], xlabel: str, title: str) -> bytes:
    """One line per system: accuracy per group with 95% interval bars; point size ~ items."""
    fig = _figure(6.4, 3.8)
    ax = fig.add_subplot()
    offsets = np.linspace(-0.15, 0.15, max(len(series), 1))
    for offset, (label, groups) in zip(offsets, sorted(series.items())):
        groups = sorted(groups, key=lambda g: g["group"])
        if not groups:
            continue
        x = np.array([g["group"] for g in groups], dtype=float) + offset
        y = np.array([g["accuracy"] for g in groups], dtype=float)
        err = np.array([[v - g["ci"][0], g["ci"][1] - v] if g.get("ci") else [0.0, 0.0]
                        for g, v in zip(groups, y)]).T.reshape(2, -1)
        sizes = np.array([g["n"] for g in groups], dtype=float)
        line = ax.errorbar(x, y, yerr=np.clip(err, 0, None), marker="o", markersize=0, capsize=3, linewidth=1,
                           label=f"{label} (n = {int(sizes.sum())})")
        ax.scatter(x, y, s=12 + 8 * sizes, color=line[0].get_color(), zorder=3)
    ax.set_ylim(-0.05, 1.05)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("accuracy = GOOD / (GOOD + BAD)")
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    if series:
        ax.legend(fontsize=7, loc="best")
    return to_png(fig)
