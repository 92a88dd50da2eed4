"""Entropies, bias metrics, ANOVA, contrast sets and cues of mtdebias.uncertainty."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from mtdebias.errors import InputError
from mtdebias.uncertainty.entropy import (SampleCache, cached_samples, cluster_entropy, dedup,
                                          dedup_saving, entropy, gender_entropy, pseudo_sample_surprisal, s3e,
                                          s3e_surprisal_of, surprisal_of, surprisals, tune_alpha)
from mtdebias.uncertainty.metrics import (delta_h, delta_h_of_means, delta_h_per_set, delta_i, delta_i_items,
                                          delta_i_of_means, delta_logprob, norm_h, rank_correlations,
                                          relative_difference)
from mtdebias.uncertainty.similarity import IdentitySimilarity, cluster_similarity, greedy_clusters

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"


# --------------------------------------------------------------------------- entropies


def test_identical_samples_have_zero_entropy():
    d = dedup(["Der Arzt kam."] * 128)
    assert d.texts == ("Der Arzt kam.",) and d.counts == (128,)
    assert entropy(IdentitySimilarity().matrix(d.texts), d.probs) == 0.0
    assert cluster_entropy(d, ["male"], "gender").value == 0.0
    # S3E: one unique sample, S(y, y) = 1 → I = -log 1 = 0
    assert s3e(d, np.array([[1.0]]), alpha=3).value == 0.0


@pytest.mark.parametrize("k", [2, 3, 5])
def test_k_equiprobable_clusters_give_log_k(k):
    # 4 distinct samples per cluster, each drawn twice: p(cluster) = 1/k, so H = log k.
    samples = [f"c{c}-s{s}" for c in range(k) for s in range(4) for _ in range(2)]
    d = dedup(samples)
    labels = [t.split("-")[0] for t in d.texts]
    assert math.isclose(cluster_entropy(d, labels, "nli").value, math.log(k), rel_tol=1e-12)


def test_s3e_with_identity_similarity_is_shannon_entropy():
    # counts 5, 2, 1 of 8: Shannon = -(5/8 ln 5/8 + 2/8 ln 2/8 + 1/8 ln 1/8)
    d = dedup(["a"] * 5 + ["b"] * 2 + ["c"])
    by_hand = -(5 / 8 * math.log(5 / 8) + 2 / 8 * math.log(2 / 8) + 1 / 8 * math.log(1 / 8))  # 0.9003
    assert math.isclose(s3e(d, np.eye(3), alpha=1).value, by_hand, rel_tol=1e-12)
    assert math.isclose(entropy(IdentitySimilarity().matrix(d.texts), d.probs), by_hand, rel_tol=1e-12)


def test_s3e_hand_computed_with_partial_similarity():
    # two unique samples, p = (3/4, 1/4), cosine 0.5, alpha 2 → S12 = 0.25
    # I1 = -ln(3/4 + 1/4*0.25) = -ln(0.8125); I2 = -ln(3/4*0.25 + 1/4) = -ln(0.4375)
    # H = 3/4*I1 + 1/4*I2 = 0.155707 + 0.206645 = 0.362352
    d = dedup(["x", "x", "x", "y"])
    cos = np.array([[1.0, 0.5], [0.5, 1.0]])
    res = s3e(d, cos, alpha=2)
    assert np.allclose(res.surprisals, [-math.log(0.8125), -math.log(0.4375)])
    assert math.isclose(res.value, 0.75 * -math.log(0.8125) + 0.25 * -math.log(0.4375), rel_tol=1e-12)
    # negative cosines are clamped to 0 (no similarity), so they behave like identity
    assert math.isclose(s3e(d, np.array([[1.0, -0.3], [-0.3, 1.0]]), 1).value,
                        -(0.75 * math.log(0.75) + 0.25 * math.log(0.25)), rel_tol=1e-12)


def test_gender_entropy_counts_undetected_as_its_own_class():
    d = dedup(["la doctora"] * 2 + ["el doctor"] * 1 + ["??"] * 1)
    genders = {"la doctora": "female", "el doctor": "male", "??": "undetected"}
    res, share = gender_entropy(d, genders.__getitem__)
    # classes 2/4, 1/4, 1/4 → H = -(0.5 ln 0.5 + 2 * 0.25 ln 0.25) = 1.0397
    assert math.isclose(res.value, -(0.5 * math.log(0.5) + 0.5 * math.log(0.25)), rel_tol=1e-12)
    assert share == 0.25


def test_reference_surprisal_is_the_papers_without_a_pseudo_sample():
    d = dedup(["a"] * 3 + ["b"])
    # reference in a's cluster: E = 3/4 → I = -ln 0.75 (the paper's I(y) = -log E[S(y, y')])
    assert math.isclose(surprisal_of(np.array([1.0, 0.0]), d.probs), -math.log(0.75))
    # reference outside every cluster: E = 0 → I = ∞ (the metrics leave such an item out)
    assert surprisal_of(np.array([0.0, 0.0]), d.probs) == math.inf
    # the named, non-default rule: one pseudo-sample, E = (4 · 3/4 + 1)/5 = 0.8; outside: 1/5
    assert math.isclose(pseudo_sample_surprisal(-math.log(0.75), d.n), -math.log(0.8))
    assert math.isclose(pseudo_sample_surprisal(math.inf, d.n), math.log(5))
    assert math.isnan(pseudo_sample_surprisal(float("nan"), d.n))


def test_delta_i_s3e_of_a_reference_unlike_all_128_samples_at_alpha_256():
    """128 samples: 96 of y1 and 32 of y2. The correct reference has cosine 0.8 / 0.6 with them,
    the incorrect one 0.3 with both (unlike every sample). The paper's formula by hand at α = 256:
    I_c = -ln(0.75 · 0.8^256 + 0.25 · 0.6^256) = -ln 0.75 - 256 ln 0.8 (+ 0.6^256/0.8^256 · …
    negligible, < 1e-30), I_w = -256 ln 0.3 = 308.22; ΔI = (I_c - I_w) / ½(I_c + I_w) = -1.372.
    The pseudo-sample caps both at ≈ ln 129, so its ΔI is ≈ 0: the bias would vanish."""
    d = dedup(["y1"] * 96 + ["y2"] * 32)
    correct, incorrect = np.array([0.8, 0.6]), np.array([0.3, 0.3])
    i_c = s3e_surprisal_of(correct, d.probs, 256)
    i_w = s3e_surprisal_of(incorrect, d.probs, 256)
    by_hand_c = -math.log(0.75) - 256 * math.log(0.8)
    by_hand_w = -256 * math.log(0.3)
    assert i_c == pytest.approx(by_hand_c, rel=1e-12) and i_w == pytest.approx(by_hand_w, rel=1e-12)
    paper = (by_hand_c - by_hand_w) / (0.5 * (by_hand_c + by_hand_w))
    assert delta_i([i_c], [i_w]) == pytest.approx(paper, rel=1e-12) and paper == pytest.approx(-1.372, abs=1e-3)
    capped = delta_i([pseudo_sample_surprisal(i_c, d.n)], [pseudo_sample_surprisal(i_w, d.n)])
    assert abs(capped) < 1e-20  # what the earlier default reported
    # at α = 1 the same references: I_c = -ln(0.75·0.8 + 0.25·0.6) = -ln 0.75, I_w = -ln 0.3
    assert s3e_surprisal_of(correct, d.probs, 1) == pytest.approx(-math.log(0.75))
    # log-space sum: cosine 0.05 at α = 256 underflows as a power (0.05^256 = 0.0) but has a
    # finite surprisal, -256 ln 0.05 = 766.9; all cosines ≤ 0 (S = 0 everywhere): ∞
    assert 0.05 ** 256 == 0.0
    assert s3e_surprisal_of(np.array([0.05, 0.05]), d.probs, 256) == pytest.approx(-256 * math.log(0.05))
    assert s3e_surprisal_of(np.array([-0.1, 0.0]), d.probs, 256) == math.inf
    # s3e_surprisal_of is the S3E surprisal of the entropy module, for an outside output
    assert s3e_surprisal_of(np.array([0.5, 1.0]), d.probs, 2) == pytest.approx(
        surprisal_of(np.array([0.25, 1.0]), d.probs))


def test_surprisals_shared_interface_for_clusters():
    # I(y) = -log p(cluster of y): p = (0.5, 0.25, 0.25), clusters {0, 1} and {2}
    sim = cluster_similarity(["A", "A", "B"])
    assert np.allclose(surprisals(sim, np.array([0.5, 0.25, 0.25])), [-math.log(0.75)] * 2 + [-math.log(0.25)])


def test_greedy_clusters_joins_first_matching_representative():
    same = lambda a, b: (a % 2) == (b % 2)  # noqa: E731 - parity classes
    assert greedy_clusters(5, same) == [0, 1, 0, 1, 0]


def test_tune_alpha_picks_the_best_correlating_exponent():
    # item i: two unique samples with cosine c_i, equal counts. The target ranks items in the
    # order of 1 - c_i; S3E is monotone in alpha*log(c) so all alphas correlate perfectly
    # except where the clamp makes S3E flat. Make a target only a large alpha can order:
    # S3E = -ln((1 + c^a)/2) — identical ranks for every alpha > 0, so ties → smallest alpha.
    cos = [np.array([[1, c], [c, 1]]) for c in (0.99, 0.95, 0.9, 0.8)]
    ds = [dedup(["a", "b"])] * 4
    best, table = tune_alpha(cos, ds, [0.1, 0.2, 0.3, 0.4], alphas=(1, 4, 16))
    assert best == 1 and all(math.isclose(v, 1.0) for v in table.values())
    # reverse target: every alpha correlates -1; still a defined choice
    best, table = tune_alpha(cos, ds, [0.4, 0.3, 0.2, 0.1], alphas=(1, 4))
    assert table[1] == pytest.approx(-1.0)
    with pytest.raises(InputError):
        tune_alpha(cos, ds, [0.0] * 4)


# --------------------------------------------------------------------------- dedup + cache


class _CountingTranslator:
    def __init__(self):
        self.sampled: list[str] = []

    def sample(self, sources, n=128, epsilon=0.02, temperature=1.0, seed=0):
        self.sampled.extend(sources)
        # a deterministic, repetitive sampler: 3 distinct outputs per source
        return [[f"{s} #{k % 3}" for k in range(n)] for s in sources]

    def signature(self):
        return "fake:1"


def test_dedup_saving_and_cache_roundtrip(tmp_path):
    tr = _CountingTranslator()
    cache = SampleCache(tmp_path / "samples.jsonl")
    out = cached_samples(tr, ["a", "b", "a"], n=12, epsilon=0.02, seed=1, cache=cache, batch_size=1)
    assert [d.counts for d in out] == [(4, 4, 4)] * 3
    assert tr.sampled == ["a", "b"]  # the repeated source is sampled once
    # 36 drawn, 9 unique embedded → 75% of embedding calls saved
    assert dedup_saving(out) == pytest.approx(1 - 9 / 36)
    again = cached_samples(tr, ["b", "a"], n=12, epsilon=0.02, seed=1, cache=SampleCache(cache.path))
    assert tr.sampled == ["a", "b"] and again[0] == out[1]
    # other settings are a different key
    cached_samples(tr, ["a"], n=12, epsilon=0.05, seed=1, cache=SampleCache(cache.path))
    assert tr.sampled == ["a", "b", "a"]
    assert len(SampleCache(cache.path)) == 3


def test_corrupt_cache_names_file_and_line(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text('{"key": "k", "texts": ["x"], "counts": [1]}\n{"oops": 1}\n')
    with pytest.raises(InputError, match=r"c\.jsonl:2"):
        SampleCache(path)


# --------------------------------------------------------------------------- metrics


def test_delta_i_and_delta_logprob_by_hand():
    # per item: (1 - 2) / 1.5 = -2/3 and (3 - 4) / 3.5 = -2/7; mean = -(2/3 + 2/7) / 2 = -10/21
    assert delta_i([1.0, 3.0], [2.0, 4.0]) == pytest.approx(-10 / 21)
    # of the means: mean I(correct) = 2, mean I(incorrect) = 3 → (2 - 3) / 2.5 = -0.4
    assert delta_i_of_means([1.0, 3.0], [2.0, 4.0]) == pytest.approx(-0.4)
    # an item whose reference gender could not be detected (NaN) is left out, and so is one whose
    # reference lies outside every sample cluster (I = ∞), or whose two surprisals are both 0
    assert delta_i([1.0, float("nan")], [2.0, 4.0]) == pytest.approx(-2 / 3)
    assert delta_i([1.0, math.inf, 0.0], [2.0, 4.0, 0.0]) == pytest.approx(-2 / 3)
    assert delta_i_of_means([1.0, 3.0, math.inf], [2.0, 4.0, 1.0]) == pytest.approx(-0.4)
    assert [math.isnan(x) for x in delta_i_items([1.0, 0.5, math.inf], [2.0, math.inf, math.inf])] == [False, True, True]
    # log-probs -10 (correct) and -15 (incorrect): I = 10, 15 → -5 / 12.5 = -0.4
    assert delta_logprob([-10.0], [-15.0]) == pytest.approx(-0.4)
    assert math.isnan(relative_difference(0.0, 0.0))


# The paper's Table 15 (Tables 4 = its s3e columns): per language and model, unambiguous mean,
# ambiguous mean and ΔH for s3e, se and ge, as published (two decimals).
TABLE_15 = """ES Opus-MT 1.23 1.12 0.09 0.33 0.22 0.33 0.21 0.13 0.38
ES deb-Opus-MT 0.97 0.89 0.08 0.41 0.25 0.39 0.24 0.16 0.33
ES m2m100 1.79 1.45 0.19 0.46 0.17 0.63 0.25 0.09 0.64
FR Opus-MT 1.79 1.43 0.20 0.57 0.40 0.30 0.23 0.08 0.65
FR deb-Opus-MT 1.21 1.08 0.11 0.64 0.50 0.22 0.23 0.09 0.61
FR m2m100 3.22 2.78 0.14 0.56 0.29 0.48 0.25 0.17 0.32
UK Opus-MT 1.96 2.16 -0.10 0.40 0.39 0.03 0.20 0.14 0.30
UK deb-Opus-MT 1.98 2.15 -0.09 0.44 0.41 0.07 0.22 0.15 0.32
UK m2m100 2.05 2.28 -0.11 0.37 0.41 -0.11 0.18 0.16 0.11
RU Opus-MT 1.56 1.68 -0.08 0.38 0.32 0.16 0.12 0.03 0.75
RU deb-Opus-MT 1.05 0.97 0.08 0.43 0.42 0.02 0.12 0.06 0.50
RU m2m100 1.83 2.29 -0.25 0.50 0.29 0.42 0.15 0.10 0.33"""


def _table_15():
    for line in TABLE_15.splitlines():
        lang, model, *numbers = line.split()
        values = [float(x) for x in numbers]
        for k, kind in enumerate(("s3e", "se", "ge")):
            yield f"{lang} {model} {kind}", values[3 * k], values[3 * k + 1], values[3 * k + 2]


def _reproduces(aggregation, unamb: float, amb: float, published: float) -> bool:
    """Whether ``aggregation`` gives the published ΔH (± 0.005, its rounding) for some means that
    round to the published ones (each ± 0.005). Every candidate is monotone in each mean, so its
    values over that box span [least corner, greatest corner]."""
    corners = [aggregation([unamb + du], [amb + da]) for du in (-0.005, 0.005) for da in (-0.005, 0.005)]
    return min(corners) - 0.005 <= published <= max(corners) + 0.005


@pytest.mark.parametrize("row,unamb,amb,published", list(_table_15()), ids=lambda x: x if isinstance(x, str) else "")
def test_delta_h_reproduces_every_row_of_the_papers_table_15(row, unamb, amb, published):
    """ΔH = (H̄_u − H̄_a) / H̄_u gives each published ΔH from the published means, at the means
    themselves within rounding (e.g. ES m2m100 se: (0.46 − 0.17)/0.46 = 0.630 → 0.63; RU Opus-MT
    ge: 0.09/0.12 = 0.75; RU m2m100 s3e: −0.46/1.83 = −0.251 → −0.25)."""
    assert delta_h([unamb], [amb]) == pytest.approx(published, abs=0.006)


def test_the_printed_equation_on_the_means_reproduces_only_half_of_table_15():
    """The comparison docs/papers.md shows: the printed equation on the means reproduces 18 of the
    36 ΔH values (ES m2m100 se: 0.29 / 0.315 = 0.92 against 0.63), (H̄_u − H̄_a)/H̄_u all 36."""
    rows = list(_table_15())
    assert sum(_reproduces(delta_h, *r[1:]) for r in rows) == 36
    assert sum(_reproduces(delta_h_of_means, *r[1:]) for r in rows) == 18
    assert delta_h_of_means([0.46], [0.17]) == pytest.approx(0.29 / 0.315)


def test_delta_h_and_norm_h_by_hand():
    # unambiguous mean 1.2, ambiguous mean 0.8 → 0.4 / 1.2 = 1/3 (a biased model: > 0); the
    # printed equation on the means: 0.4 / ½(1.2 + 0.8) = 0.4
    assert delta_h([1.0, 1.4], [0.8]) == pytest.approx(1 / 3)
    assert delta_h_of_means([1.0, 1.4], [0.8]) == pytest.approx(0.4)
    assert math.isnan(delta_h([0.0, 0.0], [0.5])) and math.isnan(delta_h([1.0], []))
    ent = {"he": 0.5, "she": 1.5, "they": 1.0, "she-name": 2.0, "x-he": 0.0, "x-they": 0.0}
    groups = {"he": "g", "she": "g", "they": "g", "she-name": "g", "x-he": "x", "x-they": "x"}
    norms = norm_h(ent, groups, in_group={"she-name": False})
    # G = {he, she, they}: mean 1.0; the name variant is normalised by it without joining it
    assert norms["he"] == 0.5 and norms["she"] == 1.5 and norms["she-name"] == 2.0
    assert math.isnan(norms["x-he"])  # a set with zero mean entropy has no norm-H


def test_delta_h_per_set_on_three_contrast_sets_by_hand():
    """Set g1: he 0.6, she 1.0, they 0.4 → unambiguous 0.8, ambiguous 0.4: 0.4 / 0.6 = 2/3.
    Set g2: he 0.2, she 0.2, they 0.6 → −0.4 / 0.4 = −1. Set g3: all 0 → undefined (0/0), left
    out. Mean over the 2 defined sets: (2/3 − 1)/2 = −1/6. Pooled over the nine items the sides'
    means are both 1/3, so ΔH (either form) is 0: the two aggregations can disagree in sign."""
    h = [0.6, 1.0, 0.4, 0.2, 0.2, 0.6, 0.0, 0.0, 0.0]
    sets = ["g1"] * 3 + ["g2"] * 3 + ["g3"] * 3
    ambiguous = [False, False, True] * 3
    value, n = delta_h_per_set(h, sets, ambiguous)
    assert value == pytest.approx(-1 / 6) and n == 2
    unamb = [x for x, a in zip(h, ambiguous) if not a]
    amb = [x for x, a in zip(h, ambiguous) if a]
    assert delta_h(unamb, amb) == pytest.approx(0.0, abs=1e-12)
    assert delta_h_of_means(unamb, amb) == pytest.approx(0.0, abs=1e-12)
    # a set with no ambiguous item (or a NaN entropy there) defines nothing either
    assert delta_h_per_set([0.5, float("nan")], ["g", "g"], [False, True]) == (pytest.approx(float("nan"), nan_ok=True), 0)
    assert math.isnan(delta_h_per_set([], [], [])[0])


def test_rank_correlations_by_hand():
    # ΔI ranks checkpoints exactly against accuracy → τ = ρ = -1
    res = rank_correlations({"a": -0.3, "b": -0.2, "c": -0.1, "d": 0.0}, {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6})
    assert res["kendall_tau"] == pytest.approx(-1) and res["spearman_rho"] == pytest.approx(-1)
    assert res["n"] == 4 and 0 <= res["spearman_p"] < 0.05
    with pytest.raises(ValueError):
        rank_correlations({"a": 1, "b": 2}, {"a": 1, "b": 2})


# --------------------------------------------------------------------------- ANOVA


def test_anova_single_effect_matches_manual_least_squares():
    import pandas as pd

    from mtdebias.stats.anova import anova_table, cue_effects
    from mtdebias.uncertainty.cues import REFERENCE

    y = [1.0, 1.2, 0.8, 2.0, 2.4, 0.5, 0.7, 0.6, 1.1, float("nan")]
    x = ["N", "N", "N", "SF", "SF", "OM", "OM", "OM", "SF", "OM"]
    frame = pd.DataFrame({"norm_h": y, "subject": x, "model": "m"})
    rows = {r["level"]: r for r in cue_effects(frame, "norm_h", "subject", "N")}
    # treatment coding by hand: mean(N) = 1.0; SF mean = (2.0 + 2.4 + 1.1)/3 = 1.8333 → +0.8333;
    # OM mean = (0.5 + 0.7 + 0.6)/3 = 0.6 → -0.4  (the NaN row is dropped)
    assert rows["SF"]["coef"] == pytest.approx(5.5 / 3 - 1.0)
    assert rows["OM"]["coef"] == pytest.approx(-0.4)
    # same as numpy least squares on a hand-built dummy design
    keep = [i for i, v in enumerate(y) if not math.isnan(v)]
    design = np.array([[1.0, x[i] == "OM", x[i] == "SF"] for i in keep], dtype=float)
    beta, *_ = np.linalg.lstsq(design, np.array([y[i] for i in keep]), rcond=None)
    assert rows["OM"]["coef"] == pytest.approx(beta[1]) and rows["SF"]["coef"] == pytest.approx(beta[2])
    # t = coef / se, and residual variance by hand gives the same standard error
    resid = np.array([y[i] for i in keep]) - design @ beta
    sigma2 = resid @ resid / (len(keep) - 3)
    se = np.sqrt(np.diag(sigma2 * np.linalg.inv(design.T @ design)))
    assert rows["SF"]["std_err"] == pytest.approx(se[2]) and rows["SF"]["t"] == pytest.approx(beta[2] / se[2])
    assert rows["SF"]["p"] < 0.05 and rows["SF"]["n_level"] == 3 and rows["SF"]["n_reference"] == 3
    table = anova_table(frame, ["norm_h"], cues=["subject", "names"], references=REFERENCE, by=["model"])
    assert list(table["level"]) == ["OM", "SF"] and set(table["model"]) == {"m"}  # names absent → no rows
    # a cue without its reference level cannot be tested
    assert cue_effects(frame[frame.subject != "N"], "norm_h", "subject", "N") == []


# --------------------------------------------------------------------------- contrast sets


@pytest.fixture(scope="module")
def nlp():
    from mtdebias.uncertainty.contrast import load_english_parser

    return load_english_parser()


@pytest.mark.parametrize("sentence,gender,expected", [
    ("The nurse asked the doctor about her schedule because she was late.", "male",
     "The nurse asked the doctor about his schedule because he was late."),
    ("The nurse asked the doctor about her schedule because she was late.", "neutral",
     "The nurse asked the doctor about their schedule because they were late."),
    ("The clerk gave her a book that she wasn't reading.", "male",
     "The clerk gave him a book that he wasn't reading."),
    ("The clerk gave her a book that she wasn't reading.", "neutral",
     "The clerk gave them a book that they weren't reading."),
    ("The guard hated the hairdresser because she charges too much.", "neutral",
     "The guard hated the hairdresser because they charge too much."),
    ("The developer argued with the designer because he's not happy and likes cats.", "neutral",
     "The developer argued with the designer because they're not happy and like cats."),
    ("She has been asked to help him with his own project, and he does it himself.", "neutral",
     "They have been asked to help them with their own project, and they do it themselves."),
    ("The chief thanked the secretary because his work is great.", "female",
     "The chief thanked the secretary because her work is great."),
    # "them" refers to the apples, not the farmer: untouched
    ("The farmer offered apples to the housekeeper, because he had too many of them.", "neutral",
     "The farmer offered apples to the housekeeper, because they had too many of them."),
    # a Winogender "they" row back to singular
    ("The technician told the customer that they were ready.", "female",
     "The technician told the customer that she was ready."),
])
def test_pronoun_rewriting(nlp, sentence, gender, expected):
    from mtdebias.uncertainty.contrast import rewrite_pronouns

    assert rewrite_pronouns(sentence, gender, nlp) == expected


def test_contrast_sets_and_cues(tmp_path, nlp):
    from mtdebias.probes.winomt.probe import load_winomt
    from mtdebias.uncertainty.contrast import add_name_variants, build_contrast_sets
    from mtdebias.uncertainty.cues import annotate_cues, load_stereotypes

    data = tmp_path / "en.txt"
    data.write_text(
        "female\t1\tThe developer argued with the designer because she did not like the design.\tdeveloper\n"
        "male\t1\tThe developer argued with the designer because he did not like the design.\tdeveloper\n"
        "male\t4\tThe secretary thanked the mover because he carried the boxes.\tmover\n"
        "neutral\t1\tThe mechanic called to inform someone that they had completed the repair.\tmechanic\n")
    pro = tmp_path / "pro.txt"
    pro.write_text("male\t1\tThe developer argued with the designer because he did not like the design.\tdeveloper\n"
                   "male\t4\tThe secretary thanked the mover because he carried the boxes.\tmover\n")
    rows = load_winomt(data)  # the probe layer reads WinoMT files; contrast sets take its rows
    items = build_contrast_sets(rows, nlp)
    assert len(items) == 9 and len({i.group for i in items}) == 3  # the he/she pair shares one set
    dev = [i for i in items if i.profession == "developer"]
    assert [i.pronoun for i in dev] == ["he", "she", "they"] and [i.from_data for i in dev] == [True, True, False]
    assert dev[2].sentence == "The developer argued with the designer because they did not like the design."
    assert dev[0].sentence[slice(*dev[0].focus_span)] == "developer"
    items = add_name_variants(items, {"female": ["Anna"], "male": ["Ivan"]})
    named = [i for i in items if i.name]
    assert named[0].sentence == "The developer Ivan argued with the designer because he did not like the design."
    cues = {i.id: c for i, c in zip(items, annotate_cues(items, "ru", load_stereotypes(load_winomt(pro)), nlp=nlp,
                                                                 person_nouns=["designer", "secretary"]))}
    by = {(i.profession, i.pronoun, i.name): cues[i.id] for i in items}
    he_dev = by[("developer", "he", None)]
    # developer is the main-clause subject; the designer (a person) is the nearest NP → recency O
    assert he_dev["subject"] == "SM" and he_dev["recency"] == "OM" and he_dev["stereotype"] == "M"
    assert he_dev["ic"] == "N" and he_dev["default_m"] == "M" and he_dev["names"] == "no_name"
    assert by[("developer", "she", None)]["subject"] == "SF"
    assert by[("developer", "she", "Anna")]["names"] == "F" and by[("developer", "she", "Anna")]["subject"] == "SF"
    they = by[("developer", "they", None)]
    assert they["subject"] == they["recency"] == they["pronoun"] == "N" and they["ambiguity"] == "ambiguous"
    # "thank" is object-biased and "because" follows: the explanation is about the mover (focus)
    mover = by[("mover", "he", None)]
    assert mover["ic"] == "SM" and mover["subject"] == "OM" and mover["recency"] == "SM"
    # "someone" is the nearest NP but not a person noun: no recency cue (as in the paper's example)
    assert by[("mechanic", "he", None)]["recency"] == "N" and by[("mechanic", "he", None)]["subject"] == "SM"
    assert by[("mechanic", "he", None)]["stereotype"] == "N"  # not in the pro file
    assert annotate_cues(items[:1], "es", {}, nlp=nlp)[0]["default_m"] == "no_default"


def test_bad_winomt_line_names_file_and_line(tmp_path):
    from mtdebias.probes.winomt.probe import load_winomt

    bad = tmp_path / "bad.txt"
    bad.write_text("male\t1\tThe developer argued.\tdeveloper\nmale\t2\tThe developer argued.\tdeveloper\n")
    with pytest.raises(InputError, match=r"bad\.txt:2"):
        load_winomt(bad)


def test_shipped_cue_lists_load():
    from mtdebias.uncertainty.cues import load_default_masculine, load_ic_verbs

    ic = load_ic_verbs()
    assert ic["thank"] == "object" and ic["apologize"] == "subject" and set(ic.values()) == {"subject", "object"}
    assert {"doctor", "surgeon", "mechanic"} <= load_default_masculine()


@pytest.mark.shared
def test_full_winomt_contrast_sets():
    from mtdebias.probes.winomt.probe import load_winomt
    from mtdebias.uncertainty.contrast import build_contrast_sets

    path = SHARED / "winomt" / "en.txt"
    if not path.exists():
        pytest.skip("shared WinoMT data absent")
    rows = load_winomt(path)
    items = build_contrast_sets(rows[:400])
    assert all(i.sentence[slice(*i.focus_span)].lower() == i.profession.lower() for i in items)
    assert sum(i.from_data for i in items) >= 390  # a few rows of WinoMT are exact duplicates


def test_delta_i_rank_correlation_with_accuracy_by_hand():
    """ΔI ranks four checkpoints exactly opposite to accuracy: τ = ρ = −1; ΔLogProb has one
    concordant pair of six: τ = (1 − 5)/6. A checkpoint scored with another n
    stays out, and says so."""
    from mtdebias.uncertainty.validation import delta_i_correlations

    sig = "ambiguity.v1|mtdebias:0.1.0|data:d|model:{m}|settings:n={n}|seed:0"
    acc = {"a": 0.9, "b": 0.8, "c": 0.6, "d": 0.5}
    di = {"a": 0.1, "b": 0.2, "c": 0.3, "d": 0.5}
    lp = {"a": 0.1, "b": 0.3, "c": 0.2, "d": 0.5}
    points = [{"name": k, "accuracy": acc[k], "delta_i_s3e": (di[k], sig.format(m=k, n=8)),
               "delta_logprob": (lp[k], sig.format(m=k, n=8))} for k in acc]
    points.append({"name": "e", "accuracy": 0.1, "delta_i_s3e": (0.0, sig.format(m="e", n=128))})
    rows, warnings = delta_i_correlations(points)
    by = {r["metric"]: r for r in rows}
    assert by["delta_i_s3e"]["kendall_tau"] == pytest.approx(-1.0) and by["delta_i_s3e"]["n"] == 4
    assert by["delta_i_s3e"]["spearman_rho"] == pytest.approx(-1.0)
    assert by["delta_logprob"]["kendall_tau"] == pytest.approx(-2 / 3)
    # ranks of ΔLogProb a,b,c,d = 1,3,2,4 and of accuracy 4,3,2,1: Σd² = 9 + 0 + 0 + 9
    assert by["delta_logprob"]["spearman_rho"] == pytest.approx(1 - 6 * 18 / (4 * 15))
    assert any("1 checkpoint(s) scored with other settings" in w for w in warnings)
