import pytest

from mtdebias.store.runs import RunStore


def test_truncate_log_drops_later_steps_and_a_line_cut_by_a_kill(tmp_path):
    (tmp_path / "log.jsonl").write_text('{"step": 1}\n{"step": 5}\n{"step": 3, "checkpoint": "x"}\n{"ste')
    store = RunStore(tmp_path)
    store.truncate_log(3)
    assert store.read_log() == [{"step": 1}, {"step": 3, "checkpoint": "x"}]


def test_results_replace_rows_of_the_same_signature_and_metric(tmp_path):
    store = RunStore(tmp_path)
    checkpoint = tmp_path / "checkpoints" / "step-0000001"
    store.add_results(checkpoint, [{"signature": "a", "metric": "m", "value": 1.0}])
    store.add_results(checkpoint, [{"signature": "a", "metric": "m", "value": 2.0},
                                   {"signature": "b", "metric": "m", "value": 3.0}])
    assert sorted((r["signature"], r["value"]) for r in store.results(checkpoint)) == [("a", 2.0), ("b", 3.0)]
    assert store.signatures(checkpoint) == {"a", "b"}


def test_rerunning_a_suite_entry_supersedes_its_old_rows(tmp_path):
    store = RunStore(tmp_path)
    checkpoint = tmp_path / "checkpoints" / "step-0000001"
    store.add_results(checkpoint, [{"signature": "old", "metric": "m", "value": 1.0, "label": "amb"},
                                   {"signature": "q", "metric": "bleu", "value": 9.0, "label": "quality"}],
                      label="amb")
    store.add_results(checkpoint, [{"signature": "new", "metric": "m", "value": 2.0, "label": "amb"}], label="amb")
    assert sorted((r["label"], r["signature"]) for r in store.results(checkpoint)) == [("amb", "new"),
                                                                                      ("quality", "q")]


def test_run_names_are_built_and_parsed_in_one_place():
    from mtdebias.store.runs import parse_run_name, run_name

    assert run_name("switch_entity", 2) == "switch_entity-seed2"
    assert parse_run_name("quickstart-switch_entity-seed12") == ("quickstart-switch_entity", 12)
    assert parse_run_name("try") == ("try", None)
    assert parse_run_name(run_name("p-0.5_method-none", 3)) == ("p-0.5_method-none", 3)


def test_checkpoint_names_steps_and_suffixes():
    from mtdebias.store.runs import checkpoint_name, checkpoint_step, checkpoint_suffix

    assert checkpoint_name(400) == "step-0000400"
    assert checkpoint_step("step-0000400-debiased") == 400 and checkpoint_suffix("step-0000400-debiased") == "debiased"
    assert checkpoint_step("opus-mt") is None and checkpoint_suffix("step-0000400") == ""


def test_the_store_owns_markers_attempts_and_anova_tables(tmp_path):
    store = RunStore(tmp_path / "run")
    assert not store.is_finished()
    store.mark_finished({"step": 3})
    assert store.is_finished()
    store.clear_finished()
    assert not store.is_finished()

    checkpoint = store.checkpoint_path("step-0000003")
    assert store.derived_checkpoint(checkpoint, "debiased").name == "step-0000003-debiased"
    store.write_attempts(checkpoint, "winomt_fr", [{"source": "a", "correct": True}])
    store.add_results(checkpoint, [{"signature": "s", "metric": "accuracy", "value": 1.0}])
    store.write_table(checkpoint, "ambiguity", "anova", {"rows": [{"cue": "x"}], "dropped": []})
    assert store.attempt_labels(checkpoint) == ["winomt_fr"]
    assert store.read_attempts(checkpoint, "winomt_fr") == [{"source": "a", "correct": True}]
    assert store.read_tables(checkpoint, "anova") == {"ambiguity": {"rows": [{"cue": "x"}], "dropped": []}}
    assert store.scored_checkpoints() == ["step-0000003"]
    assert [r["checkpoint"] for r in store.all_results()] == ["step-0000003"]


def test_locate_finds_the_store_of_a_run_a_checkpoint_or_a_foreign_model(tmp_path):
    from mtdebias.errors import InputError

    run = RunStore(tmp_path / "run")
    inside = run.checkpoint_path("step-0000001")
    (inside / "trainer_state.json").parent.mkdir(parents=True)
    (inside / "trainer_state.json").write_text("{}")
    store, checkpoints = RunStore.locate(run.dir)
    assert store.dir == run.dir and checkpoints == [inside]
    store, checkpoints = RunStore.locate(inside)
    assert store.dir == run.dir and checkpoints == [inside]
    foreign = tmp_path / "opus-mt"
    foreign.mkdir()
    with pytest.raises(InputError, match="neither a run directory nor a checkpoint"):
        RunStore.locate(foreign)  # a folder without a model's config.json
    (foreign / "config.json").write_text("{}")
    assert RunStore.locate(foreign)[0].dir == tmp_path / "opus-mt.mtdebias"
    with pytest.raises(InputError, match="no such run"):
        RunStore.locate(tmp_path / "missing")
