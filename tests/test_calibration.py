"""Interval calibration: every metric that carries an interval, on data simulated with a known
true value (a null and a non-null), must cover that value about as often as it claims (95 %),
and every paired test must reject a true null about as rarely as its level (5 %).

The fast versions run in `make test` (a few seconds); the full ones (`make test-slow`) run more
simulations at the probes' own resample count. Tolerance: a calibrated 95 % interval's coverage
over N simulations has a binomial sd of √(0.95·0.05/N) (0.034 at N = 40, 0.022 at N = 100), so
we ask for ≥ 0.95 − 3 sd (≥ 34 of 40, ≥ 89 of 100): a calibrated interval fails that about once
in 300 seeds, while the old |gap| interval (0 of 60 under the null) fails at any N. False
positives likewise: ≤ 0.05 + 3 sd (≤ 6 of 40, ≤ 11 of 100). The seeds are fixed, so a result
does not change between runs.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from mtdebias.probes.name_gender import name_gender_metrics
from mtdebias.probes.winomt import winomt_metrics
from mtdebias.significance import mcnemar, paired_bootstrap, seed_interval
from mtdebias.stats import bootstrap_cis, folded_interval
from mtdebias.uncertainty.metrics import delta_h, delta_i_items, finite_mean

FAST, FULL = 40, 100  # simulations
FAST_RESAMPLES, FULL_RESAMPLES = 200, 1000
# (simulations, bootstrap resamples): the fast size in `make test`, the full one in `make test-slow`
SIZES = [pytest.param(FAST, FAST_RESAMPLES, id="fast"),
         pytest.param(FULL, FULL_RESAMPLES, id="full", marks=pytest.mark.slow)]


def least_coverage(n: int) -> int:
    """The fewest of ``n`` simulations a calibrated 95 % interval must cover (module docstring)."""
    return math.ceil(n * (0.95 - 3 * math.sqrt(0.95 * 0.05 / n)))


def most_false_positives(n: int) -> int:
    return math.floor(n * (0.05 + 3 * math.sqrt(0.05 * 0.95 / n)))


def covered(ci, truth: float) -> bool:
    return ci is not None and ci[0] - 1e-12 <= truth <= ci[1] + 1e-12


def assert_calibrated(truth: dict[str, float], sims: int, seed: int, intervals) -> dict[str, int]:
    """Run ``intervals(rng, sim)`` (→ {metric: interval}) ``sims`` times and check that each
    metric's interval covered its true value often enough; returns the counts."""
    hits = dict.fromkeys(truth, 0)
    rng = np.random.default_rng(seed)
    for sim in range(sims):
        cis = intervals(rng, sim)
        for name, value in truth.items():
            hits[name] += covered(cis[name], value)
    assert all(count >= least_coverage(sims) for count in hits.values()), hits
    return hits


def beta_draws(rng, mean: float, sd: float, size: int) -> np.ndarray:
    k = mean * (1 - mean) / sd ** 2 - 1  # a Beta with this mean and sd
    return rng.beta(mean * k, (1 - mean) * k, size)


# --------------------------------------------------------------------------- name_gender.v1

def name_rows(rng, acc_f: float, acc_m: float, names: int = 100, templates: int = 40) -> list[dict]:
    """Per-name rows as the probe builds them: each name has its own accuracy (names differ),
    drawn around its gender's true mean, and ``templates`` attempts; 10 % undetected."""
    rows = []
    for gender, mean in (("female", acc_f), ("male", acc_m)):
        for p in beta_draws(rng, mean, 0.1, names):
            rows.append({"gender": gender, "n": templates, "correct": int(rng.binomial(templates, p)),
                         "undetected": int(rng.binomial(templates, 0.1))})
    return rows


@pytest.mark.parametrize("sims, resamples", SIZES)
@pytest.mark.parametrize("acc_f, acc_m", [(0.7, 0.7), (0.65, 0.75)], ids=["null", "gap-0.1"])
def test_name_gender_intervals_cover_the_true_accuracies_and_gaps(acc_f, acc_m, sims, resamples):
    # ΔAcc's interval was a bootstrap of |gap|: under the null it covered 0 in 0 simulations.
    # At the full size this is also the bar (≥ 85 of 100), below least_coverage(100) = 89.
    truth = {"acc_f": acc_f, "acc_m": acc_m, "acc_gap_m_minus_f": acc_m - acc_f, "delta_acc": abs(acc_m - acc_f),
             "undetected_rate": 0.1}

    def intervals(rng, sim):
        metrics = name_gender_metrics(name_rows(rng, acc_f, acc_m), "first", resamples=resamples, seed=sim)
        return {m.name.removeprefix("first."): m.ci for m in metrics}

    assert_calibrated(truth, sims, 1, intervals)


def test_the_folded_interval_holds_zero_exactly_when_the_signed_one_does():
    assert folded_interval((-0.02, 0.05)) == (0.0, 0.05) and folded_interval((-0.08, 0.01)) == (0.0, 0.08)
    assert folded_interval((-0.2, -0.05)) == (0.05, 0.2) and folded_interval((0.03, 0.1)) == (0.03, 0.1)
    assert folded_interval(None) is None


def test_a_resample_always_holds_both_genders():
    # two female names among forty: a pooled resample lacks both now and then; a stratified one never
    rng = np.random.default_rng(0)
    rows = name_rows(rng, 0.7, 0.7, names=20)[:2] + name_rows(rng, 0.7, 0.7, names=20)[20:]
    metric = {m.name: m for m in name_gender_metrics(rows, "first", resamples=500, seed=0)}["first.acc_f"]
    values = sorted(r["correct"] / r["n"] for r in rows if r["gender"] == "female")
    assert values[0] <= metric.ci[0] <= metric.ci[1] <= values[1]


# --------------------------------------------------------------------------- winomt.v1

def winomt_items(rng, items: int, acc_pro: float, acc_anti: float):
    """Half male, half female gold; half pro-, half anti-stereotypical; a prediction is right
    with its group's accuracy, else the other gender (5 % undetected). By symmetry between the
    genders the true ΔG is 0; the true ΔS is acc_pro − acc_anti."""
    golds = rng.choice(["male", "female"], items)
    groups = rng.choice(["pro", "anti"], items)
    right = rng.random(items) < np.where(groups == "pro", acc_pro, acc_anti)
    other = np.where(golds == "male", "female", "male")
    predictions = np.where(right, golds, other)
    predictions = np.where(rng.random(items) < 0.05, "undetected", predictions)
    return list(golds), list(predictions), list(groups)


@pytest.mark.parametrize("sims, resamples", SIZES)
@pytest.mark.parametrize("acc_pro, acc_anti", [(0.7, 0.7), (0.8, 0.6)], ids=["null", "gap-0.2"])
def test_winomt_intervals_cover_the_true_values(acc_pro, acc_anti, sims, resamples):
    truth = {"accuracy": 0.95 * (acc_pro + acc_anti) / 2, "delta_g": 0.0, "delta_s": 0.95 * (acc_pro - acc_anti),
             "undetected_rate": 0.05, "accuracy_pro": 0.95 * acc_pro, "accuracy_anti": 0.95 * acc_anti}

    def intervals(rng, sim):
        metrics = winomt_metrics(*winomt_items(rng, 600, acc_pro, acc_anti), resamples=resamples, seed=sim)
        return {m.name: m.ci for m in metrics}

    assert_calibrated(truth, sims, 2, intervals)


# --------------------------------------------------------------------------- sentiment.v1

@pytest.mark.parametrize("sims, resamples", SIZES)
@pytest.mark.parametrize("t_female, t_male", [(0.6, 0.6), (0.5, 0.7)], ids=["null", "gap-0.2"])
def test_sentiment_group_means_cover_the_true_values(t_female, t_male, sims, resamples):
    """Per-group mean t (intervals over fillers): 20 + 20 names, 14 templates, each name with its
    own share of positive renderings around its gender's mean, 30 % of renderings unmatched (left
    out of t). The ranges (t_delta) carry no interval: see range_metrics."""
    from mtdebias.probes.sentiment import Filler, SentimentProbe, SentimentTemplate

    probe = SentimentProbe([SentimentTemplate("t0", "[PERSON] is proud.", "proud", ("自豪",), ("骄傲",))],
                           [Filler("f", "name", "g", "female")], "zh", resamples=resamples, sentiment=lambda text: 0.5)
    truth = {"names.t_mean[gender=female]": t_female, "names.t_mean[gender=male]": t_male}

    def intervals(rng, sim):
        probe.seed = sim
        attempts = []
        for gender, mean in (("female", t_female), ("male", t_male)):
            for i, p in enumerate(beta_draws(rng, mean, 0.1, 20)):
                for k in range(14):
                    label = "unmatched" if rng.random() < 0.3 else ("positive" if rng.random() < p else "negative")
                    attempts.append({"filler": f"{gender}{i}", "kind": "name", "group": "g", "gender": gender,
                                     "template": f"t{k}", "label": label})
        return {m.name: m.ci for m in probe.metrics(attempts)}

    assert_calibrated(truth, sims, 6, intervals)


# --------------------------------------------------------------------------- ambiguity.v1 (ΔH, ΔI)

@pytest.mark.parametrize("sims, resamples", SIZES)
@pytest.mark.parametrize("mean_u, mean_a", [(1.0, 1.0), (1.0, 1.3)], ids=["null", "delta-h--0.3"])
def test_delta_h_and_delta_i_intervals_cover_the_true_values(mean_u, mean_a, sims, resamples):
    """ΔH and ΔI with the probe's interval (one bootstrap over all items, bootstrap_cis). True ΔH
    = (μ_u − μ_a)/μ_u of gamma-distributed entropies; true ΔI = E[per-item ΔI], 0 under the null
    (the two references' surprisals exchangeable) and from a million draws otherwise."""
    def surprisals(rng, size):
        return rng.gamma(2.0, 0.5, size), rng.gamma(2.0, 0.5 * mean_a / mean_u, size)

    truth = {"delta_h": (mean_u - mean_a) / mean_u,
             "delta_i": float(np.mean(delta_i_items(*surprisals(np.random.default_rng(9), 1_000_000))))}
    ambiguous = np.arange(300) >= 150

    def intervals(rng, sim):
        entropy = rng.gamma(2.0, np.where(ambiguous, mean_a, mean_u) / 2.0)
        per_item = np.array(delta_i_items(*surprisals(rng, 300)))

        def values(idx):
            return {"delta_h": delta_h(entropy[idx][~ambiguous[idx]], entropy[idx][ambiguous[idx]]),
                    "delta_i": finite_mean(list(per_item[idx]))}

        return bootstrap_cis(300, values, truth, resamples=resamples, seed=sim)

    assert_calibrated(truth, sims, 3, intervals)


# --------------------------------------------------------------------------- seeds and paired tests

def test_the_seed_interval_covers_the_true_mean():
    rng = np.random.default_rng(4)
    hits = sum(covered(seed_interval(rng.normal(0.3, 0.05, 3)).ci, 0.3) for _ in range(FULL))
    assert hits >= least_coverage(FULL)


@pytest.mark.parametrize("sims, resamples", SIZES)
def test_paired_tests_reject_a_true_null_at_about_their_level(sims, resamples):
    """Two systems with the same per-item accuracy (0.7), scored on the same 300 items: how
    often each paired test says p < 0.05. Items differ in difficulty, so the systems' outcomes
    are correlated, as two models' are."""
    rng = np.random.default_rng(5)
    rejected = {"mcnemar": 0, "paired bootstrap": 0}
    for sim in range(sims):
        difficulty = beta_draws(rng, 0.7, 0.2, 300)
        a, b = rng.random(300) < difficulty, rng.random(300) < difficulty
        rejected["mcnemar"] += mcnemar(a, b).p_value < 0.05
        rejected["paired bootstrap"] += paired_bootstrap(np.mean, a.astype(float), b.astype(float),
                                                         resamples=resamples, seed=sim).p_value < 0.05
    assert all(count <= most_false_positives(sims) for count in rejected.values()), rejected


def name_gender_false_positives(sims: int, resamples: int, names: int = 20, templates: int = 10) -> int:
    """Two systems with no gap (Acc 0.7 for every gender), the same names (``names`` of each
    gender) and ``templates``: how often the probe's paired bootstrap of first-name ΔAcc says p < 0.05."""
    from mtdebias.probes.compare import paired_tests
    from mtdebias.probes.name_gender import NameGenderProbe

    probe = NameGenderProbe.__new__(NameGenderProbe)  # metrics and tests need no templates
    probe.resamples, probe.seed, probe.templates = 0, 0, []
    rng = np.random.default_rng(7)

    def attempts(accuracy):
        return [{"kind": f"first_{gender}", "name": f"{gender}{i}", "gender": gender, "template": f"t{k}",
                 "correct": bool(ok), "detected": gender if ok else "other"}
                for gender in ("female", "male") for i, p in enumerate(accuracy[gender])
                for k, ok in enumerate(rng.random(templates) < p)]

    rejected = 0
    for sim in range(sims):
        accuracy = {gender: beta_draws(rng, 0.7, 0.1, names) for gender in ("female", "male")}
        rows = paired_tests(probe, attempts(accuracy), attempts(accuracy), resamples=resamples, seed=sim)
        rejected += any(r["metric"] == "first.delta_acc" and r["p_value"] < 0.05 for r in rows)
    return rejected


def test_the_name_gender_paired_test_rejects_a_true_null_at_about_its_level():
    # sacrebleu's p-value (|δ| first, then the shift) rejected here in 7 of 40
    assert name_gender_false_positives(FAST, FAST_RESAMPLES) <= most_false_positives(FAST)


@pytest.mark.slow
def test_the_name_gender_paired_test_rejects_a_true_null_over_100_simulations():
    assert name_gender_false_positives(FULL, 500) <= most_false_positives(FULL)


def test_the_bounds_are_what_the_docstring_says():
    assert (least_coverage(40), least_coverage(100)) == (34, 89)
    assert (most_false_positives(40), most_false_positives(100)) == (6, 11)
