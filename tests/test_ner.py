"""Real NER models on hand-written sentences: spans, normalised types, batching."""


from mtdebias.ner import Entity, load_tagger, types_compatible


def _people(entities):
    return [e.text for e in entities if e.type == "PERSON"]


def test_english_spacy_multi_token_names_and_places():
    text = "Candidate Al Gore met Hillary Clinton in Paris."
    (ents,) = load_tagger("en").tag([text])
    assert _people(ents) == ["Al Gore", "Hillary Clinton"]
    assert all(text[e.start:e.end] == e.text for e in ents)
    assert Entity("Paris", 41, 46, "GPE") in ents


def test_french_per_label_is_normalised_to_person():
    (ents,) = load_tagger("fr").tag(["Jean Dupont a rencontré Marie à Lyon."])
    assert _people(ents) == ["Jean Dupont", "Marie"]
    assert {e.type for e in ents} <= {"PERSON", "LOC", "GPE", "ORG"}


def test_czech_and_russian_inflected_names():
    (cs,) = load_tagger("cs").tag(["Jan Novák potkal Marii v Praze."])
    assert "Jan Novák" in _people(cs)
    (ru,) = load_tagger("ru").tag(["Кандидат Ивана Петрова встретил Анну Каренину в Москве."])
    assert _people(ru) == ["Ивана Петрова", "Анну Каренину"]
    assert [e.type for e in ru if e.text == "Москве"] == ["LOC"]


def test_languages_without_a_model_are_one_sided():
    assert load_tagger("de") is None and load_tagger("zh") is None


def test_batched_tagging_equals_one_by_one():
    tagger = load_tagger("en")
    texts = ["Anna Berger visits Peter.", "", "Microsoft hired Sofia Lopez in Berlin."] * 3
    assert tagger.tag(texts, batch_size=2) == [tagger.tag([t])[0] for t in texts]


def test_gpe_and_loc_are_compatible_but_person_and_org_are_not():
    assert types_compatible("GPE", "LOC") and types_compatible("PERSON", "PERSON")
    assert not types_compatible("PERSON", "ORG")
