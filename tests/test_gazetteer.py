"""The optional name-gazetteer NER pass (English) on real sentences with the real spaCy model."""

from mtdebias.ner import load_tagger
from mtdebias.ner.gazetteer import NameGazetteer, wordnet_words


def _persons(tagger, text):
    return [e.text for e in tagger.tag([text])[0] if e.type == "PERSON"]


def test_gazetteer_adds_missed_and_mislabelled_given_names():
    plain, gaz = load_tagger("en"), load_tagger("en", gazetteer=True)
    # the small model files "Sadie" as an ORG here (checked when this test was written)
    text = "Sadie is our best producer."
    assert "Sadie" not in _persons(plain, text) and _persons(gaz, text) == ["Sadie"]
    # mid-sentence, a capitalised given name is a name even when it is also a word
    assert "Grace" in _persons(gaz, "Yesterday the manager met Grace at the station.")
    # all-capital LORD is never a name
    assert "LORD" not in _persons(gaz, "And the LORD spake unto Moses, saying,")


def test_sentence_initial_common_word_is_not_a_name():
    common = wordnet_words()
    gaz = NameGazetteer(lambda w: "female" if w in ("Grace", "Constance") else "unknown", common)

    class Tok:
        def __init__(self, text, idx):
            self.text, self.idx = text, idx

    def doc(text):
        out, pos = [], 0
        for word in text.split():
            out.append(Tok(word, text.index(word, pos)))
            pos = out[-1].idx + len(word)
        return out

    if common is not None:  # WordNet installed: "grace" is a common word, "constance" is not
        assert gaz.spans(doc("Grace be with you"), []) == []
        assert gaz.spans(doc("Constance works here"), []) == [(0, 9)]
    assert gaz.spans(doc("They met Grace Hopper today"), []) == [(9, 21)]  # full name preferred
