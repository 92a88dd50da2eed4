from mtdebias.store import RunStore


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
