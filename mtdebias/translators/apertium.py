"""Apertium, a rule-based MT engine (Debian ``apertium`` + a pair such as ``apertium-eng-spa``),
behind the translator protocol: the first system scored here that nobody on the project built.

``apertium:en-es`` (ISO 639-1 codes, mapped to Apertium's ``eng-spa`` mode) or ``apertium:eng-spa``.
Sources go through one ``apertium -u MODE`` call per batch, one per line (``-u``: no ``*``
marks on unknown words, which would otherwise end up in the text the probes read). A rule-based
system has one output per source and no probabilities, so ``sample`` and ``score`` are refused
with a message naming the probes that need them.
"""

from __future__ import annotations

import difflib
import re
import shutil
import subprocess
from typing import Sequence

from ..errors import ConfigError, MtdebiasError
from .base import DEFAULT_EPSILON, BaseTranslator, Scored, UnsupportedCall

ISO3 = {"en": "eng", "es": "spa", "fr": "fra", "ca": "cat", "pt": "por", "it": "ita", "de": "deu", "ro": "ron",
        "gl": "glg", "oc": "oci", "eu": "eus", "nl": "nld", "ru": "rus", "uk": "ukr", "pl": "pol", "cs": "ces"}


def installed_modes() -> list[str]:
    """The translation modes the installed Apertium pairs provide (``apertium -l``)."""
    if shutil.which("apertium") is None:
        raise MtdebiasError("the apertium translator needs Apertium: `make apertium`, or "
                            "`sudo apt-get install apertium apertium-eng-spa`")
    done = subprocess.run(["apertium", "-l"], capture_output=True, text=True, timeout=60)
    return [line.strip() for line in done.stdout.splitlines() if line.strip()]


def _installed_hint(mode: str, modes: list[str], iso1: bool) -> str:
    """Did-you-mean over the installed modes, written the way the user wrote the pair: a spec given
    in ISO 639-1 codes (``en-sp``) gets ``apertium:en-es`` back, not Apertium's ``eng-spa``."""
    iso1_of = {three: two for two, three in ISO3.items()}

    def as_written(m: str) -> str:
        a, _, b = m.partition("-")
        return f"{iso1_of.get(a, a)}-{iso1_of.get(b, b)}" if iso1 and a in iso1_of and b in iso1_of else m

    close = difflib.get_close_matches(mode, modes, n=1)
    if iso1 and not close:  # "en-sp": compare in the user's own two-letter form
        two = {as_written(m): m for m in modes}
        near = difflib.get_close_matches(as_written(mode), list(two), n=1, cutoff=0.5)
        close = [two[near[0]]] if near else []
    return ((f"did you mean apertium:{as_written(close[0])}? " if close else "")
            + f"installed: {', '.join(as_written(m) for m in modes) or 'none'} (Debian packages apertium-XXX-YYY)")


def _version(package: str) -> str | None:
    done = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else None


class ApertiumTranslator(BaseTranslator):
    def __init__(self, pair: str, timeout: float = 600.0):
        modes = installed_modes()
        source, _, target = pair.partition("-")
        mode = f"{ISO3.get(source, source)}-{ISO3.get(target, target)}" if target else pair
        if mode not in modes:
            raise ConfigError(f"apertium:{pair}: no installed Apertium pair translates {mode}",
                              hint=_installed_hint(mode, modes, iso1=len(source) == 2))
        self.mode, self.timeout = mode, timeout
        a, b = mode.split("-")[:2]
        pair_version = _version(f"apertium-{a}-{b}") or _version(f"apertium-{b}-{a}") or "unknown"
        self._identity = f"apertium:{mode}@apertium-{_version('apertium') or 'unknown'}+pair-{pair_version}"

    @classmethod
    def from_spec(cls, rest: str, src_lang: str | None = None, tgt_lang: str | None = None,
                  **options) -> "ApertiumTranslator":
        """``apertium:en-es``; a suite's language pair, when given, must be the one asked for."""
        if not rest:
            raise ConfigError("apertium: no language pair given", hint="write apertium:en-es")
        if options:
            raise ConfigError(f"apertium: unknown option(s) {', '.join(sorted(options))}",
                              hint="apertium takes the language pair only, e.g. apertium:en-es")
        translator = cls(rest)
        if src_lang and tgt_lang:
            asked = f"{ISO3.get(src_lang, src_lang)}-{ISO3.get(tgt_lang, tgt_lang)}"
            if not translator.mode.startswith(asked):
                modes = installed_modes()
                hint = (f"use apertium:{src_lang}-{tgt_lang}" if asked in modes else
                        f"no installed pair translates {src_lang}→{tgt_lang}: install its Debian package "
                        f"apertium-{asked} if there is one, or score apertium:{rest} in the language it translates into")
                raise ConfigError(f"apertium:{rest} translates {translator.mode}, but {src_lang}→{tgt_lang} is "
                                  "asked for", hint=hint)
        return translator

    def translate(self, sources: Sequence[str], beam: int = 5) -> list[str]:
        lines = [s.replace("\n", " ") for s in sources]
        if not lines:
            return []
        done = subprocess.run(["apertium", "-u", self.mode], input="\n".join(lines) + "\n", capture_output=True,
                              text=True, timeout=self.timeout)
        if done.returncode != 0:
            raise MtdebiasError(f"apertium {self.mode} failed: {done.stderr.strip()[:300]}")
        out = done.stdout.split("\n")[:len(lines)]
        if len(out) != len(lines) or done.stdout.count("\n") < len(lines):
            # line structure lost (should not happen with plain text): one call per sentence
            return [self.translate([line])[0] for line in lines] if len(lines) > 1 else \
                [" ".join(done.stdout.split())]
        # a dropped subject pronoun ("dijo que  era") leaves two spaces
        return [re.sub(r"\s+", " ", line).strip() for line in out]

    def sample(self, sources: Sequence[str], n: int = 128, epsilon: float = DEFAULT_EPSILON,
               temperature: float = 1.0, seed: int = 0) -> list[list[str]]:
        raise UnsupportedCall("apertium is rule-based: it has one translation per source and cannot sample, so "
                              "the ambiguity probe cannot score it")

    def score(self, sources: Sequence[str], targets: Sequence[str]) -> list[Scored]:
        raise UnsupportedCall("apertium gives no probabilities: forced-decoding probes (gest_pref, the "
                              "word-sense probe's BAD-over-GOOD rate) cannot score it")

    def signature(self) -> str:
        return self._identity
