"""Single-effect ANOVA of bias cues on (normalised) entropy.

The cues and their reference levels are the caller's (the ambiguity probe passes
:mod:`mtdebias.uncertainty.cues`'s ``CUES`` and ``REFERENCE``): statistics sit below the
uncertainty package and name none of its cues.

For each cue separately (the cues overlap — "pronoun N" *is* "ambiguous" — so a joint model
would be collinear) an OLS model ``response ~ C(cue, Treatment(reference))`` is fitted with
statsmodels. With treatment coding each coefficient is the mean response of a level minus the
mean of the reference group; its t-test says whether that difference is significant, and the
model's F-test whether the cue matters at all.
"""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

COLUMNS = ["cue", "level", "reference", "coef", "std_err", "t", "p", "n_level", "n_reference",
           "f", "f_p", "n"]


def cue_effects(frame, response: str, cue: str, reference: str) -> list[dict]:
    """Rows (one per non-reference level) of the single-effect model of ``cue`` on ``response``.

    NaN responses are dropped. Returns [] when the cue has fewer than two levels or lacks its
    reference level among the remaining rows (nothing to compare against).
    """
    import statsmodels.formula.api as smf

    data = frame[[response, cue]].dropna()
    data = data.rename(columns={response: "y", cue: "x"})
    data["x"] = data["x"].astype(str)
    counts = data["x"].value_counts()
    if len(counts) < 2 or reference not in counts:
        return []
    fit = smf.ols(f"y ~ C(x, Treatment(reference={reference!r}))", data=data).fit()
    rows = []
    for name in fit.params.index:
        if "[T." not in name:
            continue
        level = name.split("[T.", 1)[1].rstrip("]")
        rows.append({"cue": cue, "level": level, "reference": reference,
                     "coef": float(fit.params[name]), "std_err": float(fit.bse[name]),
                     "t": float(fit.tvalues[name]), "p": float(fit.pvalues[name]),
                     "n_level": int(counts[level]), "n_reference": int(counts[reference]),
                     "f": float(fit.fvalue), "f_p": float(fit.f_pvalue), "n": int(fit.nobs)})
    return rows


def anova_table(frame, responses: Sequence[str], cues: Iterable[str], references: Mapping[str, str],
                by: Sequence[str] = ()):
    """A long table of cue effects: one row per (by-keys…, response, cue, level).

    ``references`` maps a cue to its reference level ("N" for a cue it leaves out).
    ``by`` names columns to split on first, e.g. ``("model", "lang")`` for a table per model ×
    language; ``responses`` are the dependent variables, e.g. ``["norm_h_s3e", "norm_h_se"]``.
    """
    import pandas as pd

    groups = [((), frame)] if not by else [(k if isinstance(k, tuple) else (k,), g)
                                           for k, g in frame.groupby(list(by))]
    rows = []
    for keys, part in groups:
        for response in responses:
            for cue in cues:
                if cue not in part.columns:
                    continue
                for row in cue_effects(part, response, cue, references.get(cue, "N")):
                    rows.append({**dict(zip(by, keys)), "response": response, **row})
    return pd.DataFrame(rows, columns=[*by, "response", *COLUMNS])

