"""LEAst-squares Concept Erasure (Belrose et al. 2023), closed form for a binary concept.

LEACE is the smallest (in the whitened least-squares sense) affine edit after which the
cross-covariance between the embeddings and the gender label is zero — and then no linear
classifier does better than a constant predictor on the data it was fitted on. With
``Σ`` the embedding covariance, ``W = Σ^{-1/2}`` (pseudo-inverse square root on the data's
span), ``σ`` the cross-covariance with the label and ``u = Wσ/|Wσ|``:

    r(x) = x − W⁺ u uᵀ W (x − μ)

Embedding tables have more dimensions than gendered words, so ``Σ`` is singular; eigenvalues
below ``rank_tolerance`` × the largest are treated as zero (the pseudo-inverse), which is exact
because ``σ`` always lies in the span of the centred data.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..options import Range
from .base import Eraser, labelled


class LeaceEraser(Eraser):
    name = "leace"
    option_ranges = {"rank_tolerance": Range(0)}  # see mtdebias/options.py

    def __init__(self, rank_tolerance: float = 1e-10):
        self.rank_tolerance = rank_tolerance
        self.mean: np.ndarray | None = None
        self.left: np.ndarray | None = None  # W⁺ u  (d,)
        self.right: np.ndarray | None = None  # Wᵀ u (d,), W symmetric
        self.rank = 0
        self.cross_covariance_norm = 0.0

    def _fit(self, female: np.ndarray, male: np.ndarray) -> None:
        x, y = labelled(female, male)
        self.mean = x.mean(axis=0)
        centred = x - self.mean
        cov = centred.T @ centred / len(x)
        cross = centred.T @ (y - y.mean()) / len(x)
        values, vectors = np.linalg.eigh(cov)
        keep = values > self.rank_tolerance * max(float(values.max()), 1e-300)
        v, lam = vectors[:, keep], values[keep]
        whiten = (v / np.sqrt(lam)) @ v.T
        unwhiten = (v * np.sqrt(lam)) @ v.T
        u = whiten @ cross
        norm = float(np.linalg.norm(u))
        self.rank = int(keep.sum())
        self.cross_covariance_norm = float(np.linalg.norm(cross))
        d = x.shape[1]
        if norm < 1e-300:  # no linear signal at all: the identity is the least change
            self.left = self.right = np.zeros(d)
            return
        u /= norm
        self.left = unwhiten @ u
        self.right = whiten @ u

    def transform(self, rows: np.ndarray) -> np.ndarray:
        if self.mean is None:
            raise RuntimeError("fit the eraser before transforming")
        rows = np.asarray(rows, dtype=np.float64)
        return rows - np.outer((rows - self.mean) @ self.right, self.left)

    def diagnostics(self) -> dict[str, Any]:
        return {"method": self.name, "covariance_rank": self.rank,
                "cross_covariance_norm": self.cross_covariance_norm}
