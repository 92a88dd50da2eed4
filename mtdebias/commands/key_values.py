"""``KEY=VALUE`` command-line options (``--option``, ``--translator-option``, ``--set``), one reading for every verb."""

from __future__ import annotations

import json

from ..errors import InputError, shown


def parse_pairs(items: list[str], flag: str = "option") -> dict:
    """``["a=1", "b=x"]`` → ``{"a": 1, "b": "x"}``: a value is JSON when it parses as JSON, else text.
    What each value may be is the option's to say (:mod:`mtdebias.options`, checked by the caller)."""
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise InputError(f"--{flag} {shown(item)} must look like key=value")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
        except RecursionError:  # "[[[[…" hundreds of levels down: JSON, but no option's value
            raise InputError(f"--{flag} {shown(key)}: the value is nested too deeply to read",
                             hint="pass a number, a string, or a short list") from None
    return out
