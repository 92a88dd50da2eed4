"""Iterative nullspace projection (Ravfogel et al. 2020).

Repeatedly train a linear classifier to tell female from male embeddings, then project the
embeddings onto the nullspace of every classifier direction found so far; stop after
``n_iterations`` or once the classifier is no better than the majority class. The result is one
orthogonal projection ``P = I − Q Qᵀ`` (``Q`` an orthonormal basis of the removed directions),
applied to the rows to be debiased.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..options import Range
from .base import Eraser, labelled
from .linear import CLASSIFIERS, fit_linear


class INLPEraser(Eraser):
    name = "inlp"
    # the allowed range of each numeric setting (its type is __init__'s annotation): mtdebias/options.py
    option_ranges = {"n_iterations": Range(1), "l2": Range(0, low_open=True), "tolerance": Range(0, high=1),
                     "dev_fraction": Range(0, high=1), "seed": Range(0)}

    def __init__(self, n_iterations: int = 10, classifier: str = "logistic", l2: float = 1e-2,
                 tolerance: float = 0.01, dev_fraction: float = 0.0, seed: int = 0):
        if classifier not in CLASSIFIERS:
            raise ValueError(f"unknown classifier {classifier!r}; choose one of {', '.join(CLASSIFIERS)}")
        self.n_iterations = n_iterations
        self.classifier = classifier
        self.l2 = l2
        self.tolerance = tolerance  # stop once accuracy <= majority rate + tolerance
        self.dev_fraction = dev_fraction  # judge accuracy on a held-out share (0 = training data)
        self.seed = seed
        self.basis: np.ndarray | None = None  # (k, d) orthonormal removed directions
        self.accuracies: list[float] = []

    def _fit(self, female: np.ndarray, male: np.ndarray) -> None:
        x, y = labelled(female, male)
        d = x.shape[1]
        order = np.random.default_rng(self.seed).permutation(len(x))
        n_dev = int(round(self.dev_fraction * len(x)))
        dev, train = order[:n_dev], order[n_dev:]
        judge = dev if n_dev else train
        majority = max(float(y[judge].mean()), 1 - float(y[judge].mean()))
        projection = np.eye(d)
        directions: list[np.ndarray] = []
        self.accuracies = []
        for _ in range(min(self.n_iterations, d - 1)):
            projected = x @ projection
            clf = fit_linear(projected[train], y[train], self.classifier, self.l2)
            accuracy = clf.accuracy(projected[judge], y[judge])
            self.accuracies.append(accuracy)
            if accuracy <= majority + self.tolerance:
                break
            w = projection @ clf.weight  # keep it inside the current nullspace
            if np.linalg.norm(w) < 1e-12:
                break
            directions.append(w / np.linalg.norm(w))
            q, _ = np.linalg.qr(np.stack(directions).T)
            projection = np.eye(d) - q @ q.T
        self.basis = (np.linalg.qr(np.stack(directions).T)[0].T if directions else np.zeros((0, d)))

    def transform(self, rows: np.ndarray) -> np.ndarray:
        if self.basis is None:
            raise RuntimeError("fit the eraser before transforming")
        rows = np.asarray(rows, dtype=np.float64)
        return rows - (rows @ self.basis.T) @ self.basis

    def diagnostics(self) -> dict[str, Any]:
        return {"method": self.name, "classifier": self.classifier,
                "directions_removed": 0 if self.basis is None else int(len(self.basis)),
                "classifier_accuracy_by_iteration": self.accuracies}
