"""Significance tests checked against hand computations and against sacrebleu's own paired test."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mtdebias.stats.paired import (EXACT_BELOW, mcnemar, mcnemar_from_counts, paired_bootstrap,
                                   paired_bootstrap_quality)
from mtdebias.stats.seeds import seed_interval

REFERENCES = [
    "Die Ärztin hat den Bericht gestern Abend geschrieben.",
    "Der Lehrer erklärt den Kindern die Aufgabe noch einmal.",
    "Wir fahren am Wochenende mit dem Zug nach Hamburg.",
    "Die Entwicklerin hat den Fehler in wenigen Minuten gefunden.",
    "Das Museum ist montags leider geschlossen.",
    "Mein Bruder kocht jeden Sonntag eine große Suppe.",
    "Der Bäcker öffnet seinen Laden um sechs Uhr morgens.",
    "Sie hat ihrem Nachbarn beim Umzug geholfen.",
    "Die Sitzung wurde auf nächsten Dienstag verschoben.",
    "Der Hund schläft den ganzen Nachmittag auf dem Sofa.",
    "Die Krankenschwester bringt dem Patienten ein Glas Wasser.",
    "Nach dem Regen riecht die Luft nach nasser Erde.",
    "Der Anwalt liest den Vertrag sehr sorgfältig durch.",
    "Unsere Tochter lernt seit zwei Jahren Geige.",
    "Die Brücke wird im Sommer neu gestrichen.",
    "Der Koch probiert die Soße und fügt etwas Salz hinzu.",
    "Im Garten blühen schon die ersten Tulpen.",
    "Die Managerin hat das Team zu einem Essen eingeladen.",
    "Der Zug hatte zwanzig Minuten Verspätung.",
    "Er repariert das Fahrrad seiner Schwester.",
    "Die Bibliothek bekommt jeden Monat neue Bücher.",
    "Der Fahrer wartet vor dem Bahnhof auf uns.",
    "Die Kinder spielen im Hof Fußball.",
    "Die Sekretärin schickt die Einladungen morgen ab.",
]

# B: close paraphrases (a word or two changed); A: the sentences cut to their first three words
GOOD = [r.replace("den ", "einen ", 1) if i % 3 == 0 else r for i, r in enumerate(REFERENCES)]
POOR = [" ".join(r.split()[:3]) for r in REFERENCES]


# ----------------------------------------------------------------------------- McNemar

def test_mcnemar_exact_matches_binomial_by_hand():
    # b = 10, c = 2, n = 12 discordant pairs (< 25 → exact test).
    # P(X ≤ 2 | Bin(12, ½)) = (C(12,0) + C(12,1) + C(12,2)) / 2^12 = (1 + 12 + 66) / 4096 = 79/4096
    # two-sided p = 2 · 79/4096 = 158/4096 = 0.03857421875
    result = mcnemar_from_counts(10, 2)
    assert result.method == "exact"
    assert result.p_value == pytest.approx(158 / 4096, abs=1e-12)
    # the same counts from per-item data: 10 items A-only right, 2 B-only right, 20 both right, 5 both wrong
    a = [True] * 10 + [False] * 2 + [True] * 20 + [False] * 5
    b = [False] * 10 + [True] * 2 + [True] * 20 + [False] * 5
    from_items = mcnemar(a, b)
    assert (from_items.b, from_items.c) == (10, 2)
    assert from_items.p_value == pytest.approx(158 / 4096, abs=1e-12)
    # symmetric in the two systems
    assert mcnemar(b, a).p_value == pytest.approx(158 / 4096, abs=1e-12)


def test_mcnemar_chi_square_with_continuity_correction_by_hand():
    # b = 30, c = 10: n = 40 ≥ 25 → chi-square, statistic (|30 − 10| − 1)² / 40 = 361/40 = 9.025;
    # the upper tail of chi-square with 1 df is erfc(√(x/2)) = erfc(√4.5125) ≈ 0.00266
    result = mcnemar_from_counts(30, 10)
    assert result.method == "chi2-cc"
    assert result.statistic == pytest.approx(9.025)
    assert result.p_value == pytest.approx(math.erfc(math.sqrt(9.025 / 2)), rel=1e-9)
    assert 0.0026 < result.p_value < 0.0027


def test_mcnemar_switches_method_at_threshold_and_can_be_forced():
    assert mcnemar_from_counts(13, EXACT_BELOW - 14).method == "exact"  # 24 discordant
    assert mcnemar_from_counts(13, EXACT_BELOW - 13).method == "chi2-cc"  # 25 discordant
    # forcing the exact test on b = 30, c = 10 gives the binomial tail, smaller than the corrected chi-square
    exact = mcnemar_from_counts(30, 10, method="exact")
    assert exact.method == "exact" and exact.p_value < mcnemar_from_counts(30, 10).p_value
    with pytest.raises(ValueError):
        mcnemar_from_counts(1, 1, method="fisher")


def test_mcnemar_identical_systems_give_p_one():
    same = [True, False, True, True, False]
    assert mcnemar(same, same).p_value == 1.0
    assert mcnemar_from_counts(4, 4).p_value == 1.0  # balanced discordance: 2·P(X ≤ 4 | Bin(8, ½)) ≥ 1 → 1


def test_mcnemar_rejects_unpaired_input():
    with pytest.raises(ValueError):
        mcnemar([True, False], [True])


# ----------------------------------------------------------------------------- bootstrap

def test_paired_bootstrap_quality_identical_systems():
    result = paired_bootstrap_quality(GOOD, GOOD, REFERENCES, "bleu", resamples=200)
    assert result.delta == 0.0 and result.p_value == 1.0
    assert result.ci == (0.0, 0.0)


@pytest.mark.parametrize("metric", ["bleu", "chrf"])
def test_paired_bootstrap_quality_clearly_better_system(metric):
    from sacrebleu.metrics import BLEU, CHRF

    result = paired_bootstrap_quality(POOR, GOOD, REFERENCES, metric, resamples=300)
    # full-corpus scores are sacrebleu's own corpus scores
    scorer = BLEU() if metric == "bleu" else CHRF()
    assert result.score_a == pytest.approx(scorer.corpus_score(POOR, [REFERENCES]).score, abs=1e-6)
    assert result.score_b == pytest.approx(scorer.corpus_score(GOOD, [REFERENCES]).score, abs=1e-6)
    assert result.delta > 20
    # no resample comes close: the smallest possible p-value, 1/(300 + 1)
    assert result.p_value == pytest.approx(1 / 301)
    assert result.ci[0] > 0


def test_paired_bootstrap_quality_agrees_with_sacrebleu_paired_test():
    """Same seed, same resamples: our p-value equals sacrebleu's for systems that really differ."""
    from sacrebleu.metrics import BLEU
    from sacrebleu.significance import PairedTest

    # two systems that differ only a little, so that the p-value is far from its floor
    slightly = [r.replace(".", " !") if i % 12 == 0 else r for i, r in enumerate(GOOD)]
    ours = paired_bootstrap_quality(GOOD, slightly, REFERENCES, "bleu", resamples=1000, seed=12345,
                                    p_value="sacrebleu")
    test = PairedTest([("baseline", GOOD), ("system", slightly)], {"BLEU": BLEU(references=[REFERENCES])},
                      references=None, test_type="bs", n_samples=1000)
    _, scores = test()
    theirs = scores["BLEU"][1]
    assert ours.score_b == pytest.approx(theirs.score, abs=1e-4)
    assert ours.p_value == pytest.approx(theirs.p_value, abs=1e-9)
    assert 0.01 < ours.p_value < 1.0


@pytest.mark.parametrize("metric,tgt_lang", [("bleu", None), ("bleu", "zh"), ("chrf", None)])
def test_summed_sentence_statistics_score_as_sacrebleu_scores_the_corpus(metric, tgt_lang):
    """The statistics come from sacrebleu's public interface (and, for chrF, our own counts):
    on every resample their sum scores exactly what sacrebleu's ``corpus_score`` gives the
    resampled sentences, edge cases included (an empty output, one-character outputs, a
    sentence shorter than the n-gram orders, Chinese tokenisation)."""
    from sacrebleu.metrics import BLEU, CHRF

    from mtdebias.stats.paired import _quality_metric

    hypotheses = [*POOR[:12], "", "a", "!", "Die", "中国 人民 很 好。", "他们在北京工作。", *GOOD[18:]]
    references = [*REFERENCES[:12], "Das ist leer.", "a", "?", "Die Katze", "中国人民很好。", "他们在上海工作。",
                  *REFERENCES[18:]]
    scorer = _quality_metric(metric, tgt_lang)
    stats = scorer.statistics(hypotheses, references)
    corpus = BLEU(tokenize="zh" if tgt_lang == "zh" else "13a") if metric == "bleu" else CHRF()
    rng = np.random.default_rng(3)
    for rows in [np.arange(len(references)), *rng.integers(0, len(references), size=(40, len(references))),
                 np.array([12, 12]), np.array([13, 15])]:
        expected = corpus.corpus_score([hypotheses[i] for i in rows], [[references[i] for i in rows]]).score
        assert scorer.score(stats[rows].sum(0)) == expected


def test_the_quality_test_calls_nothing_private_of_sacrebleu():
    """A private method (``_extract_corpus_statistics``) may change in any sacrebleu release."""
    import ast
    import inspect

    import mtdebias.stats.paired as paired

    private = [node.attr for node in ast.walk(ast.parse(inspect.getsource(paired)))
               if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")]
    assert private == []


def test_the_quality_probe_tests_with_the_centered_p_value():
    """sacrebleu's p-value rejected two equally good systems in 13 of 100 simulations
    (tests/test_calibration.py); the probe's paired test reports the centered one."""
    from mtdebias.probes.quality.probe import QualityProbe

    # better on some sentences, worse on others: the resampled differences straddle 0, where the
    # two p-values part (p = 0.74 centered, 0.22 sacrebleu's, for a difference near 0)
    mixed = [REFERENCES[i] if i % 4 == 1 else r.replace(".", " !") if i % 6 == 0 else r for i, r in enumerate(GOOD)]
    a = [{"reference": r, "hypothesis": h} for r, h in zip(REFERENCES, GOOD)]
    b = [{"reference": r, "hypothesis": h} for r, h in zip(REFERENCES, mixed)]
    row = QualityProbe([], []).paired_test("bleu", a, b, resamples=300, seed=0)
    centered = paired_bootstrap_quality(GOOD, mixed, REFERENCES, "bleu", resamples=300)
    sacrebleu = paired_bootstrap_quality(GOOD, mixed, REFERENCES, "bleu", resamples=300, p_value="sacrebleu")
    assert row["p_value"] == centered.p_value == pytest.approx(0.744, abs=1e-3)
    assert sacrebleu.p_value == pytest.approx(0.219, abs=1e-3)


def test_paired_bootstrap_of_a_delta_metric():
    # per-item correctness of two systems on 40 items: A right on 20, B right on 30
    # ΔAccuracy = 30/40 − 20/40 = 0.25 exactly
    rng = np.random.default_rng(3)
    a = np.array([1] * 20 + [0] * 20)
    b = a.copy()
    b[20:30] = 1  # B also gets 10 items right that A got wrong
    order = rng.permutation(40)
    result = paired_bootstrap(np.mean, a[order], b[order], resamples=500)
    assert result.delta == pytest.approx(0.25)
    assert result.ci[0] > 0 and result.ci[0] <= 0.25 <= result.ci[1]
    assert result.p_value < 0.01

    # a statistic of two columns per item: Acc_m − Acc_f of [is_female, correct] rows
    def gap(rows):
        female = rows[:, 0] == 1
        return rows[~female, 1].mean() - rows[female, 1].mean()

    rows_a = np.array([[i % 2, 1 if i % 2 == 0 else i % 4 == 1] for i in range(40)], dtype=float)
    # A: males all right (20/20), females half right (10/20) → gap 0.5; B identical → Δ = 0, p = 1
    assert gap(rows_a) == pytest.approx(0.5)
    same = paired_bootstrap(gap, rows_a, rows_a.copy(), resamples=200)
    assert same.delta == 0.0 and same.p_value == 1.0


def test_paired_bootstrap_rejects_unpaired_input():
    with pytest.raises(ValueError):
        paired_bootstrap(np.mean, [1, 0, 1], [1, 0])
    with pytest.raises(ValueError):
        paired_bootstrap_quality(GOOD, GOOD[:-1], REFERENCES)


# ----------------------------------------------------------------------------- seeds

def test_seed_interval_by_hand():
    # values 1, 2, 3: mean 2, sample sd 1, t(0.975, df=2) = 4.302653 → half-width 4.302653/√3 = 2.484138
    interval = seed_interval([1.0, 2.0, 3.0])
    assert interval.mean == pytest.approx(2.0)
    assert interval.half_width == pytest.approx(4.302653 / math.sqrt(3), rel=1e-6)
    assert interval.format(2) == "2.00 ± 2.48"
    assert interval.n == 3


def test_seed_interval_single_seed_and_nan():
    single = seed_interval([0.7, float("nan")])
    assert single.mean == 0.7 and single.ci is None and single.n == 1
    assert single.format() == "0.700"
    with pytest.raises(ValueError):
        seed_interval([float("nan")])


def test_mcnemar_chi2_with_equal_discordant_counts_is_one():
    # b = c = 13: no evidence either way; the continuity correction must not push the statistic above 0
    result = mcnemar_from_counts(13, 13, "chi2")
    assert result.statistic == 0.0 and result.p_value == 1.0


def test_the_centered_p_value_shifts_the_deltas_before_taking_absolute_values():
    from mtdebias.stats.paired import centered_p_value

    deltas = np.array([0.0, 0.1, 0.2, 0.3, 0.4])  # mean 0.2: shifted −0.2 … 0.2
    # |shifted| ≥ 0.2 for −0.2 and 0.2: (2 + 1) / 6; ≥ 0.05 for all but the middle one: (4 + 1) / 6
    assert centered_p_value(deltas, 0.2) == pytest.approx(3 / 6)
    assert centered_p_value(deltas, -0.05) == pytest.approx(5 / 6)
    assert centered_p_value(deltas, 0.5) == pytest.approx(1 / 6)

