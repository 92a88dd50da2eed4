"""Small linear classifiers in numpy + scipy (scikit-learn is not a dependency).

Both minimise an L2-regularised convex loss with L-BFGS: the logistic loss (logistic
regression) or the squared hinge loss (a linear SVM, smooth so L-BFGS applies). Features are
used as given; the bias is not regularised.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

CLASSIFIERS = ("logistic", "svm")


@dataclass
class LinearClassifier:
    weight: np.ndarray  # (d,)
    bias: float

    def decision(self, x: np.ndarray) -> np.ndarray:
        return np.asarray(x, dtype=np.float64) @ self.weight + self.bias

    def predict(self, x: np.ndarray) -> np.ndarray:
        return (self.decision(x) > 0).astype(int)

    def accuracy(self, x: np.ndarray, y: np.ndarray) -> float:
        return float(np.mean(self.predict(x) == np.asarray(y).astype(int)))


def fit_linear(x: np.ndarray, y: np.ndarray, kind: str = "logistic", l2: float = 1e-2,
               max_iter: int = 500) -> LinearClassifier:
    """Fit a binary linear classifier; ``y`` holds 0/1 labels."""
    if kind not in CLASSIFIERS:
        raise ValueError(f"unknown classifier {kind!r}; choose one of {', '.join(CLASSIFIERS)}")
    x = np.asarray(x, dtype=np.float64)
    signs = np.where(np.asarray(y) > 0, 1.0, -1.0)
    n, d = x.shape
    # Scale so l2 means the same thing whatever the size of the embedding values.
    scale = float(np.sqrt(np.mean(np.sum(x ** 2, axis=1)))) or 1.0
    xs = x / scale

    def loss(params: np.ndarray) -> tuple[float, np.ndarray]:
        w, b = params[:d], params[d]
        margin = signs * (xs @ w + b)
        if kind == "logistic":
            value = np.logaddexp(0.0, -margin).mean()
            coef = -signs * expit(-margin) / n
        else:
            slack = np.maximum(0.0, 1.0 - margin)
            value = (slack ** 2).mean()
            coef = -2.0 * signs * slack / n
        grad_w = xs.T @ coef + l2 * w
        grad_b = coef.sum()
        return value + 0.5 * l2 * float(w @ w), np.concatenate([grad_w, [grad_b]])

    result = minimize(loss, np.zeros(d + 1), jac=True, method="L-BFGS-B",
                      options={"maxiter": max_iter})
    return LinearClassifier(weight=result.x[:d] / scale, bias=float(result.x[d]))
