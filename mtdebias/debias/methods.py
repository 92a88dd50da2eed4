"""The debiasing methods by name: one line per eraser (``name.vN`` → ``"module:Class"``).

:mod:`mtdebias.debias.apply` picks an eraser from this table and :mod:`mtdebias.probes.registry`
lists it with the other components. It lives in this package, not in the registry, because
``apply`` dispatches on it and the registry names the packages above this one: importing the
registry from here would make a loop (registry → eraser → apply → registry). Importing it
imports no eraser (and no torch): a recipe is validated against the names alone.
"""

from __future__ import annotations

from ..plugins.registry import Registry

DEBIAS_METHODS = Registry("debiasing method", {
    "hard.v1": "mtdebias.debias.hard:HardDebiasEraser",
    "inlp.v1": "mtdebias.debias.inlp:INLPEraser",
    "leace.v1": "mtdebias.debias.leace:LeaceEraser",
},
    plugins="debias", check="mtdebias.debias.base:check_eraser")
