"""The shipped Russian GEST gender-variant pairs (mtdebias/data/gest/choice_ru.csv): what the
README promises about them, and how the Russian speaker-gender detector reads them."""

from __future__ import annotations

from collections import Counter

import pytest

from mtdebias.probes.gest.probe import STEREOTYPES, load_gest
from mtdebias.probes.gest.choice import load_choice_items
from mtdebias.resources import data_path

CHOICE_RU = data_path("gest", "choice_ru.csv")
PER_STEREOTYPE = 3


@pytest.fixture(scope="module")
def items():
    return load_choice_items(CHOICE_RU, "ru")


def test_every_sentence_is_gest_with_its_stereotype(items):
    gest = {(item.sentence, item.stereotype) for item in load_gest()}
    assert [i.sentence for i in items if (i.sentence, i.stereotype) not in gest] == []
    assert len({i.sentence for i in items}) == len(items)  # no sentence twice
    assert max(len(i.sentence.split()) for i in items) <= 15


def test_three_pairs_per_stereotype(items):
    assert len(items) == PER_STEREOTYPE * len(STEREOTYPES)
    assert Counter(i.stereotype for i in items) == {s: PER_STEREOTYPE for s in STEREOTYPES}
    assert {(i.language, i.translator) for i in items} == {("ru", "mtdebias-hand")}


def test_variants_differ_only_in_a_few_words(items):
    # a gender variant changes the form of the words that agree with «я», never the word order
    for item in items:
        male, female = item.male.split(), item.female.split()
        assert len(male) == len(female), item
        changed = sum(m != f for m, f in zip(male, female))
        assert 1 <= changed <= 3, item


def test_the_speaker_detector_reads_the_hand_labels():
    pytest.importorskip("natasha")
    pytest.importorskip("pymorphy3")
    from mtdebias.lang.first_person import detect_speaker

    readings = [(i.line, detect_speaker("ru", i.male).gender, detect_speaker("ru", i.female).gender)
                for i in load_choice_items(CHOICE_RU, "ru")]
    wrong = [r for r in readings if r[1:] != ("male", "female")]
    # the floor of the detector's gold-set test (95%); at the time of writing it misreads two
    # variants as undetected: «гордилась» (tagged ADJ by the parser) and «возбуждён» (VERB)
    assert 1 - len(wrong) / len(readings) >= 0.95, wrong
    # a variant is never read as the other gender
    assert not [r for r in readings if r[1] == "female" or r[2] == "male"], wrong
