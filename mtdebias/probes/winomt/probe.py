"""WinoMT (Stanovsky et al. 2019): does a translation keep the gender that coreference fixes?

Each English sentence names two professions and a pronoun that resolves to one of them. The
probe translates the sentences, word-aligns source and translation (the aligner is trained on
the evaluated pairs themselves, as mt_gender does, plus any extra pairs given), finds the
target words aligned to the profession and asks :func:`mtdebias.lang.detect_gender` for their
gender. Everything the decision rested on is logged per attempt, so every ``undetected`` case
can be inspected.

Scoring follows mt_gender's ``evaluate_bias``: every item is in the accuracy denominator;
an item is correct when the detected gender equals the gold gender, so an undetected
profession is wrong, and a ``neutral`` gold item is correct only when ``neutral`` is detected
(in a language with grammatical gender that practically never happens, which is why mt_gender's
accuracies sit below the male/female ones). F1 per gender uses precision over all items
predicted with that gender and recall over all gold items of that gender.

Before any of that, the translation-validity gate (:mod:`mtdebias.probes.validity`) checks each
reply: an empty one, a runaway repetition, a copy of the English source or a reply not in the
target language cannot show the profession's gender, so it is neither aligned nor judged, and
it is left out of every gender metric (not counted as undetected: that would blame the
detector for a model that did not translate). ``valid_rate`` and ``invalid.<reason>`` say how
many were left out; at or below :data:`~mtdebias.probes.validity.VALID_FLOOR` the result is
degenerate.

Where the items carry stereotype groups, ``accuracy_pro.<gender>`` and ``accuracy_anti.<gender>``
(gender: female, male) are the accuracy within each gold gender × stereotype cell: ΔS split by
gender, the numbers behind the report's WinoMT figure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence, TypedDict

import numpy as np

from ...errors import InputError
from ...signature import hash_json, hash_file
from ...textio import read_lines, read_parallel
from ...translators.base import Translator, declared
from ...align.target import TargetGender, target_genders
from ..validity import WHY, TooFewTranslations, Validity, check_all, gate, is_valid, validity_metrics, validity_specs
from ..base import (BOOTSTRAP, HIGHER, LOWER, MCNEMAR, SAYS_LITTLE, ZERO, Attempts, BaseProbe, Measure, Metric,
                    MetricSpec, Outputs, Shown, measured, spread_sample)

# where WinoMT's metrics are defined (the report's definitions panel)
WINOMT_PAPER = "Stanovsky et al. 2019, Evaluating Gender Bias in MT (WinoMT), Table 2"

GOLD_GENDERS = ("male", "female", "neutral")
# Integer codes used in the bootstrap arrays (one row per item).
_CODE = {"male": 0, "female": 1, "neutral": 2, "undetected": 3}
_GROUP = {None: 0, "pro": 1, "anti": 2}
STEREOTYPE_GROUPS = ("pro", "anti")
CELL_GENDERS = ("female", "male")  # WinoMT's pro/anti files hold no neutral item


@dataclass(frozen=True)
class WinoMTItem:
    gold: str  # "male" | "female" | "neutral"
    index: int  # whitespace-token index of the profession's first word in `sentence`
    sentence: str
    profession: str
    path: str
    line: int
    stereotype: str | None = None  # "pro" | "anti" | None (set from en_pro/en_anti membership)

    @property
    def key(self) -> tuple[str, int, str, str]:
        return (self.gold, self.index, self.sentence, self.profession)

    def profession_span(self) -> tuple[int, int]:
        """Character span [start, end) of the profession words in ``sentence``."""
        span = _profession_span(self.sentence, self.index, self.profession)
        assert span is not None, "checked when the item was loaded"
        return span


def _profession_span(sentence: str, index: int, profession: str) -> tuple[int, int] | None:
    tokens = [(m.start(), m.end()) for m in re.finditer(r"\S+", sentence)]
    n_words = len(profession.split())
    if index < 0 or index + n_words > len(tokens):
        return None
    start, end = tokens[index][0], tokens[index + n_words - 1][1]
    # Trailing punctuation glued to the last word ("designer.") is not part of the profession.
    while end > start and not sentence[end - 1].isalnum():
        end -= 1
    if re.sub(r"\s+", " ", sentence[start:end].lower()) != " ".join(profession.lower().split()):
        return None
    return start, end


def load_winomt(path: str | Path) -> list[WinoMTItem]:
    """Read a WinoMT file: ``gold<TAB>index<TAB>sentence<TAB>profession`` per line.

    Every malformed row raises :class:`InputError` naming the file and line; the profession
    word at ``index`` is checked against the profession column so that an off-by-one file is
    caught here rather than producing silently wrong alignments.
    """
    path = Path(path)
    items = []
    for number, line in enumerate(read_lines(path), 1):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != 4:
            raise InputError(f"expected 4 tab-separated fields (gold gender, profession index, sentence, "
                             f"profession), found {len(fields)}", path=path, line=number,
                             hint="WinoMT rows look like 'female<TAB>1<TAB>The developer ... she ...<TAB>developer'")
        gold, index, sentence, profession = (f.strip() for f in fields)
        if gold not in GOLD_GENDERS:
            raise InputError(f"gold gender {gold!r} is not one of {', '.join(GOLD_GENDERS)}",
                             path=path, line=number, hint="fix the first column")
        try:
            idx = int(index)
        except ValueError:
            raise InputError(f"profession index {index!r} is not an integer", path=path, line=number,
                             hint="the second column is the 0-based word index of the profession") from None
        if not sentence or not profession:
            raise InputError("empty sentence or profession", path=path, line=number,
                             hint="every row needs a sentence and its profession word")
        if _profession_span(sentence, idx, profession) is None:
            words = sentence.split()
            found = words[idx] if 0 <= idx < len(words) else "<out of range>"
            raise InputError(f"word {idx} of the sentence is {found!r}, not the profession {profession!r}",
                             path=path, line=number,
                             hint="the index is 0-based over whitespace-separated words")
        items.append(WinoMTItem(gold, idx, sentence, profession, str(path), number))
    if not items:
        raise InputError("no WinoMT rows in file", path=path, hint="is this the right file?")
    return items


_PRONOUNS = {"male": {"he", "him", "his", "himself"},
             "female": {"she", "her", "hers", "herself"},
             "neutral": {"they", "them", "their", "theirs", "themselves", "themself"}}


def validate_items(items: Sequence[WinoMTItem]) -> list[str]:
    """Checks of loaded WinoMT data that do not stop the probe; returns what was found.

    * duplicate rows (same gold, index, sentence and profession) — kept, as mt_gender keeps
      them, but named with their line numbers;
    * rows whose sentence has no pronoun of the gold gender (``female`` with only he/him/his),
      which means the gold column and the sentence disagree.
    """
    findings = []
    first: dict[tuple, int] = {}
    duplicates = []
    for item in items:
        if item.key in first:
            duplicates.append(f"{item.line} (= line {first[item.key]})")
        else:
            first[item.key] = item.line
    if duplicates:
        findings.append(f"{len(duplicates)} duplicate row(s): lines {', '.join(duplicates)}")
    inconsistent = [item.line for item in items
                    if not set(re.findall(r"[a-z]+", item.sentence.lower())) & _PRONOUNS[item.gold]]
    if inconsistent:
        shown = ", ".join(map(str, inconsistent[:20])) + (" …" if len(inconsistent) > 20 else "")
        findings.append(f"{len(inconsistent)} row(s) whose sentence has no {'/'.join(sorted(_PRONOUNS))} "
                        f"pronoun of the gold gender: lines {shown}")
    return findings


def mark_stereotypes(items: Sequence[WinoMTItem], pro: Sequence[WinoMTItem] = (),
                     anti: Sequence[WinoMTItem] = ()) -> list[WinoMTItem]:
    """Label items that also occur in the pro-/anti-stereotypical files (matched on all 4 fields)."""
    pro_keys = {item.key for item in pro}
    anti_keys = {item.key for item in anti}
    out = []
    for item in items:
        group = "pro" if item.key in pro_keys else "anti" if item.key in anti_keys else None
        out.append(WinoMTItem(item.gold, item.index, item.sentence, item.profession, item.path,
                              item.line, group))
    return out


# --------------------------------------------------------------------------- metric arithmetic

def _f1(gold: np.ndarray, pred: np.ndarray, code: int) -> float:
    correct = float(np.sum((gold == code) & (pred == code)))
    predicted = float(np.sum(pred == code))
    actual = float(np.sum(gold == code))
    if actual == 0:
        return float("nan")  # undefined without gold items of that gender
    precision = correct / predicted if predicted else 0.0  # no predictions: precision 0 (as sklearn's zero_division=0)
    recall = correct / actual
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def _accuracy(gold: np.ndarray, pred: np.ndarray) -> float:
    return float(np.mean(gold == pred)) if len(gold) else float("nan")


def _acc_mf(a: np.ndarray) -> float:
    keep = a[:, 0] != _CODE["neutral"]
    return _accuracy(a[keep, 0], a[keep, 1])


def _f1_m(a: np.ndarray) -> float:
    return _f1(a[:, 0], a[:, 1], _CODE["male"])


def _f1_f(a: np.ndarray) -> float:
    return _f1(a[:, 0], a[:, 1], _CODE["female"])


def _in_group(group: str) -> Callable[[np.ndarray], np.ndarray]:
    return lambda a: a[:, 2] == _GROUP[group]


def _in_cell(group: str, gender: str) -> Callable[[np.ndarray], np.ndarray]:
    return lambda a: (a[:, 2] == _GROUP[group]) & (a[:, 0] == _CODE[gender])


def _accuracy_where(keep: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], float]:
    return lambda a: _accuracy(a[keep(a), 0], a[keep(a), 1])


def _count_where(keep: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], int]:
    return lambda a: int(np.sum(keep(a)))


def _has_groups(a: np.ndarray) -> bool:
    """ΔS and the pro/anti accuracies need items of both stereotype groups."""
    return bool(np.any(a[:, 2] == _GROUP["pro"])) and bool(np.any(a[:, 2] == _GROUP["anti"]))


def _undetected(a: np.ndarray) -> float:
    return float(np.mean(a[:, 1] == _CODE["undetected"])) if len(a) else float("nan")


_ACC_PRO, _ACC_ANTI = _accuracy_where(_in_group("pro")), _accuracy_where(_in_group("anti"))

# WinoMT's metrics, each declared once, in the order they are stored; each is a function of an
# (items × [gold, pred, group]) integer array. A family (accuracy_*, f1_*) is declared once for
# all its members, which then say only how they are computed (spec=False).
MEASURES: tuple[MetricSpec, ...] = (
    Measure("accuracy", HIGHER, MCNEMAR, (0, 1), nan=True, label="WinoMT accuracy",
            definition="share of sentences whose translated profession has the gender of the English coreferent",
            source=WINOMT_PAPER, value=lambda a: _accuracy(a[:, 0], a[:, 1]), headline=True),
    MetricSpec("accuracy_*", HIGHER, bounds=(0, 1), nan=True, label="WinoMT accuracy ({0})",
               definition="accuracy on one group of sentences (male_female: the gendered ones; pro, anti: "
                          "pro- and anti-stereotypical)", source=WINOMT_PAPER),
    Measure("accuracy_male_female", value=_acc_mf, items=_count_where(lambda a: a[:, 0] != _CODE["neutral"]),
            spec=False),
    MetricSpec("f1_*", HIGHER, bounds=(0, 1), nan=True, label="WinoMT F1 ({0})",
               definition="F1 of the detected gender for one gold gender", source=WINOMT_PAPER),
    Measure("f1_male", value=_f1_m, spec=False),
    Measure("f1_female", value=_f1_f, spec=False),
    Measure("delta_g", ZERO, BOOTSTRAP, (-1, 1), nan=True, label="ΔG (WinoMT)",
            definition="F1 on masculine minus F1 on feminine coreferents", source=WINOMT_PAPER,
            value=lambda a: _f1_m(a) - _f1_f(a), headline=True),
    Measure("accuracy_pro", value=_ACC_PRO, items=_count_where(_in_group("pro")), when=_has_groups, spec=False),
    Measure("accuracy_anti", value=_ACC_ANTI, items=_count_where(_in_group("anti")), when=_has_groups, spec=False),
    Measure("delta_s", ZERO, BOOTSTRAP, (-1, 1), nan=True, label="ΔS (WinoMT)",
            definition="accuracy on pro-stereotypical minus accuracy on anti-stereotypical sentences",
            source=WINOMT_PAPER, value=lambda a: _ACC_PRO(a) - _ACC_ANTI(a), when=_has_groups, headline=True),
    Measure("undetected_rate", LOWER, bounds=(0, 1), nan=True,  # NaN: no item of that kind
            label="WinoMT undetected rate", definition="share of translations in which no gender was read",
            source="mtdebias", value=_undetected, degenerate="the detector read no gender in most translations",
            at_least=SAYS_LITTLE),
    *(Measure(f"accuracy_{group}.{gender}", value=_accuracy_where(_in_cell(group, gender)),
              items=_count_where(_in_cell(group, gender)), when=_has_groups, spec=False)
      for group in STEREOTYPE_GROUPS for gender in CELL_GENDERS),
)


def item_rows(golds: Sequence[str], predictions: Sequence[str], groups: Sequence[str | None] | None = None
              ) -> np.ndarray:
    """The (items × [gold, pred, group]) integer array the measures read."""
    if len(golds) != len(predictions):
        raise ValueError(f"{len(golds)} gold labels but {len(predictions)} predictions")
    groups = list(groups) if groups is not None else [None] * len(golds)
    for value in predictions:
        if value not in _CODE:
            raise ValueError(f"prediction {value!r} is not one of {', '.join(_CODE)}")
    return np.array([[_CODE[g], _CODE[p], _GROUP[s]] for g, p, s in zip(golds, predictions, groups)],
                    dtype=int).reshape(-1, 3)


def winomt_metrics(golds: Sequence[str], predictions: Sequence[str],
                   groups: Sequence[str | None] | None = None, *, resamples: int = 1000,
                   seed: int = 0) -> list[Metric]:
    """WinoMT metrics from gold and detected genders (pure arithmetic, no translation).

    ``predictions`` hold ``male``/``female``/``neutral``/``undetected``; ``groups`` hold
    ``"pro"``/``"anti"``/``None`` per item. ΔG = F1_male − F1_female; ΔS = accuracy on the
    pro-stereotypical items − accuracy on the anti-stereotypical ones (omitted, with the two
    accuracies, when no item has a group). Confidence intervals: percentile bootstrap over items.
    """
    return measured(MEASURES, item_rows(golds, predictions, groups), resamples=resamples, seed=seed)


# --------------------------------------------------------------------------- the probe

class WinoMTAttempt(TypedDict):
    """One WinoMT sentence: what the profession became in the translation and its gender."""

    line: int
    source: str
    profession: str
    gold: str  # female | male | neutral
    stereotype: str | None  # pro | anti | None
    translation: str
    source_span: list[int]
    target_span: list[int] | None  # the target words aligned to the profession (None: unaligned)
    target_words: str | None
    judged_span: list[int] | None  # what the detector read (it may widen to a noun phrase)
    detected: str  # female | male | neutral | undetected
    evidence: list[str]
    correct: bool
    validity: Validity  # the gate's verdict: an invalid translation is left out of every metric but its own


class WinoMTProbe(BaseProbe):
    """``winomt.v1``: gender accuracy, F1 gap ΔG and stereotype gap ΔS on WinoMT."""
    name = "winomt.v1"
    unsigned = ("resamples",)  # sets the bootstrap interval's precision, not the values
    hashed = ("data", "pro", "anti", "align_extra_tgt")  # their files are in the data hash
    # stored signatures name the aligner "align" and count the extra pairs it learnt from
    shown = {"align_method": Shown("align"), "align_extra_src": Shown("align_extra", lambda p: len(p.extra_sources))}
    also_signed = {"gate": lambda p: gate(p.lang)}  # the language's own floor: see validity.gate
    attempt_type = WinoMTAttempt
    option_help = {"lang": "target language code (needs a gender detector: de, es, fr, it, ru, uk, cs)",
                   "data": "WinoMT's en.txt (gold gender, position, sentence, profession), or its folder",
                   "pro": "en_pro.txt, the pro-stereotypical items, for ΔS (default: beside data; \"\": none)",
                   "anti": "en_anti.txt, the anti-stereotypical items, for ΔS (default: beside data; \"\": none)",
                   "align_method": "word aligner that finds the profession in the translation (fast_align, eflomal)",
                   "align_extra_src": "extra English sentences the aligner learns from (with align_extra_tgt)",
                   "align_extra_tgt": "their translations, line by line"}
    needs = ("detector",)  # reads the gender of target words
    stored_layout = 2  # 2: each attempt's validity verdict, the valid_rate and invalid.* metrics
    measures = (*MEASURES, *validity_specs("WinoMT"))  # the validity metrics are computed by the gate's module
    degenerate_when = (TooFewTranslations(),)  # after the undetected rate's (declared with it)
    # the gender × stereotype cells are drawn as bars by the report's WinoMT figure (report/views/winomt.py), not against training step
    own_plots = ("accuracy_pro.*", "accuracy_anti.*")

    def __init__(self, items: Sequence[WinoMTItem], lang: str, *, align_method: str = "fast_align",
                 beam: int = 5, extra_sources: Sequence[str] = (), extra_targets: Sequence[str] = (),
                 resamples: int = 1000, seed: int = 0, data_hash: str | None = None,
                 detect: Callable[..., Any] | None = None, align: Callable[..., Any] | None = None,
                 limit: int | None = None):
        if not items:
            raise InputError("WinoMT probe needs at least one item")
        self._items = list(items)
        self.lang = lang
        self.align_method = align_method
        self.beam = beam
        self.extra_sources = list(extra_sources)
        self.extra_targets = list(extra_targets)
        self.resamples = resamples
        self.seed = seed
        self.limit = limit  # items were sampled (from_options): a setting of the signature
        self.data_hash = data_hash or hash_json([item.key + (item.stereotype,) for item in self._items])
        self._detect = detect
        self._align = align
        self.findings = validate_items(self._items)

    @classmethod
    def from_options(cls, lang: str, data: str | Path, pro: str | Path | None = None,
                     anti: str | Path | None = None, *, align_method: str = "fast_align",
                     align_extra_src: str | Path | None = None, align_extra_tgt: str | Path | None = None,
                     beam: int = 5, resamples: int = 1000, seed: int = 0, limit: int | None = None
                     ) -> "WinoMTProbe":
        """Build from plain options (the CLI's). ``pro``/``anti`` default to ``en_pro.txt`` and
        ``en_anti.txt`` beside ``data`` when those exist; pass ``""`` to switch that off.
        ``limit`` keeps N items spread over the data (a random sample drawn with ``seed``, in data
        order: :func:`~.base.spread_sample`), for quick looks; it is a setting of the signature."""
        data = Path(data)
        if data.is_dir():
            data = data / "en.txt"
        items = load_winomt(data)
        hashes = [hash_file(data)]
        pro_path = _sibling(data, pro, "en_pro.txt")
        anti_path = _sibling(data, anti, "en_anti.txt")
        items = mark_stereotypes(items, load_winomt(pro_path) if pro_path else (),
                                 load_winomt(anti_path) if anti_path else ())
        hashes += [hash_file(p) if p else "-" for p in (pro_path, anti_path)]
        if limit is not None:
            items = spread_sample(items, limit, seed)
            hashes.append(f"sample={limit},seed={seed}")  # not the old "limit=": those were the first N items
        extra_s: list[str] = []
        extra_t: list[str] = []
        if (align_extra_src is None) != (align_extra_tgt is None):
            raise InputError("give both the source and the target file of the extra alignment corpus",
                             path=align_extra_src or align_extra_tgt)
        if align_extra_src is not None:
            corpus = read_parallel(align_extra_src, align_extra_tgt)
            extra_s, extra_t = corpus.sources, corpus.targets
            hashes.append(hash_file(align_extra_src) + hash_file(align_extra_tgt))
        return cls(items, lang, align_method=align_method, beam=beam, extra_sources=extra_s,
                   extra_targets=extra_t, resamples=resamples, seed=seed, data_hash=hash_json(hashes)[:12],
                   limit=limit)

    def items(self) -> list[WinoMTItem]:
        return list(self._items)

    def decode(self, translator: Translator, items: Sequence[WinoMTItem]) -> Outputs:
        sources = [item.sentence for item in items]
        translations = translator.translate(sources, beam=self.beam)
        if len(translations) != len(sources):
            raise InputError(f"translator returned {len(translations)} translations for {len(sources)} sentences")
        # a file of translations matched by line (mt_gender's files): the lines whose source
        # differed were given no translation, which the gate leaves out as empty
        mismatched = [items[n - 1].line for n in declared(translator).mismatched_lines]
        return Outputs(translations, meta={"source_mismatch_lines": mismatched} if mismatched else {})

    def judge(self, items: Sequence[WinoMTItem], translations: Sequence[str]) -> Attempts:
        """Check, align, then detect the profession's gender in given translations (one per item)."""
        verdicts = check_all([item.sentence for item in items], list(translations), self.lang)
        valid = [n for n, verdict in enumerate(verdicts) if verdict["valid"]]
        # only valid pairs are aligned: the aligner learns from the evaluated pairs themselves, and
        # English copies would teach it to align English to English
        judged = target_genders([items[n].sentence for n in valid], [items[n].profession_span() for n in valid],
                                [translations[n] for n in valid], self.lang, method=self.align_method,
                                extra_sources=self.extra_sources, extra_targets=self.extra_targets,
                                detect=self._detect, align=self._align,
                                unaligned="profession not aligned to any target word") if valid else []
        found = [TargetGender(None, "undetected", (f"not judged: the translation is {WHY.get(v['reason'])}",), None)
                 for v in verdicts]
        for n, target in zip(valid, judged):
            found[n] = target
        attempts = [{
            "line": item.line, "source": item.sentence, "profession": item.profession,
            "gold": item.gold, "stereotype": item.stereotype, "translation": translation,
            "source_span": list(item.profession_span()),
            "target_span": list(target.span) if target.span else None,
            "target_words": target.words(translation),
            "judged_span": list(target.judged_span) if target.judged_span else None,
            "detected": target.gender, "evidence": list(target.evidence), "correct": target.gender == item.gold,
            "validity": verdict,
        } for item, translation, target, verdict in zip(items, translations, found, verdicts)]
        meta = {"lang": self.lang, "items": len(items), "unaligned": sum(1 for t in found if t.span is None),
                "undetected": sum(1 for t in found if t.gender == "undetected"),
                "invalid": len(items) - len(valid)}
        if self.findings:
            meta["data_findings"] = list(self.findings)
        return Attempts(attempts, meta=meta)

    def item_key(self, attempt: dict[str, Any]) -> tuple[int, str]:
        return attempt["line"], attempt["source"]


    def values(self, attempts: Sequence[dict[str, Any]]) -> np.ndarray:
        """The valid attempts as (gold, detected, stereotype group) codes: an invalid translation
        is in no gender metric."""
        valid = [a for a in attempts if is_valid(a)]
        return item_rows([a["gold"] for a in valid], [a["detected"] for a in valid], [a["stereotype"] for a in valid])

    def metrics(self, attempts: Sequence[dict[str, Any]], *, ci: bool = True) -> list[Metric]:
        # the declared measures of the valid attempts, then the gate's own metrics of all of them
        return super().metrics(attempts, ci=ci) + \
            validity_metrics(attempts, resamples=self.resamples if ci else 0, seed=self.seed)


def _sibling(data: Path, given: str | Path | None, default_name: str) -> Path | None:
    if given is not None:
        return Path(given) if str(given) else None
    candidate = data.parent / default_name
    return candidate if candidate.is_file() and candidate != data else None
