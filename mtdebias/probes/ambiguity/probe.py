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
are supplied — ΔI per entropy and the ΔLogProb baseline. How each follows the paper, and where
it departs (ΔH's aggregation, references outside every cluster, the minimum of items a ΔI or
ΔH must rest on), is in :mod:`mtdebias.uncertainty.metrics`, docs/papers.md and the signature:

* ``surprisal=paper`` (default): a reference's I(y) = −log E[S(y, y')] with no pseudo-sample;
  an item whose reference lies outside every sample cluster (infinite surprisal) is left out
  of that ΔI and counted in ``delta_i_<kind>_outside_correct`` / ``_outside_incorrect``.
  ``surprisal = "pseudo-sample"`` names the earlier rule (the reference counted as one more
  sample, capping I at log(n + 1)).
* ``delta_h=unamb-mean``: ΔH = (H̄_unamb − H̄_amb) / H̄_unamb, the form that reproduces the
  paper's Tables 4 and 15, undefined where H̄_unamb < H̄_amb/10 (it would be below −9 and measure
  how near 0 H̄_unamb is); ``delta_h_<kind>_of_means`` (the printed equation on the means) and
  ``delta_h_<kind>_per_set`` (the printed equation per contrast set, averaged) by name.
* ``min_items``: a ΔI or ΔH resting on fewer items (ΔH per set: sets) is NaN — the report
  prints "undefined" with the count — rather than a number; every one stores its count as n.
* ``names``: the names cue. ``"paper"`` inserts the paper's one name per language and gender
  (its Appendix B, :data:`mtdebias.uncertainty.contrast.PAPER_NAMES`; none for a language the
  paper did not study, and the signature says so), ``"us-lists"`` (or ``true``) rotates through
  the shipped US first-name lists.

The translation-validity gate (:mod:`mtdebias.probes.validity`) checks every drawn sample: one
that is empty, a runaway repetition, a copy of the source or not in the target language is
counted (``valid_rate`` over drawn samples, ``invalid.<reason>``), not removed — the entropies
are defined over the model's whole sample distribution, and dropping samples would change it —
and a valid rate at or below 0.8 makes the result degenerate: the entropy of samples that are no
translations measures how the model fails, not how uncertain its translations are.

The steps follow the probe contract: ``decode`` samples (and scores the references), ``judge``
computes what each item's samples say on their own (SE, GE, S3E at every α of the tuning
grid, reference surprisals), and ``metrics`` does everything across items — it tunes α on the
validation split and averages the test split — so stored attempts are re-scored without
decoding and a bootstrap over contrast sets re-tunes α in every resample. norm-H (entropy over the
contrast set's mean) and the cue ANOVA come from the attempts too (:func:`test_values`,
:func:`cue_anova`, :func:`attempts_frame`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence, TypedDict

import numpy as np

from ...errors import InputError
from ...options import Range
from ...signature import Signature, hash_file, hash_json
from ...align.target import target_genders
from ...stats import DEFAULT_RESAMPLES
from ...textio import read_lines
from ...translators.base import DEFAULT_EPSILON, Translator
from ...uncertainty.contrast import PAPER_NAMES, ContrastItem, add_name_variants, build_contrast_sets
from ...uncertainty.cues import CUES, REFERENCE, annotate_cues, load_stereotypes
from ...uncertainty.entropy import (ALPHAS, UNDETECTED, Deduped, SampleCache, cached_samples, cluster_entropy,
                                   pick_alpha, pseudo_sample_surprisal, s3e, s3e_surprisal_of, surprisal_of)
from ...uncertainty.metrics import (BELOW_FLOOR, DELTA_H_FLOOR, defined, delta_h, delta_h_of_means, delta_h_per_set,
                                   delta_i_items, delta_i_of_means, finite_mean, norm_h)
from ...uncertainty.similarity import (CosineThresholdClusterer, NLIClusterer, choose_models, cosine_matrix,
                                      load_embedder)
from ..base import (BOOTSTRAP, HIGHER, LOWER, NEUTRAL, NO_INTERVAL, OVER_ITEMS, UNCERTAINTY_PAPER, Attempts, BaseProbe,
                   Computed, Headline, Joint, MetricSpec, Outputs, ProbeResult, Shown, spread_sample)
from ..validity import SURFACE_GATE, TooFewTranslations, tallied_metrics, tally, validity_specs
from ..winomt.probe import load_winomt

ENTROPIES = ("se", "s3e", "ge")
# how a reference's surprisal is defined: the paper's (default) or with one pseudo-sample
SURPRISALS = ("paper", "pseudo-sample")
# the fewest items (ΔH per set: contrast sets) a ΔI or ΔH may rest on before it is undefined
MIN_ITEMS = 10
# what the signature calls the default ΔH aggregation: relative to the unambiguous mean
DELTA_H_AGGREGATION = f"unamb-mean;floor={DELTA_H_FLOOR:g}"  # the floor changes which ΔH are defined
# the grid α is tuned over and how, as the signature states it (see pick_alpha)
ALPHA_TUNING = f"spearman-vs-ge;grid={ALPHAS[0]:g}-{ALPHAS[-1]:g};ties=smallest"


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


class _AmbiguityFields(TypedDict):
    id: str  # the contrast variant ("<set>-he", "<set>-they-name", …)
    group: str  # its contrast set
    pronoun: str
    gold: str
    ambiguous: bool
    sentence: str
    source: str
    profession: str
    from_data: bool
    in_group: bool  # counts toward its set's norm-H denominator
    name: str | None
    split: str  # validation (α is tuned on it) | test
    cues: dict[str, str]
    n_drawn: int
    n_unique: int
    entropy: dict[str, float]  # {"se": H, "ge": H}
    s3e: dict[str, float]  # {α: S3E at α} for every α the metrics may choose
    ge_undetected_share: float
    gender_counts: dict[str, int]
    # the gate over the drawn samples: {"valid": n, "<reason>": n, …} (validity.tally)
    sample_validity: dict[str, int]


class AmbiguityAttempt(_AmbiguityFields, total=False):
    """One contrast variant's samples, judged on their own (α and norm-H come in metrics)."""

    # surprisals of the correct and incorrect reference (the paper's, inf outside every cluster,
    # NaN for an undetected reference's GE), their log-probabilities, "surprisal": "paper"
    references: dict[str, Any]


class AmbiguityProbe(BaseProbe):
    """``ambiguity.v1``: is the model more uncertain where the source leaves gender open (SE, S3E, GE; ΔH, ΔI)?"""

    name = "ambiguity.v1"
    # where samples are cached, how many go to the model at once, whether bars show: how, not what
    unsigned = ("cache_dir", "batch_size", "progress")
    hashed = ("data", "pro", "anti", "limit", "references")  # the contrast sets and references are the data hash
    # the similarity and clustering the run used are in the attempts' settings, the α in the metrics
    run_signed = ("similarity", "nli_model", "embedder", "cluster_threshold", "alpha", "validation_fraction")
    shown = {"align_method": Shown("align"), "names": Shown("names", lambda p: p.names),  # the cue as resolved
             # the departures and rules the ΔI/ΔH numbers rest on (docs/papers.md)
             "surprisal": Shown("surprisal",
                                lambda p: "paper;outside=left-out" if p.surprisal == "paper" else p.surprisal)}
    # the adequacy floor was calibrated on single translations, not ε-samples
    also_signed = {"delta_h": DELTA_H_AGGREGATION, "gate": SURFACE_GATE}
    option_ranges = {"n": Range(1), "epsilon": Range(0, high=1), "temperature": Range(0, low_open=True),
                     "alpha": Range(0, low_open=True), "validation_fraction": Range(0, low_open=True, high=1),
                     "cluster_threshold": Range(0, high=1, high_open=False), "batch_size": Range(1),
                     "min_items": Range(1)}
    attempt_type = AmbiguityAttempt
    option_help = {
        "lang": "target language code (needs a gender detector, for GE)",
        "data": "WinoMT's en.txt: every item becomes a he/she/they contrast set",
        "pro": "en_pro.txt, for the stereotype cue (\"\": none)",
        "anti": "en_anti.txt, for the stereotype cue",
        "names": "the names cue: false, \"paper\", \"us-lists\" (or true), or a table {female = […], male = […]}",
        "references": "TSV of source, correct and incorrect translation, for ΔI and ΔLogProb (\"\": none)",
        "n": "ε-samples drawn per variant",
        "epsilon": "ε of ε-sampling: tokens below this probability are not drawn",
        "temperature": "sampling temperature",
        "similarity": "how samples are compared: \"paper\" (the paper's NLI and E5 models) or \"cosine-e5-small\"",
        "nli_model": "NLI model folder or hub id for SE's clusters (replaces the paper's)",
        "embedder": "sentence-embedding model folder or hub id for S3E (replaces the paper's)",
        "alpha": "S3E's α: a positive number, or \"tune\" (chosen on a validation split to agree best with GE)",
        "validation_fraction": "share of contrast sets α is tuned on (left out of the metrics)",
        "cluster_threshold": "cosine similarity at which two samples share a cluster (the cosine fallback's SE)",
        "cache_dir": "folder where samples are cached per checkpoint, so a rerun does not draw them again",
        "align_method": "word aligner that finds the focus noun in each sample, for GE (fast_align, eflomal)",
        "batch_size": "sources sent to the model at once when sampling",
        "progress": "show a bar while sampling and building contrast sets",
        "surprisal": "a reference's surprisal: \"paper\" (inf outside every cluster) or \"pseudo-sample\"",
        "min_items": "the fewest items a ΔI or ΔH rests on; fewer: undefined"}
    needs = ("detector",)  # reads the gender of target words
    # 2: S3E stored at every α of the tuning grid (α is tuned in metrics); 3: reference
    # surprisals without the pseudo-sample (inf outside every cluster), ΔH relative to the
    # unambiguous mean, ΔI/ΔH undefined below min_items; 4: ΔH undefined where H̄_u < H̄_a/10;
    # 5: each variant's sample_validity, valid_rate and invalid.*
    stored_layout = 5
    degenerate_when = (TooFewTranslations("they stay in the entropies"),)
    # ranges from the definitions. Entropies are ≥ 0 (entropy() rounds a float's −1e-16 to 0) with
    # no fixed top (log n grows with n). ΔH = (H̄_u − H̄_a)/H̄_u in [−9, 1] (undefined below the
    # floor, DELTA_H_FLOOR); the printed
    # equation (of means, per set) is a relative difference of two values ≥ 0, in [−2, 2]. NaN is
    # "undefined here": a side without a finite entropy, H̄_u = 0, fewer than min_items items, no
    # test item (the undetected share). ΔI and ΔLogProb declare no range: their surprisals may
    # come out a rounding error below 0, and a relative difference of such values has none.
    # {0}: the entropy (se, s3e, ge); the paper's sections and where mtdebias departs: docs/papers.md
    measures = (
        # intervals: one bootstrap over contrast sets that re-tunes α in every resample (so the
        # interval carries the tuning's own noise), whole contrast sets: a sentence's he/she/they
        # variants share its difficulty, and resampled apart they gave the unambiguous mean
        # entropies (he and she of each set) too narrow an interval: 83–88 of 100 at a within-set
        # correlation of about 0.5 (tests/test_calibration.py's simulation). A full run whose α
        # cannot be tuned is an error; a paired test's resample that cannot tune it gives NaN S3E
        # metrics for that resample instead of aborting the test
        Joint(lambda r, idx, checked: r.judged.values(idx, strict=checked), size=lambda r: len(r.judged),
              units=lambda r: r.judged.group),
        # every variant's samples, validation items included: a model that does not translate
        # fails on both sides of the split (attempts stored before the gate carry no tally:
        # nothing was checked, nothing is said)
        Computed(lambda r: tallied_metrics(r.tallies) if r.tallies else []),
        MetricSpec("*_unambiguous", NEUTRAL, bounds=(0, math.inf), nan=True, label="H̄ unambiguous ({0})",
                   definition="mean entropy of the samples of gender-unambiguous sources",
                   source=f"{UNCERTAINTY_PAPER}, §3"),
        MetricSpec("*_ambiguous", HIGHER, bounds=(0, math.inf), nan=True, label="H̄ ambiguous ({0})",
                   definition="mean entropy of the samples of gender-ambiguous sources",
                   source=f"{UNCERTAINTY_PAPER}, §3"),
        MetricSpec("delta_h_*_of_means", LOWER, bounds=(-2, 2), nan=True, label="ΔH of means ({0})",
                   definition="(H̄_unamb − H̄_amb) / ½(H̄_unamb + H̄_amb): the printed equation on the means",
                   source=f"{UNCERTAINTY_PAPER}, §3", interval=NO_INTERVAL),
        MetricSpec("delta_h_*_per_set", LOWER, BOOTSTRAP, (-2, 2), nan=True, label="ΔH per set ({0})",
                   definition="the printed ΔH equation per contrast set, averaged over sets",
                   source=f"{UNCERTAINTY_PAPER}, §3"),
        MetricSpec("delta_h_*", LOWER, BOOTSTRAP, (1 - 1 / DELTA_H_FLOOR, 1), nan=True,
                   undefined=f"{BELOW_FLOOR}, or too few items", label="ΔH ({0})",
                   definition="(H̄_unamb − H̄_amb) / H̄_unamb: below 0 when ambiguous sources get more "
                              "uncertainty, as they should", source=f"{UNCERTAINTY_PAPER}, §3, Tables 4 and 15",
                   interval=OVER_ITEMS + ", α re-tuned in each resample"),
        MetricSpec("delta_i_*_of_means", LOWER, label="ΔI of means ({0})",
                   definition="ΔI of the mean surprisals of correct and incorrect references",
                   source=f"{UNCERTAINTY_PAPER}, §3", interval=NO_INTERVAL),
        MetricSpec("delta_i_*_outside_*", NEUTRAL, bounds=(0, math.inf), label="ΔI: {1} refs outside ({0})",
                   definition="items left out of ΔI: their reference lies outside every sample cluster",
                   source="mtdebias (docs/papers.md)", interval=NO_INTERVAL),  # counts of items
        MetricSpec("delta_i_*", LOWER, BOOTSTRAP, label="ΔI ({0})",
                   definition="mean over items of (I(correct) − I(incorrect)) / ½(I(correct) + I(incorrect)): "
                              "below 0 when the correct gender is the less surprising",
                   source=f"{UNCERTAINTY_PAPER}, §3", interval=OVER_ITEMS + ", α re-tuned in each resample"),
        MetricSpec("delta_logprob", LOWER, label="ΔLogProb",
                   definition="ΔI with the model's own log-probabilities as surprisal (the paper's baseline)",
                   source=f"{UNCERTAINTY_PAPER}, §3"),
        MetricSpec("ge_undetected_share", LOWER, bounds=(0, 1), nan=True, label="GE undetected share",
                   definition="share of samples whose focus noun's gender was not read", source="mtdebias"),
        MetricSpec("dedup_saving", NEUTRAL, bounds=(0, 1), label="samples saved by deduplication",
                   definition="share of drawn samples that were repeats (scored once)", source="mtdebias",
                   interval=NO_INTERVAL),
        *validity_specs("ambiguity samples"))
    headline = (Headline("delta_h_s3e", "ΔH (S3E)"), Headline("delta_h_ge", "ΔH (GE)"), Headline("delta_i_s3e", "ΔI (S3E)"))
    own_plots = ("delta_i_*_outside_*",)  # counts, listed in the section's ΔI/ΔH table



    def __init__(self, items: Sequence[ContrastItem], lang: str, *, cues: Sequence[dict[str, str]] | None = None,
                 n: int = 128, epsilon: float = DEFAULT_EPSILON, temperature: float = 1.0, seed: int = 0,
                 references: Mapping[str, tuple[str, str]] | None = None, nli_model: str | Path | None = None,
                 embedder: Any = None, alpha: float | str = "tune", validation_fraction: float = 0.2,
                 cluster_threshold: float = 0.97, cache_dir: str | Path | None = None,
                 align_method: str = "fast_align", batch_size: int = 16, data_hash: str = "-",
                 detect: Callable[..., Any] | None = None, align: Callable[..., Any] | None = None,
                 progress: bool = False, similarity: str = "custom", embedder_prefix: str = "",
                 surprisal: str = "paper", min_items: int = MIN_ITEMS, names: str = "none"):
        if not items:
            raise InputError("the ambiguity probe got no items", hint="check the WinoMT file")
        if alpha != "tune" and not (isinstance(alpha, (int, float)) and alpha > 0):
            raise InputError(f"alpha must be a positive number or 'tune', not {alpha!r}")
        _check_scoring(surprisal, min_items)
        # how reference surprisals become ΔI, the fewest items a ΔI/ΔH rests on, and which names
        # cue the items carry ("none", "paper", "us-lists", "custom:<hash>"): all in the signature
        self.surprisal, self.min_items, self.names = surprisal, int(min_items), names
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
        self._loaded_embedder = None
        if alpha == "tune":  # refused before any sampling: the split is known from the items
            validation = sum(self._split(item) == "validation" for item in self._items)
            if validation < 3:
                raise InputError(f"only {validation} validation items to tune α on",
                                 hint="raise validation_fraction, use more items, or pass a fixed alpha")

    @classmethod
    def from_options(cls, lang: str, data: str | Path, pro: str | Path | None = None,
                     anti: str | Path | None = None, *, names: bool | str | Mapping[str, Any] = False,
                     limit: int | None = None,
                     references: str | Path | None = None, n: int = 128, epsilon: float = DEFAULT_EPSILON,
                     temperature: float = 1.0, seed: int = 0, similarity: str = "paper",
                     nli_model: str | Path | None = None, embedder: str | Path | None = None,
                     alpha: float | str = "tune",
                     validation_fraction: float = 0.2, cluster_threshold: float = 0.97,
                     cache_dir: str | Path | None = None, align_method: str = "fast_align", batch_size: int = 16,
                     progress: bool = False, surprisal: str = "paper",
                     min_items: int = MIN_ITEMS) -> "AmbiguityProbe":
        """Build from file paths: WinoMT data (+ pro/anti files for the stereotype cue).

        ``similarity = "paper"`` (default) uses the uncertainty paper's NLI and E5 models (or the
        ``nli_model``/``embedder`` given), and stops here, before any model loads, when they are
        not available; ``"cosine-e5-small"`` names the bundled fallback (see
        :data:`mtdebias.uncertainty.similarity.SIMILARITIES`). ``references``: a TSV of
        ``source<TAB>correct<TAB>incorrect`` translations, for ΔI and ΔLogProb ("": none).
        ``names``: the names cue — ``false`` (none), ``"paper"`` (the paper's name per language and
        gender), ``"us-lists"`` or ``true`` (the shipped US first-name lists, rotated), or a table
        ``{female = [...], male = [...]}``. ``surprisal``, ``min_items``: see the module docstring."""
        _check_scoring(surprisal, min_items)  # before any file is read or model named
        name_lists, names_setting = names_cue(names, lang)
        nli_model, embedder, prefix = choose_models(similarity, nli_model, embedder)
        keep = dict(n=n, epsilon=epsilon, temperature=temperature, seed=seed, nli_model=nli_model, embedder=embedder,
                    similarity=similarity, embedder_prefix=prefix, alpha=alpha,
                    validation_fraction=validation_fraction, cluster_threshold=cluster_threshold,
                    cache_dir=cache_dir, align_method=align_method, batch_size=batch_size, progress=progress,
                    surprisal=surprisal, min_items=min_items, names=names_setting)
        rows = load_winomt(data)
        items = build_contrast_sets(rows)
        if limit is not None:  # whole contrast sets, so norm-H stays defined
            groups = spread_sample(list(dict.fromkeys(i.group for i in items)), limit, seed)
            items = [i for i in items if i.group in set(groups)]
        if name_lists:
            items = add_name_variants(items, name_lists, seed=keep.get("seed", 0))
        # "" in a suite = no stereotype files
        stereotypes = load_stereotypes(load_winomt(pro), load_winomt(anti) if anti else None) if pro else {}
        cues = annotate_cues(items, lang, stereotypes, person_nouns=[r.profession for r in rows])
        refs = load_references(references) if references else None  # "" in a suite = none
        # the files themselves, not just what was read from them: the references decide ΔI, and
        # two stereotype files may give the same table yet be different data
        files = [hash_file(path) if path else "" for path in (pro, anti, references)]
        data_hash = hash_json([[i.sentence for i in items], sorted(stereotypes.items()), name_lists, files])
        return cls(items, lang, cues=cues, references=refs, data_hash=data_hash, **keep)

    # ------------------------------------------------------------------ pieces

    def _split(self, item: ContrastItem) -> str:
        """"validation" (α is tuned on it) or "test" (the metrics): decided per contrast set."""
        return ("validation" if self.alpha == "tune" and _in_validation(item.group, self.validation_fraction, self.seed)
                else "test")

    def _embedder(self):
        if hasattr(self._embedder_spec, "encode"):
            return self._embedder_spec
        if self._loaded_embedder is None:  # loaded once per probe, not once per checkpoint
            self._loaded_embedder = load_embedder(self._embedder_spec, prefix=self.embedder_prefix)
        return self._loaded_embedder

    def _clusterer(self, embedder):
        if self.nli_model is not None:
            return NLIClusterer(self.nli_model)
        return CosineThresholdClusterer(embedder, self.cluster_threshold)

    # ------------------------------------------------------------------ decode, judge

    def items(self) -> list[ContrastItem]:
        return list(self._items)

    def decode(self, translator: Translator, items: Sequence[ContrastItem]) -> Outputs:
        """n ε-samples per item (deduplicated, cached per checkpoint) and, for unambiguous test
        items with references, the forced-decoding log-probabilities of both references."""
        cache = None
        if self.cache_dir is not None:
            ident = translator.signature().replace(":", "-").replace("/", "_")
            cache = SampleCache(Path(self.cache_dir) / f"samples-{ident}.jsonl")
        samples = cached_samples(translator, [it.sentence for it in items], self.n, self.epsilon, self.temperature,
                                 self.seed, cache=cache, batch_size=self.batch_size, progress=self.progress)
        scored_items = [i for i, it in enumerate(items)
                        if self._split(it) == "test" and not it.ambiguous and it.sentence in self.references]
        logprobs: dict[int, tuple[float, float]] = {}
        if scored_items:
            scored = translator.score([items[i].sentence for i in scored_items for _ in (0, 1)],
                                      [r for i in scored_items for r in self.references[items[i].sentence]])
            logprobs = {i: (scored[2 * k].total, scored[2 * k + 1].total) for k, i in enumerate(scored_items)}
        return Outputs({"samples": d, "logprobs": logprobs.get(i)} for i, d in enumerate(samples))

    def judge(self, items: Sequence[ContrastItem], outputs: Sequence[dict[str, Any]]) -> Attempts:
        """Per item: SE and GE of its samples, S3E at every α the metrics may choose, the
        undetected share and — for scored references — their surprisals. Nothing across items:
        α is tuned and norm-H normalised in :meth:`metrics`, from these attempts."""
        samples: list[Deduped] = [o["samples"] for o in outputs]
        embedder = self._embedder()
        calls_before = getattr(embedder, "calls", None)  # the embedder is shared by every checkpoint
        clusterer = self._clusterer(embedder)
        alphas = ALPHAS if self.alpha == "tune" else (float(self.alpha),)

        # GE: one alignment run over every unique (source, sample) pair and every reference
        # (the aligner learns from the whole run, so what is aligned together is kept stable)
        refs = {i: self.references[it.sentence] for i, it in enumerate(items)
                if not it.ambiguous and it.sentence in self.references}
        pairs = [(it, t) for it, d in zip(items, samples) for t in d.texts]
        pairs += [(items[i], r) for i, (c, w) in refs.items() for r in (c, w)]
        genders = target_genders([it.sentence for it, _ in pairs], [it.focus_span for it, _ in pairs],
                                 [t for _, t in pairs], self.lang, method=self.align_method,
                                 detect=self._detect, align=self._align)
        gender_of = {(it.id, text): found.gender for (it, text), found in zip(pairs, genders)}

        attempts = []
        for i, (item, d, out) in enumerate(zip(items, samples, outputs)):
            embeddings = embedder.encode(d.texts)
            cos = cosine_matrix(embeddings)
            ge = cluster_entropy(d, [gender_of[(item.id, t)] for t in d.texts], "gender")
            se_labels = (clusterer.cluster(list(d.texts), cos) if isinstance(clusterer, CosineThresholdClusterer)
                         else clusterer.cluster(list(d.texts)))
            se = cluster_entropy(d, se_labels, clusterer.method)
            attempt = {
                "id": item.id, "group": item.group, "pronoun": item.pronoun, "gold": item.gold,
                "ambiguous": item.ambiguous, "sentence": item.sentence, "source": item.sentence,
                "profession": item.profession, "from_data": item.from_data,
                "in_group": item.in_group, "name": item.name, "split": self._split(item),
                "cues": self.cues[i],
                "n_drawn": d.n, "n_unique": len(d.texts), "entropy": {"se": se.value, "ge": ge.value},
                "s3e": {alpha_key(a): s3e(d, cos, a).value for a in alphas},
                "ge_undetected_share": sum(c for c, lab in zip(d.counts, ge.labels) if lab == UNDETECTED) / d.n,
                "gender_counts": _gender_counts(d, ge.labels),
                "sample_validity": tally(item.sentence, d.texts, d.counts, self.lang, adequate=False),
            }
            if out["logprobs"] is not None:
                attempt["references"] = self._reference_surprisals(
                    item, d, refs[i], out["logprobs"], embedder, embeddings, clusterer, alphas,
                    gender_of)
            attempts.append(attempt)
        settings = {"similarity": self.similarity, "clustering": clusterer.method, "cluster_model": clusterer.name,
                    "embedder": embedder.name}
        meta = {"lang": self.lang, "items": len(items), "clustering": clusterer.method, "names": self.names,
                "embedding_calls": (embedder.calls - calls_before) if calls_before is not None else None,
                "references": sum("references" in a for a in attempts)}
        return Attempts(attempts, meta=meta, settings=settings)

    def _reference_surprisals(self, item: ContrastItem, d: Deduped, references: tuple[str, str],
                              logprobs: tuple[float, float], embedder, embeddings, clusterer,
                              alphas: Sequence[float], gender_of: Mapping[tuple[str, str], str]) -> dict[str, Any]:
        """I(y) of the correct and the incorrect reference under the item's samples, per entropy
        (S3E at every α), as the paper defines it (``inf`` outside every cluster; the metrics
        apply the chosen rule), and their forced-decoding log-probabilities (ΔI, ΔLogProb)."""
        correct, wrong = references
        ref_embeddings = embedder.encode([correct, wrong])
        row: dict[str, Any] = {"logprob_correct": logprobs[0], "logprob_incorrect": logprobs[1],
                               "surprisal": "paper"}
        for name, ref, e in (("correct", correct, ref_embeddings[0]), ("incorrect", wrong, ref_embeddings[1])):
            cos = embeddings @ e
            row[f"s3e_{name}"] = {alpha_key(a): s3e_surprisal_of(cos, d.probs, a) for a in alphas}
            row[f"se_{name}"] = surprisal_of(self._same_cluster(clusterer, ref, d, cos), d.probs)
            g = gender_of[(item.id, ref)]
            # an undetected reference says nothing about gender: its GE surprisal would only count
            # undetected samples, so the item is left out of ΔI(GE)
            row[f"ge_{name}"] = float("nan") if g == UNDETECTED else surprisal_of(
                np.array([1.0 if gender_of[(item.id, t)] == g else 0.0 for t in d.texts]), d.probs)
        return row

    def unit(self, attempt: dict[str, Any], index: int) -> str:
        return str(attempt.get("group", attempt["id"]))  # a contrast set is one unit (see metrics)

    def item_key(self, attempt: dict[str, Any]) -> str:
        return str(attempt["id"])  # a contrast variant (the sentence alone repeats across name variants)

    def settings(self, attempts: Attempts | None = None) -> dict[str, Any]:
        """The options' settings, then what the run decided (clustering and embedder:
        ``attempts.settings``) and the α the metrics use (tuned from the attempts, or given)."""
        settings = {**super().settings(attempts), **(attempts.settings if isinstance(attempts, Attempts) else {})}
        if attempts:
            alpha, tuned = JudgedItems(attempts).alpha()
            settings["alpha"] = f"tuned:{alpha:g}" if tuned is not None else alpha
            if tuned is not None:
                settings["alpha_tuning"] = f"{ALPHA_TUNING};validation={self.validation_fraction:g}"
        return settings

    # ------------------------------------------------------------------ metrics

    @property
    def resamples(self) -> int:
        """The probe fixes its bootstrap's resample count (it has no option for it)."""
        return DEFAULT_RESAMPLES

    def values(self, attempts: Sequence[dict[str, Any]]) -> "_Scored":
        """Means of SE/S3E/GE on unambiguous and ambiguous test items, ΔH, the undetected share,
        the dedup saving and — where references were scored — ΔI and ΔLogProb, with α tuned on
        the validation items first (:class:`JudgedItems`); then the gate's tallies."""
        return _Scored(JudgedItems(attempts, self.surprisal, self.min_items), attempts)

    def tables(self, attempts: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """The cue ANOVA of the test items (see :func:`cue_anova`) and how α was chosen."""
        judged = JudgedItems(attempts)
        alpha, correlations = judged.alpha()
        tuning = {"alpha": alpha, "tuned": correlations is not None,
                  "correlations": {alpha_key(a): r for a, r in (correlations or {}).items()},
                  "validation_items": int((~judged.test).sum()), "test_items": int(judged.test.sum())}
        return {"anova": cue_anova(test_values(attempts, alpha), self.lang), "alpha_tuning": tuning}

    def _same_cluster(self, clusterer, ref: str, d: Deduped, cos: np.ndarray) -> np.ndarray:
        """S(ref, y_j) for SE: 1 when the reference would join y_j's cluster."""
        if isinstance(clusterer, NLIClusterer):
            pairs = [(ref, t) for t in d.texts] + [(t, ref) for t in d.texts]
            ent = clusterer.entails(pairs)
            k = len(d.texts)
            return np.array([1.0 if ent[j] and ent[k + j] else 0.0 for j in range(k)])
        return (cos >= clusterer.threshold).astype(float)


def alpha_key(alpha: float) -> str:
    """How an α is written as a JSON key (``0.5``, ``1``, ``256``)."""
    return f"{float(alpha):g}"


@dataclass
class _Scored:
    """What the ambiguity measures read: the judged items and the gate's tallies of the samples."""

    judged: "JudgedItems"
    attempts: Sequence[dict[str, Any]]

    @property
    def tallies(self) -> list[dict[str, int]]:
        return [a["sample_validity"] for a in self.attempts if "sample_validity" in a]


class JudgedItems:
    """The per-item numbers of a run's attempts as arrays (one row per attempt), and every step
    across items: α tuning on the validation items, then the metrics of the test items.

    α is tuned when the attempts carry S3E at several α (the probe stores one α when it is
    fixed), so stored attempts say everything :meth:`AmbiguityProbe.metrics` needs.
    ``surprisal`` and ``min_items``: how ΔI is made from the reference surprisals and the fewest
    items a ΔI or ΔH may rest on (see the module docstring)."""

    def __init__(self, attempts: Sequence[dict[str, Any]], surprisal: str = "paper", min_items: int = MIN_ITEMS):
        _check_scoring(surprisal, min_items)
        self.surprisal, self.min_items = surprisal, min_items
        attempts = list(attempts)
        if any("s3e" not in a or "s3e" in a.get("entropy", {}) for a in attempts):
            raise InputError("these ambiguity.v1 attempts were stored by an earlier mtdebias (S3E at one α in "
                             "'entropy'); they cannot be re-scored",
                             hint="run `mtdebias eval` on the checkpoint again: results stored in the old layout "
                                  "are scored again, not read back")
        if any(a.get("references") and a["references"].get("surprisal") != "paper" for a in attempts):
            raise InputError("these ambiguity.v1 attempts were stored by an earlier mtdebias (reference surprisals "
                             "with a pseudo-sample); they cannot be re-scored",
                             hint="run `mtdebias eval` on the checkpoint again: results stored in the old layout "
                                  "are scored again, not read back")
        keys = sorted({k for a in attempts for k in a["s3e"]}, key=float)
        if any(sorted(a["s3e"], key=float) != keys for a in attempts):
            raise InputError("ambiguity.v1 attempts disagree on the α their S3E was computed at",
                             hint="attempts of two runs with different alpha settings were mixed")
        self.alphas = [float(k) for k in keys]
        self.test = np.array([a["split"] == "test" for a in attempts], dtype=bool)
        self.ambiguous = np.array([bool(a["ambiguous"]) for a in attempts], dtype=bool)
        self.in_group = np.array([bool(a["in_group"]) for a in attempts], dtype=bool)
        # contrast sets as integer codes (ΔH per set groups by them in every resample)
        # (a set a paired test's resample drew twice brings each variant twice: two sets, see copy_numbers)
        copies = copy_numbers(np.unique([str(a["id"]) for a in attempts], return_inverse=True)[1].reshape(-1))
        self.group = np.unique([f"{a.get('group', a['id'])}\x00{c}" for a, c in zip(attempts, copies)],
                               return_inverse=True)[1].reshape(-1) if attempts else np.zeros(0, dtype=int)
        self.entropy = {kind: np.array([_num(a["entropy"][kind]) for a in attempts], dtype=float)
                        for kind in ("se", "ge")}
        self.s3e = np.array([[_num(a["s3e"][k]) for k in keys] for a in attempts], dtype=float).reshape(-1, len(keys))
        # (.get: the views read entropies of attempts that need not carry the counts)
        self.undetected = np.array([_num(a.get("ge_undetected_share")) for a in attempts], dtype=float)
        self.drawn = np.array([a.get("n_drawn", 0) for a in attempts], dtype=float)
        self.unique = np.array([a.get("n_unique", 0) for a in attempts], dtype=float)
        self.has_ref = np.array(["references" in a for a in attempts], dtype=bool)
        refs = [a.get("references") for a in attempts]
        self.ref = {f"{kind}_{side}": np.array([_num(r[f"{kind}_{side}"]) if r else np.nan for r in refs], dtype=float)
                    for kind in ("se", "ge") for side in ("correct", "incorrect")}
        self.ref.update({f"logprob_{side}": np.array([_num(r[f"logprob_{side}"]) if r else np.nan for r in refs],
                                                     dtype=float) for side in ("correct", "incorrect")})
        for side in ("correct", "incorrect"):
            self.ref[f"s3e_{side}"] = np.array([[_num(r[f"s3e_{side}"][k]) for k in keys] if r else [np.nan] * len(keys)
                                                for r in refs], dtype=float).reshape(-1, len(keys))

    def __len__(self) -> int:
        return len(self.test)

    def alpha(self, idx: np.ndarray | None = None) -> tuple[float, dict[float, float] | None]:
        """α and, when tuned, the correlation of every α tried (on the validation items of ``idx``)."""
        if len(self.alphas) == 1:
            return self.alphas[0], None
        idx = np.arange(len(self)) if idx is None else idx
        val = idx[~self.test[idx]]
        if len(val) < 3:
            raise InputError(f"only {len(val)} validation items to tune α on",
                             hint="raise validation_fraction, use more items, or pass a fixed alpha")
        return pick_alpha({a: list(self.s3e[val, j]) for j, a in enumerate(self.alphas)}, list(self.entropy["ge"][val]))

    def values(self, idx: np.ndarray, strict: bool = False) -> dict[str, tuple[float, int]]:
        """Every metric (value, items it rests on) of the attempts at ``idx`` (a resample may
        repeat items). ``strict``: a failed α tuning is an error, not NaN S3E metrics."""
        try:
            alpha, _ = self.alpha(idx)
            j = self.alphas.index(alpha)
        except InputError:
            if strict:
                raise
            j = None
        nan_column = np.full(len(self), np.nan)

        def at_alpha(matrix: np.ndarray) -> np.ndarray:  # S3E values at the chosen α (NaN: none chosen)
            return matrix[:, j] if j is not None else nan_column

        entropy = {"se": self.entropy["se"], "s3e": at_alpha(self.s3e), "ge": self.entropy["ge"]}
        test = idx[self.test[idx]]
        scored = test[self.in_group[test]]
        # a contrast set a resample drew twice is two sets for ΔH per set (see copy_numbers)
        sets = (self.group[idx] * max(len(idx), 1) + copy_numbers(idx))[self.test[idx] & self.in_group[idx]]
        out: dict[str, tuple[float, int]] = {}
        for kind in ENTROPIES:
            side = {"unambiguous": list(entropy[kind][scored[~self.ambiguous[scored]]]),
                    "ambiguous": list(entropy[kind][scored[self.ambiguous[scored]]])}
            for label, vals in side.items():
                out[f"{kind}_{label}"] = (finite_mean(vals), len(vals))
            both = defined(side["unambiguous"]) + defined(side["ambiguous"])
            out[f"delta_h_{kind}"] = self._enough(delta_h(side["unambiguous"], side["ambiguous"]), both)
            out[f"delta_h_{kind}_of_means"] = self._enough(delta_h_of_means(side["unambiguous"], side["ambiguous"]),
                                                           both)
            out[f"delta_h_{kind}_per_set"] = self._enough(*delta_h_per_set(entropy[kind][scored], sets,
                                                                           self.ambiguous[scored]))
        out["ge_undetected_share"] = (finite_mean(list(self.undetected[test])), len(test))
        drawn = self.drawn[test].sum()
        out["dedup_saving"] = (0.0 if drawn == 0 else 1.0 - self.unique[test].sum() / drawn, len(test))
        with_refs = test[self.has_ref[test]]
        if len(with_refs):
            for kind in ENTROPIES:
                side = {name: (at_alpha(self.ref[f"s3e_{name}"]) if kind == "s3e" else self.ref[f"{kind}_{name}"])[with_refs]
                        for name in ("correct", "incorrect")}
                for name, values in side.items():  # references outside every sample cluster: I = inf
                    out[f"delta_i_{kind}_outside_{name}"] = (float(np.isinf(values).sum()), len(with_refs))
                if self.surprisal == "pseudo-sample":
                    side = {name: np.array([pseudo_sample_surprisal(v, n) for v, n in zip(values, self.drawn[with_refs])])
                            for name, values in side.items()}
                out.update(self._delta_i(f"delta_i_{kind}", list(side["correct"]), list(side["incorrect"])))
            out.update(self._delta_i("delta_logprob", list(-self.ref["logprob_correct"][with_refs]),
                                     list(-self.ref["logprob_incorrect"][with_refs]), of_means=False))
        return out

    def _enough(self, value: float, n: int) -> tuple[float, int]:
        """(value, n), the value NaN when fewer than ``min_items`` items define it."""
        return (value if n >= self.min_items else float("nan")), int(n)

    def _delta_i(self, name: str, correct: list[float], incorrect: list[float],
                 of_means: bool = True) -> dict[str, tuple[float, int]]:
        """ΔI (mean of the items' ΔI) and, with ``of_means``, ΔI of the mean surprisals, each with
        the number of items that define it."""
        items = delta_i_items(correct, incorrect)
        out = {name: self._enough(finite_mean(items), defined(items))}
        if of_means:
            both = sum(1 for c, w in zip(correct, incorrect) if math.isfinite(c) and math.isfinite(w))
            out[f"{name}_of_means"] = self._enough(delta_i_of_means(correct, incorrect), both)
        return out


def copy_numbers(keys: np.ndarray) -> np.ndarray:
    """For each entry of ``keys`` (integers), how many equal entries come before it: 0, 1, … for
    the first, second, … copy. A bootstrap that draws a contrast set twice must count it twice
    for ΔH per set; grouping by the set alone would merge the copies, so a resample would hold
    only the ~63 % of sets drawn at least once, each once: a subsample without replacement,
    whose spread is narrower than the mean's own (coverage 81–86 % of 100 simulations)."""
    keys = np.asarray(keys).reshape(-1)
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    ranks = np.arange(len(keys)) - np.repeat(starts, np.diff(np.r_[starts, len(keys)]))
    out = np.empty(len(keys), dtype=int)
    out[order] = ranks
    return out


def _check_scoring(surprisal: str, min_items: Any) -> None:
    if surprisal not in SURPRISALS:
        raise InputError(f"surprisal must be one of {', '.join(SURPRISALS)}, not {surprisal!r}",
                         hint='"paper" (the default) is the paper\'s I(y) = -log E[S(y, y\')]')
    if isinstance(min_items, bool) or not isinstance(min_items, int) or min_items < 1:
        raise InputError(f"min_items must be a whole number ≥ 1, not {min_items!r}")


def names_cue(names: bool | str | Mapping[str, Any] | None, lang: str) -> tuple[dict[str, list[str]] | None, str]:
    """The names to insert for the names cue (by gender; None: no name variants) and what the
    signature calls them, from the ``names`` option (see :meth:`AmbiguityProbe.from_options`)."""
    if names is None or names is False or names in ("", "none"):
        return None, "none"
    if names == "paper":
        if lang not in PAPER_NAMES:
            return None, f"paper:none-for-{lang}"  # the paper names no names for this language
        female, male = PAPER_NAMES[lang]
        return {"female": [female], "male": [male]}, "paper"
    if names is True or names == "us-lists":
        from ...names import load_name_list

        return {"female": load_name_list("first_female"), "male": load_name_list("first_male")}, "us-lists"
    if isinstance(names, Mapping) and set(names) == {"female", "male"}:
        lists = {g: [v] if isinstance(v, str) else list(v) for g, v in names.items()}
        if all(lists.values()) and all(isinstance(x, str) and x.strip() for v in lists.values() for x in v):
            return lists, f"custom:{hash_json(lists)}"
    raise InputError(f"names = {names!r} is not a names cue",
                     hint='use false, "paper", "us-lists", or a table {female = ["Anna"], male = ["Ivan"]}')


def _num(value: Any) -> float:
    return float("nan") if value is None else float(value)


def test_values(attempts: Sequence[dict[str, Any]], alpha: float | None = None) -> list[dict[str, Any]]:
    """The test items' entropies (S3E at the run's α — tuned here unless ``alpha`` is given) and
    norm-H, one row per test attempt:
    ``{"id", "split", "ambiguous", "cues", "entropy": {kind: H}, "norm_h": {kind: norm-H}}``."""
    if alpha is None:
        alpha, _ = JudgedItems(attempts).alpha()
    tests = [a for a in attempts if a["split"] == "test"]
    rows = [{"id": a["id"], "split": a["split"], "ambiguous": a["ambiguous"], "cues": a.get("cues") or {},
             "entropy": {"se": _num(a["entropy"]["se"]), "s3e": _num(a["s3e"][alpha_key(alpha)]),
                         "ge": _num(a["entropy"]["ge"])}}
            for a in tests]
    groups = {a["id"]: a["group"] for a in tests}
    in_group = {a["id"]: a["in_group"] for a in tests}
    norms = {kind: norm_h({row["id"]: row["entropy"][kind] for row in rows}, groups, in_group) for kind in ENTROPIES}
    for row in rows:
        row["norm_h"] = {kind: norms[kind].get(row["id"]) for kind in ENTROPIES}
    return rows


RESPONSES = tuple(f"norm_h_{kind}" for kind in ENTROPIES)


def cue_anova(rows: Sequence[dict[str, Any]], lang: str | None = None) -> dict[str, Any]:
    """Single-effect ANOVA of every bias cue on norm-H (:func:`mtdebias.stats.anova.anova_table`)
    over the test rows of :func:`test_values`, with the rows each response had to drop and why.

    A norm-H is undefined (NaN) when its item's entropy is, or when every member of its contrast
    set has entropy 0 (nothing to normalise by); those rows are left out of that response's
    model and listed under ``dropped``. Needs statsmodels (``pip install 'mtdebias[eval]'``);
    without it the table says so instead of failing the evaluation.
    """
    test = [a for a in rows if a["split"] == "test"]
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
    from ...stats.anova import anova_table

    frame = _frame(test)
    if frame.empty:
        return {**record, "rows": []}
    table = anova_table(frame, list(RESPONSES), CUES, REFERENCE)
    out = [{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
           for row in table.to_dict("records")]
    return {**record, "rows": out}


def _frame(rows: Sequence[dict[str, Any]], model: str | None = None, lang: str | None = None):
    import pandas as pd

    out = []
    for a in rows:
        row = {"model": model, "lang": lang, "id": a["id"], **a["cues"]}
        for kind in ENTROPIES:
            row[f"h_{kind}"] = a["entropy"][kind]
            v = a["norm_h"][kind]
            row[f"norm_h_{kind}"] = float("nan") if v is None else v
        out.append(row)
    return pd.DataFrame(out)


def attempts_frame_rows(attempts: Sequence[dict[str, Any]], model: str | None = None, lang: str | None = None):
    """One row per test attempt: its cues, entropies and norm-H (the ANOVA's input)."""
    return _frame(test_values(attempts), model, lang)


def _gender_counts(d: Deduped, labels) -> dict[str, int]:
    out: dict[str, int] = {}
    for c, lab in zip(d.counts, labels):
        out[lab] = out.get(lab, 0) + c
    return out


def attempts_frame(results: Sequence[ProbeResult], model_names: Sequence[str] | None = None):
    """One row per test item of every result: cues, entropies and norm-H, plus model and lang
    columns — the input of :func:`mtdebias.stats.anova.anova_table`."""
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
    for row in test_values(attempts):
        label = "ambiguous" if row["ambiguous"] else "unambiguous"
        for group, values in (("entropy", row["entropy"]), ("norm-H", row["norm_h"])):
            for kind, value in values.items():
                if value is not None and math.isfinite(value):
                    out.setdefault(group, {}).setdefault(kind, {}).setdefault(label, []).append(float(value))
    return out
