"""SwitchEntity: every epoch, replace each annotated entity by a random one of the same kind.

Wang et al.'s augmentation: an accepted entity pair ⟨t_x, t_y⟩ in a sentence pair is replaced on
both sides by a pair drawn uniformly from the candidate list of the same type (and, for persons,
the same gender — switching a man's name for a woman's would break agreement such as
"Kandidat"/"Kandidatin"). A new draw every epoch flattens the skewed name distribution while
keeping the distribution over types.

Draws are a pure function of (seed, epoch, pair index, name slot), computed with a vectorised
hash rather than a sequential RNG, so any epoch can be regenerated alone and the result does not
depend on which other pairs exist. Within one pair all mentions of the same name share one slot,
so "Peter said Peter …" stays consistent. Entity offsets are read once at construction; a
switch is only string slicing.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Sequence

import numpy as np

from ..store import atomic
from ..errors import InputError
from ..lang.languages import langs_with
from ..names.locale import same_name
from .reinflect import Reinflector, policy_for

UNKNOWN_POLICIES = ("among_unknown", "never")
# languages that mark a person's gender nowhere in grammar (no gendered pronouns or agreement):
# only between two of these may persons of unknown gender be switched among themselves
GENDERLESS_LANGS = langs_with("genderless")
_M1, _M2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser: a bijective scramble of 64-bit integers (vectorised)."""
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * _M1
        x = (x ^ (x >> np.uint64(27))) * _M2
        return x ^ (x >> np.uint64(31))


def uniform_draws(seed: int, epoch: int, pair: np.ndarray, slot: np.ndarray,
                  stream: int) -> np.ndarray:
    """Uniform [0, 1) numbers, one per (pair, slot), deterministic in (seed, epoch, stream)."""
    with np.errstate(over="ignore"):
        h = _mix(np.uint64(seed & 0xFFFFFFFFFFFFFFFF) * _GOLDEN + np.uint64(epoch))
        h = _mix(h ^ (np.uint64(stream) * _GOLDEN))
        x = _mix(h ^ pair.astype(np.uint64) * _M1)
        x = _mix(x ^ slot.astype(np.uint64) * _M2)
    return (x >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))


class SwitchEntity:
    """A trainer pair source (contract §4) whose ``pairs(epoch)`` returns a switched corpus."""

    def __init__(self, annotated_dir: str | Path, seed: int = 0, p: float = 1.0,
                 types: Sequence[str] = ("PERSON",), match_gender: bool = True,
                 unknown_policy: str = "never", swap_log: str | Path | None = None):
        self.dir = Path(annotated_dir)
        if unknown_policy not in UNKNOWN_POLICIES:
            raise InputError(f"unknown_policy '{unknown_policy}'",
                             hint=f"choose one of {', '.join(UNKNOWN_POLICIES)}")
        if not 0.0 <= p <= 1.0:
            raise InputError(f"switch probability p={p} is outside [0, 1]", hint="pass 0 <= p <= 1")
        for name in ("annotated.jsonl", "candidates.json"):
            if not (self.dir / name).is_file():
                raise InputError(f"{name} is missing", path=self.dir / name,
                                 hint="run `mtdebias annotate` to create this directory")
        self.seed, self.p, self.types = seed, p, tuple(types)
        self.match_gender, self.unknown_policy = match_gender, unknown_policy
        self.swap_log = None if swap_log is None else Path(swap_log)
        cand = json.loads((self.dir / "candidates.json").read_text(encoding="utf-8"))
        self.tgt_lang = cand.get("tgt_lang", "xx")
        self.src_lang = cand.get("src_lang", "xx")
        if unknown_policy == "among_unknown" and not (
                self.src_lang in GENDERLESS_LANGS and self.tgt_lang in GENDERLESS_LANGS):
            raise InputError(f"unknown_policy 'among_unknown' would switch persons of unknown "
                             f"gender among themselves in {self.src_lang}→{self.tgt_lang}, where "
                             "grammar marks a person's gender (pronouns, agreement): the switch "
                             "could change someone's gender", path=self.dir / "candidates.json",
                             hint="use unknown_policy 'never' (the default)")
        self.policy = policy_for(self.tgt_lang)
        self._reinflector = Reinflector(self.tgt_lang) if self.policy == "morph" else None
        self._build_lists(cand["lists"])
        self._load(self.dir / "annotated.jsonl")

    # ------------------------------------------------------------------ construction
    def _list_of(self, key: str) -> str | None:
        """The candidate list an entity (or candidate) with annotation key ``key`` belongs to.

        Person keys are ``PERSON/<gender>/<shape>``: a mention is only switched for a candidate
        of the same shape and gender ("any"/"male"/"female" *form* for surnames alone). Keys
        without a shape come from older annotations or user lists (shape taken as given).
        """
        parts = key.split("/")
        type_ = parts[0]
        if type_ not in self.types:
            return None
        if type_ != "PERSON":
            return type_
        gender = parts[1] if len(parts) > 1 else "unknown"
        shape = parts[2] if len(parts) > 2 else ""
        if gender == "unknown" and self.unknown_policy == "never":
            return None
        if shape == "single":  # neither clearly a given name nor a surname: no safe candidate
            return None
        if self.match_gender:
            return key
        return f"PERSON/{shape}" if shape else "PERSON"

    def _build_lists(self, lists: dict) -> None:
        merged: dict[str, list[tuple[str, str]]] = {}
        self.dropped_candidates = 0
        for key in sorted(lists):
            target = self._list_of(key)
            if target is None:
                continue
            for c in lists[key]:
                # a person's name must be the same on both sides (a user list or an old
                # annotation may pair "Caron" with "Laurent Caron")
                if key.startswith("PERSON") and not same_name(c["src"], c["tgt"]):
                    self.dropped_candidates += 1
                    continue
                merged.setdefault(target, []).append((c["src"], c["tgt"]))
        self.list_names = sorted(merged)
        self.lists = [sorted(set(merged[name])) for name in self.list_names]
        self._list_index = {name: k for k, name in enumerate(self.list_names)}

    def _load(self, path: Path) -> None:
        self.sources: list[str] = []
        self.targets: list[str] = []
        self.skipped = Counter()
        # pair index → [(src start, src end, tgt start, tgt end, slot, case, gender)]
        mentions: dict[int, list[tuple]] = {}
        slot_pair, slot_list = [], []
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                try:
                    row = json.loads(line)
                    src, tgt = row["src"], row["tgt"]
                except (json.JSONDecodeError, KeyError, TypeError) as exc:
                    raise InputError(f"not an annotation record ({exc})", path=path, line=number,
                                     hint="re-run `mtdebias annotate` to rebuild the file") from None
                k = len(self.sources)
                self.sources.append(src)
                self.targets.append(tgt)
                rejected_texts = {src[a:b] for a, b in (r["src"] for r in row.get("rejected", ()))}
                slots: dict[tuple[int, str], int] = {}
                found = []
                listed = [(ent, self._list_of(ent["key"])) for ent in row["entities"]]
                reasons = [self._unswitchable(ent, name, rejected_texts) if name is not None else None
                           for ent, name in listed]
                # one unswitchable mention of a name keeps every mention of it: otherwise the pair
                # would name two different people
                frozen = {ent["src_text"] for (ent, _), reason in zip(listed, reasons) if reason}
                for (ent, name), reason in zip(listed, reasons):
                    if name is None:
                        if ent["type"] == "PERSON" and ent["type"] in self.types:
                            self.skipped["unknown_gender_or_shape"] += 1
                        continue
                    if reason or ent["src_text"] in frozen:
                        self.skipped[reason or "other_mention_unswitchable"] += 1
                        continue
                    list_id = self._list_index[name]
                    slot_key = (list_id, ent["src_text"])
                    if slot_key not in slots:
                        slots[slot_key] = len(slot_pair)
                        slot_pair.append(k)
                        slot_list.append(list_id)
                    found.append((ent["src"][0], ent["src"][1], ent["tgt"][0], ent["tgt"][1],
                                  slots[slot_key], ent.get("tgt_case"), ent.get("gender")))
                if found:
                    mentions[k] = found
        self._mentions = mentions
        self._slot_pair = np.asarray(slot_pair, dtype=np.int64)
        self._slot_list = np.asarray(slot_list, dtype=np.int64)
        # slot number within its pair (0, 1, …) — part of the hash key, independent of the corpus
        within = np.zeros(len(slot_pair), dtype=np.int64)
        for idx in range(1, len(slot_pair)):
            if slot_pair[idx] == slot_pair[idx - 1]:
                within[idx] = within[idx - 1] + 1
        self._slot_within = within
        self._list_sizes = np.asarray([len(x) for x in self.lists] or [0], dtype=np.int64)

    def _unswitchable(self, ent: dict, name: str, rejected_texts: set[str]) -> str | None:
        if name not in self._list_index or not self.lists[self._list_index[name]]:
            return "no_candidates"
        if ent["src_text"] in rejected_texts:
            # another mention of this name could not be paired: switching only some would make
            # the sentence talk about two different people
            return "inconsistent_mention"
        if self.policy == "morph" and ent.get("tgt_case") is None:
            return "target_form_unparsed"
        if self.policy == "identity" and ent.get("tgt_case") != "base":
            return "target_form_inflected"
        return None

    def __len__(self) -> int:
        return len(self.sources)

    # ------------------------------------------------------------------ switching
    def choices(self, epoch: int) -> tuple[np.ndarray, np.ndarray]:
        """(candidate index per slot, whether the slot is switched) for ``epoch``."""
        n = len(self._slot_pair)
        if n == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool)
        u = uniform_draws(self.seed, epoch, self._slot_pair, self._slot_within, 0)
        index = np.minimum((u * self._list_sizes[self._slot_list]).astype(np.int64),
                           self._list_sizes[self._slot_list] - 1)
        if self.p >= 1.0:
            switched = np.ones(n, dtype=bool)
        else:
            switched = uniform_draws(self.seed, epoch, self._slot_pair, self._slot_within, 1) < self.p
        return index, switched

    def _target_form(self, form: str, case: str | None, gender: str | None) -> tuple[str | None, str]:
        """(target text, "") or (None, reason). ``case`` may list several readings "gent|datv"."""
        if self.policy != "morph" or case is None:
            return form, ""
        forms = {self._reinflector.inflect(form, c, gender) for c in case.split("|")}
        if None in forms:
            return None, "inflection_failed"
        if len(forms) > 1:
            # the original's case is ambiguous and the candidate's forms differ between the
            # readings: any choice may be ungrammatical, so this mention keeps its name
            return None, "ambiguous_case"
        return forms.pop(), ""

    def pairs(self, epoch: int) -> tuple[list[str], list[str]]:
        """This epoch's switched (sources, targets); the annotated corpus itself is unchanged."""
        index, switched = self.choices(epoch)
        index_l, switched_l, list_l = index.tolist(), switched.tolist(), self._slot_list.tolist()
        sources, targets = list(self.sources), list(self.targets)
        lists = self.lists
        morph = self.policy == "morph"
        log = [] if self.swap_log is not None else None
        stats = Counter()
        switched_n = kept_n = 0
        # the hot loop: plain tuples and local names, one splice per side and pair
        for k, found in self._mentions.items():
            planned, failed = [], None
            for s0, s1, t0, t1, slot, case, gender in found:
                if not switched_l[slot]:
                    kept_n += 1
                    continue
                new_src, new_tgt = lists[list_l[slot]][index_l[slot]]
                if morph and case is not None:
                    new_tgt, reason = self._target_form(new_tgt, case, gender)
                    if new_tgt is None:
                        stats[reason] += 1
                        failed = (failed or set()) | {slot}
                        continue
                planned.append((s0, s1, t0, t1, slot, new_src, new_tgt))
            if failed:  # a name one of whose mentions cannot be switched keeps all its mentions
                stats["kept_with_unswitchable_mention"] += sum(1 for p in planned if p[4] in failed)
                planned = [p for p in planned if p[4] not in failed]
            if not planned:
                continue
            switched_n += len(planned)
            sources[k] = _splice(self.sources[k], [(s0, s1, new_src) for s0, s1, _, _, _, new_src, _ in planned])
            targets[k] = _splice(self.targets[k], [(t0, t1, new_tgt) for _, _, t0, t1, _, _, new_tgt in planned])
            if log is not None:
                src, tgt = self.sources[k], self.targets[k]
                log.extend({"pair": k, "src": [src[s0:s1], new_src], "tgt": [tgt[t0:t1], new_tgt]}
                           for s0, s1, t0, t1, _, new_src, new_tgt in planned)
        if switched_n:
            stats["switched"] = switched_n
        if kept_n:
            stats["kept_by_p"] = kept_n
        stats.update({f"skipped_{r}": n for r, n in self.skipped.items()})
        if self.dropped_candidates:
            stats["dropped_inconsistent_candidates"] = self.dropped_candidates
        self.last_stats = dict(stats)
        if log is not None:
            atomic.write_jsonl(self.swap_log / f"swaps-epoch{epoch:04d}.jsonl", log)
        return sources, targets


def _splice(text: str, parts: list[tuple[int, int, str]]) -> str:
    """Replace non-overlapping [start, end) spans of ``text``; spans may come in any order."""
    if len(parts) == 1:
        start, end, new = parts[0]
        return text[:start] + new + text[end:]
    parts.sort()
    pieces, last = [], 0
    for start, end, new in parts:
        pieces.append(text[last:start])
        pieces.append(new)
        last = end
    pieces.append(text[last:])
    return "".join(pieces)
