"""The :class:`Registry`: named, versioned components whose entries are ``"module:object"``
strings, imported only when a component is used.

So naming or validating a component (a recipe, a suite) imports nothing heavy and nothing
registers itself by being imported. Names follow one scheme, ``name.vN``; the unversioned names
of earlier recipes and suites (``winomt``, ``hard``) are aliases pinned to one version.

The class is kept apart from the tables (:mod:`mtdebias.registry` and the tables it gathers) so
that a package can keep the table of its own components, and dispatch on it, without importing
the index that names the packages above it.
"""

from __future__ import annotations

import difflib
import importlib
import warnings
from dataclasses import dataclass, field
from typing import Any, Mapping

from .errors import ConfigError


@dataclass(frozen=True)
class Registry:
    kind: str  # what the entries are, for messages: "probe", "debiasing method", ...
    entries: Mapping[str, str]  # canonical name ("winomt.v1") → "module:object"
    aliases: Mapping[str, str] = field(default_factory=dict)  # old name → canonical name

    def names(self) -> tuple[str, ...]:
        """Every accepted name: canonical ones first, then aliases."""
        return (*self.entries, *self.aliases)

    def __contains__(self, name: object) -> bool:
        return name in self.entries or name in self.aliases

    def canonical(self, name: str, where: str | None = None) -> str:
        """``winomt`` → ``winomt.v1``; an unknown name is a :class:`ConfigError` with a did-you-mean."""
        if name in self.entries:
            return name
        if name in self.aliases:
            pinned = self.aliases[name]
            newer = self.newer_than(pinned)
            if newer:  # an alias is pinned: results stay comparable, and the user hears of the newer one
                warnings.warn(f"{self.kind} '{name}' means {pinned}; {', '.join(newer)} exists too — name it "
                              f"to use it", stacklevel=2)
            return pinned
        close = difflib.get_close_matches(str(name), self.names(), n=1, cutoff=0.6)
        hint = f"did you mean '{close[0]}'?" if close else f"known: {', '.join(self.entries)}"
        raise ConfigError(f"{where + ': ' if where else ''}unknown {self.kind} {name!r}", hint=hint)

    def newer_than(self, canonical: str) -> list[str]:
        """Later versions of the same component (``winomt.v2`` for ``winomt.v1``)."""
        base, _, version = canonical.rpartition(".v")
        if not version.isdigit():
            return []
        return [entry for entry in self.entries if entry.rpartition(".v")[0] == base
                and entry.rpartition(".v")[2].isdigit() and int(entry.rpartition(".v")[2]) > int(version)]

    def load(self, name: str) -> Any:
        """The object registered under ``name`` (imported now)."""
        target = self.entries[self.canonical(name)]
        module_name, _, attribute = target.partition(":")
        obj: Any = importlib.import_module(module_name)
        for part in attribute.split("."):
            obj = getattr(obj, part)
        return obj
