"""The corpus's own pronoun counts settle a name's gender (mtdebias/augment/corpus_gender.py).

The counts in the unit tests are worked out by hand from the rule (mtdebias/names/corpus_rule.py); the
end-to-end test runs the real annotator (spaCy NER, fast_align, the es name table) on verses
written in the King James style, where the table's WGND label for "Gera" (female) is wrong.
"""

import json
from collections import Counter

import pytest

from mtdebias.align.seed_corpus import seed_pairs
from mtdebias.augment import annotate_corpus
from mtdebias.augment.corpus_gender import Relabeller, tally
from mtdebias.augment.person import CallableNames, analyse_persons
from mtdebias.ner import Entity


def test_corpus_rule_settles_contests_or_withholds_support():
    from mtdebias.names.corpus_rule import corpus_gender

    # 6 ≥ 3 and 5 ≥ 3·1, and one of the male sentences is "Gera the son of …"
    assert corpus_gender(5, 1, "female", "wgnd", kin_male=1) == ("male", "corpus")
    # the same counts from pronouns alone cannot override the table, only contest it (5 > 1)
    assert corpus_gender(5, 1, "female", "wgnd") == ("unknown", "contested")
    assert corpus_gender(0, 3, "unknown", "-", kin_female=1) == ("female", "corpus")  # 3 ≥ 3·0
    assert corpus_gender(9, 0, "unknown", "-") == ("unknown", "table")     # "he smote Moab": no kin
    assert corpus_gender(3, 0, "male", "faker") == ("male", "corpus")      # the table agrees
    assert corpus_gender(3, 3, "unknown", "-") == ("unknown", "table")      # no 3:1: stays unknown
    assert corpus_gender(5, 2, "female", "faker") == ("unknown", "contested")  # 5 < 3·2, but 5 > 2
    assert corpus_gender(5, 7, "female", "faker") == ("female", "table")    # Rachel: majority agrees
    assert corpus_gender(0, 1, "male", "wgnd") == ("unknown", "contested")
    assert corpus_gender(0, 0, "female", "wgnd") == ("unknown", "unsupported")  # a global guess alone
    assert corpus_gender(0, 1, "female", "wgnd") == ("female", "table")     # one agreeing sentence
    assert corpus_gender(0, 0, "female", "faker") == ("female", "table")    # the locale's own list


def _people(sentence, names):
    mentions = [Entity(n, sentence.index(n), sentence.index(n) + len(n), "PERSON") for n in names]
    return analyse_persons(sentence, mentions, "en", CallableNames(lambda n: "female"))


def test_tally_counts_one_person_sentences_with_pronouns_of_one_gender():
    counts = Counter()
    for sentence, names in [("And Gera took his staff.", ["Gera"]),
                            ("Gera said that he would go.", ["Gera"]),
                            ("Gera spake unto Ehud, and he went.", ["Gera", "Ehud"]),  # two people
                            ("Gera knew his wife; and she bare a son.", ["Gera"]),      # he and she
                            ("Gera dwelt in the valley.", ["Gera"])]:                 # no pronoun
        tally(sentence, _people(sentence, names), counts)
    assert counts == Counter({"male:gera": 2})


def test_kinship_apposition_names_the_mentions_own_sex():
    from mtdebias.augment.person import apposition_gender

    s = "And Seraiah the son of Azariah spake to Abigail his wife, and to Nabal her husband."
    assert apposition_gender(s, s.index("Seraiah") + 7) == "male"
    assert apposition_gender(s, s.index("Azariah") + 7) is None      # a parent: sex not given
    assert apposition_gender(s, s.index("Abigail") + 7) == "female"
    assert apposition_gender(s, s.index("Nabal") + 5) == "male"
    counts = Counter()
    tally(s, _people(s, ["Seraiah", "Azariah", "Abigail", "Nabal"]), counts)  # four people: no pronouns
    assert counts == Counter({"male:seraiah": 1, "female:abigail": 1, "male:nabal": 1,
                              "kin-male:seraiah": 1, "kin-female:abigail": 1,
                              "kin-male:nabal": 1})
    # the table (here: everyone female) is vetoed by the apposition in that sentence
    from mtdebias.augment.person import add_apposition_evidence

    people = _people(s, ["Seraiah", "Abigail"])
    add_apposition_evidence(people)
    assert people[0].conflict and people[1].conflict is None


def test_relabeller_changes_key_and_gender_and_leaves_titles_alone():
    counts = Counter({"male:gera": 4, "kin-male:gera": 1, "male:korah": 5, "female:korah": 2, "male:peleg": 3,
                      "kin-male:peleg": 2})
    relabeller = Relabeller(counts, "en")

    def person(text, gender, shape, source):
        return {"type": "PERSON", "gender": gender, "key": f"PERSON/{gender}/{shape}", "src_text": text,
                "gender_source": source}

    gera = relabeller.relabel(person("Gera", "female", "first", "wgnd"))
    assert (gera["key"], gera["gender"]) == ("PERSON/male/first", "male")
    assert relabeller.relabel(person("Korah", "female", "first", "wgnd"))["key"] == "PERSON/unknown/first"
    assert relabeller.relabel(person("Peleg", "unknown", "single", "-"))["key"] == "PERSON/male/first"
    assert relabeller.relabel(person("Massa", "female", "first", "wgnd"))["key"] == "PERSON/unknown/first"
    kept = person("Rachel", "female", "first", "faker")
    assert relabeller.relabel(kept) is kept
    titled = person("Queen Gera", "female", "titled", "title")
    assert relabeller.relabel(titled) is titled
    assert relabeller.changed == Counter({"female→male (corpus)": 1, "female→unknown (contested)": 1,
                                          "unknown→male (corpus)": 1, "female→unknown (unsupported)": 1})
    assert Relabeller(counts, "en", enabled=False).relabel(person("Gera", "female", "first", "wgnd"))["gender"] == "female"


VERSES = [
    ("And Gera said that he would go down to the valley.", "Y Gera dijo que él descendería al valle."),
    ("And Gera the son of Bela took his staff.", "Y Gera hijo de Bela tomó su cayado."),
    ("Then Gera rose up, and he went out of the city.", "Entonces Gera se levantó, y salió de la ciudad."),
    ("And Gera called his servants unto him.", "Y Gera llamó a sus siervos."),
    ("And Gera dwelt in the land of Canaan.", "Y Gera habitó en la tierra de Canaán."),
    ("And Rachel said that she would give water.", "Y Rachel dijo que ella daría agua."),
    ("And Rachel took her pitcher.", "Y Rachel tomó su cántaro."),
    ("And Rachel came to the well, and she drew water.", "Y Rachel vino al pozo, y sacó agua."),
    ("And Joseph went to the field.", "Y Joseph fué al campo."),
]


@pytest.mark.parametrize("corpus_gender", [True, False])
def test_annotation_files_a_man_called_he_as_male(tmp_path, corpus_gender):
    (tmp_path / "s").write_text("".join(s + "\n" for s, _ in VERSES), encoding="utf-8")
    (tmp_path / "t").write_text("".join(t + "\n" for _, t in VERSES), encoding="utf-8")
    extra = seed_pairs("es", 300)
    summary = annotate_corpus(tmp_path / "s", tmp_path / "t", tmp_path / "out", "en", "es",
                              extra_sources=extra[0], extra_targets=extra[1], name_locale="es",
                              corpus_gender=corpus_gender)
    keys = {e["src_text"]: e["key"] for line in (tmp_path / "out" / "annotated.jsonl").open()
            for e in json.loads(line)["entities"]}
    candidates = json.loads((tmp_path / "out" / "candidates.json").read_text())
    female_names = {c["src"] for key, rows in candidates["lists"].items() if "/female/" in key for c in rows}
    if corpus_gender:
        # the pronoun-free verse is the one the table alone would have filed as a woman's
        assert keys["Gera"] == "PERSON/male/first"
        assert "Gera" not in female_names
        assert summary["corpus_gender"]["relabelled_mentions"]["female→male (corpus)"] == 1
        genders = json.loads((tmp_path / "out" / "corpus_genders.json").read_text())["names"]
        assert genders["gera"] == {"male": 4, "female": 0, "kin-male": 1, "kin-female": 0, "table": "female",
                                   "gender": "male", "why": "corpus"}
    else:
        assert keys["Gera"] == "PERSON/female/first"
        assert summary["corpus_gender"] == "off"
    assert keys["Rachel"] == "PERSON/female/first"
