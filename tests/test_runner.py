"""The evaluation runner: skip on stored signatures, resume after interruption, broken checkpoints."""

import shutil

import pytest

from mtdebias.errors import ConfigError
from mtdebias.evaluation.runner import evaluate
from mtdebias.store.runs import RunStore
from toy import toy_corpus
from mtdebias.translators.hf import HFTranslator

SUITE = """
[suite]
name = "t"

[[probe]]
type = "quality"
label = "quality_beam1"
src = "{data}/test.en"
ref = "{data}/test.de"
beam = 1

[[probe]]
type = "quality"
label = "quality_beam2"
src = "{data}/test.en"
ref = "{data}/test.de"
beam = 2
"""


@pytest.fixture
def run_dir(tmp_path, tiny_checkpoint):
    """A run directory holding two good checkpoints and one with truncated weights."""
    run = tmp_path / "run"
    for name in ("step-0000100", "step-0000200"):
        shutil.copytree(tiny_checkpoint, run / "checkpoints" / name)
    broken = run / "checkpoints" / "step-0000300"
    shutil.copytree(tiny_checkpoint, broken)
    weights = broken / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:500])
    data = tmp_path / "data"
    data.mkdir()
    src, tgt = toy_corpus(30, seed=9)
    (data / "test.en").write_text("\n".join(src) + "\n")
    (data / "test.de").write_text("\n".join(tgt) + "\n")
    (tmp_path / "suite.toml").write_text(SUITE)
    return run


def test_broken_checkpoint_is_reported_and_the_rest_scored(run_dir):
    outcome = evaluate([run_dir], run_dir.parent / "suite.toml", {"data": str(run_dir.parent / "data")})
    assert list(outcome.failed) == ["step-0000300"]
    assert "could not be loaded" in outcome.failed["step-0000300"]
    assert len(outcome.scored) == 4  # 2 good checkpoints × 2 probes
    rows = RunStore(run_dir).results(run_dir / "checkpoints" / "step-0000100")
    assert sorted((r["label"], r["metric"]) for r in rows if r["metric"] in ("bleu", "chrf")) == [
        ("quality_beam1", "bleu"), ("quality_beam1", "chrf"), ("quality_beam2", "bleu"), ("quality_beam2", "chrf")]
    assert len(rows) == 16  # and the validity gate's valid_rate and five invalid.* counts per label
    assert all(r["signature"].startswith("quality.v1|") for r in rows)
    # a second run finds everything stored and decodes nothing
    again = evaluate([run_dir], run_dir.parent / "suite.toml", {"data": str(run_dir.parent / "data")})
    assert again.scored == [] and len(again.skipped) == 4


def test_interrupted_suite_resumes_without_loss_or_duplicates(run_dir):
    overrides = {"data": str(run_dir.parent / "data")}
    checkpoint = run_dir / "checkpoints" / "step-0000100"
    shutil.rmtree(run_dir / "checkpoints" / "step-0000300")
    calls = {"translate": 0}

    class Interrupting(HFTranslator):
        def translate(self, sources, beam=5):
            calls["translate"] += 1
            if beam == 2:  # the second probe: the user presses Ctrl-C
                raise KeyboardInterrupt
            return super().translate(sources, beam=beam)

    with pytest.raises(KeyboardInterrupt):
        evaluate([checkpoint], run_dir.parent / "suite.toml", overrides, make_translator=Interrupting)
    stored = RunStore(run_dir).results(checkpoint)
    assert {r["label"] for r in stored} == {"quality_beam1"}  # the finished probe was kept
    first_bleu = [r["value"] for r in stored if r["metric"] == "bleu"]

    outcome = evaluate([checkpoint], run_dir.parent / "suite.toml", overrides)
    assert outcome.skipped == ["step-0000100: quality_beam1"]
    assert outcome.scored == ["step-0000100: quality_beam2"]
    rows = RunStore(run_dir).results(checkpoint)
    # bleu, chrf, valid_rate and five invalid.* counts per label, each once
    assert len(rows) == 16 and len({(r["label"], r["metric"]) for r in rows}) == 16
    assert [r["value"] for r in rows if r["metric"] == "bleu" and r["label"] == "quality_beam1"] == first_bleu


def test_a_result_stored_under_another_gate_is_computed_again(run_dir, capsys):
    """The request key is the suite's (options, data, model); the validity gate is the code's
    rule, signed by the probe. A result stored under another gate (one since given an adequacy
    floor) is not skipped as stored: it is computed again and replaces the old rows."""
    overrides = {"data": str(run_dir.parent / "data")}
    checkpoint = run_dir / "checkpoints" / "step-0000100"
    suite = run_dir.parent / "suite.toml"
    evaluate([checkpoint], suite, overrides, only=["quality_beam1"])
    store = RunStore(run_dir)
    path = store.results_file(checkpoint)
    current = path.read_text(encoding="utf-8")
    assert "gate=py3langid0.05-copy0.9-rep5," in current
    path.write_text(current.replace("gate=py3langid0.05-copy0.9-rep5,", "gate=py3langid0.05-copy0.9,"), encoding="utf-8")
    again = evaluate([checkpoint], suite, overrides, only=["quality_beam1"])
    assert again.scored == ["step-0000100: quality_beam1"] and again.skipped == []
    assert "stored under gate=py3langid0.05-copy0.9; this version signs otherwise" in capsys.readouterr().err
    rows = store.results(checkpoint)
    assert len(rows) == 8 and all("gate=py3langid0.05-copy0.9-rep5," in r["signature"] for r in rows)
    # stored under the current gate: skipped
    assert evaluate([checkpoint], suite, overrides, only=["quality_beam1"]).skipped == ["step-0000100: quality_beam1"]


def test_only_scores_the_labelled_probes_and_the_whole_suite_then_skips_them(run_dir):
    overrides = {"data": str(run_dir.parent / "data")}
    checkpoint = run_dir / "checkpoints" / "step-0000100"
    suite = run_dir.parent / "suite.toml"
    first = evaluate([checkpoint], suite, overrides, only=["quality_beam2"])
    assert first.scored == ["step-0000100: quality_beam2"] and first.skipped == []
    assert {r["label"] for r in RunStore(run_dir).results(checkpoint)} == {"quality_beam2"}
    # stored as the whole suite stores it: the suite's run finds it and decodes only the other probe
    whole = evaluate([checkpoint], suite, overrides)
    assert whole.skipped == ["step-0000100: quality_beam2"] and whole.scored == ["step-0000100: quality_beam1"]


def test_only_with_a_label_the_suite_lacks_fails_with_a_did_you_mean_before_any_model(run_dir):
    from mtdebias.errors import InputError

    def no_model(path):
        raise AssertionError("a model was loaded before the check")

    with pytest.raises(InputError, match=r"--only quality_beam3: suite \S+ has no probe labelled quality_beam3.*"
                                         r"did you mean quality_beam2\? its labels: quality_beam1, quality_beam2"):
        evaluate([run_dir], run_dir.parent / "suite.toml", {"data": str(run_dir.parent / "data")},
                 make_translator=no_model, only=["quality_beam3"])
    assert RunStore(run_dir).results(run_dir / "checkpoints" / "step-0000100") == []


def test_only_a_probe_whose_optional_data_is_absent_is_an_error_not_an_empty_success(run_dir, tmp_path):
    from mtdebias.errors import InputError

    suite = tmp_path / "optional.toml"
    suite.write_text('[[probe]]\ntype = "quality"\nlabel = "bible"\nsrc = "{data}/test.en"\nref = "{data}/test.de"\n'
                     'if_exists = "no-bible/test.en"\n')
    with pytest.raises(InputError, match=r"--only bible: its data \S*no-bible/test.en is not there"):
        evaluate([run_dir], suite, {"data": str(run_dir.parent / "data")}, only=["bible"],
                 make_translator=lambda path: pytest.fail("a model was loaded before the check"))


def test_unfilled_placeholder_and_unknown_probe_fail_before_any_work(run_dir, tmp_path):
    with pytest.raises(ConfigError, match=r"no value for \{data\}"):
        evaluate([run_dir], run_dir.parent / "suite.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text('[[probe]]\ntype = "winomtt"\n')
    with pytest.raises(ConfigError, match="did you mean 'winomt'"):
        evaluate([run_dir], bad)


def test_watch_scores_new_checkpoints_until_the_run_finishes(run_dir):
    import threading

    from mtdebias.evaluation.runner import watch
    from mtdebias.store.runs import RunStore

    shutil.rmtree(run_dir / "checkpoints" / "step-0000300")
    later = run_dir / "checkpoints" / "step-0000200"
    parked = run_dir.parent / "parked"
    later.rename(parked)  # only step-0000100 exists when watching starts

    def training_goes_on():
        import time

        time.sleep(1.0)
        parked.rename(later)  # a new checkpoint appears …
        time.sleep(1.0)
        RunStore(run_dir).mark_finished({})  # … and training ends

    thread = threading.Thread(target=training_goes_on)
    thread.start()
    outcome = watch(run_dir, run_dir.parent / "suite.toml", {"data": str(run_dir.parent / "data")},
                    interval=0.3, timeout=120)
    thread.join()
    assert sorted(outcome.scored) == ["step-0000100: quality_beam1", "step-0000100: quality_beam2",
                                      "step-0000200: quality_beam1", "step-0000200: quality_beam2"]


def test_a_scored_checkpoint_is_neither_loaded_nor_hashed_again(run_dir, monkeypatch):
    """Request keys come from the checkpoint hash (cached by file stat): once everything is
    stored, evaluating again loads no model and reads no weights — what every --watch poll does."""
    import mtdebias.signature as signature

    overrides = {"data": str(run_dir.parent / "data")}
    shutil.rmtree(run_dir / "checkpoints" / "step-0000300")
    loads, hashes = [], []

    def loading(checkpoint):
        loads.append(checkpoint.name)
        return HFTranslator(checkpoint)

    real_hash = signature.hash_checkpoint
    monkeypatch.setattr(signature, "hash_checkpoint", lambda path: hashes.append(path) or real_hash(path))
    first = evaluate([run_dir], run_dir.parent / "suite.toml", overrides, make_translator=loading)
    assert len(first.scored) == 4 and loads == ["step-0000100", "step-0000200"]
    hashed = len(hashes)
    again = evaluate([run_dir], run_dir.parent / "suite.toml", overrides, make_translator=loading)
    assert again.scored == [] and len(again.skipped) == 4
    assert loads == ["step-0000100", "step-0000200"] and len(hashes) == hashed  # nothing loaded or re-hashed
    # a changed checkpoint is hashed again (its stat changed) and its results are computed anew
    config = run_dir / "checkpoints" / "step-0000200" / "config.json"
    config.write_text(config.read_text() + " ")  # same JSON, different bytes
    third = evaluate([run_dir], run_dir.parent / "suite.toml", overrides, make_translator=loading)
    assert loads[-1] == "step-0000200" and len(third.scored) == 2


def test_a_probe_skipped_for_this_run_is_answered_once(tmp_path):
    """GEST listed for Slavic targets only: on a German run it measures nothing, and that answer
    is stored, so evaluating again loads no model for it."""
    from mtdebias.store.runs import RunStore

    run = tmp_path / "run"
    checkpoint = run / "checkpoints" / "step-0000001"
    checkpoint.mkdir(parents=True)
    (checkpoint / "trainer_state.json").write_text("{}")
    (tmp_path / "s.toml").write_text('[[probe]]\ntype = "gest"\nlang = "de"\nonly_for = ["ru"]\nlimit = 5\n')
    loads = []

    def loading(path):
        loads.append(path.name)

        class Unused:
            def signature(self):
                return "scripted:unused"

        return Unused()

    first = evaluate([run], tmp_path / "s.toml", make_translator=loading)
    assert first.scored == ["step-0000001: gest"] and loads == ["step-0000001"]
    [row] = RunStore(run).results(checkpoint)
    assert row["metric"] == "skipped" and row["value"] is None and "not among" in row["meta"]["skipped"]
    again = evaluate([run], tmp_path / "s.toml", make_translator=loading)
    assert again.skipped == ["step-0000001: gest"] and loads == ["step-0000001"]


def test_a_probes_default_data_is_part_of_the_request_key():
    """A probe that loads shipped data by default answers another request once that data
    changes (grown word-sense items must be scored again, not read back)."""
    from mtdebias.evaluation.runner import request_key
    from mtdebias.evaluation.suite import ProbeSpec

    from mtdebias.probes.base import BaseProbe

    spec = ProbeSpec("wsd_bias.v1", {"lang": "es"})

    class Probe(BaseProbe):
        def __init__(self, data_hash):
            self.data_hash = data_hash

    assert request_key(spec, "m", Probe("aaa")) != request_key(spec, "m", Probe("bbb"))
    assert request_key(spec, "m", Probe("aaa")) == request_key(spec, "m", Probe("aaa"))


def test_a_new_stored_layout_is_part_of_the_request_key():
    """Attempts stored in an older shape are scored again, not read back (and layout 1, every
    probe's default, leaves the keys of results stored before layouts existed unchanged)."""
    from mtdebias.evaluation.runner import request_key
    from mtdebias.evaluation.suite import ProbeSpec

    from mtdebias.probes.base import BaseProbe

    spec = ProbeSpec("ambiguity.v1", {"lang": "es"})

    class Probe(BaseProbe):  # the declared defaults: stored_layout 1
        data_hash = "aaa"

        def __init__(self, layout=None):
            if layout is not None:
                self.stored_layout = layout

    assert request_key(spec, "m", Probe(1)) == request_key(spec, "m", Probe())
    assert request_key(spec, "m", Probe(2)) != request_key(spec, "m", Probe(1))
