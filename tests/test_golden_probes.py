"""Golden test of every shipped probe: stored attempts (tests/golden/<probe>/attempts.jsonl, real
quickstart attempts where the runs had them, else a scripted translator's) are re-scored through
the probe's ``metrics`` and ``signature`` and must give exactly what the probe gave them at
aab7484 (tests/golden/make_golden.py wrote expected.json there): every metric's value, interval
and n, the signature, and what the probe declares of each metric (direction, test, bounds, label,
definition) and of itself. Moving or restating a probe must not change a number a stored result
was scored with; a deliberate change of a metric is a new version of the probe, whose golden
files are then written again."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mtdebias.probes.base import Attempts
from mtdebias.probes.registry import PROBES

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden"
CASES = sorted(p.name for p in GOLDEN.iterdir() if (p / "expected.json").is_file())


class Signed:
    """The translator the stored attempts were signed with (only its signature is read)."""

    def __init__(self, signature: str):
        self._signature = signature

    def signature(self) -> str:
        return self._signature


def canonical(value):
    """JSON text of a value, NaN and infinities included: exact float comparison, NaN == NaN."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def test_every_shipped_probe_has_golden_files():
    assert set(CASES) == {n for n in PROBES.names() if re.search(r"\.v[0-9]+$", n)}  # aliases aside


@pytest.mark.parametrize("name", CASES)
def test_stored_attempts_rescore_to_the_golden_numbers(name, monkeypatch):
    monkeypatch.chdir(ROOT)  # the options name files relative to the repository
    folder = GOLDEN / name
    expected = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
    rows = [json.loads(line) for line in (folder / "attempts.jsonl").read_text(encoding="utf-8").splitlines()]
    probe = PROBES.load(name)(**expected["options"])
    attempts = Attempts(rows, settings=expected["settings"])
    metrics = [m.to_dict() for m in probe.metrics(attempts)]
    assert [m["metric"] for m in metrics] == [m["metric"] for m in expected["metrics"]]
    for got, want in zip(metrics, expected["metrics"]):
        assert canonical(got) == canonical(want), name
    assert probe.signature(Signed(expected["translator"]), attempts) == expected["signature"]
    assert probe.degenerate(probe.metrics(attempts, ci=False)) == expected["degenerate"]


@pytest.mark.parametrize("name", CASES)
def test_what_each_metric_declares_is_unchanged(name, monkeypatch):
    from mtdebias.probes.base import metric_label

    monkeypatch.chdir(ROOT)
    expected = json.loads((GOLDEN / name / "expected.json").read_text(encoding="utf-8"))
    probe = PROBES.load(name)(**expected["options"])
    for metric, want in expected["specs"].items():
        spec = probe.spec(metric)
        got = None if spec is None else {
            "pattern": spec.pattern, "better": spec.better, "test": spec.test,
            "bounds": list(spec.bounds) if spec.bounds else None, "nan": spec.nan, "undefined": spec.undefined,
            "label": metric_label(type(probe), metric), "definition": spec.definition, "source": spec.source,
            "interval": spec.interval}
        assert got == want, (name, metric)
    assert [[h.metric, h.label] for h in probe.headline] == expected["headline"]
    assert [[h.metric, h.label] for h in probe.quality] == expected["quality"]
    assert list(probe.own_plots) == expected["own_plots"]
    assert list(probe.unsigned) == expected["unsigned"]
