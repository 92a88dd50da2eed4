"""The probe contract's declarations: typed attempts and what run() does with them."""

from __future__ import annotations

import pytest

from mtdebias.probes.base import Attempts, BaseProbe, check_attempts
from mtdebias.registry import PROBES


def test_every_registered_probe_declares_the_type_of_its_attempts():
    for name in PROBES.entries:
        cls = PROBES.load(name).__self__
        kind = cls.attempt_type
        assert kind is not None and kind.__required_keys__, name  # a TypedDict with fields
        # the fields a probe pairs and re-scores by are declared ones
        assert {"source", "line", "id", "filler", "kind"} & (kind.__required_keys__ | kind.__optional_keys__), name


def test_run_refuses_an_attempt_that_is_not_of_the_declared_type():
    from mtdebias.probes.quality import QualityAttempt

    class Probe(BaseProbe):
        name = "toy.v1"
        attempt_type = QualityAttempt

        def __init__(self, extra):
            self.extra = extra

        def decode(self, translator, items):
            return list(items)

        def judge(self, items, outputs):
            return Attempts({"source": s, "reference": s, "hypothesis": s, **self.extra} for s in outputs)

    assert len(Probe({}).run(None, ["a", "b"])) == 2
    with pytest.raises(TypeError, match=r"toy.v1: attempt 0 is not a QualityAttempt: missing \[\], "
                                        r"not declared \['score'\]"):
        Probe({"score": 1.0}).run(None, ["a"])
    with pytest.raises(TypeError, match=r"missing \['hypothesis'\]"):
        check_attempts("toy.v1", QualityAttempt, [{"source": "a", "reference": "b"}])


def test_optional_fields_are_allowed_and_not_required():
    from mtdebias.probes.name_gender import NameGenderAttempt

    base = {"kind": "first_female", "name": "Anna", "gender": "female", "template": "t", "source": "s",
            "translation": "t", "detected": "female", "evidence": [], "span": None, "correct": True}
    check_attempts("name_gender.v1", NameGenderAttempt, [base, {**base, "seen": True, "train_count": 3,
                                                                "group": "first.seen.female"}])
