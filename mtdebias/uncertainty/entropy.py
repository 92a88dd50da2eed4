"""Entropies of ε-samples through one per-element surprisal.

With n samples deduplicated into unique outputs y_1..y_k with counts c_1..c_k (p_j = c_j / n)
and a similarity matrix S over them (see :mod:`.similarity`):

    I(y_i) = -log Σ_j p_j S(y_i, y_j)          H = Σ_i p_i I(y_i)

* S = identity → Shannon entropy of the empirical distribution;
* S = 1[same cluster] → cluster entropy: semantic entropy (NLI clusters) and gender entropy
  (gender class of the focus noun), since I(y) = -log p(cluster of y);
* S = clamp(cos)^α → similarity-sensitive Shannon entropy (S3E).

An output outside the samples (a reference translation, for ΔI) gets the same surprisal,
I(y) = −log Σ_j p_j S(y, y_j), with no pseudo-sample: infinite when S(y, ·) is 0 for every
sample (:func:`surprisal_of`, :func:`s3e_surprisal_of`; :func:`pseudo_sample_surprisal` is the
earlier rule, kept by name).

Samples are deduplicated with counts *before* any embedding or NLI call, and cached per
checkpoint (:class:`SampleCache`) so metrics can be recomputed without decoding again.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

import numpy as np

from ..store.atomic import read_jsonl, write_jsonl
from ..errors import InputError
from ..signature import hash_json
from .similarity import cluster_similarity, cosine_matrix, s3e_similarity


@dataclass(frozen=True)
class Deduped:
    """Unique samples (in first-seen order) and how often each was drawn."""

    texts: tuple[str, ...]
    counts: tuple[int, ...]

    @property
    def n(self) -> int:
        return sum(self.counts)

    @property
    def probs(self) -> np.ndarray:
        c = np.asarray(self.counts, dtype=float)
        return c / c.sum()


def dedup(samples: Iterable[str]) -> Deduped:
    counts = Counter(samples)  # insertion-ordered: first-seen order
    if not counts:
        raise ValueError("no samples to deduplicate")
    return Deduped(tuple(counts), tuple(counts.values()))


def dedup_saving(groups: Sequence[Deduped]) -> float:
    """Share of embedding/NLI inputs saved by deduplication: 1 − unique / drawn."""
    drawn = sum(d.n for d in groups)
    return 0.0 if drawn == 0 else 1.0 - sum(len(d.texts) for d in groups) / drawn


# --------------------------------------------------------------------------- the core


def surprisals(similarity: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """I(y_i) = -log Σ_j p_j S(y_i, y_j) for every unique sample."""
    expected = np.asarray(similarity, dtype=float) @ np.asarray(probs, dtype=float)
    return -np.log(np.clip(expected, 1e-300, None))


def entropy(similarity: np.ndarray, probs: np.ndarray) -> float:
    """H = Σ_i p_i I(y_i); exactly 0 for a single unique sample."""
    probs = np.asarray(probs, dtype=float)
    value = float(probs @ surprisals(similarity, probs))
    return max(value, 0.0) if abs(value) < 1e-12 else value


def surprisal_of(similarity_to_samples: np.ndarray, probs: np.ndarray) -> float:
    """The paper's I(y) = −log Σ_j p_j S(y, y_j) of an outside output y (a reference translation)
    under the samples; ``inf`` when S(y, y_j) = 0 for every sample (SE, GE: y lies outside
    every sample cluster). What an infinite surprisal does to ΔI is the metrics' rule
    (:func:`mtdebias.uncertainty.metrics.delta_i_items`)."""
    expected = float(np.asarray(similarity_to_samples, dtype=float) @ np.asarray(probs, dtype=float))
    return math.inf if expected <= 0.0 else -math.log(expected)


def s3e_surprisal_of(cosines_to_samples: np.ndarray, probs: np.ndarray, alpha: float) -> float:
    """S3E's I(y) = −log Σ_j p_j S(y, y_j) with S = clamp(cos, 0, 1)^α, summed in log space.

    cos^α > 0 for every positive cosine, so I is finite unless every cosine is ≤ 0 (then
    ``inf``, as for a reference outside every cluster). The log-sum-exp matters: at α = 256 a
    cosine below 0.063 underflows to 0 in floating point (0.063^256 < 1e-307), which would turn a
    finite surprisal into an infinite one."""
    cos = np.asarray(cosines_to_samples, dtype=float)
    probs = np.asarray(probs, dtype=float)
    positive = (cos > 0.0) & (probs > 0.0)
    if not positive.any():
        return math.inf
    logs = alpha * np.log(np.minimum(cos[positive], 1.0)) + np.log(probs[positive])
    top = float(logs.max())
    return -(top + math.log(float(np.exp(logs - top).sum())))


def pseudo_sample_surprisal(surprisal: float, n: int) -> float:
    """The surprisal under the earlier, non-default rule ``surprisal = "pseudo-sample"``: y
    counted as one extra sample (weight 1/(n+1), S(y, y) = 1), i.e. −log((n·E + 1)/(n + 1))
    with E = exp(−I). Caps every surprisal at log(n + 1) (4.86 for 128 samples), which the
    paper's formula does not (its Table 12 has S3E surprisals up to 219). NaN stays NaN."""
    if math.isnan(surprisal):
        return surprisal
    expected = 0.0 if math.isinf(surprisal) else math.exp(-surprisal)
    return -math.log((n * expected + 1.0) / (n + 1))


@dataclass(frozen=True)
class EntropyResult:
    value: float
    surprisals: tuple[float, ...]  # per unique sample
    labels: tuple | None = None  # cluster of each unique sample (SE, GE)
    method: str = ""


def cluster_entropy(d: Deduped, labels: Sequence, method: str) -> EntropyResult:
    sim = cluster_similarity(labels)
    return EntropyResult(entropy(sim, d.probs), tuple(surprisals(sim, d.probs)), tuple(labels), method)


def semantic_entropy(d: Deduped, clusterer) -> EntropyResult:
    """SE: clusters by bidirectional entailment (or the cosine-threshold fallback)."""
    return cluster_entropy(d, clusterer.cluster(list(d.texts)), clusterer.method)


def s3e(d: Deduped, cosines: np.ndarray, alpha: float) -> EntropyResult:
    """S3E from the cosine matrix of the unique samples (kept so α can be tuned without re-embedding)."""
    sim = s3e_similarity(cosines, alpha)
    return EntropyResult(entropy(sim, d.probs), tuple(surprisals(sim, d.probs)), None, f"s3e(alpha={alpha:g})")


UNDETECTED = "undetected"


def gender_entropy(d: Deduped, gender_of: Callable[[str], str]) -> tuple[EntropyResult, float]:
    """GE: clusters are the gender class of the translated focus noun; "undetected" is a class
    of its own. Returns the entropy and the share of samples whose gender was undetected."""
    labels = [gender_of(t) for t in d.texts]
    undetected = float(sum(c for c, lab in zip(d.counts, labels) if lab == UNDETECTED)) / d.n
    return cluster_entropy(d, labels, "gender"), undetected


# the exponents α is tuned over: the probe stores S3E at each of them, so metrics() can tune
# α from the stored attempts alone (and a bootstrap over items re-tunes it in every resample)
ALPHAS = (0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256)


def pick_alpha(values_by_alpha: Mapping[float, Sequence[float]], targets: Sequence[float],
               correlation: str = "spearman") -> tuple[float, dict[float, float]]:
    """α whose S3E values (``values_by_alpha[α]``, one per item) correlate best with ``targets``
    (gender entropy). Returns the best α and the correlation of every α tried (NaN where
    undefined, e.g. when one side is constant). Ties go to the smallest α."""
    from scipy import stats

    corr_fn = {"spearman": stats.spearmanr, "pearson": stats.pearsonr}[correlation]
    table: dict[float, float] = {}
    for alpha, values in values_by_alpha.items():
        if len(values) != len(targets):
            raise ValueError("S3E values and targets must have one entry per item")
        if np.std(values) == 0 or np.std(targets) == 0:
            table[alpha] = float("nan")
            continue
        with warnings.catch_warnings():  # near-constant values (a bootstrap resample): NaN, said below
            warnings.simplefilter("ignore", stats.ConstantInputWarning)
            table[alpha] = float(corr_fn(values, targets)[0])
    finite = {a: r for a, r in table.items() if not math.isnan(r)}
    if not finite:
        raise InputError("cannot tune α: S3E or gender entropy is constant on the validation items",
                         hint="use more validation items or samples, or pass a fixed alpha")
    best = max(finite.values())
    return min(a for a, r in finite.items() if r == best), table


def tune_alpha(cosines: Sequence[np.ndarray], deduped: Sequence[Deduped], targets: Sequence[float],
               alphas: Sequence[float] = ALPHAS, correlation: str = "spearman") -> tuple[float, dict[float, float]]:
    """α maximising the correlation between S3E and ``targets`` over items (:func:`pick_alpha`
    on S3E computed from each item's cosine matrix)."""
    if len(cosines) != len(deduped) or len(deduped) != len(targets):
        raise ValueError("cosines, deduped and targets must have one entry per item")
    return pick_alpha({alpha: [s3e(d, c, alpha).value for d, c in zip(deduped, cosines)] for alpha in alphas},
                      targets, correlation)


# --------------------------------------------------------------------------- sample cache


def sample_key(source: str, n: int, epsilon: float, temperature: float, seed: int) -> str:
    return hash_json({"source": source, "n": n, "epsilon": epsilon, "temperature": temperature, "seed": seed})


class SampleCache:
    """Deduplicated samples of one checkpoint, one JSONL record per (source, settings).

    The whole file is rewritten atomically after each batch, so an interrupted run keeps every
    finished batch and never leaves a torn line.
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._rows: dict[str, dict] = {}
        for number, row in enumerate(read_jsonl(self.path), 1):
            if not isinstance(row, dict) or not {"key", "texts", "counts"} <= set(row):
                raise InputError("not a sample-cache record", path=self.path, line=number,
                                 hint="delete the file to sample again")
            self._rows[row["key"]] = row

    def __len__(self) -> int:
        return len(self._rows)

    def get(self, key: str) -> Deduped | None:
        row = self._rows.get(key)
        return None if row is None else Deduped(tuple(row["texts"]), tuple(row["counts"]))

    def put(self, key: str, source: str, settings: dict, d: Deduped) -> None:
        self._rows[key] = {"key": key, "source": source, **settings, "texts": list(d.texts), "counts": list(d.counts)}

    def save(self) -> None:
        write_jsonl(self.path, self._rows.values())


def cached_samples(translator, sources: Sequence[str], n: int, epsilon: float, temperature: float = 1.0,
                   seed: int = 0, cache: SampleCache | None = None, batch_size: int = 16,
                   progress: bool = False) -> list[Deduped]:
    """ε-samples for every source, deduplicated, from the cache where possible.

    Missing sources are sampled in batches of ``batch_size``; the cache is saved after each.
    """
    settings = {"n": n, "epsilon": epsilon, "temperature": temperature, "seed": seed}
    keys = [sample_key(s, **settings) for s in sources]
    out: dict[str, Deduped] = {}
    missing = []
    for source, key in zip(sources, keys):
        hit = cache.get(key) if cache is not None else None
        if hit is not None:
            out[key] = hit
        elif key not in out and source not in missing:
            missing.append(source)
    batches = range(0, len(missing), batch_size)
    if progress:
        from tqdm import tqdm

        batches = tqdm(batches, desc="sampling", unit="batch")
    for start in batches:
        chunk = missing[start:start + batch_size]
        drawn = translator.sample(chunk, n=n, epsilon=epsilon, temperature=temperature, seed=seed)
        if len(drawn) != len(chunk) or any(len(s) != n for s in drawn):
            raise InputError(f"translator returned {[len(s) for s in drawn]} samples for {len(chunk)} sources, "
                             f"expected {n} each", hint="the translator's sample() breaks the protocol")
        for source, samples in zip(chunk, drawn):
            key = sample_key(source, **settings)
            out[key] = dedup(samples)
            if cache is not None:
                cache.put(key, source, settings, out[key])
        if cache is not None:
            cache.save()
    return [out[k] for k in keys]


__all__ = ["Deduped", "dedup", "dedup_saving", "surprisals", "entropy", "surprisal_of", "s3e_surprisal_of",
           "pseudo_sample_surprisal", "EntropyResult",
           "cluster_entropy", "semantic_entropy", "s3e", "gender_entropy", "tune_alpha", "pick_alpha", "ALPHAS", "SampleCache",
           "cached_samples", "sample_key", "cosine_matrix", "UNDETECTED"]
