"""``KEY=VALUE`` command-line options (``--option``, ``--translator-option``, ``--set``), one reading for every verb."""

from __future__ import annotations

import json

from ..errors import InputError


def parse_pairs(items: list[str], flag: str = "option") -> dict:
    """``["a=1", "b=x"]`` → ``{"a": 1, "b": "x"}``: a value is JSON when it parses as JSON, else text."""
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise InputError(f"--{flag} '{item}' must look like key=value")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out
