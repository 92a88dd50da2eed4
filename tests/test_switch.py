"""SwitchEntity on real annotations: gender-matched, consistent, deterministic, reinflected."""

import json
import time

import numpy as np
import pytest

from mtdebias.align.seed_corpus import seed_pairs
from mtdebias.augment import Reinflector, SwitchEntity, annotate_corpus, uniform_draws
from mtdebias.errors import InputError

GENDERS = {"al": "male", "peter": "male", "thomas": "male", "david": "male", "ivan": "male",
           "anna": "female", "maria": "female", "hillary": "female", "laura": "female",
           "elena": "female", "julia": "female", "grace": "female"}


def gender_of(name):
    return GENDERS.get(name.lower(), "unknown")


EN_DE = [
    ("Candidate Al Gore concedes the election.", "Kandidat Al Gore räumt die Wahl ein."),
    ("Anna Berger visits Thomas Weber today.", "Anna Berger besucht Thomas Weber heute."),
    ("Peter said Peter likes the book.", "Peter sagte, Peter mag das Buch."),
    ("Hillary Clinton calls the doctor.", "Hillary Clinton ruft den Arzt."),
    ("Laura sees the car again.", "Laura sieht das Auto wieder."),
    ("The dog sees the house.", "Der Hund sieht das Haus."),
]
USER = ("PERSON\tmale\tDavid Novak\tDavid Novak\nPERSON\tfemale\tGrace Hopper\tGrace Hopper\n"
        "PERSON\tunknown\tKim Lee\tKim Lee\n")


def _annotate(tmp, pairs, tgt_lang, user=None):
    (tmp / "s").write_text("".join(s + "\n" for s, _ in pairs), encoding="utf-8")
    (tmp / "t").write_text("".join(t + "\n" for _, t in pairs), encoding="utf-8")
    extra = seed_pairs(tgt_lang, 300)
    if user:
        (tmp / "user.tsv").write_text(user, encoding="utf-8")
    annotate_corpus(tmp / "s", tmp / "t", tmp / "out", "en", tgt_lang, gender_of=gender_of,
                    candidates=tmp / "user.tsv" if user else None,
                    extra_sources=extra[0], extra_targets=extra[1])
    return tmp / "out"


@pytest.fixture(scope="module")
def de_dir(tmp_path_factory):
    return _annotate(tmp_path_factory.mktemp("de"), EN_DE, "de", USER)


def _lists(out):
    lists = json.loads((out / "candidates.json").read_text())["lists"]
    return tuple({c["src"] for k, items in lists.items() if k.startswith(f"PERSON/{g}/") for c in items}
                 for g in ("male", "female"))


def test_gender_matched_multi_token_and_both_sides_agree(de_dir):
    male, female = _lists(de_dir)
    switch = SwitchEntity(de_dir, seed=3)
    seen = set()
    for epoch in range(30):
        sources, targets = switch.pairs(epoch)
        # "Candidate X concedes…": X is always a male candidate, the same on both sides
        name = sources[0][len("Candidate "):-len(" concedes the election.")]
        assert name in male and targets[0] == f"Kandidat {name} räumt die Wahl ein."
        seen.add(name)
        # two persons: the woman stays female, the man male
        first, rest = sources[1].split(" visits ")
        assert first in female and rest[:-len(" today.")] in male
        assert sources[3].split(" calls ")[0] in female
        assert sources[5] == "The dog sees the house."  # no entity: untouched
    assert {"Al Gore", "David Novak"} <= seen  # multi-token ↔ multi-token both drawn


def test_repeated_mentions_get_the_same_replacement(de_dir):
    switch = SwitchEntity(de_dir, seed=1)
    for epoch in range(10):
        sources, targets = switch.pairs(epoch)
        a, b = sources[2][:-len(" likes the book.")].split(" said ")
        assert a == b
        assert targets[2] == f"{a} sagte, {a} mag das Buch."


def test_deterministic_across_instances_and_different_across_epochs(de_dir):
    one, two = SwitchEntity(de_dir, seed=7), SwitchEntity(de_dir, seed=7)
    assert one.pairs(4) == two.pairs(4)
    assert one.pairs(4) == one.pairs(4)
    epochs = {tuple(one.pairs(e)[0]) for e in range(8)}
    assert len(epochs) > 1
    other = SwitchEntity(de_dir, seed=8)
    assert any(other.pairs(e) != one.pairs(e) for e in range(8))


def test_unknown_gender_policy_match_gender_and_p(de_dir):
    never = SwitchEntity(de_dir, unknown_policy="never")
    assert all("unknown" not in name for name in never.list_names)
    # unknown is not a gender: in en→de (gendered pronouns, agreement) never switched among itself
    with pytest.raises(InputError, match="among_unknown"):
        SwitchEntity(de_dir, unknown_policy="among_unknown")
    pooled = SwitchEntity(de_dir, match_gender=False)  # an ablation: genders pooled, shapes kept
    full = pooled.lists[pooled.list_names.index("PERSON/full")]
    assert {"Al Gore", "Anna Berger"} <= {s for s, _ in full} and "Kim Lee" not in {s for s, _ in full}
    none = SwitchEntity(de_dir, p=0.0)
    assert none.pairs(0) == (none.sources, none.targets)
    with pytest.raises(InputError, match="unknown_policy"):
        SwitchEntity(de_dir, unknown_policy="sometimes")


def test_swap_log_records_each_switch(de_dir, tmp_path):
    switch = SwitchEntity(de_dir, seed=2, swap_log=tmp_path)
    switch.pairs(5)
    log = [json.loads(x) for x in (tmp_path / "swaps-epoch0005.jsonl").read_text().splitlines()]
    assert len(log) == switch.last_stats["switched"]
    assert {"pair", "src", "tgt"} <= set(log[0])


def test_uniform_draws_are_uniform_and_keyed():
    pair = np.arange(20000)
    u = uniform_draws(0, 0, pair, np.zeros_like(pair), 0)
    assert 0 <= u.min() and u.max() < 1 and abs(u.mean() - 0.5) < 0.01
    # a draw depends on its own key only, not on which other pairs are present
    assert uniform_draws(0, 0, pair[5:6], np.zeros(1, np.int64), 0)[0] == u[5]
    assert not np.array_equal(u, uniform_draws(0, 1, pair, np.zeros_like(pair), 0))


def test_russian_reinflection_by_hand():
    r = Reinflector("ru")
    assert r.analyse("Ивана Петрова", "male")[0] == "Иван Петров"
    assert r.analyse("Анну", "female") == ("Анна", "accs")
    assert r.inflect("Елена Смирнова", "accs", "female") == "Елену Смирнову"
    assert r.inflect("Пётр Иванов", "gent", "male") == "Петра Иванова"


EN_RU = [("Elena calls Anna again.", "Елена зовёт Анну снова."),
         ("Anna sees Peter Berger today.", "Анна видит Петра Бергера сегодня."),
         ("Julia Klein sees the house.", "Юлия Кляйн видит дом.")]
USER_RU = "PERSON\tfemale\tMaria Smirnova\tМария Смирнова\nPERSON\tmale\tIvan Petrov\tИван Петров\n"


def test_russian_target_names_keep_their_case(tmp_path):
    out = _annotate(tmp_path, EN_RU, "ru", USER_RU)
    switch = SwitchEntity(out, seed=0)
    seen = set()
    for epoch in range(12):
        _, targets = switch.pairs(epoch)
        seen.add(targets[1])
        # a given name alone is replaced by a given name alone, a full name by a full name
        assert targets[0].split(" зовёт ")[1] in ("Анну снова.", "Елену снова.")
        assert targets[1].split(" видит ")[1] in ("Петра Бергера сегодня.",
                                                 "Ивана Петрова сегодня.")
        assert targets[2].split(" видит ")[0] in ("Юлия Кляйн", "Мария Смирнова")
    assert any("Ивана Петрова" in t for t in seen)  # genitive/accusative of the nominative candidate
    assert switch.last_stats["switched"] >= 3


@pytest.mark.slow
def test_switch_throughput_over_200k_pairs_per_second(de_dir, tmp_path):
    # 60k annotated pairs built by repeating the real annotation lines
    lines = (de_dir / "annotated.jsonl").read_text().splitlines()
    big = tmp_path / "big"
    big.mkdir()
    (big / "annotated.jsonl").write_text("\n".join(lines * 10000) + "\n")
    (big / "candidates.json").write_text((de_dir / "candidates.json").read_text())
    switch = SwitchEntity(big, seed=0)
    start = time.perf_counter()
    sources, _ = switch.pairs(1)
    rate = len(sources) / (time.perf_counter() - start)
    assert rate > 200_000, rate


def test_a_name_with_one_unswitchable_mention_keeps_all_its_mentions(tmp_path):
    """Czech keeps a replacement only where the target form is the base form: "Petrův" (possessive)
    cannot be replaced, so the base-form mention "Petr" must not be replaced either."""
    src = "Peter saw Peter's dog."
    tgt = "Petr viděl Petrova psa."

    def entity(s0, s1, t0, t1, case):
        return {"key": "PERSON/male/first", "type": "PERSON", "gender": "male", "src": [s0, s1], "src_text": "Peter",
                "tgt": [t0, t1], "tgt_text": tgt[t0:t1], "tgt_form": tgt[t0:t1], "tgt_case": case}

    record = {"line": 1, "src": src, "tgt": tgt, "rejected": [],
              "entities": [entity(0, 5, 0, 4, "base"), entity(10, 15, 11, 17, "poss")]}
    (tmp_path / "annotated.jsonl").write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    (tmp_path / "candidates.json").write_text(json.dumps({
        "src_lang": "en", "tgt_lang": "cs",
        "lists": {"PERSON/male/first": [{"src": "John", "tgt": "John", "count": 1}]}}), encoding="utf-8")
    switch = SwitchEntity(tmp_path, seed=1, p=1.0)
    for epoch in range(3):
        sources, targets = switch.pairs(epoch)
        assert (sources, targets) == ([src], [tgt])
    assert switch.last_stats.get("skipped_other_mention_unswitchable") == 1
