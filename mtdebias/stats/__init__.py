"""Statistics, in one place: percentile bootstrap intervals over items and Holm's adjustment
(:mod:`.bootstrap`), paired tests of two systems (:mod:`.paired`: McNemar, paired bootstrap,
BLEU/chrF; :mod:`.compare`: the tests each probe metric declares), the cue ANOVA
(:mod:`.anova`) and the interval over training seeds (:mod:`.seeds`).

The intervals every probe computes are named here too (``from mtdebias.stats import
bootstrap_ci``), the name probes inside and outside the package (entry-point plugins,
docs/extending.md) import them by.
"""

from .bootstrap import (DEFAULT_RESAMPLES, bootstrap_ci, bootstrap_cis, folded_interval, holm, stratified_bootstrap_ci,
                        wilson_interval)

__all__ = ["DEFAULT_RESAMPLES", "bootstrap_ci", "bootstrap_cis", "stratified_bootstrap_ci", "wilson_interval",
           "folded_interval", "holm"]
