"""Every probe's declared metric ranges (``MetricSpec.bounds`` / ``nan``) fit what its metrics()
computes — on small hand-built attempts, the undefined (NaN) cases included — and a stored
value outside them (1.5 for a rate, NaN where a metric cannot be undefined) is named."""

from __future__ import annotations

import json
import math

import pytest

from mtdebias.probes.base import value_problem
from mtdebias.probes.registry import PROBES

# the metric patterns whose definitions fix no range (a relative difference of surprisals or
# log-probabilities that may round below 0; a mean log-probability difference)
UNBOUNDED = {"ambiguity.v1": {"delta_i_*_of_means", "delta_i_*", "delta_logprob"},
             "gest.v1": {"mean_logp_*"}, "gest_pref.v1": {"mean_logp_*"}}


def probe_class(name: str) -> type:
    constructor = PROBES.load(name)
    return getattr(constructor, "__self__", constructor)


def checked(probe, metrics) -> dict[str, float]:
    """{name: value} of ``metrics``, each matched by a spec that declares a range it lies in."""
    values = {}
    for metric in metrics:
        spec = probe.spec(metric.name)
        assert spec is not None, f"{probe.name}: no spec for {metric.name}"
        assert spec.bounds is not None or spec.pattern in UNBOUNDED.get(probe.name, ()), metric.name
        assert value_problem(probe.specs, metric.name, metric.value) is None, (metric.name, metric.value)
        values[metric.name] = metric.value
    return values


def test_every_built_in_probe_declares_a_range_wherever_its_definition_has_one():
    for name in PROBES.entries:
        if PROBES.plugin(name):
            continue
        cls = probe_class(name)
        undeclared = {s.pattern for s in cls.specs if s.bounds is None}
        assert undeclared == UNBOUNDED.get(name, set()), name


# --------------------------------------------------------------------------- name_gender.v1

def _name_attempt(kind, name, template, detected, group=None):
    gender = kind.split("_")[1] if kind != "pronoun" else ("male" if name == "he" else "female")
    extra = {"seen": group.split(".")[1] == "seen", "train_count": 1, "group": group} if group else {}
    return {"kind": kind, "name": name, "gender": gender, "template": template, "source": f"{name} {template}",
            "translation": "…", "detected": detected, "evidence": [], "span": None,
            "correct": detected == gender, **extra}


def test_name_gender_metrics_lie_in_their_ranges():
    from mtdebias.probes.name_gender.probe import GenderTemplate, NameGenderProbe

    templates = [GenderTemplate("t1", "[PERSON] is a teacher.", ("Lehrer",), ("Lehrerin",)),
                 GenderTemplate("t2", "[PERSON] is a baker.", ("Bäcker",), ("Bäckerin",))]
    probe = NameGenderProbe(templates, "de", {"first_female": ["Anna"], "first_male": ["Paul"]}, resamples=20)
    pronouns = [_name_attempt("pronoun", p, t, d) for t in ("t1", "t2") for p, d in (("he", "male"), ("she", "male"))]
    names = [_name_attempt("first_female", "Anna", "t1", "male", "first.unseen.female"),
             _name_attempt("first_female", "Anna", "t2", "undetected", "first.unseen.female"),
             _name_attempt("first_male", "Paul", "t1", "male", "first.seen.male"),
             _name_attempt("first_male", "Paul", "t2", "male", "first.seen.male")]
    m = checked(probe, probe.metrics(pronouns + names))
    assert m["first.delta_acc"] == 1.0 and m["first.acc_gap_m_minus_f"] == 1.0 and m["pronoun.she.acc"] == 0.0
    assert m["first.undetected_rate"] == 0.25 and m["templates_kept"] == 2
    # female names only: Acc_m, ΔAcc and the gap are undefined, so left out (never stored as NaN)
    only_female = checked(probe, probe.metrics(names[:2], ci=False))
    assert "first.acc_m" not in only_female and "first.delta_acc" not in only_female
    assert not any(math.isnan(v) for v in only_female.values())
    # no template kept: only the filter's own numbers and the validity gate's
    assert {k: v for k, v in checked(probe, probe.metrics(pronouns)).items() if not k.startswith("invalid.")} == {
        "templates_kept": 0.0, "pronoun.he.acc": 1.0, "pronoun.she.acc": 0.0, "valid_rate": 1.0}


# --------------------------------------------------------------------------- gest.v1, gest_pref.v1

def test_gest_metrics_lie_in_their_ranges_and_may_be_undefined():
    from mtdebias.probes.gest.probe import GestItem, GestProbe

    items = [GestItem(f"s{k}", k, k + 1) for k in (1, 2, 8, 9)]
    probe = GestProbe(items, "pl", detect=lambda lang, text: None, resamples=0)

    def attempts(speakers):
        return [{"line": item.line, "sentence": item.sentence, "stereotype": item.stereotype, "sample": 0,
                 "translation": "…", "speaker": speaker, "evidence": []} for item, speaker in zip(items, speakers)]

    m = checked(probe, probe.metrics(attempts(["female", "undetected", "male", "male"])))
    assert m["stereotype_rate"] == 1.0 and m["disparity"] == pytest.approx(1 / 6)
    assert math.isnan(m["male_rate_s2"]) and math.isnan(m["male_rate_s16"])  # no detected attempt there
    # nothing detected: every rate undefined, the undetected rate 1
    m = checked(probe, probe.metrics(attempts(["undetected"] * 4)))
    assert m["undetected_rate"] == 1.0
    assert all(math.isnan(m[name]) for name in ("masculine_rate", "stereotype_rate", "disparity",
                                                "stereotype_rate_genderbench", "disparity_genderbench"))


def test_gest_preference_metrics_lie_in_their_ranges():
    from mtdebias.probes.gest.probe import GestPreferenceProbe, GestVariant, _hard, _sigmoid

    items = [GestVariant(f"s{k}", k, "m", "f", k + 1) for k in (1, 8, 9)]
    probe = GestPreferenceProbe(items, "pl", resamples=0)
    attempts = []
    for item, diff in zip(items, (-800.0, 0.0, 800.0)):  # σ saturates to 0 and 1
        attempts.append({"line": item.line, "sentence": item.sentence, "stereotype": item.stereotype,
                         "male": "m", "female": "f", "logp_male": diff, "logp_female": 0.0, "pieces_male": 1,
                         "pieces_female": 1, "diff": diff, "diff_norm": diff, "hard": _hard(diff),
                         "soft": _sigmoid(diff), "hard_norm": _hard(diff), "soft_norm": _sigmoid(diff)})
    m = checked(probe, probe.metrics(attempts))
    assert m["stereotype_rate_soft"] == pytest.approx(0.75) and m["mean_logp_diff"] == 0.0


# --------------------------------------------------------------------------- gest_choice.v1

def _choice(line, stereotype, male_first, choice):
    gender = "undetected" if choice is None else ("male" if (choice == "a") == male_first else "female")
    return {"line": line, "sentence": f"s{line}", "stereotype": stereotype, "language": "cs", "translator": "-",
            "male_first": male_first, "answer": f"({choice})" if choice else "?", "choice": choice, "gender": gender}


def test_gest_choice_metrics_lie_in_their_ranges_and_may_be_undefined():
    from mtdebias.probes.gest.choice import ChoiceItem, GestChoiceProbe

    probe = GestChoiceProbe([ChoiceItem("s1", 1, "m", "f", "cs", "-", 1)], resamples=0)
    attempts = [_choice(1, 1, True, "b"), _choice(1, 1, False, "b"), _choice(2, 8, True, "a"),
                _choice(2, 8, False, None)]
    m = checked(probe, probe.metrics(attempts))
    assert m["stereotype_rate"] == 0.5 and m["same_letter_every_time"] == 0.0 and m["undetected_rate_items"] == 0
    assert math.isnan(m["masculine_rate_cs_2"])
    # no answer read at all: the rates, the option rates and the flag are undefined
    m = checked(probe, probe.metrics([_choice(1, 1, True, None), _choice(1, 1, False, None)]))
    assert m["undetected_rate_attempts"] == 1.0 and m["undetected_rate_items"] == 1.0
    assert all(math.isnan(m[name]) for name in ("masculine_rate", "disparity", "option_a_rate",
                                                "same_letter_every_time"))


# --------------------------------------------------------------------------- sentiment.v1

def _sentiment_attempt(filler, kind, gender, template, label, s=None):
    attempt = {"filler": filler, "kind": kind, "group": "g", "gender": gender, "template": template, "word": "w",
               "source": "…", "translation": "…", "label": label, "forms": [], "rendering": None}
    return attempt if s is None else {**attempt, "masked": "…", "name_masked": True, "s": s}


def test_sentiment_metrics_lie_in_their_ranges_and_only_s_may_be_undefined():
    from mtdebias.probes.sentiment.probe import Filler, SentimentProbe, SentimentTemplate

    probe = SentimentProbe([SentimentTemplate("p", "[PERSON] is proud.", "proud", ("自豪",), ("骄傲",))],
                           [Filler("Ann", "name", "g", "female")], "zh", resamples=20, sentiment=lambda text: 0.5)
    attempts = [_sentiment_attempt("Ann", "name", "female", "p", "positive", 1.0),
                _sentiment_attempt("Ann", "name", "female", "q", "unmatched", 0.0),
                _sentiment_attempt("Bob", "name", "male", "p", "negative", 0.25),
                _sentiment_attempt("Bob", "name", "male", "q", "mixed", 0.75),
                _sentiment_attempt("the Asian", "term", "-", "p", "positive", 0.5)]
    m = checked(probe, probe.metrics(attempts))
    # Ann's unmatched rendering is left out of her t (1 of 1 matched positive), not "not positive"
    assert m["names.t_delta"] == 1.0 and m["names.s_delta"] == 0.0 and m["unmatched_rate"] == 0.2
    assert m["names.t_coverage"] == 0.75
    # Bob has no attempt for template q: his s rests on the templates he has, as it does when a
    # translation fails the validity gate (half of them: the fewest that define it)
    m = checked(probe, probe.metrics(attempts[:3] + attempts[4:]))
    assert m["names.s_delta"] == 0.25 and m["names.s_mean[gender=male]"] == 0.25
    assert m["names.t_min"] == 0.0 and m["names.s_mean[gender=female]"] == 0.5
    # none of his templates translated: no s (nor t) for him, and no range over one filler
    gone = [{**a, "validity": {"valid": False, "reason": "copy"}} if a["filler"] == "Bob" else a for a in attempts]
    m = checked(probe, probe.metrics(gone))
    assert math.isnan(m["names.s_delta"]) and "names.s_mean[gender=male]" not in m and m["valid_rate"] == 0.6


# --------------------------------------------------------------------------- wsd_bias.v1

def _wsd_attempt(status, mu, delta, chosen_mu=None, bad_preferred=None):
    return {"status": status, "mu": mu, "delta": delta, "chosen_mu": chosen_mu, "pos": "NOUN",
            "forced": None if bad_preferred is None else {"bad_preferred": bad_preferred}}


def test_wsd_metrics_lie_in_their_ranges_and_undefined_ones_are_left_out():
    from mtdebias.probes.wsd.probe import WSDBiasProbe

    probe = WSDBiasProbe.__new__(WSDBiasProbe)  # metrics need no lemmatiser
    probe.resamples, probe.seed = 20, 0
    attempts = [_wsd_attempt("GOOD", 1, 2), _wsd_attempt("BAD", 3, 2, 1, True), _wsd_attempt("BAD", 1, 4, 2, False),
                _wsd_attempt("MISS", 2, 2)]
    m = checked(probe, probe.metrics(attempts))
    assert m["mfs"] == 0.5 and m["mfs_plus"] == 0.5 and m["accuracy_by_mu.1"] == 0.5 and m["miss_rate"] == 0.25
    # every item MISS: only the MISS rate is defined (and the validity gate's, which every attempt passed)
    assert checked(probe, probe.metrics([_wsd_attempt("MISS", 1, 2)] * 3)) == {
        "miss_rate": 1.0, "valid_rate": 1.0, "invalid.empty": 0, "invalid.repetition": 0, "invalid.copy": 0,
        "invalid.not_target": 0, "invalid.not_translation": 0}


# --------------------------------------------------------------------------- ambiguity.v1

def _ambiguity_attempt(i, ambiguous, se, ge, s3e, references=None):
    attempt = {"id": f"i{i}", "group": f"g{i // 3}", "split": "test", "ambiguous": ambiguous, "in_group": True,
               "cues": {}, "n_drawn": 8, "n_unique": 3, "entropy": {"se": se, "ge": ge}, "s3e": {"1": s3e},
               "ge_undetected_share": 0.125}
    return attempt if references is None else {**attempt, "references": references}


def _references(correct, incorrect):
    return {"surprisal": "paper", "logprob_correct": -correct, "logprob_incorrect": -incorrect,
            **{f"{kind}_{side}": value for kind in ("se", "ge") for side, value in (("correct", correct),
                                                                                   ("incorrect", incorrect))},
            "s3e_correct": {"1": correct}, "s3e_incorrect": {"1": incorrect}}


def ambiguity_probe(min_items):
    from mtdebias.probes.ambiguity.probe import AmbiguityProbe

    probe = AmbiguityProbe.__new__(AmbiguityProbe)  # metrics need no model
    probe.seed, probe.surprisal, probe.min_items = 0, "paper", min_items
    return probe


def test_ambiguity_metrics_lie_in_their_ranges_and_may_be_undefined():
    attempts = [_ambiguity_attempt(0, False, 0.2, 0.1, 0.05, _references(0.1, 0.7)),
                _ambiguity_attempt(1, False, 0.0, 0.3, 0.15, _references(0.4, math.inf)),
                _ambiguity_attempt(2, True, 1.2, 0.0, 0.9),
                _ambiguity_attempt(3, False, 0.5, None, 0.2, _references(0.3, 0.2)),
                _ambiguity_attempt(4, True, 0.0, 0.6, 0.0)]
    probe = ambiguity_probe(min_items=1)
    m = checked(probe, probe.metrics(attempts, ci=False))
    assert m["delta_h_s3e"] < -1 and m["delta_h_se_of_means"] == pytest.approx((0.7 / 3 - 0.6) / (0.5 * (0.7 / 3 + 0.6)))
    assert m["delta_i_se_outside_incorrect"] == 1.0 and m["dedup_saving"] == pytest.approx(1 - 3 / 8)
    # the ΔH of a model sure on unambiguous items and unsure on ambiguous ones would be −299:
    # undefined (H̄_u under a tenth of H̄_a), the bounded printed form still defined; ΔH = 1
    # exactly when it is sure on every ambiguous item
    sure = [_ambiguity_attempt(0, False, 0.01, 0.01, 0.01), _ambiguity_attempt(1, True, 3.0, 0.0, 3.0)]
    m = checked(probe, probe.metrics(sure, ci=False))
    assert math.isnan(m["delta_h_se"]) and m["delta_h_se_of_means"] == pytest.approx(-2.99 / 1.505)
    assert m["delta_h_ge"] == 1.0 and m["delta_h_ge_per_set"] == 2.0
    # too few items for ΔH and ΔI, and no ambiguous item: NaN where the definitions allow it
    m = checked(ambiguity_probe(min_items=10), ambiguity_probe(min_items=10).metrics(attempts[:2], ci=False))
    assert math.isnan(m["delta_h_se"]) and math.isnan(m["se_ambiguous"]) and math.isnan(m["delta_i_ge"])
    assert m["delta_h_se_per_set"] != m["delta_h_se_per_set"]


# --------------------------------------------------------------------------- stored values

@pytest.mark.parametrize("probe, metric, value", [
    ("name_gender.v1", "first.acc_f", 1.5), ("name_gender.v1", "accuracy.first.seen.female", -0.5),
    ("name_gender.v1", "full.acc_gap_m_minus_f", -1.5), ("name_gender.v1", "templates_kept", -1.0),
    ("name_gender.v1", "accuracy", math.nan),
    ("gest.v1", "male_rate_s3", 1.5), ("gest.v1", "disparity", 0.75), ("gest.v1", "valid_rate", 1.5),
    ("winomt.v1", "invalid.copy", -1.0), ("wsd_bias.v1", "valid_rate", math.nan),
    ("gest_pref.v1", "stereotype_rate_soft_norm", 1.5),
    ("gest_choice.v1", "option_a_rate", 1.5), ("gest_choice.v1", "undetected_rate_items", math.nan),
    ("sentiment.v1", "names.t_delta", 1.5), ("sentiment.v1", "names.s_mean[gender=female]", 1.5),
    ("sentiment.v1", "terms.t_coverage", 1.5), ("ambiguity.v1", "delta_h_se", -300.0),
    ("wsd_bias.v1", "sfii", 1.5), ("wsd_bias.v1", "accuracy_by_delta.3", math.nan),
    ("ambiguity.v1", "delta_h_ge", 1.5), ("ambiguity.v1", "delta_h_s3e_per_set", 2.5),
    ("ambiguity.v1", "se_unambiguous", -0.1), ("ambiguity.v1", "ge_undetected_share", 1.5),
    ("ambiguity.v1", "dedup_saving", math.nan), ("ambiguity.v1", "delta_i_se_outside_correct", -1.0),
])
def test_a_value_a_metric_cannot_take_is_named(probe, metric, value):
    problem = value_problem(probe_class(probe).specs, metric, value)
    assert problem is not None and problem.startswith(f"{metric} = ")


@pytest.mark.parametrize("probe, metric, value", [
    ("sentiment.v1", "names.s_delta", math.nan), ("gest.v1", "masculine_rate_genderbench", math.nan),
    ("gest.v1", "undetected_rate", math.nan),  # the validity gate left every attempt out
    ("winomt.v1", "invalid.not_target", 3888.0),
    ("gest_choice.v1", "same_letter_every_time", math.nan), ("ambiguity.v1", "delta_h_se", -8.5),
    ("sentiment.v1", "terms.t_min", math.nan), ("ambiguity.v1", "delta_i_s3e", -2.4), ("ambiguity.v1", "delta_logprob", 3.0),
    ("name_gender.v1", "templates_kept", 44.0), ("name_gender.v1", "first.seen.acc_gap_m_minus_f", -1.0),
])
def test_a_value_a_metric_can_take_is_not_flagged(probe, metric, value):
    assert value_problem(probe_class(probe).specs, metric, value) is None


def test_stored_rows_outside_their_range_are_named_by_line(tmp_path):
    """Through the store as the report reads it: NaN is written as JSON's NaN and read back as a
    float, so an undefined s stays believed while a rate of 1.5 is named by its line."""
    from mtdebias.report.views.page import stored_value_check
    from mtdebias.store.runs import RunStore

    store = RunStore(tmp_path)
    rows = [{"probe": "sentiment.v1", "metric": "names.s_delta", "value": math.nan},
            {"probe": "name_gender.v1", "metric": "first.acc_f", "value": 1.5},
            {"probe": "gest.v1", "metric": "skipped", "value": None}]
    results = store.results_file("step-1")
    results.parent.mkdir(parents=True)
    results.write_text("".join(json.dumps(row) + "\n" for row in rows))
    good, bad = store.read_results("step-1", stored_value_check())
    assert [row["metric"] for row in good] == ["names.s_delta", "skipped"]
    assert [(line, problem) for line, _, problem in bad] == [(2, "first.acc_f = 1.5 is outside its range [0, 1]")]


def test_a_value_a_rounding_step_past_its_bound_is_the_bound_not_damage():
    """sacrebleu's BLEU of a perfect match is 100.00000000000004: stored, it must read back as
    a result (not a damaged row recomputed on every run); a real excess stays refused."""
    from mtdebias.probes.base import value_problem
    from mtdebias.probes.quality.probe import QualityProbe

    import sacrebleu

    bleu = sacrebleu.corpus_bleu(["Der Hund schläft heute im Garten ."],
                                 [["Der Hund schläft heute im Garten ."]]).score
    assert value_problem(QualityProbe.specs, "bleu", bleu) is None
    assert value_problem(QualityProbe.specs, "bleu", 100.0 + 1e-12) is None
    assert "outside its range" in value_problem(QualityProbe.specs, "bleu", 100.001)
    assert "outside its range" in value_problem(QualityProbe.specs, "chrf", -0.001)
