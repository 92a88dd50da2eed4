"""Probe names → constructors from plain options (what ``mtdebias eval --probe NAME`` calls).

Each constructor takes keyword options (``lang``, ``data``, ``templates``, ...) and ignores the
ones meant for other probes, so the CLI can pass one options dict to whichever probe is named.
"""

from __future__ import annotations

from typing import Any, Callable

from .name_gender import NameGenderProbe
from .sentiment import SentimentProbe
from .ambiguity import AmbiguityProbe
from .gest import GestPreferenceProbe, GestProbe
from .winomt import WinoMTProbe
from .wsd_bias import WSDBiasProbe

PROBES: dict[str, Callable[..., Any]] = {
    "winomt": WinoMTProbe.from_options,
    "name_gender": NameGenderProbe.from_options,
    "sentiment": SentimentProbe.from_options,
    "ambiguity": AmbiguityProbe.from_options,
    "gest": GestProbe.from_options,
    "gest_pref": GestPreferenceProbe.from_options,
    "wsd_bias": WSDBiasProbe.from_options,
}
