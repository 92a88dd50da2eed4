"""Components shipped by other distributions: the entry points of the groups ``mtdebias.probes``,
``mtdebias.debias``, ``mtdebias.translators`` and ``mtdebias.languages``.

A package adds a probe, a debiasing method, a translator kind or a language without editing
mtdebias by declaring it in its ``pyproject.toml``::

    [project.entry-points."mtdebias.probes"]
    "copy_rate.v1" = "my_probes.copy_rate:CopyRateProbe.from_options"

The entry point's name is the component's name, its value the same ``"module:object"`` string a
built-in table holds. Discovery reads installed metadata only (nothing is imported until the
component is used, like a built-in entry), so naming components stays light. A plugin whose name
is already taken (by a built-in entry, an alias, or another plugin) is refused with a warning
naming both, never allowed to shadow what results were stored under; a malformed entry point is
warned about and left out, and one whose import fails raises an error naming its distribution
when it is used.
"""

from __future__ import annotations

import functools
import importlib
import re
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from ..errors import ConfigError

GROUPS = {"probe": "mtdebias.probes", "debias": "mtdebias.debias", "translator": "mtdebias.translators",
          "language": "mtdebias.languages"}
_VALUE = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


class PluginWarning(UserWarning):
    """A plugin left out: a clash with another component's name, a malformed entry point, a
    failed import."""


@dataclass(frozen=True)
class Plugin:
    name: str  # the component's name ("copy_rate.v1", a kind "dictionary", a language "ro")
    value: str  # "module:object"
    group: str  # "mtdebias.probes"
    distribution: str  # "my-probes 0.1"

    def where(self) -> str:
        return f"entry point {self.name!r} of {self.distribution} (group {self.group})"

    def load(self) -> Any:
        """The object the entry point names, imported now; a failing import is a ConfigError
        naming the distribution (the plugin is broken, not mtdebias)."""
        try:
            return load_object(self.value)
        except Exception as exc:  # noqa: BLE001 — any import-time failure of third-party code
            raise ConfigError(f"{self.where()}: cannot load {self.value!r}: {type(exc).__name__}: {exc}",
                              hint=f"fix or uninstall {self.distribution.split()[0]}") from exc


def load_object(target: str) -> Any:
    """``"package.module:Class.attribute"`` → the object (imported now)."""
    module_name, _, attribute = target.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in attribute.split("."):
        obj = getattr(obj, part)
    return obj


@functools.cache
def _installed() -> tuple[Plugin, ...]:
    """Every entry point of mtdebias's groups in the installed distributions, read in one pass
    over their metadata (once per process)."""
    from importlib.metadata import entry_points

    found = []
    for group in GROUPS.values():
        for point in entry_points(group=group):
            dist = point.dist
            label = f"{dist.metadata['Name']} {dist.version}" if dist is not None else "an unnamed distribution"
            found.append(Plugin(point.name, point.value.strip(), group, label))
    return tuple(found)


def discovered(group: str) -> tuple[Plugin, ...]:
    """The entry points of ``group``, malformed ones warned about and left out."""
    found = []
    for plugin in _installed():
        if plugin.group != group:
            continue
        if not _VALUE.match(plugin.value):
            warnings.warn(f"{plugin.where()}: {plugin.value!r} is not 'module:object'; left out",
                          PluginWarning, stacklevel=3)
            continue
        found.append(plugin)
    return tuple(found)


def merged(kind: str, builtin: Mapping[str, str], taken: Iterable[str] = (),
           valid_name: Callable[[str], bool] | None = None,
           name_rule: str = "") -> tuple[dict[str, str], dict[str, Plugin]]:
    """The built-in table ``builtin`` plus the plugins of ``kind``'s group whose names are free:
    (name → "module:object", name → Plugin of the plugin entries). A name already used by a
    built-in entry or by one of ``taken`` (aliases), or claimed by two plugins, is refused with a
    warning; so is a name ``valid_name`` rejects (``name_rule`` says what it must be)."""
    entries, plugins = dict(builtin), {}
    claimed: dict[str, list[Plugin]] = {}
    for plugin in discovered(GROUPS[kind]):
        claimed.setdefault(plugin.name, []).append(plugin)
    reserved = set(builtin) | set(taken)
    for name, claims in claimed.items():
        if len(claims) > 1:
            warnings.warn(f"{GROUPS[kind]}: {name!r} is claimed by {' and by '.join(p.distribution for p in claims)}; "
                          f"neither is used (uninstall one)", PluginWarning, stacklevel=3)
            continue
        plugin = claims[0]
        if name in reserved:
            warnings.warn(f"{plugin.where()}: the name is mtdebias's own; the plugin is not used (give it another "
                          f"name)", PluginWarning, stacklevel=3)
            continue
        if valid_name is not None and not valid_name(name):
            warnings.warn(f"{plugin.where()}: {name_rule}; the plugin is not used", PluginWarning, stacklevel=3)
            continue
        entries[name], plugins[name] = plugin.value, plugin
    return entries, plugins


__all__ = ["GROUPS", "Plugin", "PluginWarning", "discovered", "merged", "load_object"]
