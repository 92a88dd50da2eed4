"""Annotate a parallel corpus once for SwitchEntity: entity pairs ⟨t_x, t_y⟩ and candidate lists.

Following Wang et al.'s SwitchEntity recipe: NER finds entities (source side, and target side in
two-sided mode), word alignment carries each source entity to the target, and a conservative rule
decides whether the pair is trusted:

* the target tokens aligned to the source entity must be contiguous (gaps of unaligned
  punctuation, as in "O'Neill", are allowed) and must not also be aligned to source words
  outside the entity;
* in two-sided mode they must lie inside a target entity of the same type (GPE≈LOC);
* two source entities may not claim overlapping target text.

Everything else is left alone and counted under its reason. Persons (see :mod:`.person`) get a
shape (full / first / last / titled / single) and a gender from the corpus locale's name table
(``name_locale``; default: the non-English language of the pair), which source pronouns and
target agreement may veto (``gender_conflict``); a person's target span must spell the same
name as the source (``name_mismatch``: modulo case/diacritics, or by transliteration between
Latin and Cyrillic); a bare surname that repeats part of a longer mention is left alone
(``partial_mention``).

Output directory::

    annotated.jsonl   one line per kept pair: src, tgt, accepted entities with spans
    candidates.json   L(type[/gender]) → [{src, tgt, count}], from the corpus (+ user list)
    corpus_genders.json  given name → male/female evidence sentences, table gender, outcome
    summary.json      counts per type/gender, accepted, rejected by reason, signature
    shards/           per-shard results; a shard whose .stats.json exists is complete and is
                      not redone when an interrupted run is restarted
    work/             aligner corpus and fast_align tables (trained once on the whole corpus)

Memory does not grow with the corpus: input is streamed shard by shard and only candidate
counts (one entry per distinct name pair) are kept across shards.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

from ..store import atomic
from ..align import Alignment, FastAlignModel, align_pairs, aligner_line, tokenize
from ..align.aligners import ALIGNERS
from ..errors import InputError
from ..ner import TYPES, Entity, load_tagger, types_compatible
from ..signature import Signature, hash_json
from ..textio import count_lines, iter_lines, read_text
from ..lang.languages import langs_with
from ..names.locale import SURNAME_GENDER_LANGS, same_name
from .person import (GENDERED_SHAPES, SHAPES, CallableNames, add_apposition_evidence, add_pronoun_evidence,
                     agreement_genders, analyse_persons)
from .corpus_gender import Relabeller, corpus_genders_json, tally as tally_name_evidence
from .reinflect import Reinflector, policy_for


def _name_part(text: str, person) -> str:
    """The words of a mention without a title inside it ("Mr Smith" → "Smith"), so that
    «M. Smith» ↔ "Mr Smith" compares the names only."""
    if person.shape == "titled":  # "King David" ↔ «el rey David»: compare the name words
        parts = text.split()
        return " ".join(parts[-len(person.words):]) if person.words else text
    return text

GenderOf = Callable[[str], str]
REJECT_REASONS = ("unaligned", "non_contiguous", "shared_alignment", "not_capitalised",
                  "no_target_entity",
                  "type_mismatch", "exceeds_target_entity", "overlapping_target",
                  "partial_mention", "gender_conflict", "name_mismatch")
DEFAULT_SHARD_SIZE = 10000
DEFAULT_MAX_CHARS = 2000
# target languages whose detector (mtdebias.lang) reports agreement cues (predicates, participles,
# past-tense verbs) for a name; German marks none on a name's predicate (its detector gives only
# noun and determiner cues), so running it there would cost its lexicon load for no evidence
AGREEMENT_LANGS = langs_with("agreement")
PERSON_RULES = "person.v3"  # shapes, locale genders, evidence vetoes, name consistency, corpus gender
MAX_CONFLICT_EXAMPLES = 20


def candidate_key(type_: str, gender: str | None, shape: str | None = None) -> str:
    """``PERSON/<gender>/<shape>`` (``PERSON/<gender>`` without a shape), else the type."""
    if type_ != "PERSON":
        return type_
    return f"{type_}/{gender}/{shape}" if shape else f"{type_}/{gender}"


# --------------------------------------------------------------------------- pair extraction

@dataclass
class ShardStats:
    pairs: int = 0
    skipped_empty: int = 0                                   # lines with an empty side
    entities: Counter = field(default_factory=Counter)       # candidate key → found
    # accepted counts and candidate lists are not kept here: finalize() counts them from the
    # records, after the corpus rule has relabelled them
    accepted: Counter = field(default_factory=Counter)       # candidate key → accepted (finalize)
    rejected: Counter = field(default_factory=Counter)       # reason → n
    rejected_by_type: Counter = field(default_factory=Counter)  # "TYPE:reason" → n
    target_form: Counter = field(default_factory=Counter)    # analysed / unparsed / identity_*
    # reason (empty, one_sided, too_long) → {"count", "first_lines"}; skipped_empty = empty + one_sided
    skipped: dict[str, dict] = field(default_factory=dict)
    gender_sources: Counter = field(default_factory=Counter)  # "source:gender" per person mention
    evidence: Counter = field(default_factory=Counter)        # kind of evidence seen → n
    conflict_examples: list = field(default_factory=list)
    name_evidence: Counter = field(default_factory=Counter)  # "male:<name>", "kin-male:<name>" → sentences

    def skip(self, reason: str, line: int) -> None:
        entry = self.skipped.setdefault(reason, {"count": 0, "first_lines": []})
        entry["count"] += 1
        if len(entry["first_lines"]) < 5:
            entry["first_lines"].append(line)

    def to_json(self) -> dict:
        return {"pairs": self.pairs, "skipped_empty": self.skipped_empty, "skipped": self.skipped,
                "entities": dict(self.entities),
                "accepted": dict(self.accepted), "rejected": dict(self.rejected),
                "rejected_by_type": dict(self.rejected_by_type),
                "target_form": dict(self.target_form),
                "gender_sources": dict(self.gender_sources), "evidence": dict(self.evidence),
                "conflict_examples": list(self.conflict_examples),
                "name_evidence": dict(self.name_evidence)}

    @classmethod
    def from_json(cls, obj: dict) -> "ShardStats":
        return cls(obj["pairs"], obj.get("skipped_empty", 0), Counter(obj["entities"]), Counter(obj.get("accepted", {})),
                   Counter(obj["rejected"]), Counter(obj["rejected_by_type"]),
                   Counter(obj["target_form"]), obj.get("skipped", {}), Counter(obj.get("gender_sources", {})),
                   Counter(obj.get("evidence", {})), list(obj.get("conflict_examples", [])),
                   Counter(obj.get("name_evidence", {})))

    def add(self, other: "ShardStats") -> None:
        self.pairs += other.pairs
        self.skipped_empty += other.skipped_empty
        for name in ("entities", "accepted", "rejected", "rejected_by_type", "target_form",
                     "gender_sources", "evidence", "name_evidence"):
            getattr(self, name).update(getattr(other, name))
        room = MAX_CONFLICT_EXAMPLES - len(self.conflict_examples)
        self.conflict_examples.extend(other.conflict_examples[:max(0, room)])
        for reason, entry in other.skipped.items():  # shards come in line order
            mine = self.skipped.setdefault(reason, {"count": 0, "first_lines": []})
            mine["count"] += entry["count"]
            mine["first_lines"] = (mine["first_lines"] + entry["first_lines"])[:5]


def _is_word(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


def _target_indices(al: Alignment, entity: Entity) -> tuple[list[int] | None, str | None]:
    """Contiguous target token indices of a source entity, or (None, reason)."""
    inside = {i for i, t in enumerate(al.src) if t.start < entity.end and t.end > entity.start}
    linked = sorted({j for i, j in al.links if i in inside})
    # Punctuation aligned to a name ("Peter" ↔ ", Peter") is not part of it: trim it off the
    # ends, or a switch would eat the comma.
    while linked and not _is_word(al.tgt[linked[0]].text):
        linked.pop(0)
    while linked and not _is_word(al.tgt[linked[-1]].text):
        linked.pop()
    if not linked:
        return None, "unaligned"
    outside_links: dict[int, list[int]] = {}
    for i, j in al.links:
        if i not in inside and _is_word(al.src[i].text):
            outside_links.setdefault(j, []).append(i)
    span = list(range(linked[0], linked[-1] + 1))
    linked_set = set(linked)
    for j in span:
        if j not in linked_set and (_is_word(al.tgt[j].text) or j in outside_links):
            return None, "non_contiguous"
    if any(j in outside_links for j in linked):
        return None, "shared_alignment"
    return span, None


@dataclass
class PairAnnotator:
    """Turns (sentence pair, entities, alignment) into accepted entity records and statistics.

    ``gender_of`` is a plain name → gender function (it then knows no surnames); without it the
    locale's name table decides (``name_locale``, default from the languages).
    """

    src_lang: str
    tgt_lang: str
    types: tuple[str, ...]
    two_sided: bool
    gender_of: GenderOf | None = None
    name_locale: str | None = None
    target_evidence: bool = True

    def __post_init__(self):
        from ..names.locale import default_locale, locale_names

        self.policy = policy_for(self.tgt_lang)
        self.reinflector = Reinflector(self.tgt_lang) if self.policy == "morph" else None
        if self.gender_of is not None:
            self.names = CallableNames(self.gender_of)
        else:
            self.name_locale = self.name_locale or default_locale(self.src_lang, self.tgt_lang)
            self.names = locale_names(self.name_locale)
        self._detect = self.target_evidence and self.tgt_lang in AGREEMENT_LANGS
        self._surname_lang = next((lang for lang in (self.tgt_lang, self.src_lang)
                                   if lang in SURNAME_GENDER_LANGS), None)

    def gender(self, entity_text: str) -> str:
        """The lexicon gender of a person mention's given name, without context."""
        people = analyse_persons(entity_text, [Entity(entity_text, 0, len(entity_text), "PERSON")],
                                 self.src_lang, self.names)
        return people[0].gender if people[0].shape in GENDERED_SHAPES else "unknown"

    def annotate(self, src: str, tgt: str, src_entities: Sequence[Entity],
                 tgt_entities: Sequence[Entity] | None, al: Alignment,
                 stats: ShardStats) -> tuple[list[dict], list[dict]]:
        accepted, rejected, taken = [], [], []
        stats.pairs += 1
        ents = sorted((e for e in src_entities if e.type in self.types), key=lambda e: (e.start, e.end))
        mentions = [e for e in ents if e.type == "PERSON"]
        people = dict(zip(map(id, mentions), analyse_persons(src, mentions, self.src_lang, self.names)))
        if self.src_lang == "en" and people:
            add_pronoun_evidence(src, list(people.values()))
            add_apposition_evidence(list(people.values()))
            tally_name_evidence(src, people.values(), stats.name_evidence)
        for ent in ents:
            person = people.get(id(ent))
            gender = person.gender if person is not None else None
            key = candidate_key(ent.type, gender, person.shape if person is not None else None)
            stats.entities[key] += 1
            if person is not None:
                stats.gender_sources[f"{person.source}:{person.gender}"] += 1
                if person.evidence:
                    stats.evidence["source_pronouns"] += 1
            idx, reason = _target_indices(al, ent)
            span = None
            if person is not None and person.conflict:  # known from the source side alone
                idx, reason = None, "gender_conflict"
                self._conflict_example(stats, src, tgt, ent, person)
            if idx is not None:
                span = (al.tgt[idx[0]].start, al.tgt[idx[-1]].end)
                first = tgt[span[0]]
                # A capitalised name aligned to a lower-case word ("Berlin" → "ein" of a German
                # separable verb) is an alignment error, in any script that has case.
                if ent.text[:1].isupper() and first.lower() != first.upper() and first.islower():
                    span, reason = None, "not_capitalised"
            if span is not None and self.two_sided:
                span, reason = self._inside_target_entity(span, ent.type, tgt_entities or ())
            if span is not None and any(span[0] < e and s < span[1] for s, e in taken):
                span, reason = None, "overlapping_target"
            if span is not None and person is not None and person.partial:
                span, reason = None, "partial_mention"
            if span is not None and person is not None:
                self._target_agreement(person, tgt, span, stats)
                if person.conflict:
                    span, reason = None, "gender_conflict"
                    self._conflict_example(stats, src, tgt, ent, person)
            tgt_text = tgt[span[0]:span[1]] if span is not None else None
            form = case = None
            if span is not None:
                form, case = self._target_form(ent.text, tgt_text, gender, stats)
                if person is not None and not same_name(_name_part(ent.text, person),
                                                        _name_part(form or tgt_text, person)):
                    span, reason = None, "name_mismatch"
            if span is None:
                stats.rejected[reason] += 1
                stats.rejected_by_type[f"{ent.type}:{reason}"] += 1
                rejected.append({"type": ent.type, "src": [ent.start, ent.end], "reason": reason})
                continue
            taken.append(span)
            if person is not None:
                key_gender = person.key_gender(
                    self._surname_lang, form if self._surname_lang == self.tgt_lang else ent.text)
                key = candidate_key("PERSON", key_gender, person.shape)
                if person.shape == "last" and key_gender in ("male", "female"):
                    gender = key_gender  # the surname's form guides its reinflection
            accepted.append({"type": ent.type, "gender": gender, "key": key,
                             "gender_source": person.source if person is not None else None,
                             "src": [ent.start, ent.end], "tgt": list(span),
                             "src_text": ent.text, "tgt_text": tgt_text,
                             "tgt_form": form, "tgt_case": case})
        return accepted, rejected

    def warm(self) -> None:
        """Load the name tables and the target detector's lexicons now, so that forked workers
        share them instead of each loading them (seconds per process)."""
        from ..names.locale import _wgnd_table

        _wgnd_table()
        if self._detect:
            from ..lang import detect_gender

            try:
                detect_gender(self.tgt_lang, "Anna ist da.", (0, 4))
            except Exception:  # noqa: BLE001 - warming is best effort; real calls count errors
                pass

    @staticmethod
    def _conflict_example(stats: ShardStats, src: str, tgt: str, ent: Entity, person) -> None:
        if len(stats.conflict_examples) < MAX_CONFLICT_EXAMPLES:
            stats.conflict_examples.append({"src": src, "tgt": tgt, "name": ent.text,
                                            "gender": person.gender, "source": person.source,
                                            "why": person.conflict})

    def _target_agreement(self, person, tgt: str, span: tuple[int, int], stats: ShardStats) -> None:
        """Veto the lexicon gender when target words agreeing with the name say otherwise."""
        if not self._detect or person.shape not in GENDERED_SHAPES or person.gender == "unknown" \
                or person.conflict:
            return
        from ..lang import detect_gender

        try:
            found = agreement_genders(detect_gender(self.tgt_lang, tgt, span))
        except Exception:  # noqa: BLE001 - a detector failure is no evidence, not a crash
            stats.evidence["target_detector_error"] += 1
            return
        if found:
            stats.evidence["target_agreement"] += 1
        if found and person.gender not in found:
            person.conflict = (f"target agreement is {'/'.join(sorted(found))}, "
                               f"the name {person.gender}")

    def _inside_target_entity(self, span: tuple[int, int], type_: str,
                              tgt_entities: Iterable[Entity]):
        overlapping = [e for e in tgt_entities if e.start < span[1] and span[0] < e.end]
        if not overlapping:
            return None, "no_target_entity"
        same = [e for e in overlapping if types_compatible(e.type, type_)]
        if not same:
            return None, "type_mismatch"
        for e in same:
            if e.start <= span[0] and span[1] <= e.end:
                return (e.start, e.end), None
        return None, "exceeds_target_entity"

    def _target_form(self, src_text: str, tgt_text: str, gender: str | None, stats: ShardStats):
        """(base form for the candidate list, grammatical case) of the target name."""
        if self.policy == "plain":
            return tgt_text, None
        if self.policy == "identity":
            ok = tgt_text == src_text
            stats.target_form["identity_base" if ok else "identity_inflected"] += 1
            return (tgt_text, "base") if ok else (None, None)
        analysis = self.reinflector.analyse(tgt_text, gender)
        stats.target_form["analysed" if analysis else "unparsed"] += 1
        return analysis if analysis else (None, None)


# --------------------------------------------------------------------------- corpus driver

def _pairs_of_shard(src: Path, tgt: Path, shard: int, size: int
                    ) -> Iterator[tuple[int, str, str]]:
    start = shard * size
    lines = zip(iter_lines(src), iter_lines(tgt))
    for offset, (s, t) in enumerate(islice(lines, start, start + size)):
        yield start + offset + 1, s.strip(), t.strip()


@dataclass
class _Job:
    src: Path
    tgt: Path
    out_dir: Path
    shard_size: int
    annotator: PairAnnotator
    aligner: str
    extra_sources: Sequence[str]
    extra_targets: Sequence[str]
    batch_size: int = 256
    gazetteer: bool = False
    max_chars: int | None = DEFAULT_MAX_CHARS


def _skip_reason(s: str, t: str, max_chars: int | None) -> str | None:
    """Why a (stripped) pair is left out, or None to keep it."""
    if not s or not t:
        return "empty" if not s and not t else "one_sided"
    if max_chars is not None and (len(s) > max_chars or len(t) > max_chars):
        return "too_long"  # a 100k-character line costs minutes and is no sentence
    return None


_WORKER: dict = {}


def _run_shard(job: _Job, shard: int) -> ShardStats:
    """Annotate one shard and write its files; the .stats.json (written last) marks completion."""
    if "src_tagger" not in _WORKER:
        _WORKER["src_tagger"] = load_tagger(job.annotator.src_lang, gazetteer=job.gazetteer)
        _WORKER["tgt_tagger"] = load_tagger(job.annotator.tgt_lang) if job.annotator.two_sided else None
        if job.aligner == "fast_align":
            work = job.out_dir / "work"
            _WORKER["model"] = FastAlignModel(work / "forward.probs", work / "backward.probs")
    all_rows = list(_pairs_of_shard(job.src, job.tgt, shard, job.shard_size))
    stats = ShardStats()
    rows = []
    for n, s, t in all_rows:
        reason = _skip_reason(s, t, job.max_chars)
        if reason is None:
            rows.append((n, s, t))
        else:
            stats.skip(reason, n)
    stats.skipped_empty = sum(stats.skipped.get(r, {}).get("count", 0) for r in ("empty", "one_sided"))
    sources, targets = [s for _, s, _ in rows], [t for _, _, t in rows]
    src_ents = _WORKER["src_tagger"].tag(sources, batch_size=job.batch_size)
    tgt_ents = (_WORKER["tgt_tagger"].tag(targets, batch_size=job.batch_size)
                if _WORKER["tgt_tagger"] is not None else [None] * len(rows))
    if job.aligner == "fast_align":
        src_tok = [tokenize(s, job.annotator.src_lang) for s in sources]
        tgt_tok = [tokenize(t, job.annotator.tgt_lang) for t in targets]
        links = _WORKER["model"].align_tokens(src_tok, tgt_tok)
        alignments = [Alignment(a, b, c) for a, b, c in zip(src_tok, tgt_tok, links)]
    else:
        alignments = align_pairs(sources, targets, job.annotator.src_lang, job.annotator.tgt_lang,
                                 method="eflomal", extra_sources=job.extra_sources,
                                 extra_targets=job.extra_targets)
    records = []
    for (line, s, t), se, te, al in zip(rows, src_ents, tgt_ents, alignments):
        accepted, rejected = job.annotator.annotate(s, t, se, te, al, stats)
        records.append({"line": line, "src": s, "tgt": t, "entities": accepted,
                        "rejected": rejected})
    shard_dir = job.out_dir / "shards"
    atomic.write_jsonl(shard_dir / f"{shard:06d}.jsonl", records)
    atomic.write_json(shard_dir / f"{shard:06d}.stats.json", stats.to_json())
    return stats


def _run_shard_in_worker(args: tuple[_Job, int]) -> int:
    _run_shard(*args)
    return args[1]


def load_user_candidates(path: str | Path) -> dict[str, Counter]:
    """A user candidate list: candidates.json, or TSV lines ``TYPE  GENDER  SRC  TGT  [COUNT]``.

    GENDER is male/female/unknown for PERSON and "-" otherwise. Target forms of declining
    languages (ru, uk) must be nominative: they are inflected into each sentence's case.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError("candidate list not found", path=path, hint="check the path")
    out: dict[str, Counter] = {}
    if path.suffix == ".json":
        try:
            lists = json.loads(read_text(path))["lists"]
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise InputError(f"not a candidates.json file ({exc})", path=path,
                             hint="use the format written by `mtdebias annotate`") from None
        for key, items in lists.items():
            for item in items:
                k = key
                if key.startswith("PERSON/") and key.count("/") == 1:  # an older, shapeless list
                    k = f"{key}/{'first' if len(item['src'].split()) == 1 else 'full'}"
                out.setdefault(k, Counter())[(item["src"], item["tgt"])] += int(item["count"])
        return out
    for number, line in enumerate(iter_lines(path), 1):
        if not line.strip() or line.startswith("#"):
            continue
        cols = line.split("\t")
        if len(cols) not in (4, 5) or cols[0] not in TYPES:
            raise InputError("expected TYPE<TAB>GENDER<TAB>SOURCE<TAB>TARGET[<TAB>COUNT] with TYPE "
                             f"in {', '.join(TYPES)}", path=path, line=number,
                             hint="fix or delete the line")
        gender, shape = None, None
        if cols[0] == "PERSON":
            gender, _, shape = cols[1].partition("/")
            if gender not in ("male", "female", "unknown", "any") or \
                    shape not in ("",) + SHAPES or (gender == "any") != (shape == "last"):
                raise InputError(f"gender '{cols[1]}' must be male, female or unknown, optionally "
                                 "with a shape (female/first, male/full, any/last, female/last)",
                                 path=path, line=number, hint="fix the second column")
            # without a shape: one word is a given name, more a full name
            shape = shape or ("first" if len(cols[2].split()) == 1 else "full")
        try:
            count = int(cols[4]) if len(cols) == 5 else 1
        except ValueError:
            raise InputError(f"count '{cols[4]}' is not an integer", path=path, line=number,
                             hint="fix the fifth column") from None
        out.setdefault(candidate_key(cols[0], gender, shape), Counter())[(cols[2], cols[3])] += count
    return out


def _candidates_json(candidates: dict[str, Counter], src_lang: str, tgt_lang: str) -> dict:
    # Sorted by frequency then text so that list order (hence draws) is reproducible.
    return {"src_lang": src_lang, "tgt_lang": tgt_lang,
            "lists": {key: [{"src": s, "tgt": t, "count": n}
                            for (s, t), n in sorted(counts.items(), key=lambda x: (-x[1], x[0]))]
                      for key, counts in sorted(candidates.items())}}


def annotate_corpus(src: str | Path, tgt: str | Path, out_dir: str | Path, src_lang: str,
                    tgt_lang: str, *, aligner: str = "fast_align",
                    types: Sequence[str] = ("PERSON",), two_sided: bool | None = None,
                    candidates: str | Path | None = None, shard_size: int = DEFAULT_SHARD_SIZE,
                    gender_of: GenderOf | None = None, n_process: int = 1,
                    extra_sources: Sequence[str] = (), extra_targets: Sequence[str] = (),
                    max_chars: int | None = DEFAULT_MAX_CHARS, progress: bool = False,
                    name_locale: str | None = None, target_evidence: bool = True,
                    gazetteer: bool = False, corpus_gender: bool = True) -> dict:
    """Annotate ``src``/``tgt`` into ``out_dir`` (resumable); returns the summary.

    ``corpus_gender``: let the corpus's own evidence (pronouns, kinship appositions) settle,
    contest or withhold support from the name table (:mod:`mtdebias.names.corpus_rule`;
    English sources only)."""
    src, tgt, out_dir = Path(src), Path(tgt), Path(out_dir)
    if aligner not in ALIGNERS:
        raise InputError(f"unknown aligner '{aligner}'", hint=f"choose one of {', '.join(ALIGNERS.entries)}")
    bad = [t for t in types if t not in TYPES]
    if bad:
        raise InputError(f"unknown entity type(s) {', '.join(bad)}",
                         hint=f"choose among {', '.join(TYPES)}")
    if load_tagger(src_lang) is None:
        raise InputError(f"no NER model for the source language '{src_lang}'",
                         hint="annotation needs source-side NER; available: en, fr, cs, ru")
    tgt_has_ner = load_tagger(tgt_lang) is not None
    if two_sided is None:
        two_sided = tgt_has_ner
    elif two_sided and not tgt_has_ner:
        raise InputError(f"no NER model for the target language '{tgt_lang}'",
                         hint="use --one-sided (alignment alone decides the target span)")
    if shard_size < 1:
        raise InputError("shard size must be at least 1", hint="pass --shard-size N with N >= 1")
    n_lines = count_lines(src)
    if count_lines(tgt) != n_lines:
        raise InputError(f"parallel files differ in length: {src} has {n_lines} lines, {tgt} has "
                         f"{count_lines(tgt)}", path=src, hint="the files must be sentence-aligned")
    if max_chars is not None and max_chars < 1:
        raise InputError(f"max_chars = {max_chars} must be at least 1", hint="pass --max-chars N with N >= 1")
    if not any(_skip_reason(s.strip(), t.strip(), max_chars) is None for s, t in zip(iter_lines(src), iter_lines(tgt))):
        # checked before anything is written: the aligner crashes on an empty corpus
        raise InputError(f"the corpus has no usable sentence pairs ({n_lines} line(s), each empty, one-sided or "
                         f"longer than {max_chars} characters)", path=src,
                         hint=f"check --src and --tgt ({tgt}): both sides need text on the same line")
    from ..names.locale import available_locales, default_locale

    if gender_of is None:
        if name_locale is not None and name_locale not in available_locales():
            raise InputError(f"no name table for the locale {name_locale!r}",
                             hint=f"use one of {', '.join(available_locales())} "
                                  "(--name-locale / augment.name_locale)")
        name_locale = name_locale or default_locale(src_lang, tgt_lang)
    else:
        name_locale = "custom"

    from ..signature import hash_file

    config = {"src": hash_file(src), "tgt": hash_file(tgt), "src_lang": src_lang,
              "tgt_lang": tgt_lang, "aligner": aligner, "types": list(types),
              "two_sided": two_sided, "shard_size": shard_size,
              "extra": hash_json([list(extra_sources), list(extra_targets)]), "max_chars": max_chars,
              "name_locale": name_locale, "target_evidence": target_evidence,
              "gazetteer": gazetteer, "person_rules": PERSON_RULES, "corpus_gender": corpus_gender}
    config_path = out_dir / "work" / "config.json"
    if config_path.exists():
        # folders written before the length cap existed hold the default
        previous = {"max_chars": DEFAULT_MAX_CHARS, **json.loads(config_path.read_text(encoding="utf-8"))}
        if previous != config:
            raise InputError("this output directory holds an annotation of other input or "
                             "settings", path=config_path,
                             hint="use a new --out directory, or delete this one to start over")
    else:
        atomic.write_json(config_path, config)

    if aligner == "fast_align":
        work = out_dir / "work"
        if not (work / "forward.probs").exists():
            corpus = work / "align.txt"
            tmp = work / ".align.txt.tmp"

            def lines():
                for s, t in zip(iter_lines(src), iter_lines(tgt)):
                    if _skip_reason(s.strip(), t.strip(), max_chars) is not None:
                        continue
                    a = aligner_line(tokenize(s.strip(), src_lang))
                    b = aligner_line(tokenize(t.strip(), tgt_lang))
                    if a and b:
                        yield a, b
                for s, t in zip(extra_sources, extra_targets):
                    a, b = aligner_line(tokenize(s, src_lang)), aligner_line(tokenize(t, tgt_lang))
                    if a and b:
                        yield a, b

            from ..align import write_fast_align_corpus

            write_fast_align_corpus(lines(), tmp)
            os.replace(tmp, corpus)
            FastAlignModel.train(corpus, work)

    annotator = PairAnnotator(src_lang, tgt_lang, tuple(types), two_sided, gender_of,
                              None if name_locale == "custom" else name_locale, target_evidence)
    if "PERSON" in types:
        annotator.warm()
    job = _Job(src, tgt, out_dir, shard_size, annotator, aligner, list(extra_sources),
               list(extra_targets), gazetteer=gazetteer, max_chars=max_chars)
    n_shards = max(1, -(-n_lines // shard_size))
    shard_dir = out_dir / "shards"
    todo = [k for k in range(n_shards) if not (shard_dir / f"{k:06d}.stats.json").exists()]
    bar = None
    if progress:
        from ..progress import progress as show_progress

        bar = show_progress(total=n_shards, initial=n_shards - len(todo), unit="shard", desc="annotate")
    if n_process > 1 and len(todo) > 1:
        import multiprocessing

        # fork: workers inherit the gender function and load their NER model and aligner once.
        with multiprocessing.get_context("fork").Pool(n_process) as pool:
            for _ in pool.imap_unordered(_run_shard_in_worker, [(job, k) for k in todo]):
                if bar:
                    bar.update()
    else:
        for k in todo:
            _run_shard(job, k)
            if bar:
                bar.update()
    if bar:
        bar.close()
    _WORKER.clear()
    shard_files = [shard_dir / f"{k:06d}" for k in range(n_shards)]
    return finalize(out_dir, shard_files, src_lang, tgt_lang, candidates, config)


def finalize(out_dir: Path, shard_files: Sequence[Path], src_lang: str, tgt_lang: str,
             user_candidates: str | Path | None, config: dict) -> dict:
    """Concatenate shard files (paths without suffix) into annotated.jsonl; merge statistics."""
    total = ShardStats()
    for shard in shard_files:
        total.add(ShardStats.from_json(json.loads(shard.with_suffix(".stats.json").read_text(encoding="utf-8"))))
    # the corpus's own evidence settles, contests or fails to support the table (.corpus_gender);
    # accepted records are relabelled on the way into annotated.jsonl, so the candidate lists
    # and accepted counts are recounted from them
    relabeller = Relabeller(total.name_evidence, src_lang, enabled=config.get("corpus_gender", True))
    accepted: Counter = Counter()
    merged: dict[str, Counter] = {}
    with atomic.atomic_open(out_dir / "annotated.jsonl") as out:
        for shard in shard_files:
            with shard.with_suffix(".jsonl").open(encoding="utf-8") as handle:
                for line in handle:
                    record = json.loads(line)
                    record["entities"] = [relabeller.relabel(e) for e in record["entities"]]
                    for ent in record["entities"]:
                        accepted[ent["key"]] += 1
                        if ent.get("tgt_form") is not None:
                            merged.setdefault(ent["key"], Counter())[(ent["src_text"], ent["tgt_form"])] += 1
                    out.write(atomic.json_line(record))
    total.accepted = accepted
    atomic.write_json(out_dir / "corpus_genders.json", corpus_genders_json(total.name_evidence, relabeller.outcomes))
    if user_candidates is not None:
        for key, counts in load_user_candidates(user_candidates).items():
            merged.setdefault(key, Counter()).update(counts)
    atomic.write_json(out_dir / "candidates.json", _candidates_json(merged, src_lang, tgt_lang))
    summary = total.to_json()
    del summary["name_evidence"]
    summary["corpus_gender"] = relabeller.summary()
    persons = {k: n for k, n in total.entities.items() if k.startswith("PERSON/")}
    n_persons = sum(persons.values())
    gendered = sum(n for k, n in persons.items() if k.split("/")[1] in ("male", "female"))
    accepted_persons = {k: n for k, n in total.accepted.items() if k.startswith("PERSON/")}
    accepted_gendered = sum(n for k, n in accepted_persons.items() if k.split("/")[1] in ("male", "female"))
    summary.update({
        "name_locale": config.get("name_locale"),
        "coverage": {"locale": config.get("name_locale"), "person_mentions": n_persons,
                     "with_gender": gendered,
                     "pct": round(100.0 * gendered / n_persons, 1) if n_persons else None,
                     "by_shape": _by_shape(persons),
                     # after the corpus rule: the accepted mentions SwitchEntity may switch
                     "accepted_person_mentions": sum(accepted_persons.values()),
                     "accepted_with_gender": accepted_gendered,
                     "accepted_pct": round(100.0 * accepted_gendered / sum(accepted_persons.values()), 1)
                     if accepted_persons else None},
        "gender_conflict": total.rejected.get("gender_conflict", 0),
        "shards": len(shard_files), "src_lang": src_lang, "tgt_lang": tgt_lang,
        "two_sided": config["two_sided"], "aligner": config["aligner"], "types": config["types"],
        "candidate_list_sizes": {k: len(v) for k, v in sorted(merged.items())},
        "user_candidates": None if user_candidates is None else str(user_candidates),
        "signature": str(Signature("switchentity-annotate", data=hash_json(
            [config["src"], config["tgt"]]), settings={
                "aligner": config["aligner"], "types": "+".join(config["types"]),
                "two_sided": config["two_sided"], "langs": f"{src_lang}-{tgt_lang}",
                "name_locale": config.get("name_locale", "-")})),
    })
    atomic.write_json(out_dir / "summary.json", summary)
    return summary


def _by_shape(person_counts: dict[str, int]) -> dict[str, int]:
    shapes: Counter = Counter()
    for key, n in person_counts.items():
        parts = key.split("/")
        shapes[parts[2] if len(parts) == 3 else "-"] += n
    return dict(sorted(shapes.items()))


def merge_annotations(dirs: Sequence[str | Path], out_dir: str | Path,
                      user_candidates: str | Path | None = None) -> dict:
    """Merge finished annotation directories (e.g. corpus parts annotated on different machines).

    Their shards are concatenated in the order given and their counts and candidate lists are
    summed. All parts must share languages, aligner, types and sidedness.
    """
    out_dir = Path(out_dir)
    configs, shard_files = [], []
    for d in map(Path, dirs):
        config_path = d / "work" / "config.json"
        if not config_path.is_file():
            raise InputError("not an annotation directory (no work/config.json)", path=d,
                             hint="pass directories written by `mtdebias annotate`")
        config = json.loads(config_path.read_text(encoding="utf-8"))
        configs.append(config)
        stats = sorted((d / "shards").glob("*.stats.json"))
        shard_files += [p.with_name(p.name[:-len(".stats.json")]) for p in stats]
    keys = ("src_lang", "tgt_lang", "aligner", "types", "two_sided", "name_locale")
    if any(tuple(c.get(k) for k in keys) != tuple(configs[0].get(k) for k in keys) for c in configs):
        raise InputError("annotation directories were made with different languages or settings",
                         path=dirs[0], hint="merge only parts annotated with the same options")
    merged_config = dict(configs[0], src=hash_json([c["src"] for c in configs]),
                         tgt=hash_json([c["tgt"] for c in configs]))
    atomic.write_json(out_dir / "work" / "config.json", merged_config)
    return finalize(out_dir, shard_files, configs[0]["src_lang"], configs[0]["tgt_lang"],
                    user_candidates, merged_config)


def annotate_lists(sources: Sequence[str], targets: Sequence[str], out_dir: str | Path,
                   src_lang: str, tgt_lang: str, **options) -> dict:
    """:func:`annotate_corpus` for in-memory sentence lists (e.g. a trainer's corpus).

    The lists are written once to ``out_dir/input.{src,tgt}`` (only when their content changed,
    so a resumed run finds the same files and skips finished shards).
    """
    if len(sources) != len(targets):
        raise InputError(f"{len(sources)} sources but {len(targets)} targets",
                         hint="pass sentence-aligned lists of equal length")
    out_dir = Path(out_dir)
    paths = []
    for side, lines in (("src", sources), ("tgt", targets)):
        path = out_dir / f"input.{side}"
        text = "".join(line.replace("\n", " ") + "\n" for line in lines)
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            atomic.write_text(path, text)
        paths.append(path)
    return annotate_corpus(paths[0], paths[1], out_dir, src_lang, tgt_lang, **options)
