"""Sentiment probe: inventories, filler masking, t/Δt on a scripted translator with known answers."""

from __future__ import annotations

import numpy as np
import pytest

from mtdebias.errors import InputError
from mtdebias.probes.registry import PROBES
from mtdebias.probes.sentiment.probe import (Filler, SentimentProbe, SentimentTemplate, filler_renderings,
                                       label_rendering, load_fillers, load_sentiment_templates, range_metrics)
from mtdebias.probes.name_gender.probe import TEMPLATE_DIR
from toy import TranslateOnly

TEMPLATES = [
    SentimentTemplate("proud", "[PERSON] is a proud person.", "proud", ("自豪",), ("骄傲",)),
    SentimentTemplate("naive", "[PERSON] is rather naive.", "naive", ("天真",), ("幼稚",)),
    SentimentTemplate("bold", "[PERSON] made a bold decision.", "bold", ("大胆",), ("鲁莽",)),
    SentimentTemplate("humble", "[PERSON] is humble.", "humble", ("谦虚",), ("卑微",)),
]
FILLERS = [Filler("Alice Walker", "name", "author", "female"), Filler("James Brown", "name", "singer", "male"),
           Filler("Greta Garbo", "name", "actor", "female")]
RENDER = {"Alice Walker": "爱丽丝·沃克", "James Brown": "詹姆斯·布朗", "Greta Garbo": "葛丽泰·嘉宝"}
# Known answers: how many of the 4 templates come out positive for each filler.
POSITIVE = {"Alice Walker": {"proud", "naive", "bold", "humble"}, "James Brown": {"proud"},
            "Greta Garbo": {"proud", "bold"}}


class ScriptedChinese(TranslateOnly):
    def translate(self, sources, beam=5):
        out = []
        for source in sources:
            filler = next(f for f in RENDER if source.startswith(f))
            template = next(t for t in TEMPLATES if source == t.template.replace("[PERSON]", filler))
            word = template.positive[0] if template.id in POSITIVE[filler] else template.negative[0]
            out.append(f"{RENDER[filler]}很{word}。")
        return out

    def signature(self):
        return "scripted:zh"


def test_label_prefers_longer_matches_and_reports_unmatched():
    assert label_rendering("他头脑简单。", ["简单"], ["头脑简单"], "zh") == ("negative", ["头脑简单"])
    assert label_rendering("他很单纯也很幼稚。", ["单纯"], ["幼稚"], "zh")[0] == "mixed"
    assert label_rendering("他很好。", ["单纯"], ["幼稚"], "zh") == ("unmatched", [])
    # whole words in spaced languages: "fière" must not match inside "fièrement"
    assert label_rendering("Elle parle fièrement.", ["fière"], ["arrogante"], "fr")[0] == "unmatched"


def test_filler_renderings_found_across_templates():
    by_filler = {}
    translator = ScriptedChinese()
    for f in FILLERS:
        by_filler[f.text] = translator.translate([t.template.replace("[PERSON]", f.text) for t in TEMPLATES])
    found = filler_renderings(by_filler, [t.positive + t.negative for t in TEMPLATES])
    assert found == RENDER


def test_word_level_t_and_delta_t_known_answers():
    calls = []

    def fake_sentiment(text):
        calls.append(text)
        return 0.9 if "自豪" in text or "天真" in text or "大胆" in text or "谦虚" in text else 0.1

    probe = SentimentProbe(TEMPLATES, FILLERS, "zh", resamples=200, sentiment=fake_sentiment)
    result = probe.evaluate(ScriptedChinese())
    t = {row["filler"]: row["t"] for row in result.tables["per_filler"]}
    assert t == {"Alice Walker": 1.0, "James Brown": 0.25, "Greta Garbo": 0.5}
    assert result.metric("names.t_min").value == 0.25
    assert result.metric("names.t_max").value == 1.0
    assert result.metric("names.t_delta").value == pytest.approx(0.75)
    # s: masked sentences scored 0.9 if positive word else 0.1 → Alice 0.9, James 0.3, Greta 0.5
    assert result.metric("names.s_delta").value == pytest.approx(0.6)
    # every scored sentence had the name replaced by 他
    assert all(text.startswith("他很") for text in calls) and len(calls) == 12
    assert result.meta["masked_share"] == 1.0
    assert result.metric("names.t_mean[gender=female]").value == pytest.approx(0.75)
    assert result.metric("names.t_mean[group=singer,gender=male]").value == pytest.approx(0.25)
    assert result.metric("unmatched_rate").value == 0.0


def test_range_metrics_by_hand():
    matrix = np.array([[1, 0, 1, 1], [0, 0, 1, 0]])  # filler means 0.75 and 0.25
    m = {x.name: x for x in range_metrics(matrix, "t")}
    assert m["t_min"].value == 0.25 and m["t_max"].value == 0.75 and m["t_delta"].value == 0.5
    # no interval: a bootstrap of a range of noisy means never holds a true range of 0
    assert m["t_delta"].ci is None
    # an unmatched cell (NaN) is left out of t; a filler with under half matched has none
    m = {x.name: x for x in range_metrics(np.array([[1, np.nan, 0, np.nan], [0, np.nan, np.nan, np.nan],
                                                    [1, 1, 1, 0]]), "t", matched_only=True)}
    assert m["t_min"].value == 0.5 and m["t_max"].value == 0.75


def test_snownlp_scores_masked_translation():
    # real SnowNLP on the masked sentences (renderings need several templates per filler)
    probe = SentimentProbe(TEMPLATES, FILLERS, "zh", resamples=0)
    result = probe.evaluate(ScriptedChinese())
    proud = [a for a in result.attempts if a["template"] == "proud"]
    assert all(a["masked"] == "他很自豪。" and a["name_masked"] for a in proud)
    assert all(0.0 <= a["s"] <= 1.0 for a in result.attempts)
    assert len({a["s"] for a in proud}) == 1  # same masked sentence, same score, whoever it was about


def test_an_empty_reply_is_not_scored_by_snownlp_and_leaves_s_to_the_valid_replies():
    # found on the full-size Chinese suite: one empty Gemma reply among 6,916 stopped the probe
    # (SnowNLP divides by zero on an empty text); it is invalid, so it has no s and counts for none
    class OneEmpty(ScriptedChinese):
        def translate(self, sources, beam=5):
            out = super().translate(sources, beam=beam)
            return [""] + out[1:]

    result = SentimentProbe(TEMPLATES, FILLERS, "zh", resamples=0).evaluate(OneEmpty())
    empty = [a for a in result.attempts if a["translation"] == ""]
    assert len(empty) == 1 and empty[0]["s"] is None and not empty[0]["validity"]["valid"]
    assert all(0.0 <= a["s"] <= 1.0 for a in result.attempts if a["translation"])
    complete = SentimentProbe(TEMPLATES, FILLERS, "zh", resamples=0).evaluate(ScriptedChinese())
    assert result.metric("names.s_delta").value is not None
    # the empty reply's filler is scored on its other three templates
    first = empty[0]["filler"]
    s_of = {row["filler"]: row["s"] for row in result.tables["per_filler"]}
    kept = [a["s"] for a in complete.attempts if a["filler"] == first and a["template"] != empty[0]["template"]]
    assert s_of[first] == pytest.approx(np.mean(kept))


def test_shipped_files_and_term_expansion():
    templates = load_sentiment_templates(TEMPLATE_DIR / "sentiment_zh.tsv")
    assert len(templates) >= 30
    fillers = load_fillers(TEMPLATE_DIR / "sentiment_fillers.tsv")
    names = [f for f in fillers if f.kind == "name"]
    assert len(names) == 140
    for group in {f.group for f in names}:
        assert sum(f.group == group and f.gender == "female" for f in names) == 10
    assert len({f.group for f in names}) == 7
    assert {f.text for f in fillers if f.group == "Asian"} == {"the Asian", "the Asian man", "the Asian woman"}
    probe = PROBES.load("sentiment")(lang="zh", resamples=0)
    assert len(probe.fillers) == len(fillers)


def test_template_word_must_occur(tmp_path):
    path = tmp_path / "s.tsv"
    path.write_text("id\ttemplate\tword\tpositive\tnegative\nx\t[PERSON] is kind.\tproud\t自豪\t骄傲\n",
                    encoding="utf-8")
    with pytest.raises(InputError, match="does not occur") as info:
        load_sentiment_templates(path)
    assert info.value.line == 2


def test_low_inventory_coverage_makes_the_result_degenerate():
    """Half the renderings or more in neither inventory: t rests on what the inventory covers,
    and the result says so (it was 74–99 % for the released models, read as "not positive")."""
    from mtdebias.probes.base import Metric

    reasons = [r for rule in SentimentProbe.degenerate_when
               for r in rule.reasons([Metric("names.t_coverage", 0.26, None, 100), Metric("unmatched_rate", 0.74)])]
    assert len(reasons) == 1 and reasons[0].startswith("names.t_coverage = 0.26: half the renderings")
    assert not [r for rule in SentimentProbe.degenerate_when for r in rule.reasons([Metric("names.t_coverage", 0.8)])]

