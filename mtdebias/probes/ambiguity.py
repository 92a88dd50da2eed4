"""Ambiguity probe (``ambiguity.v1``): is a model uncertain where the source is ambiguous?

After Staliūnaitė, Cheng & Vlachos. Every WinoMT item becomes a contrast set {he, she, they}
(:mod:`mtdebias.uncertainty.contrast`); the "they" variant leaves the focus noun's gender
open. For every variant the probe draws n ε-samples (``translator.sample``), deduplicates
them, and measures three entropies of the sample distribution:

* SE — clusters by bidirectional NLI entailment (or the cosine-threshold fallback);
* S3E — cosine similarity of multilingual sentence embeddings, raised to α (α tuned on a
  validation split of contrast sets to correlate best with GE, or fixed);
* GE — the gender class of the translated focus noun (word alignment → detect_gender),
  ``undetected`` counting as a class of its own and reported as a share.

Metrics: mean entropy on unambiguous and ambiguous items and ΔH per entropy (ΔH < 0 is the
desired behaviour), the undetected share, and — when correct/incorrect reference translations
are supplied — ΔI per entropy and the ΔLogProb baseline. Attempts carry per-item entropies,
norm-H and bias cues, ready for :func:`mtdebias.uncertainty.anova.anova_table` through
:func:`attempts_frame`.
"""

from __future__ import annotations

import math

from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ..errors import InputError
from ..signature import Signature, hash_json
from ..stats import bootstrap_ci
from ..textio import read_lines
from ..translators.base import Translator
from ..uncertainty.contrast import ContrastItem, add_name_variants, build_contrast_sets, read_winomt
from ..uncertainty.cues import annotate_cues, load_stereotypes
from ..uncertainty.entropy import (UNDETECTED, Deduped, SampleCache, cached_samples, cluster_entropy,
                                   dedup_saving, s3e, surprisal_of, tune_alpha)
from ..uncertainty.metrics import delta_h, delta_i, delta_i_of_means, delta_logprob, finite_mean, norm_h
from ..uncertainty.similarity import CosineThresholdClusterer, NLIClusterer, cosine_matrix, load_embedder
from .base import Metric, ProbeResult

PROBE_NAME = "ambiguity.v1"
ENTROPIES = ("se", "s3e", "ge")


def load_references(path: str | Path) -> dict[str, tuple[str, str]]:
    """``source<TAB>correct translation<TAB>incorrect translation`` per line (unambiguous items)."""
    refs = {}
    for number, line in enumerate(read_lines(path), 1):
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) != 3 or not all(p.strip() for p in parts):
            raise InputError("expected 3 non-empty tab-separated columns", path=path, line=number,
                             hint="source sentence, correctly gendered translation, incorrectly gendered one")
        refs[parts[0].strip()] = (parts[1].strip(), parts[2].strip())
    return refs


def _in_validation(group: str, fraction: float, seed: int) -> bool:
    # a stable pseudo-random split by contrast set: all variants of a set fall on one side
    return int(hash_json([group, seed]), 16) / 16 ** 12 < fraction


class AmbiguityProbe:
    name = PROBE_NAME

    def __init__(self, items: Sequence[ContrastItem], lang: str, *, cues: Sequence[dict[str, str]] | None = None,
                 n: int = 128, epsilon: float = 0.02, temperature: float = 1.0, seed: int = 0,
                 references: Mapping[str, tuple[str, str]] | None = None, nli_model: str | Path | None = None,
                 embedder: Any = None, alpha: float | str = "tune", validation_fraction: float = 0.2,
                 cluster_threshold: float = 0.97, cache_dir: str | Path | None = None,
                 align_method: str = "fast_align", batch_size: int = 16, data_hash: str = "-",
                 detect: Callable[..., Any] | None = None, align: Callable[..., Any] | None = None,
                 progress: bool = False):
        if not items:
            raise InputError("the ambiguity probe got no items", hint="check the WinoMT file")
        if alpha != "tune" and not (isinstance(alpha, (int, float)) and alpha > 0):
            raise InputError(f"alpha must be a positive number or 'tune', not {alpha!r}")
        self.items = list(items)
        self.cues = list(cues) if cues is not None else [{} for _ in self.items]
        self.lang, self.n, self.epsilon, self.temperature, self.seed = lang, n, epsilon, temperature, seed
        self.references = dict(references or {})
        self.nli_model, self.alpha, self.validation_fraction = nli_model, alpha, validation_fraction
        self.cluster_threshold, self.cache_dir, self.align_method = cluster_threshold, cache_dir, align_method
        self.batch_size, self.data_hash, self.progress = batch_size, data_hash, progress
        self._embedder_spec = embedder
        self._detect, self._align = detect, align

    # options from_options passes on to the constructor (its **options); any other is refused
    EXTRA_OPTIONS = ("n", "epsilon", "temperature", "seed", "nli_model", "embedder", "alpha", "validation_fraction",
                     "cluster_threshold", "cache_dir", "align_method", "batch_size", "progress")

    @classmethod
    def from_options(cls, lang: str, data: str | Path, pro: str | Path | None = None,
                     anti: str | Path | None = None, *, names: bool = False, limit: int | None = None,
                     references: str | Path | None = None, **options: Any) -> "AmbiguityProbe":
        """Build from file paths: WinoMT data (+ pro/anti files for the stereotype cue)."""
        keep = {k: v for k, v in options.items() if k in cls.EXTRA_OPTIONS}
        rows = read_winomt(data)
        items = build_contrast_sets(rows)
        if limit is not None:  # whole contrast sets, so norm-H stays defined
            groups = list(dict.fromkeys(i.group for i in items))[:limit]
            items = [i for i in items if i.group in set(groups)]
        if names:
            from ..names import load_name_list

            items = add_name_variants(items, {"female": load_name_list("first_female"),
                                              "male": load_name_list("first_male")}, seed=keep.get("seed", 0))
        stereotypes = load_stereotypes(pro, anti) if pro else {}  # "" in a suite = no stereotype files
        cues = annotate_cues(items, lang, stereotypes, person_nouns=[r.profession for r in rows])
        refs = load_references(references) if references is not None else None
        data_hash = hash_json([[i.sentence for i in items], sorted(stereotypes.items()), names])
        return cls(items, lang, cues=cues, references=refs, data_hash=data_hash, **keep)

    # ------------------------------------------------------------------ pieces

    def _clusterer(self, embedder):
        if self.nli_model is not None:
            return NLIClusterer(self.nli_model)
        return CosineThresholdClusterer(embedder, self.cluster_threshold)

    def _genders(self, pairs: list[tuple[ContrastItem, str]]) -> list[tuple[str, tuple[int, int] | None]]:
        """Gender class of the focus noun in each (item, translation): align, then detect."""
        detect = self._detect
        if detect is None:
            from ..lang import detect_gender as detect
        align = self._align
        if align is None:
            from ..align import align_pairs as align
        alignments = align([it.sentence for it, _ in pairs], [t for _, t in pairs], "en", self.lang,
                           method=self.align_method)
        out = []
        for (item, text), alignment in zip(pairs, alignments):
            span = alignment.tgt_span_of(*item.focus_span) if text.strip() else None
            if span is None:
                out.append((UNDETECTED, None))
                continue
            out.append((detect(self.lang, text, span).gender, span))
        return out

    # ------------------------------------------------------------------ run

    def run(self, translator: Translator) -> ProbeResult:
        cache = None
        if self.cache_dir is not None:
            ident = translator.signature().replace(":", "-").replace("/", "_")
            cache = SampleCache(Path(self.cache_dir) / f"samples-{ident}.jsonl")
        sources = [it.sentence for it in self.items]
        samples = cached_samples(translator, sources, self.n, self.epsilon, self.temperature, self.seed,
                                 cache=cache, batch_size=self.batch_size, progress=self.progress)
        embedder = self._embedder_spec if hasattr(self._embedder_spec, "encode") else load_embedder(self._embedder_spec)
        clusterer = self._clusterer(embedder)

        # references of unambiguous items (ΔI, ΔLogProb)
        refs = {i: self.references[it.sentence] for i, it in enumerate(self.items)
                if not it.ambiguous and it.sentence in self.references}

        # GE: one alignment run over every unique (source, sample) pair and the references
        pairs = [(it, t) for it, d in zip(self.items, samples) for t in d.texts]
        pairs += [(self.items[i], r) for i, (c, w) in refs.items() for r in (c, w)]
        genders = self._genders(pairs)
        gender_of = {(p[0].id, p[1]): g[0] for p, g in zip(pairs, genders)}

        cosines, ge, se = [], [], []
        for item, d in zip(self.items, samples):
            cos = cosine_matrix(embedder.encode(d.texts))
            cosines.append(cos)
            labels = [gender_of[(item.id, t)] for t in d.texts]
            ge.append(cluster_entropy(d, labels, "gender"))
            se_labels = (clusterer.cluster(list(d.texts), cos) if isinstance(clusterer, CosineThresholdClusterer)
                         else clusterer.cluster(list(d.texts)))
            se.append(cluster_entropy(d, se_labels, clusterer.method))
        undetected = [sum(c for c, lab in zip(d.counts, r.labels) if lab == UNDETECTED) / d.n
                      for d, r in zip(samples, ge)]

        # α: tuned on a validation split of contrast sets, metrics on the rest
        split = ["validation" if self.alpha == "tune" and _in_validation(it.group, self.validation_fraction, self.seed)
                 else "test" for it in self.items]
        alpha_table = None
        if self.alpha == "tune":
            val = [i for i, s in enumerate(split) if s == "validation"]
            if len(val) < 3:
                raise InputError(f"only {len(val)} validation items to tune α on",
                                 hint="raise validation_fraction, use more items, or pass a fixed alpha")
            alpha, alpha_table = tune_alpha([cosines[i] for i in val], [samples[i] for i in val],
                                            [ge[i].value for i in val])
        else:
            alpha = float(self.alpha)
        s3e_res = [s3e(d, c, alpha) for d, c in zip(samples, cosines)]
        entropies = {"se": [r.value for r in se], "s3e": [r.value for r in s3e_res], "ge": [r.value for r in ge]}

        test = [i for i, s in enumerate(split) if s == "test"]
        groups = {self.items[i].id: self.items[i].group for i in test}
        in_group = {self.items[i].id: self.items[i].in_group for i in test}
        norms = {k: norm_h({self.items[i].id: v[i] for i in test}, groups, in_group) for k, v in entropies.items()}

        metrics: list[Metric] = []
        amb = [i for i in test if self.items[i].ambiguous and self.items[i].in_group]
        unamb = [i for i in test if not self.items[i].ambiguous and self.items[i].in_group]
        for kind in ENTROPIES:
            values = entropies[kind]
            for label, idx in (("unambiguous", unamb), ("ambiguous", amb)):
                vals = [values[i] for i in idx]
                metrics.append(Metric(f"{kind}_{label}", finite_mean(vals), bootstrap_ci(vals) if vals else None,
                                      len(vals)))
            metrics.append(Metric(f"delta_h_{kind}", delta_h([values[i] for i in unamb], [values[i] for i in amb]),
                                  None, len(unamb) + len(amb)))
        und = [undetected[i] for i in test]
        metrics.append(Metric("ge_undetected_share", finite_mean(und), bootstrap_ci(und) if len(und) > 1 else None,
                               len(und)))
        metrics.append(Metric("dedup_saving", dedup_saving([samples[i] for i in test]), None, len(test)))

        ref_rows: dict[int, dict[str, float]] = {}
        test_refs = [i for i in test if i in refs]
        if test_refs:
            scored = translator.score([self.items[i].sentence for i in test_refs for _ in (0, 1)],
                                      [r for i in test_refs for r in refs[i]])
            for k, i in enumerate(test_refs):
                item, d, (correct, wrong) = self.items[i], samples[i], refs[i]
                emb = embedder.encode([correct, wrong])
                sample_emb = embedder.encode(d.texts)
                row = {"logprob_correct": scored[2 * k].total, "logprob_incorrect": scored[2 * k + 1].total}
                for name, ref, e in (("correct", correct, emb[0]), ("incorrect", wrong, emb[1])):
                    cos = sample_emb @ e
                    row[f"s3e_{name}"] = surprisal_of(np.clip(cos, 0.0, 1.0) ** alpha, d.probs, d.n)
                    row[f"se_{name}"] = surprisal_of(self._same_cluster(clusterer, ref, d, cos), d.probs, d.n)
                    g = gender_of[(item.id, ref)]
                    # an undetected reference says nothing about gender: its GE surprisal would
                    # only count undetected samples, so the item is left out of ΔI(GE)
                    row[f"ge_{name}"] = float("nan") if g == UNDETECTED else surprisal_of(
                        np.array([1.0 if gender_of[(item.id, t)] == g else 0.0 for t in d.texts]), d.probs, d.n)
                ref_rows[i] = row
            for kind in ENTROPIES:
                c = [r[f"{kind}_correct"] for r in ref_rows.values()]
                w = [r[f"{kind}_incorrect"] for r in ref_rows.values()]
                kept = sum(not (math.isnan(a) or math.isnan(b)) for a, b in zip(c, w))
                metrics.append(Metric(f"delta_i_{kind}", delta_i(c, w), None, kept))
                metrics.append(Metric(f"delta_i_{kind}_of_means", delta_i_of_means(c, w), None, kept))
            metrics.append(Metric("delta_logprob", delta_logprob([r["logprob_correct"] for r in ref_rows.values()],
                                                                 [r["logprob_incorrect"] for r in ref_rows.values()]),
                                  None, len(ref_rows)))

        attempts = []
        for i, (item, d) in enumerate(zip(self.items, samples)):
            attempts.append({
                "id": item.id, "group": item.group, "pronoun": item.pronoun, "gold": item.gold,
                "sentence": item.sentence, "profession": item.profession, "from_data": item.from_data,
                "in_group": item.in_group, "name": item.name, "split": split[i], "cues": self.cues[i],
                "n_unique": len(d.texts), "entropy": {k: entropies[k][i] for k in ENTROPIES},
                "norm_h": {k: norms[k].get(item.id) for k in ENTROPIES},
                "ge_undetected_share": undetected[i],
                "gender_counts": _gender_counts(d, ge[i].labels),
                **({"references": ref_rows[i]} if i in ref_rows else {}),
            })
        settings = {"lang": self.lang, "n": self.n, "epsilon": self.epsilon, "temperature": self.temperature,
                    "clustering": clusterer.method, "cluster_model": clusterer.name, "embedder": embedder.name,
                    "alpha": alpha if self.alpha != "tune" else f"tuned:{alpha:g}", "align": self.align_method}
        signature = str(Signature(self.name, self.data_hash, translator.signature(), settings, self.seed))
        meta = {"lang": self.lang, "items": len(self.items), "test_items": len(test), "alpha": alpha,
                "alpha_correlations": {str(k): v for k, v in (alpha_table or {}).items()},
                "clustering": clusterer.method, "embedding_calls": getattr(embedder, "calls", None),
                "references": len(ref_rows)}
        return ProbeResult(self.name, metrics, signature, attempts, meta)

    def _same_cluster(self, clusterer, ref: str, d: Deduped, cos: np.ndarray) -> np.ndarray:
        """S(ref, y_j) for SE: 1 when the reference would join y_j's cluster."""
        if isinstance(clusterer, NLIClusterer):
            pairs = [(ref, t) for t in d.texts] + [(t, ref) for t in d.texts]
            ent = clusterer.entails(pairs)
            k = len(d.texts)
            return np.array([1.0 if ent[j] and ent[k + j] else 0.0 for j in range(k)])
        return (cos >= clusterer.threshold).astype(float)


def _gender_counts(d: Deduped, labels) -> dict[str, int]:
    out: dict[str, int] = {}
    for c, lab in zip(d.counts, labels):
        out[lab] = out.get(lab, 0) + c
    return out


def attempts_frame(results: Sequence[ProbeResult], model_names: Sequence[str] | None = None):
    """One row per test item of every result: cues, entropies and norm-H, plus model and lang
    columns — the input of :func:`mtdebias.uncertainty.anova.anova_table`."""
    import pandas as pd

    rows = []
    for k, result in enumerate(results):
        model = model_names[k] if model_names else Signature.parse(result.signature).model
        for a in result.attempts:
            if a["split"] != "test":
                continue
            row = {"model": model, "lang": result.meta.get("lang"), "id": a["id"], **a["cues"]}
            for kind in ENTROPIES:
                row[f"h_{kind}"] = a["entropy"][kind]
                v = a["norm_h"][kind]
                row[f"norm_h_{kind}"] = float("nan") if v is None else v
            rows.append(row)
    return pd.DataFrame(rows)
