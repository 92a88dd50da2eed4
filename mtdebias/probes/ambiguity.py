"""Ambiguity probe (``ambiguity.v1``): is a model uncertain where the source is ambiguous?

After Staliūnaitė, Cheng & Vlachos. Every WinoMT item becomes a contrast set {he, she, they}
(:mod:`mtdebias.uncertainty.contrast`); the "they" variant leaves the focus noun's gender
open. For every variant the probe draws n ε-samples (``translator.sample``), deduplicates
them, and measures three entropies of the sample distribution:

* SE — clusters by bidirectional NLI entailment (the paper's mDeBERTa NLI model by default, or
  the cosine-threshold fallback named ``similarity = "cosine-e5-small"``);
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
from ..stats import DEFAULT_RESAMPLES, bootstrap_ci
from ..textio import read_lines
from ..translators.base import DEFAULT_EPSILON, Translator
from ..uncertainty.contrast import ContrastItem, add_name_variants, build_contrast_sets
from ..uncertainty.cues import annotate_cues, load_stereotypes
from ..uncertainty.entropy import (UNDETECTED, Deduped, SampleCache, cached_samples, cluster_entropy,
                                   s3e, surprisal_of, tune_alpha)
from ..uncertainty.metrics import delta_h, delta_i, delta_i_of_means, delta_logprob, finite_mean, norm_h
from ..uncertainty.similarity import (CosineThresholdClusterer, NLIClusterer, choose_models, cosine_matrix,
                                      load_embedder)
from .base import BOOTSTRAP, HIGHER, LOWER, NEUTRAL, Attempts, BaseProbe, Headline, Metric, MetricSpec, ProbeResult
from .winomt import load_winomt

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


class AmbiguityProbe(BaseProbe):
    name = PROBE_NAME
    reads_target_gender = True
    specs = (MetricSpec("*_unambiguous", NEUTRAL), MetricSpec("*_ambiguous", HIGHER),
             MetricSpec("delta_h_*", LOWER, BOOTSTRAP), MetricSpec("delta_i_*_of_means", LOWER),
             MetricSpec("delta_i_*", LOWER, BOOTSTRAP), MetricSpec("delta_logprob", LOWER),
             MetricSpec("ge_undetected_share", LOWER), MetricSpec("dedup_saving", NEUTRAL))
    headline = (Headline("delta_h_s3e", "ΔH (S3E)"), Headline("delta_i_s3e", "ΔI (S3E)"))

    @classmethod
    def report_section(cls, view: Any, labels: Sequence[str]) -> None:
        from .ambiguity_view import section

        section(view, labels)

    def __init__(self, items: Sequence[ContrastItem], lang: str, *, cues: Sequence[dict[str, str]] | None = None,
                 n: int = 128, epsilon: float = DEFAULT_EPSILON, temperature: float = 1.0, seed: int = 0,
                 references: Mapping[str, tuple[str, str]] | None = None, nli_model: str | Path | None = None,
                 embedder: Any = None, alpha: float | str = "tune", validation_fraction: float = 0.2,
                 cluster_threshold: float = 0.97, cache_dir: str | Path | None = None,
                 align_method: str = "fast_align", batch_size: int = 16, data_hash: str = "-",
                 detect: Callable[..., Any] | None = None, align: Callable[..., Any] | None = None,
                 progress: bool = False, similarity: str = "custom", embedder_prefix: str = ""):
        if not items:
            raise InputError("the ambiguity probe got no items", hint="check the WinoMT file")
        if alpha != "tune" and not (isinstance(alpha, (int, float)) and alpha > 0):
            raise InputError(f"alpha must be a positive number or 'tune', not {alpha!r}")
        self._items = list(items)
        self.cues = list(cues) if cues is not None else [{} for _ in self._items]
        self.lang, self.n, self.epsilon, self.temperature, self.seed = lang, n, epsilon, temperature, seed
        self.references = dict(references or {})
        self.nli_model, self.alpha, self.validation_fraction = nli_model, alpha, validation_fraction
        self.cluster_threshold, self.cache_dir, self.align_method = cluster_threshold, cache_dir, align_method
        self.batch_size, self.data_hash, self.progress = batch_size, data_hash, progress
        # which models S is built from ("paper", "cosine-e5-small", or "custom" for models handed
        # in directly), recorded in the signature
        self.similarity, self._embedder_spec, self.embedder_prefix = similarity, embedder, embedder_prefix
        self._detect, self._align = detect, align

    @classmethod
    def from_options(cls, lang: str, data: str | Path, pro: str | Path | None = None,
                     anti: str | Path | None = None, *, names: bool = False, limit: int | None = None,
                     references: str | Path | None = None, n: int = 128, epsilon: float = DEFAULT_EPSILON,
                     temperature: float = 1.0, seed: int = 0, similarity: str = "paper",
                     nli_model: str | Path | None = None, embedder: str | Path | None = None,
                     alpha: float | str = "tune",
                     validation_fraction: float = 0.2, cluster_threshold: float = 0.97,
                     cache_dir: str | Path | None = None, align_method: str = "fast_align", batch_size: int = 16,
                     progress: bool = False) -> "AmbiguityProbe":
        """Build from file paths: WinoMT data (+ pro/anti files for the stereotype cue).

        ``similarity = "paper"`` (default) uses the uncertainty paper's NLI and E5 models (or the
        ``nli_model``/``embedder`` given), and stops here, before any model loads, when they are
        not available; ``"cosine-e5-small"`` names the bundled fallback (see
        :data:`mtdebias.uncertainty.similarity.SIMILARITIES`). ``references``: a TSV of
        ``source<TAB>correct<TAB>incorrect`` translations, for ΔI and ΔLogProb ("": none)."""
        nli_model, embedder, prefix = choose_models(similarity, nli_model, embedder)
        keep = dict(n=n, epsilon=epsilon, temperature=temperature, seed=seed, nli_model=nli_model, embedder=embedder,
                    similarity=similarity, embedder_prefix=prefix, alpha=alpha,
                    validation_fraction=validation_fraction, cluster_threshold=cluster_threshold,
                    cache_dir=cache_dir, align_method=align_method, batch_size=batch_size, progress=progress)
        rows = load_winomt(data)
        items = build_contrast_sets(rows)
        if limit is not None:  # whole contrast sets, so norm-H stays defined
            groups = list(dict.fromkeys(i.group for i in items))[:limit]
            items = [i for i in items if i.group in set(groups)]
        if names:
            from ..names import load_name_list

            items = add_name_variants(items, {"female": load_name_list("first_female"),
                                              "male": load_name_list("first_male")}, seed=keep.get("seed", 0))
        # "" in a suite = no stereotype files
        stereotypes = load_stereotypes(load_winomt(pro), load_winomt(anti) if anti else None) if pro else {}
        cues = annotate_cues(items, lang, stereotypes, person_nouns=[r.profession for r in rows])
        refs = load_references(references) if references else None  # "" in a suite = none
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

    def items(self) -> list[ContrastItem]:
        return list(self._items)

    def run(self, translator: Translator, items: Sequence[ContrastItem]) -> Attempts:
        cache = None
        if self.cache_dir is not None:
            ident = translator.signature().replace(":", "-").replace("/", "_")
            cache = SampleCache(Path(self.cache_dir) / f"samples-{ident}.jsonl")
        sources = [it.sentence for it in items]
        samples = cached_samples(translator, sources, self.n, self.epsilon, self.temperature, self.seed,
                                 cache=cache, batch_size=self.batch_size, progress=self.progress)
        embedder = (self._embedder_spec if hasattr(self._embedder_spec, "encode")
                    else load_embedder(self._embedder_spec, prefix=self.embedder_prefix))
        clusterer = self._clusterer(embedder)

        # references of unambiguous items (ΔI, ΔLogProb)
        refs = {i: self.references[it.sentence] for i, it in enumerate(items)
                if not it.ambiguous and it.sentence in self.references}

        # GE: one alignment run over every unique (source, sample) pair and the references
        pairs = [(it, t) for it, d in zip(items, samples) for t in d.texts]
        pairs += [(items[i], r) for i, (c, w) in refs.items() for r in (c, w)]
        genders = self._genders(pairs)
        gender_of = {(p[0].id, p[1]): g[0] for p, g in zip(pairs, genders)}

        cosines, ge, se = [], [], []
        for item, d in zip(items, samples):
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
                 else "test" for it in items]
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
        groups = {items[i].id: items[i].group for i in test}
        in_group = {items[i].id: items[i].in_group for i in test}
        norms = {k: norm_h({items[i].id: v[i] for i in test}, groups, in_group) for k, v in entropies.items()}

        ref_rows: dict[int, dict[str, float]] = {}
        test_refs = [i for i in test if i in refs]
        if test_refs:
            scored = translator.score([items[i].sentence for i in test_refs for _ in (0, 1)],
                                      [r for i in test_refs for r in refs[i]])
            for k, i in enumerate(test_refs):
                item, d, (correct, wrong) = items[i], samples[i], refs[i]
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

        attempts = []
        for i, (item, d) in enumerate(zip(items, samples)):
            attempts.append({
                "id": item.id, "group": item.group, "pronoun": item.pronoun, "gold": item.gold,
                "ambiguous": item.ambiguous, "sentence": item.sentence, "source": item.sentence,
                "profession": item.profession, "from_data": item.from_data,
                "in_group": item.in_group, "name": item.name, "split": split[i], "cues": self.cues[i],
                "n_drawn": d.n, "n_unique": len(d.texts), "entropy": {k: entropies[k][i] for k in ENTROPIES},
                "norm_h": {k: norms[k].get(item.id) for k in ENTROPIES},
                "ge_undetected_share": undetected[i],
                "gender_counts": _gender_counts(d, ge[i].labels),
                **({"references": ref_rows[i]} if i in ref_rows else {}),
            })
        settings = {"similarity": self.similarity, "clustering": clusterer.method, "cluster_model": clusterer.name,
                    "embedder": embedder.name,
                    "alpha": alpha if self.alpha != "tune" else f"tuned:{alpha:g}"}
        meta = {"lang": self.lang, "items": len(items), "test_items": len(test), "alpha": alpha,
                "alpha_correlations": {str(k): v for k, v in (alpha_table or {}).items()},
                "clustering": clusterer.method, "embedding_calls": getattr(embedder, "calls", None),
                "references": len(ref_rows)}
        return Attempts(attempts, meta=meta, settings=settings)

    def signature(self, translator: Translator, attempts: Attempts | None = None) -> str:
        """Clustering, embedder and a tuned α are decided by the run: they come from ``attempts``."""
        settings = {"lang": self.lang, "n": self.n, "epsilon": self.epsilon, "temperature": self.temperature,
                    **(attempts.settings if attempts is not None else {}), "align": self.align_method}
        return str(Signature(self.name, self.data_hash, translator.signature(), settings, self.seed))

    def metrics(self, attempts: Sequence[dict[str, Any]], *, ci: bool = True) -> list[Metric]:
        """Means of SE/S3E/GE on unambiguous and ambiguous test items, ΔH, the undetected share,
        the dedup saving and — where references were scored — ΔI and ΔLogProb. Intervals: the
        shared bootstrap over items (ΔH resamples both sides' items together)."""
        test = [a for a in attempts if a["split"] == "test"]
        resamples = DEFAULT_RESAMPLES if ci else 0

        def interval(rows, fn):
            return bootstrap_ci(rows, fn, resamples=resamples, seed=self.seed) if resamples else None

        metrics: list[Metric] = []
        scored = [a for a in test if a["in_group"]]
        for kind in ENTROPIES:
            side = {label: [a["entropy"][kind] for a in scored if a["ambiguous"] == (label == "ambiguous")]
                    for label in ("unambiguous", "ambiguous")}
            for label, vals in side.items():
                metrics.append(Metric(f"{kind}_{label}", finite_mean(vals),
                                      interval(np.asarray(vals, dtype=float), finite_mean_array) if vals else None,
                                      len(vals)))
            rows = np.array([[1.0 if a["ambiguous"] else 0.0, a["entropy"][kind]] for a in scored],
                            dtype=float).reshape(-1, 2)
            metrics.append(Metric(f"delta_h_{kind}", _delta_h_rows(rows), interval(rows, _delta_h_rows), len(rows)))
        und = [a["ge_undetected_share"] for a in test]
        metrics.append(Metric("ge_undetected_share", finite_mean(und),
                              interval(np.asarray(und, dtype=float), finite_mean_array) if len(und) > 1 else None,
                              len(und)))
        drawn = sum(a["n_drawn"] for a in test)
        metrics.append(Metric("dedup_saving", 0.0 if drawn == 0 else 1.0 - sum(a["n_unique"] for a in test) / drawn,
                              None, len(test)))
        refs = [a["references"] for a in test if "references" in a]
        if refs:
            for kind in ENTROPIES:
                c = [r[f"{kind}_correct"] for r in refs]
                w = [r[f"{kind}_incorrect"] for r in refs]
                kept = sum(not (math.isnan(a) or math.isnan(b)) for a, b in zip(c, w))
                pairs = np.array([c, w], dtype=float).T
                metrics.append(Metric(f"delta_i_{kind}", delta_i(c, w), interval(pairs, _delta_i_rows), kept))
                metrics.append(Metric(f"delta_i_{kind}_of_means", delta_i_of_means(c, w), None, kept))
            logprobs = np.array([[r["logprob_correct"], r["logprob_incorrect"]] for r in refs], dtype=float)
            metrics.append(Metric("delta_logprob", delta_logprob(list(logprobs[:, 0]), list(logprobs[:, 1])),
                                  interval(-logprobs, _delta_i_rows), len(refs)))
        return metrics

    def tables(self, attempts: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """The cue ANOVA of the test items (see :func:`cue_anova`)."""
        return {"anova": cue_anova(attempts, self.lang)}

    def _same_cluster(self, clusterer, ref: str, d: Deduped, cos: np.ndarray) -> np.ndarray:
        """S(ref, y_j) for SE: 1 when the reference would join y_j's cluster."""
        if isinstance(clusterer, NLIClusterer):
            pairs = [(ref, t) for t in d.texts] + [(t, ref) for t in d.texts]
            ent = clusterer.entails(pairs)
            k = len(d.texts)
            return np.array([1.0 if ent[j] and ent[k + j] else 0.0 for j in range(k)])
        return (cos >= clusterer.threshold).astype(float)


def finite_mean_array(values: np.ndarray) -> float:
    values = np.asarray(values, dtype=float)
    values = values[~np.isnan(values)]
    return float(values.mean()) if len(values) else float("nan")


def _delta_h_rows(rows: np.ndarray) -> float:
    """ΔH of (ambiguous flag, entropy) rows."""
    return delta_h(list(rows[rows[:, 0] == 0.0, 1]), list(rows[rows[:, 0] == 1.0, 1]))


def _delta_i_rows(pairs: np.ndarray) -> float:
    """ΔI of (correct, incorrect) surprisal rows."""
    return delta_i(list(pairs[:, 0]), list(pairs[:, 1]))


RESPONSES = tuple(f"norm_h_{kind}" for kind in ENTROPIES)


def cue_anova(attempts: Sequence[dict[str, Any]], lang: str | None = None) -> dict[str, Any]:
    """Single-effect ANOVA of every bias cue on norm-H (:func:`mtdebias.uncertainty.anova.anova_table`)
    over the test items, with the rows each response had to drop and why.

    A norm-H is undefined (NaN) when its item's entropy is, or when every member of its contrast
    set has entropy 0 (nothing to normalise by); those rows are left out of that response's
    model and listed under ``dropped``. Needs statsmodels (``pip install 'mtdebias[eval]'``);
    without it the table says so instead of failing the evaluation.
    """
    test = [a for a in attempts if a["split"] == "test"]
    dropped = []
    for a in test:
        for kind in ENTROPIES:
            value = a["norm_h"][kind]
            if value is None or math.isnan(value):
                entropy = a["entropy"][kind]
                reason = ("entropy undefined" if entropy is None or math.isnan(entropy)
                          else "contrast set's mean entropy is 0: norm-H undefined")
                dropped.append({"id": a["id"], "response": f"norm_h_{kind}", "reason": reason})
    record: dict[str, Any] = {"lang": lang, "items": len(test), "responses": list(RESPONSES), "dropped": dropped}
    try:
        import pandas  # noqa: F401 — both come with the eval extra
        import statsmodels  # noqa: F401
    except ImportError:
        return {**record, "rows": [], "error": "statsmodels is not installed (pip install 'mtdebias[eval]')"}
    from ..uncertainty.anova import anova_table

    frame = attempts_frame_rows(test)
    if frame.empty:
        return {**record, "rows": []}
    table = anova_table(frame, list(RESPONSES))
    rows = [{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
            for row in table.to_dict("records")]
    return {**record, "rows": rows}


def attempts_frame_rows(attempts: Sequence[dict[str, Any]], model: str | None = None, lang: str | None = None):
    """One row per test attempt: its cues, entropies and norm-H (the ANOVA's input)."""
    import pandas as pd

    rows = []
    for a in attempts:
        if a["split"] != "test":
            continue
        row = {"model": model, "lang": lang, "id": a["id"], **a["cues"]}
        for kind in ENTROPIES:
            row[f"h_{kind}"] = a["entropy"][kind]
            v = a["norm_h"][kind]
            row[f"norm_h_{kind}"] = float("nan") if v is None else v
        rows.append(row)
    return pd.DataFrame(rows)


def _gender_counts(d: Deduped, labels) -> dict[str, int]:
    out: dict[str, int] = {}
    for c, lab in zip(d.counts, labels):
        out[lab] = out.get(lab, 0) + c
    return out


def attempts_frame(results: Sequence[ProbeResult], model_names: Sequence[str] | None = None):
    """One row per test item of every result: cues, entropies and norm-H, plus model and lang
    columns — the input of :func:`mtdebias.uncertainty.anova.anova_table`."""
    import pandas as pd

    frames = [attempts_frame_rows(result.attempts,
                                  model_names[k] if model_names else Signature.parse(result.signature).model,
                                  result.meta.get("lang"))
              for k, result in enumerate(results)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def entropy_values(attempts: Sequence[dict[str, Any]]) -> dict[str, dict[str, dict[str, list[float]]]]:
    """{"entropy": {kind: {"ambiguous": [...], "unambiguous": [...]}}, "norm-H": {...}}: the
    per-item values of the test split (α-tuning items are not part of the metrics)."""
    out: dict[str, dict[str, dict[str, list[float]]]] = {}
    for a in attempts:
        if a["split"] != "test":
            continue
        label = "ambiguous" if a["ambiguous"] else "unambiguous"
        for group, values in (("entropy", a["entropy"]), ("norm-H", a["norm_h"])):
            for kind, value in values.items():
                if value is not None and math.isfinite(value):
                    out.setdefault(group, {}).setdefault(kind, {}).setdefault(label, []).append(float(value))
    return out
