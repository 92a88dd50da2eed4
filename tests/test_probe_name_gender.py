"""Name-gender probe: template files, the he/she filter, Acc_f/Acc_m/ΔAcc on scripted translators.

The scripted translators render "<subject> ist <key noun>." in German from the real template
table, so detection runs through the real :func:`mtdebias.lang.detect_gender` with the forms.
"""

from __future__ import annotations

import random
import re

import pytest

from mtdebias.errors import InputError
from mtdebias.probes.name_gender.probe import (GenderTemplate, NameGenderProbe, default_template_path, fill,
                                         load_gender_templates, name_gender_metrics)
from mtdebias.probes.registry import PROBES
from toy import TranslateOnly

TEMPLATES = [
    GenderTemplate("teacher", "[PERSON] worked as a teacher in a small village.", ("Lehrer", "Lehrers"), ("Lehrerin",)),
    GenderTemplate("writer", "[PERSON] is a writer who lives in the mountains.", ("Schriftsteller",), ("Schriftstellerin",)),
    GenderTemplate("baker", "[PERSON] works as a baker in the village.", ("Bäcker",), ("Bäckerin",)),
    GenderTemplate("doctor", "[PERSON] is a doctor in the emergency room.", ("Arzt",), ("Ärztin",)),
]
NAMES = {"first_female": ["Anna", "Maria", "Olivia", "Emma", "Sofia", "Julia"],
         "first_male": ["Peter", "James", "Lukas", "David", "Paul", "Simon"]}


class ScriptedGerman(TranslateOnly):
    """Translates a filled template as '<subject> ist <noun>.', the noun chosen by `choose`."""

    def __init__(self, templates, choose, always_male_nouns=(), swapped_nouns=()):
        self.templates = templates
        self.swapped_nouns = set(swapped_nouns)  # "he" → feminine noun, "she" → masculine
        self.choose = choose  # (subject, template) -> "male" | "female"
        self.always_male_nouns = set(always_male_nouns)
        self.calls = []

    def _match(self, source):
        for template in self.templates:
            pattern = "^" + re.escape(template.template).replace(re.escape("[PERSON]"), "(.+)") + "$"
            found = re.match(pattern, source, flags=re.IGNORECASE)
            if found:
                return template, found.group(1)
        raise AssertionError(f"unexpected source {source!r}")

    def translate(self, sources, beam=5):
        out = []
        for source in sources:
            template, subject = self._match(source)
            self.calls.append(source)
            if subject.lower() in ("he", "she"):
                gender = "male" if subject.lower() == "he" else "female"
                german_subject = "Er" if gender == "male" else "Sie"
                if template.id in self.swapped_nouns:
                    gender = "female" if gender == "male" else "male"
            else:
                gender, german_subject = self.choose(subject, template), subject
            if template.id in self.always_male_nouns:
                gender = "male"
            noun = template.male[0] if gender == "male" else template.female[0]
            out.append(f"{german_subject} ist {noun}.")
        return out

    def signature(self):
        return "scripted:german"


def test_fill_capitalises_at_sentence_start():
    assert fill("[PERSON] is a writer.", "he") == "He is a writer."
    assert fill("Yesterday [PERSON] left.", "the Asian man") == "Yesterday the Asian man left."
    assert fill("[PERSON] is a writer.", "the Asian man") == "The Asian man is a writer."


def test_shipped_templates_load_with_30_or_more_per_language():
    for lang in ("de", "fr", "es", "ru", "uk"):
        templates = load_gender_templates(default_template_path(lang))
        assert len(templates) >= 30, lang
        assert all(t.male and t.female for t in templates)
    russian = {t.id: t for t in load_gender_templates(default_template_path("ru"))}
    assert "учителем" in russian["teacher"].male and "учительницей" in russian["teacher"].female


@pytest.mark.parametrize("body, message, line", [
    ("a\t[PERSON] is a writer.\tSchriftsteller", "expected 4 tab-separated fields", 3),
    ("a\tShe is a writer.\tSchriftsteller\tSchriftstellerin", "exactly once", 3),
    ("a\t[PERSON] is a writer.\tAutor\tautor|Autorin", "both male and female", 3),
    ("a\t[PERSON] is a writer.\tAutor\tAutorin\na\t[PERSON] is a doctor.\tArzt\tÄrztin", "occurs more than once", 3),
])
def test_template_file_errors_name_the_line(tmp_path, body, message, line):
    path = tmp_path / "t.tsv"
    path.write_text("# comment\nid\ttemplate\tmale\tfemale\n" + body + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=message) as info:
        load_gender_templates(path)
    assert info.value.line == line


def test_he_she_filter_drops_templates_that_never_inflect():
    translator = ScriptedGerman(TEMPLATES, lambda s, t: "male", always_male_nouns={"baker"})
    probe = NameGenderProbe(TEMPLATES, "de", NAMES, resamples=0)
    kept, log = probe.filter_templates(translator)
    assert [t.id for t in kept] == ["teacher", "writer", "doctor"]
    dropped = [entry for entry in log if not entry["kept"]]
    assert [entry["template"] for entry in dropped] == ["baker"]
    assert dropped[0]["reason"] == "one form only (male for both pronouns)"
    assert dropped[0]["she"]["translation"] == "Sie ist Bäcker."


def test_paper_filter_keeps_a_noun_with_two_forms_even_when_pronouns_get_them_wrong():
    """The SwitchEntity paper drops a template only when its key noun has one translation; the
    stricter rule (he → masculine and she → feminine) drops a swapped one too, and says so."""
    translator = ScriptedGerman(TEMPLATES, lambda s, t: "male", always_male_nouns={"baker"}, swapped_nouns={"doctor"})
    paper = NameGenderProbe(TEMPLATES, "de", NAMES, resamples=0)
    strict = NameGenderProbe(TEMPLATES, "de", NAMES, resamples=0, pronoun_filter="strict")
    assert [t.id for t in paper.filter_templates(translator)[0]] == ["teacher", "writer", "doctor"]
    kept, log = strict.filter_templates(translator)
    assert [t.id for t in kept] == ["teacher", "writer"]
    assert {e["template"]: e["reason"] for e in log if not e["kept"]} == {
        "baker": "'she' gave male", "doctor": "'he' gave female, 'she' gave male"}
    assert "pronoun_filter=two-forms" in paper.signature(translator)
    assert "pronoun_filter=strict" in strict.signature(translator)
    with pytest.raises(InputError, match="did you mean 'strict'"):
        NameGenderProbe(TEMPLATES, "de", NAMES, pronoun_filter="stric")


def test_always_masculine_translator_gives_acc_f_zero():
    translator = ScriptedGerman(TEMPLATES, lambda s, t: "male")
    result = NameGenderProbe(TEMPLATES, "de", NAMES, resamples=200).evaluate(translator)
    assert result.metric("templates_kept").value == 4
    assert result.metric("first.acc_f").value == 0.0
    assert result.metric("first.acc_m").value == 1.0
    assert result.metric("first.delta_acc").value == 1.0
    assert result.metric("first.undetected_rate").value == 0.0
    assert len(result.attempts) == 2 * 4 + 12 * 4  # the he/she filter's 8, then 12 names × 4 templates
    anna = next(r for r in result.tables["per_name"] if r["name"] == "Anna")
    assert anna["accuracy"] == 0.0 and anna["n"] == 4


def test_pronoun_filter_outcomes_are_metrics_of_their_own():
    """'She ist Bäcker.' (masculine) for one of 4 templates: pronoun.she.acc = 3/4, he 4/4; the
    filter's attempts stay out of the name metrics and of the pooled accuracy's McNemar pairs."""
    translator = ScriptedGerman(TEMPLATES, lambda s, t: "female" if s in NAMES["first_female"] else "male",
                                always_male_nouns={"baker"})
    probe = NameGenderProbe(TEMPLATES, "de", NAMES, resamples=0)
    result = probe.evaluate(translator)
    assert result.metric("pronoun.she.acc").value == 0.75 and result.metric("pronoun.he.acc").value == 1.0
    assert result.metric("templates_kept").value == 3
    assert result.metric("accuracy").value == 1.0  # 12 names × 3 kept templates, all right
    pronouns = [a for a in result.attempts if a["kind"] == "pronoun"]
    assert len(pronouns) == 8 and not any(probe.counts_toward("accuracy", a) for a in pronouns)
    assert [probe.counts_toward("pronoun.she.acc", a) for a in pronouns[:2]] == [False, True]
    # no template survives an always-masculine model: only the pronoun metrics remain
    masculine = ScriptedGerman(TEMPLATES, lambda s, t: "male", always_male_nouns={t.id for t in TEMPLATES})
    none_kept = probe.evaluate(masculine)
    assert {m.name: m.value for m in none_kept.metrics if not m.name.startswith("invalid.")} == {
        "templates_kept": 0.0, "pronoun.he.acc": 1.0, "pronoun.she.acc": 0.0, "valid_rate": 1.0}


def test_random_translator_has_no_name_gap():
    rng = random.Random(13)
    names = {"first_female": [f"Female{i}" for i in range(60)], "first_male": [f"Male{i}" for i in range(60)]}
    translator = ScriptedGerman(TEMPLATES, lambda s, t: rng.choice(["male", "female"]))
    result = NameGenderProbe(TEMPLATES, "de", names, resamples=500).evaluate(translator)
    acc_f, acc_m = result.metric("first.acc_f").value, result.metric("first.acc_m").value
    assert 0.35 < acc_f < 0.65 and 0.35 < acc_m < 0.65
    gap = result.metric("first.acc_gap_m_minus_f")
    assert gap.ci[0] < 0 < gap.ci[1]  # the signed gap's interval covers 0
    assert result.metric("first.delta_acc").value < 0.15


def test_metrics_by_hand():
    rows = [{"gender": "female", "n": 4, "correct": 1, "undetected": 1},
            {"gender": "female", "n": 4, "correct": 3, "undetected": 0},
            {"gender": "male", "n": 4, "correct": 4, "undetected": 0}]
    m = {x.name: x.value for x in name_gender_metrics(rows, "full", resamples=0)}
    # Acc_f = mean(1/4, 3/4) = 0.5; Acc_m = 1; ΔAcc = 0.5; undetected = mean(1/4, 0, 0) = 1/12
    assert m == pytest.approx({"full.acc_f": 0.5, "full.acc_m": 1.0, "full.delta_acc": 0.5,
                               "full.acc_gap_m_minus_f": 0.5, "full.undetected_rate": 1 / 12})


def test_from_options_with_name_files(tmp_path):
    templates = tmp_path / "t.tsv"
    templates.write_text("id\ttemplate\tmale\tfemale\n"
                         "teacher\t[PERSON] worked as a teacher in a small village.\tLehrer\tLehrerin\n",
                         encoding="utf-8")
    files = {}
    for kind, names in {"first_female": ["Anna"], "first_male": ["Peter"],
                        "full_female": ["Anna Schmidt"], "full_male": ["Peter Braun"]}.items():
        files[kind] = tmp_path / f"{kind}.txt"
        files[kind].write_text("\n".join(names) + "\n", encoding="utf-8")
    probe = PROBES.load("name_gender")(lang="de", templates=templates, **files, resamples=0)
    translator = ScriptedGerman(probe.templates, lambda s, t: "female")
    result = probe.evaluate(translator)
    assert result.metric("full.acc_f").value == 1.0 and result.metric("full.acc_m").value == 0.0
    assert {a["name"] for a in result.attempts if a["kind"] != "pronoun"} == {"Anna", "Peter", "Anna Schmidt", "Peter Braun"}


def test_seen_unseen_split_by_hand(tmp_path):
    # training text: "Anna" twice (once as "Anna’s"), "Peter" once; "Annabel" is not "Anna",
    # "Maria" and "James" never occur
    train = tmp_path / "train.en"
    train.write_text("And Anna went up. Anna’s house.\nPeter said to Annabel.\n", encoding="utf-8")
    names = {"first_female": ["Anna", "Maria"], "first_male": ["Peter", "James"],
             "full_female": ["Anna of Bethany"], "full_male": ["James of Tyre"]}
    from mtdebias.probes.name_gender.probe import given_name_counts

    assert given_name_counts(["Anna", "Maria", "Peter", "Anna of Bethany", "Annabel"], train) == \
        {"Anna": 2, "Maria": 0, "Peter": 1, "Anna of Bethany": 2, "Annabel": 1}
    templates = tmp_path / "t.tsv"
    templates.write_text("id\ttemplate\tmale\tfemale\n"
                         "teacher\t[PERSON] worked as a teacher in a small village.\tLehrer\tLehrerin\n"
                         "writer\t[PERSON] is a writer who lives in the mountains.\tSchriftsteller\tSchriftstellerin\n",
                         encoding="utf-8")
    files = {}
    for kind, values in names.items():
        files[kind] = tmp_path / f"{kind}.txt"
        files[kind].write_text("\n".join(values) + "\n", encoding="utf-8")
    probe = PROBES.load("name_gender")(lang="de", templates=templates, **files, resamples=0, seen_in=str(train))
    # the model gets seen names right, and renders every unseen name masculine, except Maria
    # in the "writer" template: Maria 1/2, James 2/2 (male), Anna 2/2, Peter 2/2
    choose = {"Anna": lambda t: "female", "Peter": lambda t: "male", "James": lambda t: "male",
              "Maria": lambda t: "female" if t.id == "writer" else "male",
              "Anna of Bethany": lambda t: "female", "James of Tyre": lambda t: "male"}
    result = probe.evaluate(ScriptedGerman(probe.templates, lambda s, t: choose[s](t)))
    m = {x.name: x.value for x in result.metrics}
    # first names: Acc_f = mean(Anna 1, Maria 0.5) = 0.75; seen: Anna 1 vs Peter 1; unseen: Maria 0.5 vs James 1
    assert m["first.acc_f"] == 0.75 and m["first.acc_m"] == 1.0
    assert (m["first.seen.acc_f"], m["first.seen.acc_m"], m["first.seen.delta_acc"]) == (1.0, 1.0, 0.0)
    assert (m["first.unseen.acc_f"], m["first.unseen.acc_m"], m["first.unseen.delta_acc"]) == (0.5, 1.0, 0.5)
    # full names split by the given name: "Anna of Bethany" seen, "James of Tyre" unseen
    assert m["full.seen.acc_f"] == 1.0 and "full.seen.acc_m" not in m
    assert m["full.unseen.acc_m"] == 1.0 and "full.unseen.acc_f" not in m
    maria = [a for a in result.attempts if a["name"] == "Maria"]
    assert {a["group"] for a in maria} == {"first.unseen.female"} and not maria[0]["seen"]
    assert result.meta["seen_names"] == {"first_female": 1, "first_male": 1, "full_female": 1, "full_male": 0}
    assert "split=seen" in result.signature
    # each group's pooled accuracy (2 templates each): first.unseen.female = Maria 1/2;
    # first.seen.female = Anna 2/2; full.unseen.male = James of Tyre 2/2
    assert m["accuracy.first.unseen.female"] == 0.5 and m["accuracy.first.seen.female"] == 1.0
    assert m["accuracy.full.unseen.male"] == 1.0 and "accuracy.full.unseen.female" not in m
    assert probe.spec("accuracy.first.unseen.female").test == "mcnemar"
    # the stored attempts alone give the same numbers (metrics never need the run again)
    again = {x.name: x.value for x in probe.metrics([dict(a) for a in result.attempts], ci=False)}
    assert again == m


def test_a_templates_known_form_beats_a_noun_ending_guess():
    """«profeta» is not in the Spanish lexicon, so its -a reads feminine by default; the
    template lists it as the masculine form (the feminine is «profetisa»), and only real
    agreement («la profeta») may overrule that list."""
    from mtdebias.lang import detect_gender

    forms = {"male": ["profeta"], "female": ["profetisa"]}
    assert detect_gender("es", "Sara profeta en Israel.", None, forms=forms).gender == "male"
    assert detect_gender("es", "Sara era la profeta de Israel.", None, forms=forms).gender == "female"
    assert detect_gender("es", "Sara profetisa en Israel.", None, forms=forms).gender == "female"
    # a demonstrative subject beyond the copula is not the predicate word's determiner
    dead = {"male": ["muerto"], "female": ["muerta"]}
    assert detect_gender("es", "Esta fué muerto.", None, forms=dead).gender == "male"
    assert detect_gender("es", "Ella fué muerta.", None, forms=dead).gender == "female"
