"""The declarative contract's family of measures (one metric per group of the data) and its
interval rules (stratified, folded from a signed sibling, none), against numbers by hand."""

from __future__ import annotations

import numpy as np

from mtdebias.probes.base import NO_INTERVAL, BaseProbe, Family, Measure, measured
from mtdebias.stats import folded_interval, stratified_bootstrap_ci

ROWS = {"a": np.array([1.0, 0.0, 1.0, 1.0]), "b": np.array([0.0, 0.0, 1.0])}


def _groups(rows):
    return sorted(rows.items())


def test_a_family_names_each_groups_metric_by_its_pattern_and_computes_it_on_that_group():
    family = Family(_groups, (Measure("*.mean", value=lambda a: float(np.mean(a))),))
    got = {m.name: (m.value, m.n) for m in measured((family,), ROWS, resamples=0)}
    assert got == {"a.mean": (0.75, 4), "b.mean": (1 / 3, 3)}


def test_a_family_declares_its_specs_and_degenerate_rules_like_any_measure():
    class Probe(BaseProbe):
        name = "family_test.v1"
        measures = (Family(_groups, (Measure("*.mean", value=np.mean, degenerate="all zero", at_most=0),)),)

    assert [s.pattern for s in Probe.specs] == ["*.mean"]
    assert Probe.degenerate_when[0].pattern == "*.mean"


def test_a_folded_measure_takes_its_signed_siblings_interval_folded_and_strata_resample_apart():
    rows = np.array([[1, 0.2], [1, 0.9], [1, 0.4], [0, 0.5], [0, 0.1], [0, 0.3]], dtype=float)
    gap = lambda a: float(np.mean(a[a[:, 0] == 1, 1]) - np.mean(a[a[:, 0] == 0, 1]))  # noqa: E731
    signed = Measure("gap", value=gap, strata=lambda a: a[:, 0])
    folded = Measure("abs_gap", value=lambda a: abs(gap(a)), folds="gap")
    none = Measure("count", value=lambda a: float(len(a)), interval=NO_INTERVAL)
    got = {m.name: m for m in measured((folded, signed, none), rows, resamples=200, seed=3)}
    want = stratified_bootstrap_ci(rows, rows[:, 0], gap, resamples=200, seed=3)
    assert got["gap"].ci == want
    assert got["abs_gap"].ci == folded_interval(want) and got["abs_gap"].value == abs(gap(rows))
    assert got["count"].ci is None and got["count"].value == 6.0


def test_computed_metrics_come_in_their_place_and_none_with_a_reason_means_no_interval():
    from mtdebias.probes.base import Computed, Metric

    rows = np.array([0.0, 1.0, 1.0])
    measures = (Measure("mean", value=lambda a: float(np.mean(a)), interval="none: a reason"),
                Computed(lambda a: [Metric("given", 7.0, None, 1)]),
                Measure("max", value=lambda a: float(np.max(a))))
    got = measured(measures, rows, resamples=50)
    assert [(m.name, m.value, m.ci) for m in got[:2]] == [("mean", 2 / 3, None), ("given", 7.0, None)]
    assert got[2].name == "max" and got[2].ci is not None  # a plain bootstrap interval


def test_a_joint_measure_gives_its_metrics_with_intervals_from_the_same_resamples_of_units():
    from mtdebias.probes.base import Joint, MetricSpec
    from mtdebias.stats import bootstrap_cis

    rows = np.array([1.0, 0.0, 1.0, 1.0, 0.0, 0.0])
    units = np.array([0, 0, 1, 1, 2, 2])
    seen = []

    def values(a, idx, checked):
        seen.append(checked)
        return {"mean": (float(np.mean(a[idx])), len(idx)), "count": (float(len(idx)), len(idx))}

    joint = Joint(values, size=len, units=lambda a: units)
    got = measured((joint, MetricSpec("count", interval=NO_INTERVAL)), rows, resamples=100, seed=2)
    want = bootstrap_cis(6, lambda idx: {"mean": float(np.mean(rows[idx]))}, ["mean"], resamples=100, seed=2,
                         units=units)["mean"]
    assert [(m.name, m.value, m.ci, m.n) for m in got] == [("mean", 0.5, want, 6), ("count", 6.0, None, 6)]
    assert seen[0] is True and not any(seen[1:])  # the point values are the checked ones


def test_a_joint_metrics_interval_may_follow_from_anothers():
    from mtdebias.probes.base import Joint

    rows = np.array([1.0, 0.0, 1.0, 1.0, 0.0, 1.0])
    joint = Joint(lambda a, idx, checked: {"m": (float(np.mean(a[idx])), len(idx)),
                                           "gap": (abs(0.5 - float(np.mean(a[idx]))), len(idx))},
                  size=len, derived=(("gap", "m", lambda ci: None if ci is None else (ci[0] - 9, ci[1] - 9)),))
    got = {m.name: m.ci for m in measured((joint,), rows, resamples=100, seed=1)}
    assert got["gap"] == (got["m"][0] - 9, got["m"][1] - 9)
