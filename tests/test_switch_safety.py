"""SwitchEntity never changes a person's gender and never pairs mismatched names (issue 10).

Hand-written en→fr/de/es/ru sets with names whose gender differs by country (Jean, Andrea,
Nicola, Sasha, Kim, José María), accented names, surname-only mentions, titles and two-person
sentences. Each mention carries the gender *I* gave the person when writing the sentence (the
pronouns and agreement of the sentence say it), or ``last:<form>`` for a bare surname. The
real pipeline runs: spaCy/natasha NER, fast_align, the shipped locale name tables, the
project's target-side detectors; then several epochs are switched and every swap is checked
against these labels.
"""

import json

import pytest

from mtdebias.align.seed_corpus import seed_pairs
from mtdebias.augment import PairAnnotator, SwitchEntity, annotate_corpus
from mtdebias.augment.annotate import ShardStats
from mtdebias.augment.person import analyse_persons
from mtdebias.errors import InputError
from mtdebias.names.locale import LocaleNames, gender_of, same_name, surname_form

# (source, target, {source mention: true gender | "last:<surname form>"})
EN_FR = [
    ("Yesterday, Jean Lefebvre announced his retirement.",
     "Hier, Jean Lefebvre a annoncé sa retraite.", {"Jean Lefebvre": "male"}),
    ("Émilie Rousseau arrived in Paris this morning.",
     "Émilie Rousseau est arrivée à Paris ce matin.", {"Émilie Rousseau": "female"}),
    ("Laurent Caron met the minister, and Caron spoke first.",
     "Laurent Caron a rencontré le ministre, et Caron a parlé en premier.",
     {"Laurent Caron": "male", "Caron": "last:any"}),
    ("Caron was late again.", "Caron était encore en retard.", {"Caron": "last:any"}),
    ("Andrea Rossi said he was tired.", "Andrea Rossi a dit qu'il était fatigué.",
     {"Andrea Rossi": "male"}),
    ("Camille Martin is a doctor.", "Camille Martin est médecin.", {"Camille Martin": "female"}),
    ("Marie Dubois thanked François Mercier.", "Marie Dubois a remercié François Mercier.",
     {"Marie Dubois": "female", "François Mercier": "male"}),
    ("Sophie Girard said that she was ready.", "Sophie Girard a dit qu'elle était prête.",
     {"Sophie Girard": "female"}),
    ("Pierre Moreau visited his mother.", "Pierre Moreau a rendu visite à sa mère.",
     {"Pierre Moreau": "male"}),
    ("Nathalie Fontaine called Thomas Bernard yesterday.",
     "Nathalie Fontaine a appelé Thomas Bernard hier.",
     {"Nathalie Fontaine": "female", "Thomas Bernard": "male"}),
    ("Kim Durand is happy.", "Kim Durand est heureuse.", {"Kim Durand": "female"}),
    ("Hélène Garnier was elected.", "Hélène Garnier a été élue.", {"Hélène Garnier": "female"}),
    ("Jean told Claire that he would come.", "Jean a dit à Claire qu'il viendrait.",
     {"Jean": "male", "Claire": "female"}),
    ("Mr. Lambert opened the door.", "M. Lambert a ouvert la porte.", {"Lambert": "last:any"}),
    ("Julien Perrin is tired.", "Julien Perrin est fatigué.", {"Julien Perrin": "male"}),
    ("Chloé Bonnet and Lucas Faure went home.", "Chloé Bonnet et Lucas Faure sont rentrés.",
     {"Chloé Bonnet": "female", "Lucas Faure": "male"}),
    ("Nicolas Gauthier saw Isabelle Lambert at the station.",
     "Nicolas Gauthier a vu Isabelle Lambert à la gare.",
     {"Nicolas Gauthier": "male", "Isabelle Lambert": "female"}),
]
EN_DE = [
    ("Andrea Müller is a doctor.", "Andrea Müller ist Ärztin.", {"Andrea Müller": "female"}),
    ("Nicola Schmidt said that she was tired.", "Nicola Schmidt sagte, dass sie müde war.",
     {"Nicola Schmidt": "female"}),
    ("Jürgen Weber met Sabine Koch.", "Jürgen Weber traf Sabine Koch.",
     {"Jürgen Weber": "male", "Sabine Koch": "female"}),
    ("Kim Becker is here.", "Kim Becker ist hier.", {"Kim Becker": "male"}),
    ("Schneider was late again.", "Schneider kam wieder zu spät.", {"Schneider": "last:any"}),
    ("Klaus Fischer visited his brother.", "Klaus Fischer besuchte seinen Bruder.",
     {"Klaus Fischer": "male"}),
    ("Monika Wagner thanked her colleague.", "Monika Wagner dankte ihrer Kollegin.",
     {"Monika Wagner": "female"}),
    ("Stefan Hoffmann called Petra Schulz.", "Stefan Hoffmann rief Petra Schulz an.",
     {"Stefan Hoffmann": "male", "Petra Schulz": "female"}),
    ("Jörg Krüger is tired.", "Jörg Krüger ist müde.", {"Jörg Krüger": "male"}),
    ("Ursula Köhler wrote a book.", "Ursula Köhler schrieb ein Buch.", {"Ursula Köhler": "female"}),
    ("Mrs. Richter opened the door.", "Frau Richter öffnete die Tür.", {"Richter": "last:any"}),
    ("Thomas Wolf and Anna Lange are friends.", "Thomas Wolf und Anna Lange sind Freunde.",
     {"Thomas Wolf": "male", "Anna Lange": "female"}),
    ("Sasha Neumann came home.", "Sasha Neumann kam nach Hause.", {"Sasha Neumann": "female"}),
]
EN_ES = [
    ("José María Aznar gave his speech.", "José María Aznar dio su discurso.",
     {"José María Aznar": "male"}),
    ("María López said that she was tired.", "María López dijo que estaba cansada.",
     {"María López": "female"}),
    ("Andrea García is a nurse.", "Andrea García es enfermera.", {"Andrea García": "female"}),
    ("Carlos Sánchez visited his mother.", "Carlos Sánchez visitó a su madre.",
     {"Carlos Sánchez": "male"}),
    ("Martínez was late again.", "Martínez llegó tarde otra vez.", {"Martínez": "last:any"}),
    ("Lucía Fernández met Javier Ruiz.", "Lucía Fernández conoció a Javier Ruiz.",
     {"Lucía Fernández": "female", "Javier Ruiz": "male"}),
    ("Alejandro Gómez is tired.", "Alejandro Gómez está cansado.", {"Alejandro Gómez": "male"}),
    ("Carmen Díaz is tired.", "Carmen Díaz está cansada.", {"Carmen Díaz": "female"}),
    ("Pablo Romero and Elena Castro work together.", "Pablo Romero y Elena Castro trabajan juntos.",
     {"Pablo Romero": "male", "Elena Castro": "female"}),
    ("Jesús Moreno thanked his father.", "Jesús Moreno agradeció a su padre.",
     {"Jesús Moreno": "male"}),
    ("Sofía Navarro is happy.", "Sofía Navarro está contenta.", {"Sofía Navarro": "female"}),
    ("Guadalupe Torres arrived early.", "Guadalupe Torres llegó temprano.",
     {"Guadalupe Torres": "female"}),
]
EN_RU = [
    ("Sasha Ivanov came home.", "Саша Иванов пришёл домой.", {"Sasha Ivanov": "male"}),
    ("Ivan Petrov met Anna Smirnova.", "Иван Петров встретил Анну Смирнову.",
     {"Ivan Petrov": "male", "Anna Smirnova": "female"}),
    ("Elena Sokolova said that she was tired.", "Елена Соколова сказала, что она устала.",
     {"Elena Sokolova": "female"}),
    ("Dmitry Volkov visited his brother.", "Дмитрий Волков навестил своего брата.",
     {"Dmitry Volkov": "male"}),
    ("Petrova was late again.", "Петрова снова опоздала.", {"Petrova": "last:female"}),
    ("Sokolov was late again.", "Соколов снова опоздал.", {"Sokolov": "last:male"}),
    ("Olga Kuznetsova is a doctor.", "Ольга Кузнецова работает врачом.",
     {"Olga Kuznetsova": "female"}),
    ("Sergei Popov called Maria Lebedeva.", "Сергей Попов позвонил Марии Лебедевой.",
     {"Sergei Popov": "male", "Maria Lebedeva": "female"}),
    ("Natalia Morozova wrote a letter.", "Наталья Морозова написала письмо.",
     {"Natalia Morozova": "female"}),
    ("Alexei Novikov read the book.", "Алексей Новиков прочитал книгу.",
     {"Alexei Novikov": "male"}),
    ("Zhenya Kozlov is here.", "Женя Козлов здесь.", {"Zhenya Kozlov": "male"}),
    ("Tatiana Pavlova thanked her mother.", "Татьяна Павлова поблагодарила свою мать.",
     {"Tatiana Pavlova": "female"}),
]
SETS = {"fr": EN_FR, "de": EN_DE, "es": EN_ES, "ru": EN_RU}
EPOCHS = 6


def _annotate(tmp, pairs, tgt_lang, **options):
    (tmp / "s").write_text("".join(s + "\n" for s, _, _ in pairs), encoding="utf-8")
    (tmp / "t").write_text("".join(t + "\n" for _, t, _ in pairs), encoding="utf-8")
    extra = seed_pairs(tgt_lang, 300)
    out = tmp / f"out-{options.get('name_locale') or 'auto'}"
    summary = annotate_corpus(tmp / "s", tmp / "t", out, "en", tgt_lang, extra_sources=extra[0],
                              extra_targets=extra[1], **options)
    return out, summary


@pytest.fixture(scope="module", params=sorted(SETS))
def annotated(request, tmp_path_factory):
    lang = request.param
    out, summary = _annotate(tmp_path_factory.mktemp(lang), SETS[lang], lang)
    return lang, out, summary


def _truth(lang):
    truth = {}
    for _, _, people in SETS[lang]:
        for name, gender in people.items():
            assert truth.setdefault(name, gender) == gender
    return truth


def _label(truth, lang, text):
    """The hand label of a mention; NER sometimes finds only part of a name I wrote ("Schmidt"
    of "Nicola Schmidt"): its last word is a bare surname, its first word the given name."""
    if text in truth:
        return truth[text]
    for name, label in truth.items():
        words = name.split()
        if len(words) > 1 and text == words[-1]:
            return f"last:{surname_form(text, lang)}"
        if len(words) > 1 and text == words[0] and not label.startswith("last:"):
            return label
    raise AssertionError(f"NER found a person I did not write: {text}")


def _shape(label: str, name: str) -> str:
    return "last" if label.startswith("last:") else ("one" if len(name.split()) == 1 else "many")


def test_no_switch_changes_a_persons_gender_or_shape(annotated, tmp_path):
    lang, out, summary = annotated
    truth = _truth(lang)
    rows = [json.loads(line) for line in (out / "annotated.jsonl").open(encoding="utf-8")]
    accepted = [e for row in rows for e in row["entities"]]
    assert accepted, "nothing was annotated: the test would prove nothing"
    for e in accepted:
        label = _label(truth, lang, e["src_text"])
        gender, shape = e["key"].split("/")[1:]
        if label.startswith("last:"):
            assert shape == "last", e  # a bare surname is never looked up as a given name
            assert gender == label[5:] or lang not in ("ru",), e
        elif gender != "unknown":
            assert gender == label, e  # a confident gender is the true one
    switch = SwitchEntity(out, seed=1, swap_log=tmp_path / "log")
    swaps = 0
    for epoch in range(EPOCHS):
        switch.pairs(epoch)
        for swap in map(json.loads, (tmp_path / "log" / f"swaps-epoch{epoch:04d}.jsonl").open()):
            (old_src, new_src), (old_tgt, new_tgt) = swap["src"], swap["tgt"]
            old, new = _label(truth, lang, old_src), _label(truth, lang, new_src)
            assert old == new and _shape(old, old_src) == _shape(new, new_src), swap
            if lang != "ru":  # ru targets are re-inflected; their base forms are checked below
                assert same_name(new_src, new_tgt) and same_name(old_src, old_tgt), swap
            swaps += 1
    assert swaps > 0, "no switch at all: the test would prove nothing"
    for items in json.loads((out / "candidates.json").read_text())["lists"].values():
        for item in items:  # every candidate spells the same name on both sides
            assert same_name(item["src"], item["tgt"]), item


def test_summary_reports_coverage_conflicts_and_rejections(annotated):
    lang, _, summary = annotated
    assert summary["name_locale"] == lang
    cov = summary["coverage"]
    assert cov["person_mentions"] == sum(v for k, v in summary["entities"].items()
                                         if k.startswith("PERSON/"))
    assert 0 < cov["with_gender"] <= cov["person_mentions"]
    assert cov["pct"] == round(100 * cov["with_gender"] / cov["person_mentions"], 1)
    assert isinstance(summary["gender_conflict"], int) and "rejected" in summary


def test_partial_mention_and_surname_only_in_french():
    from mtdebias.align import Alignment, tokenize
    from mtdebias.ner import Entity

    ann = PairAnnotator("en", "fr", ("PERSON",), False, name_locale="fr")
    src = "Laurent Caron met the minister, and Caron spoke first."
    tgt = "Laurent Caron a rencontré le ministre, et Caron a parlé en premier."
    s_tok, t_tok = tokenize(src), tokenize(tgt)
    links = [(0, 0), (1, 1), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7), (7, 8), (8, 10), (9, 12),
             (10, 13)]
    ents = [Entity("Laurent Caron", 0, 13, "PERSON"), Entity("Caron", 36, 41, "PERSON")]
    stats = ShardStats()
    accepted, rejected = ann.annotate(src, tgt, ents, None, Alignment(s_tok, t_tok, links), stats)
    # both stay as they are: switching one would make the sentence name two people
    assert accepted == [] and [r["reason"] for r in rejected] == ["partial_mention"] * 2
    # alone, "Caron" is a surname (never the rare US girl's name), switched among surnames
    src, tgt = "Caron was late again.", "Caron était encore en retard."
    al = Alignment(tokenize(src), tokenize(tgt), [(0, 0), (1, 1), (2, 4), (3, 2), (4, 5)])
    accepted, _ = ann.annotate(src, tgt, [Entity("Caron", 0, 5, "PERSON")], None, al, stats)
    assert [e["key"] for e in accepted] == ["PERSON/any/last"]


def test_us_lexicon_on_a_french_corpus_is_vetoed_by_pronouns(tmp_path):
    # with the US table Jean is female; "his retirement" says otherwise → conflict, no switch
    out, summary = _annotate(tmp_path, EN_FR[:1] + EN_FR[8:9], "fr", name_locale="en")
    assert summary["gender_conflict"] >= 1
    assert any(ex["name"] == "Jean Lefebvre" for ex in summary["conflict_examples"])
    rows = [json.loads(line) for line in (out / "annotated.jsonl").open(encoding="utf-8")]
    assert all(e["src_text"] != "Jean Lefebvre" for e in rows[0]["entities"])


def test_gender_of_depends_on_the_locale():
    assert gender_of("Jean", "fr") == "male" and gender_of("Jean", "en") == "female"
    assert gender_of("Andrea", "it") == "male" and gender_of("Andrea", "de") == "female"
    assert gender_of("Nicola", "it") == "male"
    assert gender_of("Sasha", "ru") == "unknown" and gender_of("Саша", "ru") == "unknown"
    assert gender_of("Kim", "fr") == "unknown"
    assert gender_of("José", "es") == "male" and gender_of("María", "es") == "female"
    # NFC/case-fold and the accent-stripped fallback
    assert gender_of("ÉMILIE", "fr") == gender_of("Emilie", "fr") == "female"
    assert gender_of("E\u0301milie", "fr") == "female"  # decomposed é


def test_shapes_titles_and_surname_forms():
    fr = LocaleNames.load("fr")
    src = "Mr. Lambert met Laurent Caron and José María."
    mentions = [type("E", (), {"text": t, "start": src.index(t)})
                for t in ("Lambert", "Laurent Caron", "José María")]
    people = analyse_persons(src, mentions, "en", fr)
    assert [(p.shape, p.gender) for p in people] == [("last", "male"), ("full", "male"),
                                                    ("first", "male")]
    assert surname_form("Иванова", "ru") == "female" and surname_form("Иванов", "ru") == "male"
    assert surname_form("Шевченко", "uk") == "any" and surname_form("Nováková", "cs") == "female"
    assert surname_form("Kowalski", "pl") == "male" and surname_form("Nowak", "pl") == "any"
    assert surname_form("Caron", "fr") == "any"


def test_same_name_across_scripts():
    assert same_name("Émilie Rousseau", "Emilie ROUSSEAU")
    assert not same_name("Caron", "Laurent Caron")
    assert same_name("Dmitry Volkov", "Дмитрий Волков")
    assert same_name("Alexei", "Алексей") and same_name("Natalia", "Наталья")
    assert not same_name("Ivan Petrov", "Анна Смирнова")


def test_target_agreement_vetoes_the_lexicon():
    # the lexicon says Jean is male; «est arrivée» says the person is a woman
    ann = PairAnnotator("en", "fr", ("PERSON",), False, name_locale="fr")
    from mtdebias.align import Alignment, tokenize
    from mtdebias.ner import Entity

    src, tgt = "Jean arrived yesterday.", "Jean est arrivée hier."
    al = Alignment(tokenize(src), tokenize(tgt), [(0, 0), (1, 1), (1, 2), (2, 3), (3, 4)])
    stats = ShardStats()
    accepted, rejected = ann.annotate(src, tgt, [Entity("Jean", 0, 4, "PERSON")], None, al, stats)
    assert accepted == [] and [r["reason"] for r in rejected] == ["gender_conflict"]
    assert "target agreement is female" in stats.conflict_examples[0]["why"]


def test_unknown_persons_are_never_switched_among_themselves(annotated):
    _, out, _ = annotated
    with pytest.raises(InputError, match="among_unknown"):
        SwitchEntity(out, unknown_policy="among_unknown")
