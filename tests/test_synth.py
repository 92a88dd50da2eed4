"""Synthetic biased corpus: grammar by hand, agreement on generated pairs, name law, splits."""

from __future__ import annotations

import argparse
import math
import random
import re

import pytest

from mtdebias.errors import InputError
from mtdebias.synth import FRAMES, PROFESSIONS, generate, profession_table
from mtdebias.synth.export import DATA_DIR as SYNTH_DATA
from mtdebias.synth.frames import FRAME_BY_NAME, Person
from mtdebias.synth.grammar import de_person_np, en_a, es_person_np, fr_de, fr_join, fr_person_np
from mtdebias.synth.vocab import FIRST, NEW, PERSON_ADJECTIVES, PERSON_NOUNS, RELATIONS

GOOD = next(a for a in PERSON_ADJECTIVES if a.en == "good")
ANNA, PETER = Person("Anna", "female"), Person("Peter", "male")


def noun(en):
    return PERSON_NOUNS[en]


class ScriptedRng(random.Random):
    """``choice`` returns the element whose English word is next in the script."""

    def __init__(self, script):
        super().__init__(0)
        self.script = list(script)

    def choice(self, seq):
        want = self.script.pop(0)
        for item in seq:
            en = item[0] if isinstance(item, tuple) else getattr(item, "en", None)
            if en == want:
                return item
        raise AssertionError(f"{want!r} not offered")

    def random(self):
        return 0.99  # "no optional adjective"


@pytest.mark.parametrize("got, expected", [
    (lambda: de_person_np(noun("developer"), "f", "indef", "nom", NEW), "eine neue Entwicklerin"),
    (lambda: de_person_np(noun("developer"), "m", "indef", "nom", NEW), "ein neuer Entwickler"),
    (lambda: de_person_np(noun("surgeon"), "m", "def", "acc"), "den Chirurgen"),
    (lambda: de_person_np(noun("neighbour"), "m", "indef", "dat", NEW), "einem neuen Nachbarn"),
    (lambda: de_person_np(noun("neighbour"), "f", "my", "nom", NEW), "meine neue Nachbarin"),
    (lambda: de_person_np(noun("lawyer"), "m", "our", "acc", GOOD), "unseren guten Anwalt"),
    (lambda: fr_person_np(noun("engineer"), "m", "indef", NEW), "un nouvel ingénieur"),
    (lambda: fr_person_np(noun("engineer"), "f", "indef", NEW), "une nouvelle ingénieure"),
    (lambda: fr_person_np(noun("engineer"), "f", "def"), "l'ingénieure"),
    (lambda: fr_person_np(noun("friend"), "f", "my"), "mon amie"),
    (lambda: fr_person_np(noun("friend"), "f", "my", NEW), "ma nouvelle amie"),
    (lambda: fr_person_np(noun("actor"), "f", "def", FIRST), "la première actrice"),
    (lambda: fr_person_np(noun("cook"), "m", "indef", PERSON_ADJECTIVES[3]), "un cuisinier talentueux"),
    (lambda: es_person_np(noun("cook"), "m", "indef", GOOD), "un buen cocinero"),
    (lambda: es_person_np(noun("cook"), "f", "indef", GOOD), "una buena cocinera"),
    (lambda: es_person_np(noun("engineer"), "m", "def", FIRST), "el primer ingeniero"),
    (lambda: es_person_np(noun("actor"), "f", "our"), "nuestra actriz"),
    (lambda: fr_de("Anna"), "d'Anna"),
    (lambda: fr_de("Peter"), "de Peter"),
    (lambda: fr_join("que", "elle"), "qu'elle"),
    (lambda: en_a("engineer") + " / " + en_a("developer"), "an engineer / a developer"),
])
def test_noun_phrases_by_hand(got, expected):
    assert got() == expected


@pytest.mark.parametrize("lang, person, expected", [
    ("de", ANNA, "Anna ist eine neue Entwicklerin."),
    ("de", PETER, "Peter ist ein neuer Entwickler."),
    ("fr", ANNA, "Anna est une nouvelle développeuse."),
    ("es", ANNA, "Anna es una nueva desarrolladora."),
    ("es", PETER, "Peter es un nuevo desarrollador."),
])
def test_brief_example_sentence(lang, person, expected):
    r = FRAME_BY_NAME["is_adjective_profession"].render(ScriptedRng(["developer", "new"]), [person], lang)
    assert r.en == f"{person.name} is a new developer."
    assert r.tgt == expected


@pytest.mark.parametrize("frame, script, people, lang, expected", [
    ("motion_past", ["arrived", "yesterday"], [ANNA], "fr", "Anna est arrivée hier."),
    ("motion_past", ["stayed at home", "yesterday"], [ANNA], "fr", "Anna est restée à la maison hier."),
    ("passive_past", ["invited", "last week"], [ANNA], "es", "Anna fue invitada la semana pasada."),
    ("passive_past", ["invited", "last week"], [PETER], "de", "Peter wurde letzte Woche eingeladen."),
    ("born_in", ["Athens"], [PETER], "fr", "Peter est né à Athènes."),
    ("said_state", ["tired"], [ANNA], "fr", "Anna a dit qu'elle était fatiguée."),
    ("first_in_family", ["engineer"], [ANNA], "de", "Anna ist die erste Ingenieurin in ihrer Familie."),
    ("profession_title_lives", ["engineer", "Paris"], [ANNA], "fr", "L'ingénieure Anna habite à Paris."),
    ("met_appositions", ["surgeon", "surgeon"], [ANNA, PETER], "de",
     "Anna, eine Chirurgin, traf Peter, einen Chirurgen."),
    ("relation_of", ["boss"], [ANNA, PETER], "es", "Anna es la jefa de Peter."),
    ("new_at_organisation", ["engineer", "hospital"], [PETER], "fr", "Peter est le nouvel ingénieur de l'hôpital."),
    ("event_time", ["The train leaves", "one"], [], "fr", "Le train part à une heure."),
    ("event_time", ["The train leaves", "one"], [], "es", "El tren sale a la una."),
    ("cannot_find", ["key", "old"], [], "de", "Ich finde meinen alten Schlüssel nicht."),
    ("bought", ["computer", "old", "yesterday"], [], "fr", "J'ai acheté un vieil ordinateur hier."),
])
def test_frames_by_hand(frame, script, people, lang, expected):
    assert FRAME_BY_NAME[frame].render(ScriptedRng(script), people, lang).tgt == expected


def test_frame_inventory():
    kinds = [f.kind for f in FRAMES]
    assert len(FRAMES) >= 25
    assert kinds.count("filler") >= 5 and kinds.count("two_person") >= 3 and kinds.count("pronoun") >= 2


def test_professions_have_distinct_gender_forms():
    assert len(PROFESSIONS) >= 40
    for p in PROFESSIONS:
        for lang in ("de", "fr", "es"):
            m, f = p.forms(lang)
            assert m != f, (p.en, lang)
    # every English person noun has one translation per gender
    assert len({n.en for n in PROFESSIONS + RELATIONS}) == len(PERSON_NOUNS)


@pytest.mark.parametrize("lang", ["de", "fr", "es"])
def test_shipped_profession_tables_rebuild(lang):
    shipped = (SYNTH_DATA / f"professions_{lang}.tsv").read_text(encoding="utf-8")
    assert shipped == profession_table(lang)
    assert shipped.splitlines()[0] == "english\tmasculine\tfeminine"
    assert len(shipped.splitlines()) == len(PROFESSIONS) + 1


def _has_word(text, form):
    # German weak masculines add -(e)n outside the nominative ("einen Chirurgen")
    return re.search(rf"(?<![\w]){re.escape(form)}(en|n)?(?![\w])", text) is not None


@pytest.fixture(scope="module")
def corpora():
    return {lang: generate(lang, 3000, 7, dev_size=300, test_size=300) for lang in ("de", "fr", "es")}


@pytest.mark.parametrize("lang", ["de", "fr", "es"])
def test_generated_pairs_agree_with_each_persons_gender(corpora, lang):
    checked = 0
    for split in ("train", "dev", "test"):
        for pair in corpora[lang].splits[split]:
            for index, en in pair.agreement:
                m, f = noun(en).forms(lang)
                gender = pair.persons[index][1]
                right, wrong = (f, m) if gender == "female" else (m, f)
                assert _has_word(pair.target, right), (pair.source, pair.target)
                # the wrong form may only appear when another person needs it
                others = {noun(e).forms(lang)[0 if pair.persons[i][1] == "male" else 1]
                          for i, e in pair.agreement if i != index}
                if wrong not in others:
                    assert not re.search(rf"(?<![\w]){re.escape(wrong)}(?![\w])", pair.target), \
                        (pair.source, pair.target)
                checked += 1
    assert checked > 1500


def test_english_pronouns_match_the_person(corpora):
    for pair in corpora["de"].splits["train"]:
        if pair.frame in ("said_state", "stayed_home_because", "loves_job", "first_in_family"):
            female = pair.persons[0][1] == "female"
            words = set(re.findall(r"\w+", pair.source.lower()))
            assert ({"she", "her"} & words) if female else ({"he", "his"} & words), pair.source
            assert not (({"he", "his"} if female else {"she", "her"}) & words), pair.source


def test_french_participles_agree(corpora):
    female_endings = 0
    for pair in corpora["fr"].splits["train"]:
        if pair.frame in ("born_in",):
            assert (" née " in pair.target) == (pair.persons[0][1] == "female"), pair.target
            female_endings += pair.persons[0][1] == "female"
    assert female_endings > 0


def test_deterministic_by_seed():
    a, b, c = generate("es", 800, 3, dev_size=100, test_size=100), \
        generate("es", 800, 3, dev_size=100, test_size=100), generate("es", 800, 4, dev_size=100, test_size=100)
    assert a.data_hash == b.data_hash and a.sources() == b.sources() and a.targets() == b.targets()
    assert a.data_hash != c.data_hash


def test_splits_sizes_and_no_overlap(corpora):
    c = corpora["fr"]
    assert [len(c.splits[s]) for s in ("train", "dev", "test")] == [3000, 300, 300]
    train = set(c.sources("train"))
    assert not train & set(c.sources("test")) and not train & set(c.sources("dev"))
    assert not set(c.sources("dev")) & set(c.sources("test"))
    # train may repeat a sentence (small frames, frequent names), but mostly it does not
    assert len(train) > 0.8 * 3000


def test_held_out_does_not_depend_on_train_size():
    small, large = generate("de", 300, 9, dev_size=50, test_size=50), generate("de", 900, 9, dev_size=50, test_size=50)
    assert small.sources("test") == large.sources("test") and small.sources("dev") == large.sources("dev")
    assert small.sources("train") == large.sources("train")[:300]


def _loglog_slope(counts):
    xs = [math.log(rank) for rank in range(1, len(counts) + 1)]
    ys = [math.log(max(c, 1)) for c in counts]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def test_zipf_names_female_share_and_rarity():
    corpus = generate("de", 12000, 11, dev_size=0, test_size=0, zipf_exponent=1.2, female_share=0.2)
    counts = corpus.name_counts()
    female = [counts[n.name] for n in corpus.names if n.gender == "female"]
    male = [counts[n.name] for n in corpus.names if n.gender == "male"]
    assert len(female) == 30 and len(male) == 60
    # log-log slope of count against rank ≈ -exponent
    assert -1.45 < _loglog_slope(male) < -0.95
    assert -1.45 < _loglog_slope(female) < -0.95
    # ~11k mentions: a binomial share of 0.2 has sd ≈ 0.004; two-person frames, which need two
    # different names, nudge it up slightly (a frequent male name cannot meet itself)
    assert abs(corpus.female_share() - 0.2) < 0.015
    # female names are fewer and rarer: the rarest female name is seen less than the rarest male name
    assert min(female) < min(male) and sum(female) < sum(male)
    flat = generate("de", 6000, 11, dev_size=0, test_size=0, zipf_exponent=0.0)
    flat_counts = flat.name_counts()
    assert abs(_loglog_slope([flat_counts[n.name] for n in flat.names if n.gender == "male"])) < 0.3


def test_vocabulary_is_small(corpora):
    for lang, corpus in corpora.items():
        words = {w for line in corpus.targets("train") for w in line.split()}
        assert len(words) < 2000, lang


def test_write_and_manifest(tmp_path, corpora):
    corpus = corpora["es"]
    manifest = corpus.write(tmp_path)
    for split in ("train", "dev", "test"):
        en = (tmp_path / f"{split}.en").read_text(encoding="utf-8").splitlines()
        es = (tmp_path / f"{split}.es").read_text(encoding="utf-8").splitlines()
        assert en == corpus.sources(split) and es == corpus.targets(split)
    assert manifest["synthetic"] is True and manifest["seed"] == 7 and manifest["tgt_lang"] == "es"
    assert manifest["data_hash"] == corpus.data_hash
    table = {row["name"]: row for row in manifest["names"]}
    assert sum(row["train"] for row in table.values()) == sum(corpus.name_counts().values())
    again = tmp_path / "again"
    corpus.write(again)
    assert (again / "train.es").read_bytes() == (tmp_path / "train.es").read_bytes()


def test_bad_settings():
    with pytest.raises(InputError, match="unsupported target language"):
        generate("it", 10, 1)
    with pytest.raises(InputError, match="female_share"):
        generate("de", 10, 1, female_share=1.5)
    with pytest.raises(InputError, match="distinct"):
        generate("de", 10, 1, female_names=["Anna"], male_names=["Anna", "Paul"])


def test_cli_synth(tmp_path, capsys):
    from mtdebias.commands import data

    parser = argparse.ArgumentParser()
    data.add_parser(parser.add_subparsers())
    args = parser.parse_args(["data", "synth", "--tgt-lang", "de", "--size", "200", "--seed", "3",
                              "--dev-size", "20", "--test-size", "20", "--out", str(tmp_path)])
    assert args.func(args) == 0
    assert len((tmp_path / "train.de").read_text(encoding="utf-8").splitlines()) == 200
    assert "train 200" in capsys.readouterr().out
