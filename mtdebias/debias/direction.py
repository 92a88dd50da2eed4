"""The gender direction of an embedding table (Bolukbasi et al. 2016).

Each definitional pair (she/he, woman/man, …) is centred on its own mean; the first principal
component of all the centred vectors is the direction along which the pairs differ most.
Centring per pair removes what the two words share (their meaning as pronouns, as kin terms…),
leaving mostly their difference in gender. The share of variance the first component explains
says how one-dimensional that difference is (Bolukbasi et al. report it dominating for
word2vec; NMT tables are typically less clean, so it is reported, not assumed).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError


@dataclass(frozen=True)
class GenderDirection:
    vector: np.ndarray  # unit vector (d,), oriented so female words project higher than male ones
    variance_explained: float  # share of the centred pairs' variance on the first component
    spectrum: tuple[float, ...]  # variance shares of the first (up to) 10 components
    n_pairs: int

    def project(self, rows: np.ndarray) -> np.ndarray:
        return np.asarray(rows, dtype=np.float64) @ self.vector


def gender_direction(female: np.ndarray, male: np.ndarray) -> GenderDirection:
    """First principal component of the per-pair centred embeddings of aligned pairs."""
    female = np.asarray(female, dtype=np.float64)
    male = np.asarray(male, dtype=np.float64)
    if female.shape != male.shape or female.ndim != 2:
        raise InputError(f"female and male embeddings must be aligned (n, d) arrays, got "
                         f"{female.shape} and {male.shape}")
    if len(female) < 2:
        raise InputError(f"{len(female)} usable definitional pair(s); at least 2 are needed",
                         hint="add pairs whose two words are single tokens in this vocabulary")
    centre = (female + male) / 2
    # Rows are (f - c) and (m - c) = -(f - c): the PCA is that of the half differences.
    centred = np.concatenate([female - centre, male - centre])
    _, singular, vt = np.linalg.svd(centred, full_matrices=False)
    variance = singular ** 2
    total = float(variance.sum())
    if total <= 0:
        raise InputError("the definitional pairs have identical embeddings; no direction exists")
    vector = vt[0]
    if float(np.mean((female - male) @ vector)) < 0:
        vector = -vector
    shares = tuple(float(v / total) for v in variance[:10])
    return GenderDirection(vector=vector, variance_explained=shares[0], spectrum=shares,
                           n_pairs=len(female))
