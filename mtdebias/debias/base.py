"""The interface every linear eraser shares: fit on gendered embeddings, transform rows.

An eraser is fitted on two aligned sets of embeddings — female and male words (rows ``i`` of
the two arrays form a definitional pair, which hard-debiasing needs and the classifier-based
methods simply use as labelled examples) — and then maps any other rows (the gender-neutral
words) to rows carrying no gender information in the eraser's sense. Rescaling rows back to
their original norms is left to the caller (:func:`restore_norms`), because NMT embedding
tables are not unit-normalised and whether to keep norms is a per-application choice.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from ..errors import InputError


class Eraser(ABC):
    name: str = "eraser"

    def fit(self, female: np.ndarray, male: np.ndarray) -> "Eraser":
        female = np.asarray(female, dtype=np.float64)
        male = np.asarray(male, dtype=np.float64)
        if female.ndim != 2 or male.ndim != 2 or female.shape[1] != male.shape[1]:
            raise InputError(f"expected two (n, d) arrays with the same d, got {female.shape} and {male.shape}")
        if len(female) < 2 or len(male) < 2:
            raise InputError(f"{len(female)} female and {len(male)} male examples; at least 2 of each are "
                             "needed", hint="use more definitional pairs whose words are one token")
        self._fit(female, male)
        return self

    @abstractmethod
    def _fit(self, female: np.ndarray, male: np.ndarray) -> None: ...

    @abstractmethod
    def transform(self, rows: np.ndarray) -> np.ndarray:
        """Erased copies of ``rows`` (n, d); the input is not modified."""

    def diagnostics(self) -> dict[str, Any]:
        return {"method": self.name}


def labelled(female: np.ndarray, male: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Stack the two sets into (X, y) with y = 1 for female, 0 for male."""
    x = np.concatenate([female, male]).astype(np.float64)
    y = np.concatenate([np.ones(len(female)), np.zeros(len(male))])
    return x, y


def restore_norms(new: np.ndarray, old: np.ndarray, eps: float = 1e-12) -> np.ndarray:
    """Rescale each row of ``new`` to the norm of the same row of ``old``.

    Scaling a row does not change whether it is orthogonal to a direction, so neutralised rows
    stay neutral. A row erased to (almost) nothing cannot be rescaled and is left as it is.
    """
    new = np.array(new, dtype=np.float64)
    new_norm = np.linalg.norm(new, axis=1)
    old_norm = np.linalg.norm(np.asarray(old, dtype=np.float64), axis=1)
    ok = new_norm > eps
    new[ok] *= (old_norm[ok] / new_norm[ok])[:, None]
    return new


def check_eraser(obj: Any, name: str, where: str) -> None:
    """What a debiasing-method registry entry must name (built-in or plugin, checked when loaded):
    a subclass of :class:`Eraser`."""
    from ..errors import ConfigError

    if not (isinstance(obj, type) and issubclass(obj, Eraser)):
        raise ConfigError(f"{where}: names {obj!r}, not an eraser class",
                          hint="subclass mtdebias.debias.base.Eraser")
