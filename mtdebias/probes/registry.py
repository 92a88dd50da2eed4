"""The index of every named, versioned component: probes, debiasing methods, aligners and
augmenters (each a :class:`~mtdebias.plugins.registry.Registry` of ``"module:object"`` strings).

A registry string is a dependency like an import (``tests/test_layers.py`` reads it as one), so
each table lives as low as the components it names and no lower than the code that dispatches
on it: probes and augmenters are named here, above everything they name; a debiasing method is
one line in :mod:`mtdebias.debias.methods` and an aligner one line in
:mod:`mtdebias.align.aligners`, the tables those packages pick their components from (kept
there so that neither package imports this index, which names them: that was a loop).
This module gathers all four, so callers above (recipes, suites, the runner, the CLI) ask one
place. Probes and debiasing methods may also come from other distributions (entry points, see
:mod:`mtdebias.plugins`), checked when loaded like built-in ones. Naming and validating stay
light: importing this imports no probe, eraser, augmenter or aligner backend (align.aligners
itself needs only the standard library until an aligner runs).
"""

from __future__ import annotations

from ..align.aligners import ALIGNERS
from ..debias.methods import DEBIAS_METHODS
from ..plugins.registry import Registry

PROBES = Registry("probe", {
    "quality.v1": "mtdebias.probes.quality.probe:QualityProbe.from_options",
    "winomt.v1": "mtdebias.probes.winomt.probe:WinoMTProbe.from_options",
    "name_gender.v1": "mtdebias.probes.name_gender.probe:NameGenderProbe.from_options",
    "sentiment.v1": "mtdebias.probes.sentiment.probe:SentimentProbe.from_options",
    "ambiguity.v1": "mtdebias.probes.ambiguity.probe:AmbiguityProbe.from_options",
    "wsd_bias.v1": "mtdebias.probes.wsd.probe:WSDBiasProbe.from_options",
    "gest.v1": "mtdebias.probes.gest.probe:GestProbe.from_options",
    "gest_pref.v1": "mtdebias.probes.gest.probe:GestPreferenceProbe.from_options",
    "gest_choice.v1": "mtdebias.probes.gest.choice:GestChoiceProbe.from_options",
},
    plugins="probe", check="mtdebias.probes.base:check_probe")

AUGMENTERS = Registry("augmenter", {
    "switch_entity.v1": "mtdebias.augment.switch:SwitchEntity",
})

REGISTRIES = {"probe": PROBES, "debias": DEBIAS_METHODS, "aligner": ALIGNERS, "augmenter": AUGMENTERS}

__all__ = ["Registry", "PROBES", "DEBIAS_METHODS", "ALIGNERS", "AUGMENTERS", "REGISTRIES"]
