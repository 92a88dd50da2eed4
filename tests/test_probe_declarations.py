"""The declarative probe contract (mtdebias.probes.base.Measure): one declaration per metric gives
the probe's specs, headline, degenerate rules and computed metrics (value, interval, n, left out
where it does not apply), and the default signature's settings are the options from_options was
given less the unsigned and hashed ones. Numbers checked against values computed by hand."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mtdebias.probes.base import (HIGHER, MCNEMAR, BaseProbe, Degenerate, Headline, Measure, MetricSpec,
                                  check_probe)


class Stub:
    def signature(self) -> str:
        return "stub:1"


def _rate(rows):
    return float(np.mean(rows[:, 0])) if len(rows) else float("nan")


def _marked_rate(rows):
    keep = rows[:, 1] == 1
    return float(np.mean(rows[keep, 0])) if keep.any() else float("nan")


class Declared(BaseProbe):
    name = "declared.v1"
    measures = (Measure("hit_rate", HIGHER, MCNEMAR, (0, 1), label="hit rate", headline=True, value=_rate,
                        definition="share of hits", source="here", degenerate="no hit at all", at_most=0),
                Measure("marked_hit_rate", HIGHER, bounds=(0, 1), label="hits (marked)", headline="marked hits",
                        value=_marked_rate, items=lambda rows: int(np.sum(rows[:, 1] == 1)),
                        when=lambda rows: bool(np.any(rows[:, 1] == 1))))
    unsigned = ("resamples",)
    hashed = ("data",)

    def __init__(self, words, *, beam=5, resamples=1000, seed=0):
        self.words, self.beam, self.resamples, self.seed = list(words), beam, resamples, seed
        self.data_hash = "h" + str(len(self.words))

    @classmethod
    def from_options(cls, data: str, *, lang: str = "de", beam: int = 5, limit: int | None = None,
                     resamples: int = 1000, seed: int = 0) -> "Declared":
        return cls(Path(data).read_text().split(), beam=beam, resamples=resamples, seed=seed)

    def values(self, attempts):
        return np.array([[float(a["hit"]), float(a["marked"])] for a in attempts]).reshape(-1, 2)


def test_specs_headline_and_degenerate_rules_follow_from_the_measures():
    assert Declared.specs == Declared.measures and all(isinstance(s, MetricSpec) for s in Declared.specs)
    assert Declared.headline == (Headline("hit_rate"), Headline("marked_hit_rate", "marked hits"))
    assert Declared.degenerate_when == (Degenerate("hit_rate", "no hit at all", 0, None),)
    check_probe(Declared.from_options, "declared.v1", "test")  # still a probe by the protocol


def test_metrics_are_computed_from_the_declarations(tmp_path):
    (tmp_path / "w.txt").write_text("a b c d\n")
    probe = Declared.from_options(str(tmp_path / "w.txt"), resamples=200)
    attempts = [{"hit": 1, "marked": 1}, {"hit": 0, "marked": 1}, {"hit": 1, "marked": 0}, {"hit": 1, "marked": 0}]
    metrics = {m.name: m for m in probe.metrics(attempts)}
    assert metrics["hit_rate"].value == 0.75 and metrics["hit_rate"].n == 4  # 3 hits of 4
    assert metrics["marked_hit_rate"].value == 0.5 and metrics["marked_hit_rate"].n == 2  # 1 hit of the 2 marked
    low, high = metrics["hit_rate"].ci
    assert 0.25 <= low <= 0.75 <= high <= 1.0
    assert [m.ci for m in probe.metrics(attempts, ci=False)] == [None, None]
    # the marked measure is left out where no item is marked; a result without hits says nothing
    unmarked = probe.metrics([{"hit": 0, "marked": 0}] * 3, ci=False)
    assert [m.name for m in unmarked] == ["hit_rate"]
    assert probe.degenerate(unmarked) == ["hit_rate = 0: no hit at all"]


def test_the_signature_shows_every_option_given_but_the_unsigned_and_hashed_ones(tmp_path):
    (tmp_path / "w.txt").write_text("a b\n")
    data = str(tmp_path / "w.txt")
    signature = Declared.from_options(data, beam=3, seed=2).signature(Stub())
    assert signature.endswith("|data:h2|model:stub:1|settings:beam=3,lang=de|seed:2")  # limit unset: not shown
    assert Declared.from_options(data, limit=4, resamples=50).signature(Stub()).endswith(
        "|settings:beam=5,lang=de,limit=4|seed:0")  # resamples is unsigned
    with pytest.raises(TypeError, match="built without from_options"):
        Declared(["a"]).signature(Stub())


def test_an_undefined_value_is_left_out_unless_its_declaration_allows_nan():
    """A metric whose declaration allows no NaN cannot be stored as one: it is left out where it
    is undefined; one declared nan=True is kept as "undefined here"; a family member follows its
    family's declaration."""
    from mtdebias.probes.base import measured

    def empty_mean(rows):
        return float(np.mean(rows)) if len(rows) else float("nan")

    measures = (Measure("strict", HIGHER, bounds=(0, 1), value=empty_mean),
                Measure("lenient", HIGHER, bounds=(0, 1), nan=True, value=empty_mean),
                MetricSpec("family_*", HIGHER, bounds=(0, 1), nan=True),
                Measure("family_a", value=empty_mean, spec=False),
                Measure("other_b", value=empty_mean, spec=False))  # no family declares it: its own (no NaN)
    got = measured(measures, np.array([]), resamples=0)
    assert [(m.name, m.n) for m in got] == [("lenient", 0), ("family_a", 0)]
    assert all(m.value != m.value for m in got)
    assert [(m.name, m.value) for m in measured(measures, np.array([1.0, 0.0]), resamples=0)] == [
        ("strict", 0.5), ("lenient", 0.5), ("family_a", 0.5), ("other_b", 0.5)]
