"""Word-sense items (DiBiMT-style) in JSON Lines: format, validation, sense statistics.

One item per line::

    {"id": "bank.n.river.1",
     "sentence": "We pulled the canoe up onto the bank of the river.",
     "word": {"lemma": "bank", "span": [33, 37]},
     "pos": "NOUN",
     "sense": "bank%1:17:01::",
     "targets": {
       "de": {"good": ["Ufer", "Flussufer"],
              "bad": [{"lemma": "Bank", "senses": ["bank%1:14:00::", "bank%1:06:01::"]}],
              "good_sentences": ["Wir zogen das Kanu ans Ufer des Flusses."],
              "bad_sentences": ["Wir zogen das Kanu auf die Bank des Flusses."]}},
     "mu": {"bank%1:17:01::": 1, "bank%1:14:00::": 2},
     "delta": 10}

* ``word.span`` is the [start, end) character span of the (possibly inflected) word in
  ``sentence``; ``word.lemma`` is its dictionary form.
* ``sense`` is the correct sense: a WordNet 3.0 sense key, or any id when ``mu``/``delta`` are
  given in the item.
* ``targets`` maps a language code to lemmas that show the correct sense (``good``) and lemmas
  of other senses (``bad``, each with the sense ids it lexicalises). A multi-word lemma is
  written with spaces («tomar prestado»). ``good_sentences``/``bad_sentences`` (optional, both
  or neither) are full translations for the forced-decoding variant.
* ``mu`` (optional): the sense frequency index of senses (an object sense → rank, or a number
  for the correct sense alone); ``delta`` (optional): the lemma's number of senses. Missing
  values come from WordNet (:mod:`mtdebias.lang.wordnet`) when the sense ids are sense keys.

Every problem is an :class:`InputError` naming the file and line, raised before any work.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from ...errors import InputError
from ...lang.lemmatize import SUPPORTED_LANGS, fold
from ...lang.wordnet import POS_NAMES, WordNet, load_wordnet, parse_sense_key, wordnet_available
from ...textio import read_lines

ITEM_KEYS = ("id", "sentence", "word", "pos", "sense", "targets", "mu", "delta", "note")
TARGET_KEYS = ("good", "bad", "good_sentences", "bad_sentences")
REQUIRED = ("id", "sentence", "word", "pos", "sense", "targets")


@dataclass(frozen=True)
class BadLemma:
    lemma: str
    senses: tuple[str, ...]


@dataclass(frozen=True)
class TargetSide:
    good: tuple[str, ...]
    bad: tuple[BadLemma, ...]
    good_sentences: tuple[str, ...] = ()
    bad_sentences: tuple[str, ...] = ()


@dataclass(frozen=True)
class WSDItem:
    id: str
    sentence: str
    lemma: str
    span: tuple[int, int]
    pos: str
    sense: str
    targets: Mapping[str, TargetSide]
    mu: Mapping[str, int] = field(default_factory=dict)  # sense id → μ (given or from WordNet)
    delta: int | None = None
    path: str = ""
    line: int = 0

    @property
    def word(self) -> str:
        return self.sentence[self.span[0]:self.span[1]]

    @property
    def correct_mu(self) -> int | None:
        return self.mu.get(self.sense)

    def sense_mu(self, sense: str) -> int | None:
        return self.mu.get(sense)


def _fail(message: str, path: Path, line: int, hint: str | None = None) -> InputError:
    return InputError(message, path=path, line=line, hint=hint)


def _strings(value: Any, what: str, path: Path, line: int, *, allow_empty: bool = False) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise _fail(f"{what} must be a list of non-empty strings", path, line)
    if not value and not allow_empty:
        raise _fail(f"{what} is empty", path, line, "list at least one")
    return tuple(" ".join(v.split()) for v in value)


def _unknown_keys(obj: Mapping[str, Any], known: tuple[str, ...], where: str, path: Path, line: int) -> None:
    for key in obj:
        if key not in known:
            close = difflib.get_close_matches(key, known, n=1)
            raise _fail(f"unknown key {key!r} in {where}", path, line,
                        f"did you mean {close[0]!r}?" if close else f"known keys: {', '.join(known)}")


def _target(lang: str, raw: Any, sense: str, path: Path, line: int) -> TargetSide:
    where = f"targets.{lang}"
    if lang not in SUPPORTED_LANGS:
        raise _fail(f"unknown target language {lang!r}", path, line, f"use one of {', '.join(SUPPORTED_LANGS)}")
    if not isinstance(raw, dict):
        raise _fail(f"{where} must be an object with 'good' and 'bad'", path, line)
    _unknown_keys(raw, TARGET_KEYS, where, path, line)
    for key in ("good", "bad"):
        if key not in raw:
            raise _fail(f"{where} has no {key!r} list", path, line)
    good = _strings(raw["good"], f"{where}.good", path, line)
    if not isinstance(raw["bad"], list):
        raise _fail(f"{where}.bad must be a list of {{\"lemma\": ..., \"senses\": [...]}}", path, line)
    bad = []
    for k, entry in enumerate(raw["bad"]):
        if not isinstance(entry, dict) or set(entry) != {"lemma", "senses"}:
            raise _fail(f"{where}.bad[{k}] must be {{\"lemma\": ..., \"senses\": [...]}}", path, line,
                        "every bad lemma names the sense(s) it belongs to")
        lemma = _strings([entry["lemma"]], f"{where}.bad[{k}].lemma", path, line)[0]
        senses = _strings(entry["senses"], f"{where}.bad[{k}].senses", path, line)
        if sense in senses:
            raise _fail(f"{where}.bad[{k}] ({lemma!r}) lists the correct sense {sense!r}", path, line,
                        "a bad lemma belongs to other senses only")
        bad.append(BadLemma(lemma, senses))
    if not bad:
        raise _fail(f"{where}.bad is empty", path, line, "list at least one lemma of another sense")
    shared = {fold(g) for g in good} & {fold(b.lemma) for b in bad}
    if shared:
        raise _fail(f"{where}: {', '.join(sorted(shared))} is both good and bad", path, line,
                    "a lemma that does not tell the senses apart cannot decide an item")
    sentences = {key: _strings(raw.get(key, []), f"{where}.{key}", path, line, allow_empty=True)
                 for key in ("good_sentences", "bad_sentences")}
    if bool(sentences["good_sentences"]) != bool(sentences["bad_sentences"]):
        raise _fail(f"{where}: give both good_sentences and bad_sentences, or neither", path, line,
                    "forced decoding compares a GOOD with a BAD translation")
    return TargetSide(good, tuple(bad), sentences["good_sentences"], sentences["bad_sentences"])


def _is_word_boundary(sentence: str, start: int, end: int) -> bool:
    before = sentence[start - 1] if start > 0 else " "
    after = sentence[end] if end < len(sentence) else " "
    return not before.isalnum() and not after.isalnum()


def parse_item(raw: Any, path: Path, line: int) -> WSDItem:
    """One validated item from a decoded JSON object (``path``/``line`` for the errors)."""
    if not isinstance(raw, dict):
        raise _fail("an item must be a JSON object", path, line)
    _unknown_keys(raw, ITEM_KEYS, "the item", path, line)
    for key in REQUIRED:
        if key not in raw:
            raise _fail(f"missing key {key!r}", path, line, f"every item has {', '.join(REQUIRED)}")
    for key in ("id", "sentence", "pos", "sense"):
        if not isinstance(raw[key], str) or not raw[key].strip():
            raise _fail(f"{key!r} must be a non-empty string", path, line)
    sentence = raw["sentence"]
    word = raw["word"]
    if not isinstance(word, dict) or set(word) != {"lemma", "span"}:
        raise _fail("'word' must be {\"lemma\": ..., \"span\": [start, end]}", path, line)
    lemma = word["lemma"]
    if not isinstance(lemma, str) or not lemma.strip():
        raise _fail("word.lemma must be a non-empty string", path, line)
    span = word["span"]
    if not (isinstance(span, list) and len(span) == 2 and all(isinstance(v, int) and not isinstance(v, bool)
                                                               for v in span)):
        raise _fail("word.span must be [start, end] (two integers)", path, line)
    start, end = span
    if not 0 <= start < end <= len(sentence):
        raise _fail(f"word.span {span} lies outside the sentence of {len(sentence)} characters", path, line,
                    "the span is a [start, end) character range into 'sentence'")
    surface = sentence[start:end]
    if surface != surface.strip() or not _is_word_boundary(sentence, start, end):
        raise _fail(f"word.span {span} covers {surface!r}, which does not start and end at word boundaries",
                    path, line, "the span must cover whole words")
    pos = raw["pos"].upper()
    if pos not in POS_NAMES:
        raise _fail(f"pos {raw['pos']!r} is not one of {', '.join(POS_NAMES)}", path, line)
    sense = raw["sense"].strip()
    if "%" in sense:
        try:
            key_lemma, key_pos = parse_sense_key(sense)
        except ValueError as exc:
            raise _fail(str(exc), path, line) from None
        if key_lemma != "_".join(lemma.lower().split()) or key_pos != pos:
            raise _fail(f"sense key {sense!r} is a sense of ({key_lemma}, {key_pos}), not of "
                        f"({lemma}, {pos})", path, line, "the sense must belong to word.lemma with this pos")
    targets = raw["targets"]
    if not isinstance(targets, dict) or not targets:
        raise _fail("'targets' must map at least one language code to its good/bad lemmas", path, line)
    sides = {lang: _target(lang, side, sense, path, line) for lang, side in targets.items()}
    mu: dict[str, int] = {}
    if "mu" in raw:
        given = raw["mu"]
        if isinstance(given, int) and not isinstance(given, bool):
            given = {sense: given}
        if not isinstance(given, dict) or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1
                                                  for v in given.values()):
            raise _fail("'mu' must be a positive integer or an object sense → positive integer", path, line)
        mu = dict(given)
    delta = raw.get("delta")
    if delta is not None and (not isinstance(delta, int) or isinstance(delta, bool) or delta < 1):
        raise _fail("'delta' must be a positive integer", path, line)
    if delta is not None and any(v > delta for v in mu.values()):
        raise _fail(f"a mu value exceeds delta = {delta}", path, line,
                    "μ ranks the lemma's senses, so it is at most their number")
    return WSDItem(raw["id"].strip(), sentence, " ".join(lemma.split()), (start, end), pos, sense, sides, mu,
                   delta, str(path), line)


def load_items(path: str | Path, *, wordnet: WordNet | None | bool = None) -> list[WSDItem]:
    """Read and validate a JSONL item file, then fill μ/δ from WordNet where missing.

    ``wordnet``: a :class:`WordNet`, ``False`` to never use one, or ``None`` to use the
    system's WordNet 3.0 when it is installed and some item lacks μ or δ. A sense key WordNet
    does not know is then an error.
    """
    path = Path(path)
    if not path.is_file():
        raise InputError("item file not found", path=path, hint="see mtdebias/data/wsd/README.md for the format")
    items: list[WSDItem] = []
    seen: dict[str, int] = {}
    for number, text in enumerate(read_lines(path), 1):
        if not text.strip() or text.lstrip().startswith("//"):
            continue
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"not valid JSON: {exc.msg} (column {exc.colno})", path=path, line=number,
                             hint="one JSON object per line") from None
        item = parse_item(raw, path, number)
        if item.id in seen:
            raise InputError(f"item id {item.id!r} already used on line {seen[item.id]}", path=path, line=number,
                             hint="give every item its own id")
        seen[item.id] = number
        items.append(item)
    if not items:
        raise InputError("no items in file", path=path, hint="one JSON object per line")
    if wordnet is None:
        # reading WordNet takes seconds: only when some item lacks a statistic it could give
        wordnet = load_wordnet() if wordnet_available() and any(map(_needs_wordnet, items)) else False
    if wordnet:
        items = [with_wordnet_stats(item, wordnet) for item in items]
    return items


def _needs_wordnet(item: WSDItem) -> bool:
    senses = [item.sense] + [s for side in item.targets.values() for bad in side.bad for s in bad.senses]
    return item.delta is None or any("%" in s and s not in item.mu for s in senses)


def with_wordnet_stats(item: WSDItem, wordnet: WordNet) -> WSDItem:
    """Fill μ of every sense key the item names, and δ, from WordNet (given values win)."""
    mu = dict(item.mu)
    senses = [item.sense] + [s for side in item.targets.values() for bad in side.bad for s in bad.senses]
    for sense in senses:
        if "%" not in sense or sense in mu:
            continue
        value = wordnet.mu(sense)
        if value is None:
            raise InputError(f"sense key {sense!r} is not in WordNet 3.0 ({wordnet.folder})", path=item.path,
                             line=item.line, hint="check the key (index.sense lists them all) or give mu in the item")
        mu[sense] = value
    delta = item.delta if item.delta is not None else (wordnet.delta(item.lemma, item.pos) or None)
    return WSDItem(item.id, item.sentence, item.lemma, item.span, item.pos, item.sense, item.targets, mu, delta,
                   item.path, item.line)


def item_to_json(item: WSDItem) -> dict[str, Any]:
    """The item as a JSON object in the file format (μ/δ included when known)."""
    out: dict[str, Any] = {"id": item.id, "sentence": item.sentence,
                           "word": {"lemma": item.lemma, "span": list(item.span)}, "pos": item.pos,
                           "sense": item.sense, "targets": {}}
    for lang, side in item.targets.items():
        entry: dict[str, Any] = {"good": list(side.good),
                                 "bad": [{"lemma": b.lemma, "senses": list(b.senses)} for b in side.bad]}
        if side.good_sentences:
            entry["good_sentences"] = list(side.good_sentences)
            entry["bad_sentences"] = list(side.bad_sentences)
        out["targets"][lang] = entry
    if item.mu:
        out["mu"] = dict(item.mu)
    if item.delta is not None:
        out["delta"] = item.delta
    return out
