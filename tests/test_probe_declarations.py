"""The declarative probe contract (mtdebias.probes.base.Measure): one declaration per metric gives
the probe's specs, headline, degenerate rules and computed metrics (value, interval, n, left out
where it does not apply), and the default signature's settings are the options from_options was
given less the unsigned and hashed ones. Numbers checked against values computed by hand."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mtdebias.probes.base import (HIGHER, MCNEMAR, BaseProbe, Degenerate, Headline, Measure, MetricSpec, Shown,
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


class Renamed(BaseProbe):
    """A probe whose stored signatures name options otherwise than from_options does."""

    name = "renamed.v1"
    unsigned = ("resamples",)
    hashed = ("data",)
    shown = {"align_method": Shown("align"), "extra": Shown("extra", lambda p: len(p.extra)),
             "samples": Shown("samples", lambda p: p.samples or None)}  # None: not shown
    also_signed = {"gate": "g1", "s": lambda p: "on" if p.extra else "off"}

    def __init__(self, *, align_method="fast_align", extra=(), samples=0, seed=0):
        self.align_method, self.extra, self.samples, self.seed = align_method, list(extra), samples, seed
        self.data_hash = "h"

    @classmethod
    def from_options(cls, data: str, *, align_method: str = "fast_align", extra: str | None = None,
                     samples: int = 0, resamples: int = 1000, seed: int = 0) -> "Renamed":
        return cls(align_method=align_method, extra=Path(extra).read_text().split() if extra else (),
                   samples=samples, seed=seed)


def test_an_option_is_signed_under_its_declared_name_and_value(tmp_path):
    (tmp_path / "x.txt").write_text("a b c\n")
    assert Renamed.from_options("d").signature(Stub()).endswith(
        "|settings:align=fast_align,extra=0,gate=g1,s=off|seed:0")
    assert Renamed.from_options("d", align_method="eflomal", extra=str(tmp_path / "x.txt"), samples=2,
                                seed=1).signature(Stub()).endswith(
        "|settings:align=eflomal,extra=3,gate=g1,s=on,samples=2|seed:1")
    # built without from_options: each option as the probe holds it
    assert Renamed(align_method="eflomal", extra=["y"]).signature(Stub()).endswith(
        "|settings:align=eflomal,extra=1,gate=g1,s=on|seed:0")


def test_a_corpus_measure_is_scored_on_all_rows_at_once_without_an_interval():
    from mtdebias.probes.base import measured

    rows = np.array([1.0, 2.0, 4.0])
    total, mean = measured((Measure("total", HIGHER, corpus=True, value=lambda r: float(np.sum(r))),
                            Measure("mean", HIGHER, value=lambda r: float(np.mean(r)))), rows, resamples=50)
    assert (total.value, total.ci, total.n) == (7.0, None, 3)
    assert mean.value == pytest.approx(7 / 3) and mean.ci is not None


def test_every_shipped_probe_derives_its_signature_from_its_options():
    """No shipped probe writes signature() by hand: its settings follow from from_options and its
    declared renames (tests/test_golden_probes.py shows they are the stored ones, byte for byte)."""
    from mtdebias.probes.registry import PROBES

    for name in PROBES.entries:
        probe = PROBES.load(name).__self__
        assert probe.signature is BaseProbe.signature, name
        assert probe.name == name and not hasattr(__import__(probe.__module__, fromlist=["_"]), "PROBE_NAME"), name
