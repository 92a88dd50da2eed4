"""Sentiment probe: does *who* a sentence is about tilt the sentiment of its translation?

English templates hold a sentiment-ambiguous word and a ``[PERSON]`` slot ("[PERSON] is a
proud person." → 自豪 positive / 骄傲 negative). Each template is filled with every filler (a
celebrity's name, or a race/nationality term alone or with "man"/"woman"), translated, and:

* word level: the ambiguous word's rendering is looked up in the template's positive and
  negative inventories. t(filler) = share of the filler's *matched* templates (word found in an
  inventory) whose word came out positive (mixed and negative count as not positive). A
  rendering in neither inventory is left out of t, not counted as "not positive": counting it
  made t measure the inventory's gaps (74–99 % of the released models' renderings are
  unmatched). Each kind's coverage (``names.t_coverage``: the matched share) is reported, a
  filler with under half its templates matched has no t, and a coverage of a half or less marks
  the result degenerate. Unmatched renderings are listed so the inventory can grow.
* sentence level (Chinese only): s(filler) = mean over templates of SnowNLP's probability that
  the translation is positive, scored after the filler's rendering has been replaced by 他 so
  that the classifier's own view of the name cannot leak in.

The filler's rendering in the translation is found without an aligner: it is the substring that
occurs in most of that filler's translations and rarely in other fillers' translations of the
same templates (names are transliterated the same way across templates; template words recur
for every filler). When no such substring exists the sentence is scored unmasked and flagged.

Reported over fillers: t_min, t_max, Δt, s_min, s_max, Δs (no interval: see :func:`range_metrics`),
and mean t and s per profession group and gender (intervals bootstrap over fillers).

The translation-validity gate (:mod:`mtdebias.probes.validity`) checks each translation first:
one that is empty, a runaway repetition, a copy of the English template or not in the target
language renders no word to label and no sentence to classify, so it is left out of t, s and the
unmatched rate like a template the filler lacks (``valid_rate`` and ``invalid.<reason>`` count
them; a valid rate at or below 0.8 is degenerate). A filler with fewer than half its templates
validly translated (t: matched) has no t or s.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence, TypedDict

import numpy as np

from ...errors import InputError
from ...options import Range
from ...lang.languages import langs_with
from ...signature import hash_file, hash_json
from ...translators.base import Translator
from ..base import (BOOTSTRAP, HIGHER, LOWER, NEUTRAL, NO_INTERVAL, SAYS_LITTLE, SWITCH_PAPER, Attempts, BaseProbe,
                   Computed, Family, Headline, Measure, Metric, MetricSpec, measured, named_for)
from ..validity import SURFACE_GATE, TooFewTranslations, Validity, check, is_valid, validity_metrics, validity_specs
from ..name_gender.probe import TEMPLATE_DIR, fill, read_template_table, split_forms

MASK = "他"
# Languages written without spaces: inventory forms are matched as substrings, not whole words.
UNSPACED_LANGS = set(langs_with("unspaced"))
LABELS = ("positive", "negative", "mixed", "unmatched")


@dataclass(frozen=True)
class SentimentTemplate:
    id: str
    template: str
    word: str  # the ambiguous English word
    positive: tuple[str, ...]
    negative: tuple[str, ...]
    line: int = 0


@dataclass(frozen=True)
class Filler:
    text: str  # what goes into the slot
    kind: str  # "name" | "term"
    group: str  # profession group for names, the term itself for terms
    gender: str  # "female" | "male" | "-"


def load_sentiment_templates(path: str | Path) -> list[SentimentTemplate]:
    out = []
    for number, row in read_template_table(path, ("id", "template", "word", "positive", "negative")):
        pos, neg = split_forms(row["positive"]), split_forms(row["negative"])
        shared = set(pos) & set(neg)
        if shared:
            raise InputError(f"forms listed as both positive and negative: {', '.join(sorted(shared))}",
                             path=path, line=number, hint="a form must belong to one inventory")
        if row["word"].lower() not in row["template"].lower():
            raise InputError(f"the ambiguous word {row['word']!r} does not occur in the template", path=path,
                             line=number, hint="the 'word' column names the ambiguous English word")
        out.append(SentimentTemplate(row["id"], row["template"], row["word"], tuple(pos), tuple(neg), number))
    return out


def load_fillers(path: str | Path) -> list[Filler]:
    """Filler file: ``filler kind group gender``; a ``term`` row expands to the term alone and
    with "man"/"woman" ("the Asian", "the Asian man", "the Asian woman")."""
    from ...textio import read_lines

    path = Path(path)
    fillers: list[Filler] = []
    header = None
    for number, line in enumerate(read_lines(path), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = [f.strip() for f in line.split("\t")]
        if header is None:
            if fields != ["filler", "kind", "group", "gender"]:
                raise InputError("header should be filler <TAB> kind <TAB> group <TAB> gender", path=path,
                                 line=number, hint="see mtdebias/data/templates/README.md")
            header = fields
            continue
        if len(fields) != 4 or not all(fields):
            raise InputError(f"expected 4 non-empty tab-separated fields, found {len(fields)}", path=path,
                             line=number, hint="filler <TAB> kind <TAB> group <TAB> gender")
        text, kind, group, gender = fields
        if kind == "name":
            if gender not in ("female", "male"):
                raise InputError(f"gender {gender!r} must be female or male for a name", path=path, line=number)
            fillers.append(Filler(text, kind, group, gender))
        elif kind == "term":
            fillers.append(Filler(f"the {text}", kind, text, "-"))
            fillers.append(Filler(f"the {text} man", kind, text, "male"))
            fillers.append(Filler(f"the {text} woman", kind, text, "female"))
        else:
            raise InputError(f"kind {kind!r} must be 'name' or 'term'", path=path, line=number)
    if not fillers:
        raise InputError("no fillers in file", path=path)
    return fillers


# --------------------------------------------------------------------------- word-level labels

def _occurrences(text: str, form: str, unspaced: bool) -> list[tuple[int, int]]:
    if unspaced:
        return [(m.start(), m.start() + len(form)) for m in re.finditer(re.escape(form), text)]
    pattern = r"(?<!\w)" + re.escape(form) + r"(?!\w)"
    return [(m.start(), m.end()) for m in re.finditer(pattern, text, flags=re.IGNORECASE)]


def label_rendering(translation: str, positive: Sequence[str], negative: Sequence[str],
                    lang: str) -> tuple[str, list[str]]:
    """``positive``/``negative``/``mixed``/``unmatched`` and the forms found.

    A match inside a longer match of the other inventory does not count (头脑简单 "simple-minded"
    contains 简单 "simple"), so inventories may hold both a word and a longer phrase around it.
    """
    unspaced = lang in UNSPACED_LANGS
    found = [(s, e, label, form) for label, forms in (("positive", positive), ("negative", negative))
             for form in forms for s, e in _occurrences(translation, form, unspaced)]
    kept = [m for m in found
            if not any(o[0] <= m[0] and m[1] <= o[1] and (o[1] - o[0]) > (m[1] - m[0]) for o in found)]
    labels = {m[2] for m in kept}
    forms = sorted({m[3] for m in kept})
    if labels == {"positive"}:
        return "positive", forms
    if labels == {"negative"}:
        return "negative", forms
    if labels:
        return "mixed", forms
    return "unmatched", forms


# --------------------------------------------------------------------------- masking fillers

def _substrings(text: str, max_len: int = 40) -> set[str]:
    out = set()
    for i in range(len(text)):
        for j in range(i + 1, min(len(text), i + max_len) + 1):
            piece = text[i:j].strip()
            if piece:
                out.add(piece)
    return out


def filler_renderings(translations: Mapping[str, Sequence[str]], protected: Sequence[Sequence[str]] = (),
                      min_coverage: float = 0.5, max_other: float = 0.2) -> dict[str, str | None]:
    """The rendering of each filler in its translations (see the module docstring).

    ``translations[filler][k]`` is the translation of template k; ``protected[k]`` lists strings
    (the inventories of template k) a rendering may not contain, so masking never eats the
    ambiguous word. Returns None for a filler without a clear rendering.
    """
    coverage: dict[str, Counter] = {}
    for filler, outputs in translations.items():
        counts: Counter = Counter()
        for text in outputs:
            counts.update(_substrings(text))
        coverage[filler] = counts
    result: dict[str, str | None] = {}
    for filler, outputs in translations.items():
        n = len(outputs)
        others = [f for f in translations if f != filler]
        if n < 3 or not others:
            result[filler] = None  # too little evidence to tell the name from the template words
            continue
        forbidden = {form for forms in protected for form in forms}
        best: tuple[float, int, str] | None = None
        for piece, count in coverage[filler].items():
            cov = count / n
            if cov < min_coverage or any(form in piece for form in forbidden):
                continue
            other = float(np.mean([coverage[g][piece] / max(len(translations[g]), 1) for g in others]))
            if other > max_other:
                continue
            key = (cov - other, len(piece), piece)
            if best is None or key[:2] > best[:2]:
                best = key
        if best is None:
            result[filler] = None
            continue
        # The longest best piece can swallow a template-independent neighbour ("爱丽丝·沃克很" when
        # every template says 很 right after the name). Such an edge character is as frequent in
        # the other fillers' translations as the piece is in this filler's: trim it.
        piece, cov = best[2], coverage[filler][best[2]] / n

        def other_cov(text: str) -> float:
            return float(np.mean([coverage[g][text] / max(len(translations[g]), 1) for g in others]))

        while len(piece) > 1 and other_cov(piece[-1]) >= 0.9 * cov:
            piece = piece[:-1].rstrip()
        while len(piece) > 1 and other_cov(piece[0]) >= 0.9 * cov:
            piece = piece[1:].lstrip()
        result[filler] = piece
    return result


def mask(translation: str, rendering: str | None, filler: str) -> tuple[str, bool]:
    """Replace the filler's rendering (or the filler itself, if left untranslated) by 他."""
    for candidate in (rendering, filler, filler[:1].upper() + filler[1:]):
        if candidate and candidate in translation:
            return translation.replace(candidate, MASK), True
    return translation, False


# --------------------------------------------------------------------------- metric arithmetic

# the share of a filler's templates that must be matched for its t to be defined: below it, t
# rests on a handful of templates that the inventory happened to cover
MIN_COVERAGE = 0.5
# a range's interval: none (see range_metrics); the paired test compares two systems' ranges
NO_RANGE_INTERVAL = "none: a bootstrap of a range over noisy means does not cover a true range of 0"
_FEW_FILLERS = "fewer than 2 fillers with half their renderings in an inventory (t), or a filler missing a template (s)"


def filler_means(by_template: np.ndarray, matched_only: bool) -> np.ndarray:
    """Per-filler mean over templates of a templates × fillers array. ``matched_only``: NaN
    cells (t: unmatched renderings or invalid translations; s: invalid translations) are left
    out, and a filler with under ``MIN_COVERAGE`` of its templates defined is NaN; otherwise a
    NaN cell makes the filler's mean NaN."""
    if not matched_only:
        return by_template.mean(axis=0)
    matched = np.sum(~np.isnan(by_template), axis=0)
    total = np.nansum(by_template, axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = total / matched
    return np.where(matched >= MIN_COVERAGE * len(by_template), means, np.nan)


def _range_measures(matched_only: bool) -> tuple[Measure, Measure, Measure]:
    """min, max and max − min over fillers of the per-filler mean of a templates × fillers array;
    NaN with fewer than 2 fillers defined (see :func:`filler_means`).

    No interval: each filler's mean rests on a dozen templates, and the extremes of 70 such
    means sit apart even when every filler's true t is the same (true range 0). A bootstrap over
    templates resamples that noise, never removes it: its interval of the range held the true 0
    in no simulation. Whether two systems' ranges differ is the paired test's question (both
    systems carry the same noise); the per-group means carry intervals.
    """
    def defined(a) -> np.ndarray:
        means = filler_means(a, matched_only)
        return means[~np.isnan(means)] if matched_only else means

    def lo(a):
        means = defined(a)
        return float(np.min(means)) if len(means) >= 2 else float("nan")

    def hi(a):
        means = defined(a)
        return float(np.max(means)) if len(means) >= 2 else float("nan")

    def fillers(a) -> int:
        return a.shape[1]

    # {0}: "names.t", "terms.s" (kind of filler, then t: word level, s: sentence level)
    return (Measure("*_min", HIGHER, bounds=(0, 1), nan=True, undefined=_FEW_FILLERS, label="min of {0}",
                    definition="the lowest filler's t (or s)", source=f"{SWITCH_PAPER} §3.2",
                    interval=NO_RANGE_INTERVAL, value=lo, items=fillers),
            Measure("*_max", NEUTRAL, bounds=(0, 1), nan=True, undefined=_FEW_FILLERS, label="max of {0}",
                    definition="the highest filler's t (or s)", source=f"{SWITCH_PAPER} §3.2",
                    interval=NO_RANGE_INTERVAL, value=hi, items=fillers),
            Measure("*_delta", LOWER, BOOTSTRAP, (0, 1), nan=True, undefined=_FEW_FILLERS,
                    label="range of {0} over fillers",
                    definition="max − min over fillers of a filler's positive share (t) or mean positive "
                               "probability (s)", source=f"{SWITCH_PAPER} §3.2", interval=NO_RANGE_INTERVAL,
                    value=lambda a: hi(a) - lo(a), items=fillers))


RANGE_MEASURES = _range_measures(matched_only=True)  # the probe's: t over matched renderings only


def range_metrics(matrix: np.ndarray, prefix: str, *, matched_only: bool = False) -> list[Metric]:
    """The range measures (:func:`_range_measures`) of ``matrix`` (fillers × templates) under ``prefix``."""
    by_template = np.asarray(matrix, dtype=float).T  # rows = templates
    return named_for(prefix, measured(_range_measures(matched_only), by_template, resamples=0))


@dataclass
class _Table:
    """Fillers × templates matrices of t (positive rendering; NaN: unmatched or an invalid
    translation) and s (None without s), rebuilt from the attempts: what the measures read."""

    attempts: Sequence[dict[str, Any]]
    fillers: list[Filler]
    positive: np.ndarray
    sentence: np.ndarray | None
    valid: np.ndarray  # a valid translation, stored
    unmatched: int


@dataclass
class _Kind:
    """The rows of one kind of filler (names or terms) in a :class:`_Table`."""

    prefix: str
    table: _Table
    rows: list[int]

    def translated(self) -> int:
        return int(self.table.valid[self.rows].sum())


def _kinds(table: _Table):
    for kind, prefix in (("name", "names"), ("term", "terms")):
        rows = [i for i, f in enumerate(table.fillers) if f.kind == kind]
        if rows:
            yield prefix, _Kind(prefix, table, rows)


def _ranges(kind: _Kind):
    for measure, matrix in (("t", kind.table.positive), ("s", kind.table.sentence)):
        if matrix is not None:
            yield f"{kind.prefix}.{measure}", matrix[kind.rows].T


def _cells(kind: _Kind):
    """Mean t (and s) per group, per gender and per group × gender: the fillers' means."""
    fillers = kind.table.fillers
    cells: dict[str, list[int]] = {}
    for i in kind.rows:
        f = fillers[i]
        if f.gender != "-":
            cells.setdefault(f"gender={f.gender}", []).append(i)
        if f.kind == "name":
            cells.setdefault(f"group={f.group}", []).append(i)
            cells.setdefault(f"group={f.group},gender={f.gender}", []).append(i)
    for cell, members in sorted(cells.items()):
        for measure, matrix in (("t", kind.table.positive), ("s", kind.table.sentence)):
            if matrix is None:
                continue
            values = filler_means(matrix[members].T, matched_only=True)
            values = values[~np.isnan(values)]  # fillers without a t (too few matched) or an s
            if len(values):
                yield f"{kind.prefix}.{measure}_mean[{cell}]", values


def per_filler_rows(attempts: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per filler: kind, group, gender, rendering, mean t (and s) over its templates."""
    by_filler: dict[str, list[dict[str, Any]]] = {}
    for attempt in attempts:
        by_filler.setdefault(attempt["filler"], []).append(attempt)
    rows = []
    for text, mine in by_filler.items():
        row = {"filler": text, "kind": mine[0]["kind"], "group": mine[0]["group"], "gender": mine[0]["gender"],
               "rendering": mine[0].get("rendering")}
        valid = [a for a in mine if is_valid(a)]
        matched = [a["label"] == "positive" for a in valid if a["label"] != "unmatched"]
        row["t"] = float(np.mean(matched)) if len(matched) >= MIN_COVERAGE * len(mine) and matched else None
        row["t_coverage"] = len(matched) / len(valid) if valid else 0.0
        if all("s" in a for a in mine) and valid and len(valid) >= MIN_COVERAGE * len(mine):
            row["s"] = float(np.mean([a["s"] for a in valid]))
        rows.append(row)
    return rows


# --------------------------------------------------------------------------- the probe

def _snownlp_positive(text: str) -> float:
    from snownlp import SnowNLP  # late import: only Chinese targets need it

    return float(SnowNLP(text).sentiments)


class _SentimentFields(TypedDict):
    filler: str
    kind: str
    group: str
    gender: str
    template: str
    word: str  # the sentiment-ambiguous word of the template
    source: str
    translation: str
    label: str  # positive | negative | unmatched: how the word was rendered
    forms: list[str]
    rendering: str | None  # how the filler itself was rendered (across its translations)
    validity: Validity  # the gate's verdict: an invalid translation is in no metric but its own


class SentimentAttempt(_SentimentFields, total=False):
    """One filler in one template; with a sentence classifier, its masked sentence and score."""

    masked: str
    name_masked: bool
    s: float


class SentimentProbe(BaseProbe):
    """``sentiment.v1``: word-level (t) and sentence-level (s) positiveness per filler."""
    name = "sentiment.v1"
    unsigned = ("resamples",)  # sets the bootstrap interval's precision, not the values
    hashed = ("templates", "fillers", "fillers_limit", "templates_limit")  # the items kept are the data hash
    # which sentence classifier gave s (none: word level only)
    also_signed = {"s": lambda p: "snownlp" if p._sentiment else "none", "gate": SURFACE_GATE}
    option_ranges = {"fillers_limit": Range(1, why="leave it out to use every filler"),
                     "templates_limit": Range(1, why="leave it out to use every template")}

    option_help = {"lang": "target language code (sentence-level s for zh only, with SnowNLP)",
                   "templates": "template TSV (id, template, word, positive and negative renderings)",
                   "fillers": "filler TSV (names and terms with kind, group and gender)",
                   "fillers_limit": "keep the first N fillers",
                   "templates_limit": "keep the first N templates"}
    attempt_type = SentimentAttempt
    degenerate_when = (TooFewTranslations(),)
    # t is a share of templates and s a classifier's probability (SnowNLP's is in [0, 1]): their
    # means, minima, maxima and max − min lie in [0, 1]. Either may be NaN: t is undefined for a
    # filler with too few matched renderings, s for one with too few valid translations
    # (MIN_COVERAGE: a template it lacks counts as missing), and a range with fewer than 2
    # fillers defined. No interval on the shares of attempts: the attempts of one filler (or
    # template) are not independent draws
    measures = (
        Measure("unmatched_rate", LOWER, bounds=(0, 1), label="unmatched rate (sentiment)",
                definition="share of translations whose ambiguous word is in neither inventory",
                source="mtdebias", interval=NO_INTERVAL, value=lambda t: t.unmatched / max(int(t.valid.sum()), 1),
                items=lambda t: int(t.valid.sum()),
                degenerate="most renderings are in neither inventory (unmatched)", at_least=SAYS_LITTLE),
        Computed(lambda t: validity_metrics(t.attempts)),
        Family(_kinds, (
            Measure("*.t_coverage", HIGHER, bounds=(0, 1), label="t coverage ({0})",
                    definition="share of renderings found in an inventory (at or below 0.5: degenerate)",
                    source="mtdebias", interval=NO_INTERVAL,
                    value=lambda k: int((~np.isnan(k.table.positive[k.rows])).sum()) / k.translated()
                    if k.translated() else 0.0, items=_Kind.translated,
                    degenerate="half the renderings or more are in neither inventory: t rests on what the "
                               "inventory happens to cover", at_most=MIN_COVERAGE),
            Family(_ranges, RANGE_MEASURES),
            Family(_cells, (Measure("*", spec=False, value=lambda v: float(v.mean())),)))),
        MetricSpec("*_mean[*", NEUTRAL, bounds=(0, 1), nan=True, label="mean {0} [{1}",
                   definition="mean t (or s) of the fillers of one group or gender", source="mtdebias",
                   interval="95% percentile bootstrap over fillers"),
        *validity_specs("sentiment"))
    headline = (Headline("names.t_delta", "t range over names"), Headline("names.s_delta", "s range over names"))
    # 2: the per-filler table (was meta), each attempt's "rendering"; 3: t over matched renderings;
    # 4: each attempt's validity verdict, valid_rate and invalid.*
    stored_layout = 4

    def __init__(self, templates: Sequence[SentimentTemplate], fillers: Sequence[Filler], lang: str = "zh", *,
                 beam: int = 5, resamples: int = 1000, seed: int = 0, data_hash: str | None = None,
                 sentiment: Callable[[str], float] | None = None):
        if not templates or not fillers:
            raise InputError("the sentiment probe needs templates and fillers")
        self.templates = list(templates)
        self.fillers = list(fillers)
        self.lang = lang
        self.beam = beam
        self.resamples = resamples
        self.seed = seed
        self.data_hash = data_hash or hash_json([[t.id, t.template, t.positive, t.negative] for t in self.templates]
                                                + [[f.text, f.kind, f.group, f.gender] for f in self.fillers])
        # Sentence sentiment: SnowNLP is a Chinese model; other targets get word level only.
        self._sentiment = sentiment or (_snownlp_positive if lang == "zh" else None)

    @classmethod
    def from_options(cls, lang: str = "zh", templates: str | Path | None = None, fillers: str | Path | None = None,
                     *, beam: int = 5, resamples: int = 1000, seed: int = 0, fillers_limit: int | None = None,
                     templates_limit: int | None = None) -> "SentimentProbe":
        """Templates default to ``mtdebias/data/templates/sentiment_<lang>.tsv``, fillers to
        ``mtdebias/data/templates/sentiment_fillers.tsv``. ``fillers_limit`` / ``templates_limit``:
        the first N of each (a small run on a slow model)."""
        tpath = Path(templates) if templates else TEMPLATE_DIR / f"sentiment_{lang}.tsv"
        fpath = Path(fillers) if fillers else TEMPLATE_DIR / "sentiment_fillers.tsv"
        for path, what in ((tpath, "templates"), (fpath, "fillers")):
            if not path.is_file():
                raise InputError(f"sentiment {what} file not found", path=path,
                                 hint=f"pass your own {what} file (format in mtdebias/data/templates/README.md)")
        loaded = load_fillers(fpath)
        if fillers_limit is not None:
            loaded = loaded[:fillers_limit]
        templates = load_sentiment_templates(tpath)
        if templates_limit is not None:
            templates = templates[:int(templates_limit)]
        limits = [fillers_limit] + ([templates_limit] if templates_limit is not None else [])
        return cls(templates, loaded, lang, beam=beam, resamples=resamples, seed=seed,
                   data_hash=hash_json([hash_file(tpath), hash_file(fpath), *limits]))

    def items(self) -> list[tuple[Filler, SentimentTemplate]]:
        """Every filler in every template, filler by filler."""
        return [(f, t) for f in self.fillers for t in self.templates]

    def decode(self, translator: Translator, items: Sequence[tuple[Filler, SentimentTemplate]]) -> list[str]:
        return translator.translate([fill(t.template, f.text) for f, t in items], beam=self.beam)

    def judge(self, items: Sequence[tuple[Filler, SentimentTemplate]], outputs: Sequence[str]) -> Attempts:
        """Label each ambiguous word's rendering; with a sentence classifier, mask the filler's
        rendering (found across all of that filler's translations) and classify the sentence.

        The one step of any probe's judge that looks across items: a filler's rendering is what
        its translations share, and the classifier (a model) needs it masked before it reads a
        sentence, so it cannot wait for metrics(); the attempt records it (``rendering``)."""
        by_filler: dict[str, list[str]] = {}
        inventories: dict[str, tuple[str, ...]] = {}
        for (filler, template), output in zip(items, outputs):
            by_filler.setdefault(filler.text, []).append(output)
            inventories.setdefault(template.id, template.positive + template.negative)
        renderings = filler_renderings(by_filler, list(inventories.values()))
        attempts, unmatched = [], []
        for (filler, template), translation in zip(items, outputs):
            source = fill(template.template, filler.text)
            verdict = check(source, translation, self.lang, adequate=False)
            label, forms = label_rendering(translation, template.positive, template.negative, self.lang)
            attempt = {"filler": filler.text, "kind": filler.kind, "group": filler.group,
                       "gender": filler.gender, "template": template.id, "word": template.word,
                       "source": source, "translation": translation, "label": label,
                       "forms": forms, "rendering": renderings[filler.text], "validity": verdict}
            if self._sentiment is not None:
                masked, was_masked = mask(translation, renderings[filler.text], filler.text)
                # an empty reply has no sentiment to read (and SnowNLP divides by zero on it); the
                # gate calls it invalid, so its s is never used
                attempt.update(masked=masked, name_masked=was_masked,
                               s=self._sentiment(masked) if masked.strip() else None)
            # a reply that is no translation is no gap of the inventory: not listed for it to grow
            if label == "unmatched" and verdict["valid"]:
                unmatched.append({"template": template.id, "word": template.word, "translation": translation})
            attempts.append(attempt)
        masked_share = (float(np.mean([a["name_masked"] for a in attempts])) if self._sentiment is not None else None)
        meta = {"lang": self.lang, "templates": len(inventories), "fillers": len(by_filler),
                "unmatched": unmatched, "masked_share": masked_share}
        return Attempts(attempts, meta=meta)

    def tables(self, attempts: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """``per_filler``: each filler's mean t (and s) over templates, and its rendering."""
        return {"per_filler": per_filler_rows(attempts)}

    def item_key(self, attempt: dict[str, Any]) -> tuple[str, str]:
        return attempt["filler"], attempt["template"]



    def values(self, attempts: Sequence[dict[str, Any]]) -> _Table:
        """Fillers × templates matrices of t (positive rendering) and s, rebuilt from the attempts."""
        fillers = list({a["filler"]: Filler(a["filler"], a["kind"], a["group"], a["gender"])
                        for a in attempts}.values())
        templates = list(dict.fromkeys(a["template"] for a in attempts))
        row_of = {f.text: i for i, f in enumerate(fillers)}
        col_of = {t: k for k, t in enumerate(templates)}
        positive = np.full((len(fillers), len(templates)), np.nan)  # NaN: unmatched, left out of t
        sentence = np.full((len(fillers), len(templates)), np.nan)
        has_s = any("s" in a for a in attempts)
        valid = np.zeros((len(fillers), len(templates)), dtype=bool)
        # an invalid translation's cells stay NaN: left out of t and s like a template the filler lacks
        for a in filter(is_valid, attempts):
            i, k = row_of[a["filler"]], col_of[a["template"]]
            valid[i, k] = True
            positive[i, k] = np.nan if a["label"] == "unmatched" else float(a["label"] == "positive")
            if has_s:
                sentence[i, k] = a["s"]
        unmatched = sum(a["label"] == "unmatched" for a in attempts if is_valid(a))
        return _Table(attempts, fillers, positive, sentence if has_s else None, valid, unmatched)

    def unit(self, attempt: dict[str, Any], index: int) -> str:
        return attempt["template"]  # intervals resample templates (see range_metrics)
