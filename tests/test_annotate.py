"""SwitchEntity annotation with the real spaCy/natasha models and the real fast_align."""

import json
from collections import Counter

import pytest

from mtdebias.align import Alignment, tokenize
from mtdebias.align.seed_corpus import seed_pairs
from mtdebias.augment import PairAnnotator, annotate_corpus, merge_annotations
from mtdebias.augment.annotate import ShardStats
from mtdebias.errors import InputError
from mtdebias.ner import Entity

GENDERS = {"al": "male", "peter": "male", "thomas": "male", "david": "male", "shaun": "male",
           "anna": "female", "maria": "female", "hillary": "female", "laura": "female"}


def gender_of(name):
    return GENDERS.get(name.lower(), "unknown")


EN_DE = [
    ("Candidate Al Gore concedes the election.", "Kandidat Al Gore räumt die Wahl ein."),
    ("Anna Berger visits Thomas Weber today.", "Anna Berger besucht Thomas Weber heute."),
    ("Peter said Peter likes the book.", "Peter sagte, Peter mag das Buch."),
    ("Shaun O'Neill helps the teacher.", "Shaun O'Neill hilft dem Lehrer."),
    ("Shaun O'Neill sees the house.", "Shaun O'Neill sieht das Haus."),
    ("Shaun O'Neill visits the city today.", "Shaun O'Neill besucht die Stadt heute."),
    ("Hillary Clinton calls the doctor.", "Hillary Clinton ruft den Arzt."),
    ("Laura sees the car again.", "Laura sieht das Auto wieder."),
    ("Yesterday Maria called him.", "Gestern rief sie ihn an."),
    ("", "leer"),
]


def _write(tmp_path, pairs, name="c"):
    src, tgt = tmp_path / f"{name}.en", tmp_path / f"{name}.xx"
    src.write_text("".join(s + "\n" for s, _ in pairs), encoding="utf-8")
    tgt.write_text("".join(t + "\n" for _, t in pairs), encoding="utf-8")
    return src, tgt


@pytest.fixture(scope="module")
def en_de(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ende")
    src, tgt = _write(tmp, EN_DE)
    extra = seed_pairs("de", 300)
    summary = annotate_corpus(src, tgt, tmp / "out", "en", "de", gender_of=gender_of,
                              shard_size=4, extra_sources=extra[0], extra_targets=extra[1])
    rows = [json.loads(line) for line in (tmp / "out" / "annotated.jsonl").open()]
    return tmp, summary, rows, extra


def _accepted(row):
    return [(e["src_text"], e["tgt_text"], e["key"]) for e in row["entities"]]


def test_multi_token_names_two_persons_and_repeats_are_paired(en_de):
    _, summary, rows, _ = en_de
    assert summary["two_sided"] is False  # no German NER model → one-sided
    assert len(rows) == 9 and summary["skipped_empty"] == 1
    assert _accepted(rows[0]) == [("Al Gore", "Al Gore", "PERSON/male/full")]
    assert _accepted(rows[1]) == [("Anna Berger", "Anna Berger", "PERSON/female/full"),
                                  ("Thomas Weber", "Thomas Weber", "PERSON/male/full")]
    assert _accepted(rows[2]) == [("Peter", "Peter", "PERSON/male/first")] * 2
    for row in rows:
        for e in row["entities"]:  # spans index the stored strings
            assert row["src"][e["src"][0]:e["src"][1]] == e["src_text"]
            assert row["tgt"][e["tgt"][0]:e["tgt"][1]] == e["tgt_text"]


def test_name_with_apostrophe_keeps_its_punctuation(en_de):
    rows = en_de[2]
    assert ("Shaun O'Neill", "Shaun O'Neill", "PERSON/male/full") in _accepted(rows[3]) + \
        _accepted(rows[4]) + _accepted(rows[5])


def test_name_missing_from_translation_is_rejected_and_counted(en_de):
    _, summary, rows, _ = en_de
    assert rows[8]["entities"] == []
    assert [r["type"] for r in rows[8]["rejected"]] == ["PERSON"]
    assert sum(summary["rejected"].values()) >= 1
    # every source person is either accepted or rejected with a reason
    assert sum(summary["entities"].values()) == \
        sum(summary["accepted"].values()) + sum(summary["rejected"].values())


def test_candidate_lists_by_type_and_gender(en_de):
    tmp = en_de[0]
    lists = json.loads((tmp / "out" / "candidates.json").read_text())["lists"]
    female = {c["src"] for k in ("PERSON/female/full", "PERSON/female/first") for c in lists.get(k, [])}
    male = {c["src"]: c["count"] for k in ("PERSON/male/full", "PERSON/male/first")
            for c in lists.get(k, [])}
    assert {"Anna Berger", "Hillary Clinton", "Laura"} <= female
    assert "Maria" not in female  # its only mention was rejected
    assert male["Peter"] == 2 and "Al Gore" in male and not (female & set(male))


def test_unaligned_and_non_contiguous_by_rule():
    ann = PairAnnotator("en", "de", ("PERSON",), False, gender_of)
    src, tgt = "Maria sees Peter Weber.", "Sie sieht Peter und Weber."
    al = Alignment(tokenize(src), tokenize(tgt), [(1, 1), (2, 2), (3, 4), (4, 5)])
    ents = [Entity("Maria", 0, 5, "PERSON"), Entity("Peter Weber", 11, 22, "PERSON")]
    stats = ShardStats()
    accepted, rejected = ann.annotate(src, tgt, ents, None, al, stats)
    # Maria has no link; "Peter Weber" maps to tokens 2 and 4 with the word "und" between them
    assert accepted == [] and [r["reason"] for r in rejected] == ["unaligned", "non_contiguous"]
    assert stats.rejected == Counter({"unaligned": 1, "non_contiguous": 1})


def test_punctuation_aligned_to_a_name_is_trimmed():
    ann = PairAnnotator("en", "de", ("PERSON",), False, gender_of)
    src, tgt = "Peter said Peter sings.", "Peter sagte, Peter singt."
    # the comma (tgt 2) is linked to the second "Peter" (src 2) as well
    al = Alignment(tokenize(src), tokenize(tgt), [(0, 0), (1, 1), (2, 2), (2, 3), (3, 4), (4, 5)])
    ents = [Entity("Peter", 0, 5, "PERSON"), Entity("Peter", 11, 16, "PERSON")]
    accepted, _ = ann.annotate(src, tgt, ents, None, al, ShardStats())
    assert [tgt[a:b] for a, b in (e["tgt"] for e in accepted)] == ["Peter", "Peter"]


def test_two_sided_requires_a_same_type_target_entity():
    ann = PairAnnotator("en", "fr", ("PERSON", "GPE"), True, gender_of)
    src, tgt = "Anna visits Paris.", "Anna visite Paris."
    al = Alignment(tokenize(src), tokenize(tgt), [(0, 0), (1, 1), (2, 2), (3, 3)])
    src_ents = [Entity("Anna", 0, 4, "PERSON"), Entity("Paris", 12, 17, "GPE")]
    tgt_ents = [Entity("Anna", 0, 4, "ORG"), Entity("Paris", 12, 17, "LOC")]
    accepted, rejected = ann.annotate(src, tgt, src_ents, tgt_ents, al, ShardStats())
    assert [r["reason"] for r in rejected] == ["type_mismatch"]
    assert [(e["src_text"], e["key"]) for e in accepted] == [("Paris", "GPE")]  # GPE≈LOC


def test_deterministic_resumable_and_mergeable(en_de, tmp_path):
    tmp, summary, rows, extra = en_de
    src, tgt = tmp / "c.en", tmp / "c.xx"
    again = annotate_corpus(src, tgt, tmp_path / "again", "en", "de", gender_of=gender_of,
                            shard_size=4, extra_sources=extra[0], extra_targets=extra[1])
    assert (tmp_path / "again" / "annotated.jsonl").read_text() == \
        (tmp / "out" / "annotated.jsonl").read_text()
    assert again == summary
    # interrupt: drop one finished shard; the rerun redoes only that shard
    (tmp_path / "again" / "shards" / "000001.stats.json").unlink()
    before = (tmp_path / "again" / "shards" / "000000.jsonl").stat().st_mtime_ns
    annotate_corpus(src, tgt, tmp_path / "again", "en", "de", gender_of=gender_of, shard_size=4,
                    extra_sources=extra[0], extra_targets=extra[1])
    assert (tmp_path / "again" / "shards" / "000000.jsonl").stat().st_mtime_ns == before
    assert (tmp_path / "again" / "annotated.jsonl").read_text() == \
        (tmp / "out" / "annotated.jsonl").read_text()
    with pytest.raises(InputError, match="other input or settings"):
        annotate_corpus(src, tgt, tmp_path / "again", "en", "de", gender_of=gender_of,
                        shard_size=5, extra_sources=extra[0], extra_targets=extra[1])
    merged = merge_annotations([tmp / "out", tmp_path / "again"], tmp_path / "merged")
    assert merged["pairs"] == 2 * summary["pairs"]
    assert merged["accepted"]["PERSON/male/full"] == 2 * summary["accepted"]["PERSON/male/full"]


def test_user_candidates_are_merged_and_validated(en_de, tmp_path):
    tmp, _, _, extra = en_de
    user = tmp_path / "user.tsv"
    user.write_text("# mine\nPERSON\tfemale\tGrace Hopper\tGrace Hopper\t2\n", encoding="utf-8")
    annotate_corpus(tmp / "c.en", tmp / "c.xx", tmp_path / "u", "en", "de", gender_of=gender_of,
                    shard_size=4, candidates=user, extra_sources=extra[0], extra_targets=extra[1])
    lists = json.loads((tmp_path / "u" / "candidates.json").read_text())["lists"]
    assert {"src": "Grace Hopper", "tgt": "Grace Hopper", "count": 2} in lists["PERSON/female/full"]
    user.write_text("PERSON\tfemme\tX\tX\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"user.tsv:1"):
        annotate_corpus(tmp / "c.en", tmp / "c.xx", tmp_path / "v", "en", "de",
                        gender_of=gender_of, candidates=user, extra_sources=extra[0],
                        extra_targets=extra[1])


def test_annotate_lists_matches_file_input(en_de, tmp_path):
    tmp, summary, _, extra = en_de
    sources = [s for s, _ in EN_DE]
    targets = [t for _, t in EN_DE]
    from mtdebias.augment import annotate_lists

    got = annotate_lists(sources, targets, tmp_path / "l", "en", "de", gender_of=gender_of,
                         shard_size=4, extra_sources=extra[0], extra_targets=extra[1])
    assert (tmp_path / "l" / "annotated.jsonl").read_text() == \
        (tmp / "out" / "annotated.jsonl").read_text()
    assert got["accepted"] == summary["accepted"]
