"""Ukrainian (pymorphy3 + pymorphy3-dicts-uk); rules in :mod:`mtdebias.lang.slavic_pymorphy`."""

from __future__ import annotations

from . import slavic_pymorphy
from .base import Detection


def detect(text: str, span: tuple[int, int]) -> Detection:
    return slavic_pymorphy.detect("uk", text, span)
