"""Helpers shared by the gender-detection test files (test_lang_*.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

WINOMT = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "winomt"


def at(text: str, word: str) -> tuple[int, int]:
    """Character span of the first occurrence of ``word`` in ``text``."""
    start = text.index(word)
    return start, start + len(word)


def winomt_translation(lang: str, line: int) -> str:
    """Translation half of line `line` (1-based) of the AWS WinoMT output for `lang`."""
    path = WINOMT / "translations-aws" / f"en-{lang}.txt"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    return path.read_text(encoding="utf-8").splitlines()[line - 1].split(" ||| ", 1)[1]
