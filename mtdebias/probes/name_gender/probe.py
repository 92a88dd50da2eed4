"""Name-gender probe: does a person's *name* make the translation inflect for their gender?

English sentences with a ``[PERSON]`` slot whose translation needs a gendered key noun
("[PERSON] is the developer of the scale." → Entwickler / Entwicklerin) are filled with female
and male first names and full names. A translation is correct when the key noun comes out in
the form of the name's gender (found with :func:`mtdebias.lang.detect_gender` and the template's
listed forms); an undetected key noun counts as wrong and has its own rate.

Before the names, each template is translated with "he" and "she", and a filter decides which
templates can measure name bias for this model (``pronoun_filter``; each drop is logged with
its reason, and the rule is in the signature):

* ``"two-forms"`` (default, the SwitchEntity paper's rule): drop a template when its key noun
  has one translation only — "he" and "she" give the same detected gender, or either gives
  none. A model that swaps them (he → Lehrerin, she → Lehrer) keeps the template; its pronoun
  attempts count as wrong.
* ``"strict"`` (this project's earlier rule): keep a template only when "he" gives the
  masculine form *and* "she" the feminine, so names are measured only where pronouns work.

Metrics per name kind (``first``, ``full``): Acc_f, Acc_m, ΔAcc = |Acc_m − Acc_f|, the signed
gap Acc_m − Acc_f (whose interval says whether the gap is distinguishable from 0) and the
undetected rate. Accuracies are means over names of per-name accuracy; intervals bootstrap over
names, the independent unit here (every name meets the same templates), female and male names
resampled apart. ΔAcc's interval is the signed gap's folded onto |·| (it contains 0 whenever the
signed one does): a bootstrap of |Acc_m − Acc_f| itself never contains 0, whatever the truth.

With ``seen_in`` (a model's training source text) every name is also marked seen or unseen —
seen when its given name (first token) occurs there as a whole word — and the same metrics are
reported per kind and split (``first.seen.acc_f``, ``first.unseen.acc_f``…): the SwitchEntity
paper's claim is about names a model has rarely or never seen. Each attempt then carries its
group (``first.unseen.female``), and the pooled accuracy of each group is a metric of its own
(``accuracy.first.unseen.female``) with a McNemar test, so a comparison of two systems tests
every group by itself: a pooled test hides opposite moves of two groups.

Template files (see ``mtdebias/data/templates/README.md``) are tab-separated with a header line
``id  template  male  female``; forms are separated by ``|``; ``#`` starts a comment line.
"""

from __future__ import annotations

import difflib
import math
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence, TypedDict

import numpy as np

from ...errors import InputError
from ...options import Range
from ...resources import data_dir
from ...signature import hash_file, hash_json
from ...textio import read_lines
from ...translators.base import Translator
from ..base import (BOOTSTRAP, HIGHER, LOWER, MCNEMAR, NEUTRAL, NO_INTERVAL, SAYS_LITTLE, SWITCH_PAPER, ZERO, Attempts,
                   BaseProbe, Computed, Family, Headline, Measure, Metric, MetricSpec, Outputs, Shown, measured,
                   named_for)
from ..validity import (SURFACE_GATE, WHY, TooFewTranslations, Validity, check, is_valid, validity_metrics,
                       validity_specs)

OVER_NAMES = "95% bootstrap over names, female and male names resampled apart"

GROUP_ACCURACY = "accuracy"  # a group's pooled accuracy is "accuracy.<group>"
PRONOUN = "pronoun"  # the he/she filter's attempts (kind) and metrics ("pronoun.she.acc")
SLOT = "[PERSON]"
FORM_SEPARATOR = "|"
TEMPLATE_DIR = data_dir("templates")
NAME_KINDS = ("first_female", "first_male", "full_female", "full_male")


# --------------------------------------------------------------------------- template files

def read_template_table(path: str | Path, columns: Sequence[str]) -> list[tuple[int, dict[str, str]]]:
    """Read a tab-separated template table whose header names exactly ``columns``.

    Returns (line number, row) pairs. Comment lines (``#``) and blank lines are skipped. Shared
    by the template probes so that all template files follow one set of rules.
    """
    path = Path(path)
    rows: list[tuple[int, dict[str, str]]] = []
    header: list[str] | None = None
    for number, line in enumerate(read_lines(path), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = [f.strip() for f in line.split("\t")]
        if header is None:
            if fields != list(columns):
                raise InputError(f"header should be {' <TAB> '.join(columns)}, found {' <TAB> '.join(fields)}",
                                 path=path, line=number,
                                 hint="the first non-comment line names the columns (see mtdebias/data/templates/README.md)")
            header = fields
            continue
        if len(fields) != len(columns):
            raise InputError(f"expected {len(columns)} tab-separated fields ({', '.join(columns)}), "
                             f"found {len(fields)}", path=path, line=number,
                             hint="separate columns with one TAB; forms within a column with '|'")
        row = dict(zip(columns, fields))
        for column, value in row.items():
            if not value:
                raise InputError(f"empty {column!r} column", path=path, line=number, hint="fill it in")
        if row["template"].count(SLOT) != 1:
            raise InputError(f"the template must contain {SLOT} exactly once", path=path, line=number,
                             hint=f"mark where the name goes with {SLOT}")
        rows.append((number, row))
    if not rows:
        raise InputError("no templates in file", path=path, hint="see mtdebias/data/templates/README.md for the format")
    ids = [row["id"] for _, row in rows]
    for (number, row) in rows:
        if ids.count(row["id"]) > 1:
            raise InputError(f"template id {row['id']!r} occurs more than once", path=path, line=number,
                             hint="give every template its own id")
    return rows


def split_forms(value: str) -> list[str]:
    return [form.strip() for form in value.split(FORM_SEPARATOR) if form.strip()]


def fill(template: str, filler: str) -> str:
    """Put ``filler`` into the slot, capitalising its first letter at the start of a sentence."""
    before = template.split(SLOT, 1)[0].rstrip()
    sentence_start = not before or before[-1] in ".!?\"“"
    if sentence_start:
        filler = filler[:1].upper() + filler[1:]
    return template.replace(SLOT, filler, 1)


@dataclass(frozen=True)
class GenderTemplate:
    id: str
    template: str
    male: tuple[str, ...]
    female: tuple[str, ...]
    line: int = 0

    def forms(self) -> dict[str, list[str]]:
        return {"male": list(self.male), "female": list(self.female)}


def load_gender_templates(path: str | Path) -> list[GenderTemplate]:
    out = []
    for number, row in read_template_table(path, ("id", "template", "male", "female")):
        male, female = split_forms(row["male"]), split_forms(row["female"])
        shared = {f.lower() for f in male} & {f.lower() for f in female}
        if shared:
            raise InputError(f"forms listed as both male and female: {', '.join(sorted(shared))}", path=path,
                             line=number, hint="a form that does not tell the genders apart cannot be used")
        out.append(GenderTemplate(row["id"], row["template"], tuple(male), tuple(female), number))
    return out


def default_template_path(lang: str) -> Path:
    return TEMPLATE_DIR / f"name_gender_{lang}.tsv"


def read_name_file(path: str | Path) -> list[str]:
    """One name per line (blank lines skipped), as the shipped lists."""
    names = [line.strip() for line in read_lines(path) if line.strip()]
    for number, line in enumerate(read_lines(path), 1):
        if "\t" in line:
            raise InputError("expected one name per line", path=path, line=number, hint="remove the tab")
    if not names:
        raise InputError("no names in file", path=path, hint="one name per line")
    return names


_WORD = re.compile(r"\w+(?:-\w+)*")    # hyphens join (Beth-lehem); apostrophes split (Mary’s)


def given_name_counts(names: Sequence[str], path: str | Path) -> dict[str, int]:
    """How often each name's given name (its first token: "Mary" of "Mary of Bethany") occurs
    as a whole, case-sensitive word in the text file at ``path`` ("Mary’s" counts; "Maryland"
    does not)."""
    counts: Counter = Counter()
    for line in read_lines(path):
        counts.update(_WORD.findall(line))
    return {name: counts.get(name.split()[0], 0) for name in names if name.split()}


# --------------------------------------------------------------------------- metric arithmetic

def per_name_array(per_name: Sequence[Mapping[str, Any]]) -> np.ndarray:
    """Per-name rows as (is female, accuracy, undetected share) columns, the rows the name
    metrics read and resample. ``per_name`` rows hold ``gender`` ("male"/"female"), ``correct``
    and ``undetected`` (counts) and ``n`` (templates tried)."""
    return np.array([[1.0 if r["gender"] == "female" else 0.0, r["correct"] / r["n"], r["undetected"] / r["n"]]
                     for r in per_name if r["n"]], dtype=float).reshape(-1, 3)


def _acc(rows: np.ndarray, female: bool) -> float:
    """Acc_g: the mean over names of gender g of their accuracy (NaN without such a name)."""
    keep = rows[:, 0] == (1.0 if female else 0.0)
    return float(np.mean(rows[keep, 1])) if np.any(keep) else float("nan")


def _gender(rows: np.ndarray) -> np.ndarray:
    return rows[:, 0]  # female and male names are resampled apart: every resample has both at their sizes


def name_gender_metrics(per_name: Sequence[Mapping[str, Any]], prefix: str, *, resamples: int = 1000,
                        seed: int = 0) -> list[Metric]:
    """Acc_f, Acc_m, ΔAcc, signed gap and undetected rate of per-name results (rows as
    :func:`per_name_array` reads them) under ``prefix``: the probe's declared name measures
    (:data:`NAME_MEASURES`) of one group of names."""
    return named_for(prefix, measured(NAME_MEASURES, per_name_array(per_name), resamples=resamples, seed=seed))


@dataclass
class _Rows:
    """What the name-gender measures read, computed once per scoring (a paired test scores every
    bootstrap resample): the named attempts the gate passed, the pronoun ones, the per-name table."""

    valid: list[dict[str, Any]]
    pronouns: list[dict[str, Any]]
    kept: int  # templates the he/she filter kept
    per_name: list[dict[str, Any]]
    templates: int  # templates there were
    attempts: Sequence[dict[str, Any]]  # all of them (the gate's metrics)


def _name_groups(rows: _Rows):
    """Per name kind, then per kind and seen/unseen split (with training counts): the per-name rows."""
    for prefix in ("first", "full"):
        kind = [r for r in rows.per_name if r["kind"].startswith(prefix + "_")]
        if kind:
            yield prefix, per_name_array(kind)
        for split, flag in (("seen", True), ("unseen", False)):
            part = [r for r in kind if r.get("seen") is flag]
            if part:
                yield f"{prefix}.{split}", per_name_array(part)


def _pronoun_outcomes(rows: _Rows):
    for pronoun in ("he", "she"):
        outcomes = [bool(a["correct"]) for a in rows.pronouns if a["name"] == pronoun]
        if outcomes:
            yield pronoun, outcomes


def _group_outcomes(rows: _Rows):
    groups: dict[str, list[bool]] = {}
    for a in rows.valid:
        if a.get("group"):
            groups.setdefault(a["group"], []).append(bool(a["correct"]))
    return sorted(groups.items())


def _share(outcomes: Sequence[bool]) -> float:
    return sum(outcomes) / len(outcomes)


# Acc_f, Acc_m, ΔAcc, the signed gap and the undetected rate of one group of names (a kind, or a
# kind and seen/unseen split): means over names, intervals over names with female and male names
# resampled apart (per_name_array's rows)
NAME_MEASURES = (
    Measure("*.acc_f", HIGHER, bounds=(0, 1), label="Acc_f ({0} names)",
            definition="mean over female names of the share of templates translated with the feminine form",
            source=f"{SWITCH_PAPER} §2.2", interval=OVER_NAMES, value=lambda a: _acc(a, True),
            strata=_gender, items=lambda a: int(np.sum(a[:, 0] == 1.0))),
    Measure("*.acc_m", HIGHER, bounds=(0, 1), label="Acc_m ({0} names)",
            definition="mean over male names of the share of templates translated with the masculine form",
            source=f"{SWITCH_PAPER} §2.2", interval=OVER_NAMES, value=lambda a: _acc(a, False),
            strata=_gender, items=lambda a: int(np.sum(a[:, 0] == 0.0))),
    # |gap|'s interval is the signed gap's folded (see folded_interval): a bootstrap of |gap|
    # itself cannot contain 0, so it would call every gap, 0 included, significant
    Measure("*.delta_acc", LOWER, BOOTSTRAP, (0, 1), label="ΔAcc ({0} names)",
            definition="|Acc_m − Acc_f|: how much better one gender's names are translated",
            source=f"{SWITCH_PAPER} §2.2",
            interval="the signed gap's 95% bootstrap over names, folded onto |·| (docs/papers.md)",
            value=lambda a: abs(_acc(a, False) - _acc(a, True)), folds="*.acc_gap_m_minus_f"),
    Measure("*.acc_gap_m_minus_f", ZERO, bounds=(-1, 1), label="Acc_m − Acc_f ({0} names)",
            definition="the signed gap: positive when male names fare better", source="mtdebias",
            interval=OVER_NAMES, value=lambda a: _acc(a, False) - _acc(a, True), strata=_gender),
    Measure("*.undetected_rate", LOWER, bounds=(0, 1), label="undetected rate ({0} names)",
            definition="share of translations whose key noun's gender was not read", source="mtdebias",
            interval=OVER_NAMES, value=lambda a: float(np.mean(a[:, 2])) if len(a) else float("nan"),
            strata=_gender, degenerate="the detector read no gender in most translations",
            at_least=SAYS_LITTLE))


# --------------------------------------------------------------------------- the probe

# The he/she filter that decides which templates can measure name bias for a model.
# "two-forms" is the SwitchEntity paper's rule (§2.2): drop a template when its key noun has only
# one translation, i.e. "he" and "she" give the same (or no) detected gender; a model that swaps
# them (he → Lehrerin, she → Lehrer) keeps the template, and its pronoun attempts count as wrong.
# "strict" (this project's earlier rule) also demands that "he" gives the masculine and "she"
# the feminine form, so it measures names only where pronouns already work.
PRONOUN_FILTERS = ("two-forms", "strict")
_GENDERED = ("male", "female")


def _filter_decision(rule: str, he: str, she: str) -> tuple[bool, str]:
    """(keep, reason) for a template whose key noun came out ``he``/``she`` for the two pronouns."""
    if rule == "strict":
        problems = ([f"'he' gave {he}"] if he != "male" else []) + ([f"'she' gave {she}"] if she != "female" else [])
        return not problems, ", ".join(problems) or "kept"
    undetected = [f"'{p}' gave {g}" for p, g in (("he", he), ("she", she)) if g not in _GENDERED]
    if undetected:
        return False, ", ".join(undetected)
    if he == she:
        return False, f"one form only ({he} for both pronouns)"
    return True, "kept"


class _NameGenderFields(TypedDict):
    kind: str  # "pronoun" (the he/she filter's own sentences), "first_female", "full_male", …
    name: str  # the name, or "he" / "she"
    gender: str  # the referent's gender: male | female
    template: str  # template id
    source: str
    translation: str
    detected: str  # female | male | neutral | undetected
    evidence: list[str]
    span: list[int] | None  # the words the detector read
    correct: bool
    validity: Validity  # the gate's verdict: an invalid translation is in no metric but its own


class NameGenderAttempt(_NameGenderFields, total=False):
    """One name (or pronoun) in one template; with training counts, whether the name was seen."""

    seen: bool
    train_count: int
    group: str  # "<kind>.<seen|unseen>.<gender>"


class NameGenderProbe(BaseProbe):
    """``name_gender.v1``: accuracy of gender agreement with female vs male names."""
    name = "name_gender.v1"
    unsigned = ("resamples",)  # sets the bootstrap interval's precision, not the values
    # the templates and names kept are the data hash (the training file of seen_in too)
    hashed = ("templates", "first_female", "first_male", "full_female", "full_male", "names_limit", "templates_limit")
    shown = {"seen_in": Shown("split", lambda p: "seen" if p.seen_counts is not None else None)}
    also_signed = {"gate": SURFACE_GATE}
    option_ranges = {"names_limit": Range(1, why="leave it out to use every name"),
                     "templates_limit": Range(1, why="leave it out to use every template")}

    option_help = {"lang": "target language code (needs a gender detector)",
                   "templates": "template TSV (id, template, male, female forms) replacing the shipped one",
                   "first_female": "female first names, one a line (default: the shipped list)",
                   "first_male": "male first names, one a line (default: the shipped list)",
                   "full_female": "female full names, one a line (default: the shipped list)",
                   "full_male": "male full names, one a line (default: the shipped list)",
                   "names_limit": "keep the first N names of each list",
                   "templates_limit": "keep the first N templates",
                   "seen_in": "the model's training source text: metrics also split by names seen / unseen there",
                   "pronoun_filter": "which templates measure names: two-forms (the paper's he/she rule) or strict"}
    attempt_type = NameGenderAttempt
    needs = ("detector",)  # reads the gender of target words
    # 2: the per-name table (was meta); 3: ΔAcc's interval folded from the signed gap's; 4: each
    # attempt's validity verdict, valid_rate and invalid.*
    stored_layout = 4
    degenerate_when = (TooFewTranslations(),)
    # bounds from the definitions: shares of attempts (or means of per-name shares) in [0, 1],
    # ΔAcc = |Acc_m − Acc_f| in [0, 1], the signed gap in [−1, 1], templates_kept a count. No NaN:
    # an undefined value (no name of a gender, no attempt of a group) is left out, not stored.
    # Pooled accuracies get no interval: the attempts of one name (or template) are not independent draws
    measures = (
        Measure("templates_kept", NEUTRAL, bounds=(0, math.inf), label="templates kept (name-gender)",
                definition="templates the he/she filter kept (n: the templates there were)",
                source=f"{SWITCH_PAPER} §2.2", interval=NO_INTERVAL, value=lambda r: float(r.kept),
                items=lambda r: r.templates,
                degenerate="no template passed the he/she filter, so no name was tested "
                           "(a model that does not yet translate the pronouns?)", at_most=0),
        Computed(lambda r: validity_metrics(r.attempts)),  # over every attempt, no interval
        # the he/she filter's own outcome: "She was blind." → «ciega»? (per template)
        Family(_pronoun_outcomes, (
            Measure(f"{PRONOUN}.*.acc", HIGHER, MCNEMAR, (0, 1), spec=False, value=_share),)),
        Measure("accuracy", HIGHER, MCNEMAR, (0, 1), label="name-gender accuracy",
                definition="share of filled templates whose key noun has the name's gender (all names)",
                source=f"{SWITCH_PAPER} §2.2", interval=NO_INTERVAL, when=lambda r: bool(r.valid),
                value=lambda r: _share([bool(a["correct"]) for a in r.valid]), items=lambda r: len(r.valid)),
        Family(_name_groups, NAME_MEASURES),
        # per seen/unseen × gender group (with seen_in): the group's pooled accuracy
        Family(_group_outcomes, (
            Measure(f"{GROUP_ACCURACY}.*", HIGHER, MCNEMAR, (0, 1), label="name-gender accuracy ({0})",
                    definition="pooled accuracy of one group of names (kind, seen or unseen, gender)",
                    source="mtdebias (accuracy per seen/unseen group of names)", interval=NO_INTERVAL,
                    value=_share),)),
        MetricSpec(f"{PRONOUN}.*", HIGHER, MCNEMAR, (0, 1), label="pronoun accuracy ({0})",
                   definition="share of templates whose he (she) translation has the masculine (feminine) form",
                   source=f"{SWITCH_PAPER} §2.2 (the he/she filter)", interval=NO_INTERVAL),
        *validity_specs("name-gender"))
    headline = (Headline("first.acc_f"), Headline("first.acc_m"), Headline("first.delta_acc"),
                Headline("full.delta_acc"))  # labelled by their specs

    def __init__(self, templates: Sequence[GenderTemplate], lang: str, names: Mapping[str, Sequence[str]],
                 *, beam: int = 5, resamples: int = 1000, seed: int = 0, data_hash: str | None = None,
                 detect: Callable[..., Any] | None = None, seen_counts: Mapping[str, int] | None = None,
                 pronoun_filter: str = "two-forms"):
        if not templates:
            raise InputError("the name-gender probe needs at least one template")
        unknown = set(names) - set(NAME_KINDS)
        if unknown:
            raise InputError(f"unknown name list kind(s) {', '.join(sorted(unknown))}",
                             hint=f"use {', '.join(NAME_KINDS)}")
        if pronoun_filter not in PRONOUN_FILTERS:
            close = difflib.get_close_matches(str(pronoun_filter), PRONOUN_FILTERS, n=1)
            raise InputError(f"pronoun_filter = {pronoun_filter!r} is not a filter rule",
                             hint=f"did you mean '{close[0]}'?" if close else f"use one of {', '.join(PRONOUN_FILTERS)}")
        self.pronoun_filter = pronoun_filter
        self.templates = list(templates)
        self.lang = lang
        self.names = {kind: list(values) for kind, values in names.items() if values}
        self.beam = beam
        self.resamples = resamples
        self.seed = seed
        self.data_hash = data_hash or hash_json([[t.id, t.template, t.male, t.female] for t in self.templates]
                                                + sorted(self.names.items()))
        self._detect = detect
        # name → occurrences of its given name in the training text; None: no seen/unseen split
        self.seen_counts = dict(seen_counts) if seen_counts is not None else None

    @classmethod
    def from_options(cls, lang: str, templates: str | Path | None = None, *,
                     first_female: str | Path | None = None, first_male: str | Path | None = None,
                     full_female: str | Path | None = None, full_male: str | Path | None = None,
                     names_limit: int | None = None, templates_limit: int | None = None, beam: int = 5, resamples: int = 1000, seed: int = 0,
                     seen_in: str | Path | None = None, pronoun_filter: str = "two-forms") -> "NameGenderProbe":
        """Templates default to the shipped ``mtdebias/data/templates/name_gender_<lang>.tsv``; each name
        list defaults to :func:`mtdebias.names.load_name_list` and may be replaced by a file
        with one name per line. ``names_limit`` keeps the first N names of each list,
        ``templates_limit`` the first N templates.
        ``seen_in``: a training source file; metrics are then also split by seen/unseen names.
        ``pronoun_filter``: ``"two-forms"`` (the paper's he/she rule, default) or ``"strict"``."""
        path = Path(templates) if templates else default_template_path(lang)
        if not path.is_file():
            raise InputError(f"no name-gender templates for language {lang!r}", path=path,
                             hint="pass --templates PATH with your own file (format in mtdebias/data/templates/README.md)")
        loaded = load_gender_templates(path)
        if templates_limit is not None:
            loaded = loaded[:int(templates_limit)]
        given = {"first_female": first_female, "first_male": first_male,
                 "full_female": full_female, "full_male": full_male}
        names: dict[str, list[str]] = {}
        for kind, file in given.items():
            if file:
                names[kind] = read_name_file(file)
            else:
                from ...names import load_name_list

                names[kind] = load_name_list(kind)
            if names_limit is not None:
                names[kind] = names[kind][:names_limit]
        hashes = [hash_file(path), sorted(names.items())] + ([templates_limit] if templates_limit is not None else [])
        seen_counts = None
        if seen_in:
            if not Path(seen_in).is_file():
                raise InputError("seen_in names no file", path=seen_in,
                                 hint="give the training source text the names are counted in")
            seen_counts = given_name_counts([n for values in names.values() for n in values], seen_in)
            hashes.append(hash_file(seen_in))
        return cls(loaded, lang, names, beam=beam, resamples=resamples, seed=seed, data_hash=hash_json(hashes),
                   seen_counts=seen_counts, pronoun_filter=pronoun_filter)

    def seen(self, name: str) -> bool | None:
        return None if self.seen_counts is None else self.seen_counts.get(name, 0) > 0

    def _detect_fn(self):
        if self._detect is None:
            from ...lang import detect_gender  # late import: the language module loads spacy/pymorphy

            return detect_gender
        return self._detect

    def filter_templates(self, translator: Translator) -> tuple[list[GenderTemplate], list[dict[str, Any]]]:
        """Keep the templates whose key noun can show the referent's gender in this model: see
        :data:`PRONOUN_FILTERS` for the two rules."""
        sources = [fill(t.template, pronoun) for t in self.templates for pronoun in ("he", "she")]
        return self._filter(translator.translate(sources, beam=self.beam))

    def _filter(self, outputs: Sequence[str]) -> tuple[list[GenderTemplate], list[dict[str, Any]]]:
        """The he/she filter's judgement of the translations of every template with "he" and "she"."""
        detect = self._detect_fn()
        sources = [fill(t.template, pronoun) for t in self.templates for pronoun in ("he", "she")]
        kept, log = [], []
        for k, template in enumerate(self.templates):
            judged = {pronoun: self._judge_one(sources[2 * k + j], outputs[2 * k + j], template, detect)
                      for j, pronoun in enumerate(("he", "she"))}
            # a pronoun sentence that is no translation shows no form of the noun: the template
            # cannot be judged for this model, so it is dropped with the gate's reason
            invalid = [f"'{p}' gave {WHY[v['validity']['reason']]}" for p, v in judged.items()
                       if not v["validity"]["valid"]]
            keep, reason = (False, ", ".join(invalid)) if invalid else \
                _filter_decision(self.pronoun_filter, judged["he"]["detected"], judged["she"]["detected"])
            log.append({"template": template.id, "kept": keep, "reason": reason, **judged})
            if keep:
                kept.append(template)
        return kept, log

    def _judge_one(self, source: str, translation: str, template: GenderTemplate, detect) -> dict[str, Any]:
        """The gate's verdict on one translation, then (when it is one) the key noun's gender."""
        verdict = check(source, translation, self.lang, adequate=False)
        if not verdict["valid"]:
            return {"source": source, "translation": translation, "detected": "undetected", "span": None,
                    "evidence": [f"not judged: the translation is {WHY[verdict['reason']]}"], "validity": verdict}
        found = detect(self.lang, translation, None, forms=template.forms())
        return {"source": source, "translation": translation, "detected": found.gender,
                "span": list(found.span) if found.span else None, "evidence": list(found.evidence),
                "validity": verdict}

    def items(self) -> list[tuple[str, str, GenderTemplate]]:
        """(name kind, name, template) for every name and template; decode keeps the templates
        that pass the he/she filter for the model at hand."""
        return [(kind, name, template) for kind, names in self.names.items() for name in names
                for template in self.templates]

    def decode(self, translator: Translator, items: Sequence[tuple[str, str, GenderTemplate]]) -> Outputs:
        """Translate every template with "he" and "she", then — for the templates the he/she
        filter keeps for this model — every name: decoding names into a template whose noun
        cannot show gender in this model would cost time and tell nothing."""
        pronoun_outputs = translator.translate([fill(t.template, pronoun) for t in self.templates
                                                for pronoun in ("he", "she")], beam=self.beam)
        # the filter has to judge here, to know what to decode; judge reads its verdicts from here
        kept, filter_log = self._filter(pronoun_outputs)
        kept_ids = {t.id for t in kept}
        jobs = [(kind, name, template) for kind, name, template in items if template.id in kept_ids]
        names = translator.translate([fill(t.template, name) for _, name, t in jobs], beam=self.beam) if jobs else []
        return Outputs([{"kept": kept, "filter": filter_log, "names": dict(zip(
            [(kind, name, template.id) for kind, name, template in jobs], names))}])

    def judge(self, items: Sequence[tuple[str, str, GenderTemplate]], outputs: Sequence[dict[str, Any]]) -> Attempts:
        """The he/she filter's verdicts (its translations are attempts too), then the gender of
        each name's sentence in the kept templates."""
        decoded = outputs[0]
        kept, filter_log = decoded["kept"], decoded["filter"]
        kept_ids = {t.id for t in kept}
        dropped = [entry["template"] for entry in filter_log if not entry["kept"]]
        meta: dict[str, Any] = {"lang": self.lang, "templates": len(self.templates), "templates_kept": len(kept),
                                "dropped_templates": dropped, "filter": filter_log}
        # the filter's translations are attempts too: a model that renders "She was blind." with
        # «ciego» shows its masculine default there, even when no template survives for names
        pronouns = [{"kind": PRONOUN, "name": pronoun, "gender": gender, "template": entry["template"],
                     "source": entry[pronoun]["source"], "translation": entry[pronoun]["translation"],
                     "detected": entry[pronoun]["detected"], "evidence": entry[pronoun]["evidence"],
                     "span": None, "correct": entry[pronoun]["detected"] == gender,
                     "validity": entry[pronoun]["validity"]}
                    for entry in filter_log for pronoun, gender in (("he", "male"), ("she", "female"))]
        if self.seen_counts is not None:  # recorded even when no template survives the filter
            meta["seen_names"] = {kind: sum(self.seen(n) for n in names) for kind, names in self.names.items()}
            meta["unseen_names"] = {kind: sum(not self.seen(n) for n in names) for kind, names in self.names.items()}
        jobs = [(kind, name, template) for kind, name, template in items if template.id in kept_ids]
        if not jobs:
            meta["warning"] = "no template survived the he/she filter; no name accuracies can be computed"
            return Attempts(pronouns, meta=meta)
        detect = self._detect_fn()
        attempts = []
        for kind, name, template in jobs:
            gender = kind.split("_")[1]
            judged = self._judge_one(fill(template.template, name), decoded["names"][(kind, name, template.id)],
                                     template, detect)
            seen = self.seen(name)
            extra = {} if seen is None else {"seen": seen, "train_count": self.seen_counts.get(name, 0),
                                             "group": f"{kind.split('_')[0]}.{'seen' if seen else 'unseen'}.{gender}"}
            attempts.append({"kind": kind, "name": name, "gender": gender, "template": template.id, **extra,
                             **judged, "correct": judged["detected"] == gender})
        return Attempts(pronouns + attempts, meta=meta)

    def tables(self, attempts: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """``per_name``: each name's attempts, correct and undetected counts and accuracy (valid
        translations only)."""
        rows = per_name_rows([a for a in attempts if a["kind"] != PRONOUN and is_valid(a)])
        return {"per_name": rows} if rows else {}

    def item_key(self, attempt: dict[str, Any]) -> tuple[str, str, str]:
        return attempt["kind"], attempt["name"], attempt["template"]



    def values(self, attempts: Sequence[dict[str, Any]]) -> _Rows:
        """What the measures read. They are templates_kept; the gate's ``valid_rate`` and
        ``invalid.<reason>`` over every attempt;
        ``pronoun.he.acc`` / ``pronoun.she.acc``: the share of templates whose "He …" / "She …"
        comes out masculine / feminine (the filter's attempts); the pooled per-attempt accuracy
        (what McNemar pairs); per name kind Acc_f, Acc_m, ΔAcc, the signed gap and the undetected
        rate (means over names); with a seen/unseen split (attempts that carry ``seen``) the same
        per kind and split, and each group's pooled accuracy. A translation the gate rejects is in
        no other metric: an English copy of "Anna is a doctor." has no German noun to be right or
        wrong about, and counting it wrong would turn a model that did not translate into one
        that gets names wrong."""
        named = [a for a in attempts if a["kind"] != PRONOUN]
        valid = [a for a in named if is_valid(a)]
        return _Rows(valid, [a for a in attempts if a["kind"] == PRONOUN and is_valid(a)],
                     len({a["template"] for a in named}), per_name_rows(valid) if valid else [], len(self.templates),
                     attempts)


    def counts_toward(self, metric: str, attempt: dict[str, Any]) -> bool:
        """A group's accuracy rests on the group's attempts only (its McNemar test pairs those)."""
        if metric.startswith(PRONOUN + "."):
            return attempt["kind"] == PRONOUN and metric == f"{PRONOUN}.{attempt['name']}.acc"
        if attempt["kind"] == PRONOUN:
            return False
        group = metric.removeprefix(GROUP_ACCURACY + ".") if metric.startswith(GROUP_ACCURACY + ".") else None
        return group is None or attempt.get("group") == group

    def unit(self, attempt: dict[str, Any], index: int) -> tuple[str, str]:
        if attempt["kind"] == PRONOUN:  # one unit per template and pronoun
            return (PRONOUN, f"{attempt['name']}:{attempt['template']}")
        return (attempt["kind"], attempt["name"])  # names are the independent unit (see the module docstring)


def per_name_rows(attempts: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (kind, name): n attempts, correct and undetected counts, accuracy."""
    per_name: dict[tuple[str, str], dict[str, Any]] = {}
    for a in attempts:  # called on every bootstrap resample of a paired test: kept lean
        key = (a["kind"], a["name"])
        row = per_name.get(key)
        if row is None:
            row = per_name[key] = {"kind": a["kind"], "name": a["name"], "gender": a["gender"],
                                   "n": 0, "correct": 0, "undetected": 0}
            if "seen" in a:
                row["seen"], row["train_count"] = a["seen"], a.get("train_count")
        row["n"] += 1
        if a["correct"]:
            row["correct"] += 1
        if a["detected"] == "undetected":
            row["undetected"] += 1
    for row in per_name.values():
        row["accuracy"] = row["correct"] / row["n"]
    return list(per_name.values())
