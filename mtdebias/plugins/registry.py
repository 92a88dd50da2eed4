"""The :class:`Registry`: named, versioned components whose entries are ``"module:object"``
strings, imported only when a component is used.

So naming or validating a component (a recipe, a suite) imports nothing heavy and nothing
registers itself by being imported. Names follow one scheme, ``name.vN``; the unversioned names
of earlier recipes and suites (``winomt``, ``hard``) are aliases derived from the entries, pinned
to the first version (a plugin's too: ``copy_rate`` means ``copy_rate.v1``).

The class is kept apart from the tables (:mod:`mtdebias.probes.registry` and the tables it gathers) so
that a package can keep the table of its own components, and dispatch on it, without importing
the index that names the packages above it.

A registry with a ``plugins`` group also holds the components other distributions declare as
entry points of that group (:mod:`mtdebias.plugins`), read when its names are first asked for;
built-in and plugin entries are loaded, and type-checked (``check``), the same way.
"""

from __future__ import annotations

import difflib
import warnings
from dataclasses import dataclass, field
from typing import Any, Iterator, Mapping

from ..errors import ConfigError
from . import Plugin, load_object, merged


class _Entries(Mapping[str, str]):
    """The built-in table plus the plugins of a group, merged on first use (so importing a
    registry reads no installed metadata)."""

    def __init__(self, kind: str, builtin: Mapping[str, str], aliases: Mapping[str, str], group: str):
        self._args = (group, builtin, aliases)
        self._entries: dict[str, str] | None = None
        self.plugins: dict[str, Plugin] = {}
        self._kind = kind

    def _table(self) -> dict[str, str]:
        if self._entries is None:
            group, builtin, aliases = self._args
            self._entries, self.plugins = merged(group, builtin, taken=aliases, valid_name=_versioned,
                                                 name_rule=f"a {self._kind} is named NAME.vN")
        return self._entries

    def __getitem__(self, name: str) -> str:
        return self._table()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table())

    def __len__(self) -> int:
        return len(self._table())


def _versioned(name: str) -> bool:
    base, _, version = name.rpartition(".v")
    return bool(base) and version.isdigit()


@dataclass(frozen=True)
class Registry:
    kind: str  # what the entries are, for messages: "probe", "debiasing method", ...
    entries: Mapping[str, str]  # canonical name ("winomt.v1") → "module:object"
    # names kept by hand beside the derived ones (see all_aliases); an unversioned name needs none
    aliases: Mapping[str, str] = field(default_factory=dict)
    plugins: str | None = None  # the plugin group's key in mtdebias.plugins.GROUPS ("probe"), if any
    # "module:function" called as function(obj, name, where) on every object loaded: raises when the
    # object is not a component of this kind (a plugin's entry point naming the wrong thing)
    check: str | None = None

    def __post_init__(self) -> None:
        if self.plugins is not None:
            object.__setattr__(self, "entries", _Entries(self.kind, self.entries, self.aliases, self.plugins))

    def plugin(self, name: str) -> Plugin | None:
        """The installed plugin behind a name (None for a built-in entry)."""
        entries = self.entries
        return entries.plugins.get(name) if isinstance(entries, _Entries) and name in entries else None

    def all_aliases(self) -> dict[str, str]:
        """Unversioned name → the version it means: derived from the entries (``winomt`` →
        ``winomt.v1``, the lowest version, pinned so results stay comparable when a newer one is
        added; plugins included), plus any alias declared by hand."""
        derived: dict[str, str] = {}
        for entry in self.entries:
            base, _, version = entry.rpartition(".v")
            if base and version.isdigit() and base not in self.entries and (
                    base not in derived or int(version) < int(derived[base].rpartition(".v")[2])):
                derived[base] = entry
        return {**derived, **self.aliases}

    def names(self) -> tuple[str, ...]:
        """Every accepted name: canonical ones first, then aliases."""
        return (*self.entries, *self.all_aliases())

    def __contains__(self, name: object) -> bool:
        return name in self.entries or name in self.all_aliases()

    def canonical(self, name: str, where: str | None = None) -> str:
        """``winomt`` → ``winomt.v1``; an unknown name is a :class:`ConfigError` with a did-you-mean."""
        if name in self.entries:
            return name
        aliases = self.all_aliases()
        if name in aliases:
            pinned = aliases[name]
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
        canonical = self.canonical(name)
        plugin = self.plugin(canonical)
        obj = plugin.load() if plugin else load_object(self.entries[canonical])
        if self.check is not None:
            where = plugin.where() if plugin else f"{self.kind} {canonical!r}"
            load_object(self.check)(obj, canonical, where)
        return obj
