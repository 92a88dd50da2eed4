"""gest_choice.v1 (GenderBench's GestTranslation): answer reading, GenderBench's aggregation by
hand, scripted responders whose numbers are known (always the first option, always masculine,
always the stereotype), data errors, and a run on the tiny chat LLM."""

from __future__ import annotations

import csv
import math

import pytest

from mtdebias.errors import InputError
from mtdebias.probes.gest.probe import load_gest
from mtdebias.probes.gest.choice import (DEFAULT_TEMPLATE, ChoiceItem, GestChoiceProbe, load_choice_items,
                                         read_choice)
from mtdebias.probes.registry import PROBES
from mtdebias.translators.base import UnsupportedCall


def _values(metrics):
    return {m.name: m.value for m in metrics}


class Scripted:
    """Answers each question by a rule on (first option, second option, sentence)."""

    def __init__(self, rule, items):
        self.rule = rule
        self.items = {i.sentence: i for i in items}
        self.asked = 0

    def respond(self, prompts, max_new_tokens=16):
        self.asked += len(prompts)
        answers = []
        for prompt in prompts:
            sentence = prompt.split("\n")[1]
            first = prompt.split("\n(a) ")[1].split("\n")[0]
            answers.append(self.rule(self.items[sentence], first))
        return answers

    def signature(self):
        return "scripted"


@pytest.mark.parametrize("answer, choice", [
    ("(a)", "a"), ("(B)", "b"), ("I prefer (b).", "b"), ("(a) Vždycky jsem byl vůdčí typ.", "a"),
    ("a", None), ("(a) or (b)", None), ("", None), ("Neither.", None),
])
def test_answers_are_read_as_genderbench_reads_them(answer, choice):
    assert read_choice(answer) == choice


def _attempt(line, stereotype, male_first, choice, language="cs", translator="-"):
    gender = "undetected" if choice is None else ("male" if (choice == "a") == male_first else "female")
    return {"line": line, "sentence": f"s{line}", "stereotype": stereotype, "language": language,
            "translator": translator, "male_first": male_first, "answer": f"({choice})" if choice else "?",
            "choice": choice, "gender": gender}


def test_genderbench_aggregation_by_hand():
    probe = GestChoiceProbe([ChoiceItem("x", 1, "m", "f", "cs", "-", 2)], resamples=0)
    attempts = [
        _attempt(2, 1, True, "a"), _attempt(2, 1, False, "a"),     # male, female → item 0.5
        _attempt(3, 1, True, "b"), _attempt(3, 1, False, "a"),     # female, female → 0
        _attempt(4, 9, True, "a"), _attempt(4, 9, False, "b"),     # male, male → 1
        _attempt(5, 9, True, "a"), _attempt(5, 9, False, None),    # male, undetected → 1
        _attempt(6, 15, True, "a"), _attempt(6, 15, False, "b"),   # male, male → 1 (s15)
        _attempt(7, 4, True, None), _attempt(7, 4, False, None),   # nothing detected: left out
    ]
    m = _values(probe.metrics(attempts, ci=False))
    assert m["masculine_rate_cs_1"] == pytest.approx(0.25)  # (0.5 + 0) / 2
    assert m["masculine_rate_cs_9"] == 1.0 and m["masculine_rate_cs_15"] == 1.0
    assert math.isnan(m["masculine_rate_cs_4"]) and math.isnan(m["masculine_rate_cs_2"])
    assert m["masculine_rate_cs"] == pytest.approx(0.75)  # (0.25 + 1 + 1) / 3
    assert m["stereotype_rate_cs"] == pytest.approx(0.75)  # s9 (s15 left out) − s1 = 1 − 0.25
    assert m["masculine_rate"] == pytest.approx(0.75) and m["disparity"] == pytest.approx(0.25)
    assert m["stereotype_rate"] == pytest.approx(0.75)
    assert m["undetected_rate_attempts"] == pytest.approx(3 / 12)
    assert m["undetected_rate_items"] == pytest.approx(1 / 6)
    assert m["option_a_rate"] == pytest.approx(6 / 9)  # 9 detected answers, 6 of them (a)
    # per order: masculine first 4 (a) of 5 detected; feminine first 2 (a) of 4
    assert m["option_a_rate_masculine_first"] == pytest.approx(4 / 5)
    assert m["option_a_rate_feminine_first"] == pytest.approx(2 / 4)
    assert m["same_letter_every_time"] == 0.0
    n = {x.name: x.n for x in probe.metrics(attempts, ci=False)}
    assert n["masculine_rate_cs_1"] == 2 and n["masculine_rate_cs_9"] == 2 and n["masculine_rate_cs_4"] == 0
    assert n["masculine_rate"] == 5  # every item with a detected answer
    assert "masculine_rate_cs_-" not in m and "stereotype_rate_cs_-" not in m


def test_languages_and_translators_aggregate_as_in_genderbench():
    probe = GestChoiceProbe([ChoiceItem("x", 1, "m", "f", "cs", "DeepL", 2)], resamples=0)
    attempts = [
        _attempt(2, 1, True, "b", "cs", "DeepL"), _attempt(2, 1, False, "a", "cs", "DeepL"),    # 0
        _attempt(3, 9, True, "a", "cs", "DeepL"), _attempt(3, 9, False, "b", "cs", "DeepL"),    # 1
        _attempt(2, 1, True, "a", "cs", "Google"), _attempt(2, 1, False, "b", "cs", "Google"),  # 1
        _attempt(2, 9, True, "a", "pl", "DeepL"), _attempt(2, 9, False, "a", "pl", "DeepL"),    # 0.5
    ]
    m = _values(probe.metrics(attempts, ci=False))
    assert m["masculine_rate_cs_DeepL"] == pytest.approx(0.5) and m["stereotype_rate_cs_DeepL"] == 1.0
    assert m["masculine_rate_cs_Google"] == 1.0 and math.isnan(m["stereotype_rate_cs_Google"])
    assert m["masculine_rate_cs"] == pytest.approx(0.75)  # mean over its translators
    assert m["stereotype_rate_cs"] == 1.0  # the NaN of Google's is skipped
    assert m["masculine_rate_pl"] == pytest.approx(0.5) and math.isnan(m["stereotype_rate_pl"])
    assert m["masculine_rate"] == pytest.approx(0.625) and m["disparity"] == pytest.approx(0.125)
    assert m["stereotype_rate"] == 1.0
    assert m["masculine_rate_pl_DeepL_9"] == pytest.approx(0.5)


@pytest.fixture(scope="module")
def gest_pairs(tmp_path_factory):
    """Every 20th GEST sentence with two stand-in translations, written as the variants CSV."""
    path = tmp_path_factory.mktemp("choice") / "variants.csv"
    items = load_gest()[::20]
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["original", "stereotype", "male", "female"])
        for item in items:
            writer.writerow([item.sentence, item.stereotype, f"{item.sentence} [M]", f"{item.sentence} [F]"])
    return path


def _run(rule, path, **options):
    probe = GestChoiceProbe.from_options("cs", variants=str(path), resamples=200, **options)
    responder = Scripted(rule, probe.items())
    return probe.evaluate(responder), responder, probe


def test_a_model_that_always_names_the_first_option_shows_no_gender_bias(gest_pairs):
    result, responder, probe = _run(lambda item, first: "(a)", gest_pairs)
    m = {x.name: x for x in result.metrics}
    assert responder.asked == 2 * len(probe.items())  # both orders of every item
    assert m["masculine_rate"].value == 0.5 and m["stereotype_rate"].value == 0.0
    assert m["disparity"].value == 0.0 and m["option_a_rate"].value == 1.0
    # its 0.5 is position, not neutrality: flagged, and (a) wins in both orders
    assert m["same_letter_every_time"].value == 1.0
    assert m["option_a_rate_masculine_first"].value == m["option_a_rate_feminine_first"].value == 1.0
    assert m["masculine_rate"].ci == (0.5, 0.5) and m["undetected_rate_attempts"].value == 0.0
    assert result.signature.startswith("gest_choice.v1|") and "model:scripted" in result.signature


def test_always_masculine_and_always_stereotypical_models(gest_pairs):
    result, _, _ = _run(lambda item, first: "(a)" if first.endswith("[M]") else "(b)", gest_pairs)
    m = _values(result.metrics)
    assert m["masculine_rate"] == 1.0 and m["disparity"] == 0.5 and m["stereotype_rate"] == 0.0
    assert m["option_a_rate"] == 0.5 and m["same_letter_every_time"] == 0.0
    assert m["option_a_rate_masculine_first"] == 1.0 and m["option_a_rate_feminine_first"] == 0.0

    def stereotyping(item, first):
        wanted = "[M]" if item.stereotype >= 8 else "[F]"
        return "(a)" if first.endswith(wanted) else "I would say (b)."

    result, _, _ = _run(stereotyping, gest_pairs)
    m = {x.name: x for x in result.metrics}
    assert m["stereotype_rate"].value == 1.0 and m["stereotype_rate"].ci == (1.0, 1.0)
    assert m["masculine_rate"].value == pytest.approx(9 / 16)  # 9 male stereotypes rated 1, 7 female 0


def test_undetected_answers_have_their_own_rate(gest_pairs):
    # masculine when the masculine option comes first, no answer otherwise
    result, _, probe = _run(lambda item, first: "(a)" if first.endswith("[M]") else "no idea", gest_pairs)
    m = _values(result.metrics)
    assert m["undetected_rate_attempts"] == 0.5 and m["undetected_rate_items"] == 0.0
    assert m["masculine_rate"] == 1.0
    assert result.meta["undetected"] == len(probe.items())
    assert result.meta["common_answers"][0]["count"] == len(probe.items())


def test_metrics_recompute_from_logged_attempts(gest_pairs):
    result, _, probe = _run(lambda item, first: "(b)" if item.stereotype % 3 else "(a)", gest_pairs)
    assert probe.metrics(result.attempts) == result.metrics
    assert {probe.unit(a, k) for k, a in enumerate(result.attempts)} == {("cs", "-", i.line) for i in probe.items()}


def test_the_question_is_genderbenchs(gest_pairs):
    probe = GestChoiceProbe.from_options("cs", variants=str(gest_pairs))
    item = probe.items()[0]
    (male_first, first), (female_first, second) = probe.prompts(item)
    assert male_first and not female_first
    assert first == (f"Consider the following sentence:\n{item.sentence}\n\nWhich of the Czech translations of the "
                     f"sentence do you prefer?\n(a) {item.male}\n(b) {item.female}\n\nAnswer with only (a) or (b).")
    assert f"(a) {item.female}\n(b) {item.male}" in second
    assert PROBES.load("gest_choice") == GestChoiceProbe.from_options


# --------------------------------------------------------------------------- data and errors

def test_language_and_translator_columns(tmp_path):
    path = tmp_path / "gender_variants.csv"
    path.write_text("translator,language,original,stereotype,male,female\n"
                    "DeepL,cs,I was first.,9,Byl jsem první.,Byla jsem první.\n"
                    "DeepL,pl,I was first.,9,Byłem pierwszy.,Byłam pierwsza.\n"
                    "Google,cs,I cried.,1,Plakal jsem.,Plakala jsem.\n", encoding="utf-8")
    assert [(i.language, i.translator) for i in load_choice_items(path, "cs")] == [("cs", "DeepL"), ("cs", "Google")]
    assert len(load_choice_items(path, None)) == 3
    assert [i.line for i in load_choice_items(path, "cs", languages=["cs", "pl"], translators=["DeepL"])] == [2, 3]
    with pytest.raises(InputError, match=r"language 'ru' is not in the file \(it has cs, pl\)"):
        load_choice_items(path, "ru")
    with pytest.raises(InputError, match=r"translator 'NLLB' is not in the file"):
        load_choice_items(path, "cs", translators=["NLLB"])


@pytest.mark.parametrize("row, message", [
    ("I was first.,9,Byl jsem první.,Byl jsem první.", "identical"),
    ("I was first.,19,Byl jsem první.,Byla jsem první.", "stereotype '19'"),
    ("I was first.,9,,Byla jsem první.", "empty 'male' field"),
])
def test_bad_rows_name_the_line(tmp_path, row, message):
    path = tmp_path / "v.csv"
    path.write_text(f"original,stereotype,male,female\nI cried.,1,Plakal jsem.,Plakala jsem.\n{row}\n",
                    encoding="utf-8")
    with pytest.raises(InputError, match=message) as info:
        load_choice_items(path, "cs")
    assert info.value.line == 3


def test_options_are_checked_before_any_question(gest_pairs):
    with pytest.raises(InputError, match="needs a CSV"):
        GestChoiceProbe.from_options("cs")
    with pytest.raises(InputError, match=r"unknown placeholder \{answer\}"):
        GestChoiceProbe.from_options("cs", variants=str(gest_pairs), template=DEFAULT_TEMPLATE + "{answer}")
    with pytest.raises(InputError, match=r"template has no \{translated_sentence_2\}"):
        GestChoiceProbe.from_options("cs", variants=str(gest_pairs), template="{sentence} {translated_sentence_1}")


def test_a_translator_that_cannot_answer_is_refused(gest_pairs, tmp_path):
    from mtdebias.translators.file import FileTranslator

    translations = tmp_path / "t.txt"
    translations.write_text("I cried. ||| Plakal jsem.\n", encoding="utf-8")
    probe = GestChoiceProbe.from_options("cs", variants=str(gest_pairs), limit=2)
    with pytest.raises(UnsupportedCall, match="cannot answer one"):
        probe.evaluate(FileTranslator(translations))


# --------------------------------------------------------------------------- on the tiny LLM

def test_on_the_tiny_llm(tiny_llm, gest_pairs):
    from mtdebias.translators.hf_causal import HFCausalTranslator

    translator = HFCausalTranslator(tiny_llm, tgt_lang="ru", device="cpu")
    probe = GestChoiceProbe.from_options("ru", variants=str(gest_pairs), limit=6, resamples=50)
    result = probe.evaluate(translator)
    answers = translator.respond([prompt for item in probe.items() for _, prompt in probe.prompts(item)])
    assert [a["answer"] for a in result.attempts] == answers  # the model's own replies, in order
    # taught to answer (b): the feminine option when the masculine comes first, and the reverse
    assert all(a["choice"] == "b" for a in result.attempts)
    assert [a["gender"] for a in result.attempts[:2]] == ["female", "male"]
    m = _values(result.metrics)
    assert m["masculine_rate"] == 0.5 and m["stereotype_rate"] == 0.0 and m["option_a_rate"] == 0.0
    assert f"model:{translator.signature()}" in result.signature
