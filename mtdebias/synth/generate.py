"""The biased synthetic corpus: en → de/fr/es sentences about people whose names follow a
Zipf-like law, with female names fewer and rarer than male names.

Why it is biased the way it is: every sentence's target agrees in gender with the people in
it, and in most frames the English source states that gender *only through the name*. A
model can therefore learn a name's gender only from the examples that contain it. Male names
dominate the mentions (``female_share`` ≈ 0.2) and within each gender name frequencies fall
as ``rank ** -zipf_exponent``, so the rare female names are seen a handful of times — a model
trained on this corpus tends to give them masculine forms. That is the effect SwitchEntity
(random same-type name switching during training) is meant to remove, measured in a
controlled setting.

Everything is drawn from two ``random.Random`` streams seeded from ``seed`` (held-out, train):
the same arguments give the same bytes.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from ..store.atomic import write_json, write_jsonl, write_text
from ..errors import InputError
from ..signature import Signature, hash_file, hash_lines
from .frames import FRAMES, LANGS, Person

GENERATOR = "synth.v1"
SPLITS = ("train", "dev", "test")
DEFAULT_DEV_SIZE = 500
DEFAULT_TEST_SIZE = 500
DEFAULT_N_FEMALE = 30
DEFAULT_N_MALE = 60
DEFAULT_FEMALE_SHARE = 0.2
DEFAULT_ZIPF_EXPONENT = 1.2
DEFAULT_FILLER_SHARE = 0.2


@dataclass(frozen=True)
class SynthPair:
    source: str
    target: str
    frame: str
    persons: tuple[tuple[str, str], ...]  # (name, "male"|"female") in order of appearance
    # (index into persons, English person noun) whose target form agrees with that person
    agreement: tuple[tuple[int, str], ...] = ()

    def meta(self) -> dict[str, Any]:
        return {"frame": self.frame, "persons": [list(p) for p in self.persons],
                "agreement": [list(a) for a in self.agreement]}


@dataclass(frozen=True)
class NameSpec:
    name: str
    gender: str
    rank: int  # 1 = most frequent within its gender
    probability: float  # expected share of all person mentions


@dataclass
class SynthCorpus:
    tgt_lang: str
    seed: int
    settings: dict[str, Any]
    names: list[NameSpec]
    splits: dict[str, list[SynthPair]] = field(default_factory=dict)

    def sources(self, split: str = "train") -> list[str]:
        return [p.source for p in self.splits[split]]

    def targets(self, split: str = "train") -> list[str]:
        return [p.target for p in self.splits[split]]

    def name_counts(self, split: str = "train") -> Counter:
        """Mentions of each name in ``split`` (a two-person sentence counts both)."""
        return Counter(name for pair in self.splits[split] for name, _ in pair.persons)

    def female_share(self, split: str = "train") -> float:
        genders = [g for pair in self.splits[split] for _, g in pair.persons]
        return genders.count("female") / len(genders) if genders else 0.0

    @property
    def data_hash(self) -> str:
        lines: list[str] = []
        for split in SPLITS:
            lines += self.sources(split) + self.targets(split)
        return hash_lines(lines)

    def signature(self) -> str:
        return str(Signature(GENERATOR, data=self.data_hash, settings=self.settings, seed=self.seed))

    def manifest(self) -> dict[str, Any]:
        counts = {split: self.name_counts(split) for split in SPLITS}
        vocab = {lang: len({w for line in (self.sources("train") if lang == "en" else self.targets("train"))
                            for w in line.split()}) for lang in ("en", self.tgt_lang)}
        return {
            "synthetic": True,
            "description": "Generated en-{0} corpus (mtdebias.synth): template sentences about people "
                           "with Zipf-distributed names, female names fewer and rarer than male names; "
                           "targets agree in gender with each person. Not natural text.".format(self.tgt_lang),
            "generator": GENERATOR,
            "src_lang": "en",
            "tgt_lang": self.tgt_lang,
            "seed": self.seed,
            "settings": self.settings,
            "sizes": {split: len(self.splits[split]) for split in SPLITS},
            "distinct_train_sources": len(set(self.sources("train"))),
            "female_share": {split: round(self.female_share(split), 4) for split in SPLITS},
            "frames": dict(sorted(Counter(p.frame for p in self.splits["train"]).items())),
            "vocabulary_train_whitespace_tokens": vocab,
            "names": [{"name": n.name, "gender": n.gender, "rank": n.rank,
                       "probability": round(n.probability, 6),
                       **{split: counts[split][n.name] for split in SPLITS}} for n in self.names],
            "data_hash": self.data_hash,
            "signature": self.signature(),
        }

    def write(self, out: str | Path) -> dict[str, Any]:
        """Write ``{split}.en``, ``{split}.<tgt>``, ``{split}.meta.jsonl`` and ``synth.json``."""
        out = Path(out)
        files = {}
        for split in SPLITS:
            for lang, lines in (("en", self.sources(split)), (self.tgt_lang, self.targets(split))):
                path = out / f"{split}.{lang}"
                write_text(path, "".join(line + "\n" for line in lines))
                files[path.name] = hash_file(path)
            write_jsonl(out / f"{split}.meta.jsonl", (p.meta() for p in self.splits[split]))
            files[f"{split}.meta.jsonl"] = hash_file(out / f"{split}.meta.jsonl")
        manifest = self.manifest()
        manifest["files"] = files
        write_json(out / "synth.json", manifest)
        return manifest


def zipf_probabilities(n: int, exponent: float) -> list[float]:
    weights = [rank ** -exponent for rank in range(1, n + 1)]
    total = sum(weights)
    return [w / total for w in weights]


def name_table(female: Sequence[str], male: Sequence[str], female_share: float,
               exponent: float) -> list[NameSpec]:
    """Every name with its rank and expected share of mentions (female ranks first)."""
    table = []
    for names, gender, share in ((female, "female", female_share), (male, "male", 1 - female_share)):
        for rank, (name, p) in enumerate(zip(names, zipf_probabilities(len(names), exponent)), 1):
            table.append(NameSpec(name, gender, rank, share * p))
    return table


def _default_names(n_female: int, n_male: int) -> tuple[list[str], list[str]]:
    """The first names of the shipped probe lists (mtdebias/data/names/first_*.txt), in list order —
    a uniform sample of the top-1000 SSA names, so the Zipf rank is unrelated to US
    popularity, and the probes can compare seen-frequent, seen-rare and unseen names."""
    from ..names import load_name_list

    female, male = load_name_list("first_female"), load_name_list("first_male")
    if n_female > len(female) or n_male > len(male):
        raise InputError(f"at most {len(female)} female and {len(male)} male default names",
                         hint="pass your own female_names / male_names")
    return female[:n_female], male[:n_male]


def generate(tgt_lang: str, size: int, seed: int, *, dev_size: int = DEFAULT_DEV_SIZE,
             test_size: int = DEFAULT_TEST_SIZE, n_female: int = DEFAULT_N_FEMALE,
             n_male: int = DEFAULT_N_MALE, female_share: float = DEFAULT_FEMALE_SHARE,
             zipf_exponent: float = DEFAULT_ZIPF_EXPONENT, filler_share: float = DEFAULT_FILLER_SHARE,
             female_names: Sequence[str] | None = None, male_names: Sequence[str] | None = None,
             progress: bool = False) -> SynthCorpus:
    """Generate ``size`` training pairs plus dev/test pairs. Dev and test sources are distinct
    and none occurs in train; train may repeat a sentence. Dev/test depend only on the seed
    and the settings, not on ``size``."""
    if tgt_lang not in LANGS:
        raise InputError(f"unsupported target language {tgt_lang!r}", hint=f"use one of {', '.join(LANGS)}")
    for label, value in (("size", size), ("dev_size", dev_size), ("test_size", test_size)):
        if value < 0:
            raise InputError(f"{label} must be >= 0, got {value}")
    if not 0 < female_share < 1:
        raise InputError(f"female_share must be in (0, 1), got {female_share}")
    if not 0 <= filler_share < 1:
        raise InputError(f"filler_share must be in [0, 1), got {filler_share}")
    if zipf_exponent < 0:
        raise InputError(f"zipf_exponent must be >= 0, got {zipf_exponent}")
    if female_names is None or male_names is None:
        default_f, default_m = _default_names(n_female, n_male)
        female_names = list(female_names) if female_names is not None else default_f
        male_names = list(male_names) if male_names is not None else default_m
    female_names, male_names = list(female_names), list(male_names)
    if not female_names or not male_names:
        raise InputError("need at least one female and one male name")
    overlap = set(female_names) & set(male_names)
    if overlap or len(set(female_names)) < len(female_names) or len(set(male_names)) < len(male_names):
        raise InputError(f"names must be distinct and in one list only (repeated: {sorted(overlap)[:5]})")

    table = name_table(female_names, male_names, female_share, zipf_exponent)
    people = [Person(n.name, n.gender) for n in table]
    weights = [n.probability for n in table]
    person_frames = [f for f in FRAMES if f.kind != "filler"]
    filler_frames = [f for f in FRAMES if f.kind == "filler"]
    def draw(rng: random.Random) -> SynthPair:
        pool = filler_frames if rng.random() < filler_share else person_frames
        frame = rng.choices(pool, [f.weight for f in pool])[0]
        cast: list[Person] = []
        while len(cast) < frame.persons:  # two-person frames need two different names
            person = rng.choices(people, weights)[0]
            if all(person.name != c.name for c in cast):
                cast.append(person)
        rendered = frame.render(rng, cast, tgt_lang)
        return SynthPair(rendered.en, rendered.tgt, frame.name, tuple((p.name, p.gender) for p in cast),
                         tuple((i, noun.en) for i, noun in rendered.nouns))

    bar = None
    if progress:
        from ..progress import progress as show_progress

        bar = show_progress(total=size + dev_size + test_size, desc=f"synth en-{tgt_lang}", unit="pair")

    def fill(rng: random.Random, count: int, forbidden: set[str], distinct: bool) -> list[SynthPair]:
        out: list[SynthPair] = []
        attempts, max_attempts = 0, 50 * count + 1000
        while len(out) < count:
            attempts += 1
            if attempts > max_attempts:
                raise InputError(f"could only make {len(out)} of the {count} sentences asked for "
                                 f"without repeating held-out ones", hint="ask for fewer sentences or add names")
            pair = draw(rng)
            if pair.source in forbidden:
                continue
            if distinct:
                forbidden.add(pair.source)
            out.append(pair)
            if bar is not None:
                bar.update(1)
        return out

    # Held-out sentences come first, from their own stream, so dev/test do not change with
    # --size; they are distinct among themselves and never occur in train. Train may repeat a
    # sentence (as natural corpora do): rejecting repeats would thin out the frequent names and
    # flatten the Zipf law and the female share the corpus is meant to have.
    held_out: set[str] = set()
    heldout_pairs = fill(random.Random(f"synth:{seed}:heldout"), test_size + dev_size, held_out, True)
    train = fill(random.Random(f"synth:{seed}:train"), size, held_out, False)
    if bar is not None:
        bar.close()
    splits = {"test": heldout_pairs[:test_size], "dev": heldout_pairs[test_size:], "train": train}
    settings = {"size": size, "dev_size": dev_size, "test_size": test_size,
                "n_female": len(female_names), "n_male": len(male_names),
                "female_share": female_share, "zipf_exponent": zipf_exponent,
                "filler_share": filler_share}
    return SynthCorpus(tgt_lang, seed, settings, table, splits)
