"""One typed check for every option a user sets: a suite's probe keys, ``--option``,
``--translator-option``, a suite's ``[translator]`` table, a recipe's keys and ``--set``.

An option is declared once, where it is used: its type is the annotation of the constructor
parameter that takes it (a probe's ``from_options``, a translator's ``__init__``/``from_spec``,
a recipe dataclass field) and its range, when a number has one, a :class:`Range` in the owner's
``option_ranges`` (a recipe's in :data:`mtdebias.recipe.schema.RANGES`). :func:`check_value` reads
both and refuses anything else with one :class:`~mtdebias.errors.ConfigError` naming where the
value came from, the value (shortened), what was expected and what to do — before any model
loads, so ``names_limit = "5"`` is not a TypeError an hour later and ``names_limit = -3`` does
not quietly mean "all but three".
"""

from __future__ import annotations

import collections.abc
import inspect
import math
import os
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Literal

from .errors import ConfigError, shown


@dataclass(frozen=True)
class Range:
    """An allowed interval for a number: ``low <= x`` (``<`` when ``low_open``) and, when
    ``high`` is given, ``x < high`` (``<=`` unless ``high_open``); ``also``: single values allowed
    outside it, each with a meaning of its own (``resamples = 0``: no interval)."""

    low: float | None = None
    low_open: bool = False
    high: float | None = None
    high_open: bool = True
    why: str = ""
    also: tuple[float, ...] = ()

    def contains(self, value: float) -> bool:
        if value in self.also:
            return True
        if self.low is not None and (value <= self.low if self.low_open else value < self.low):
            return False
        return self.high is None or (value < self.high if self.high_open else value <= self.high)

    def describe(self) -> str:
        parts = []
        if self.low is not None:
            parts.append(f"{'>' if self.low_open else '>='} {self.low:g}")
        if self.high is not None:
            parts.append(f"{'<' if self.high_open else '<='} {self.high:g}")
        return " or ".join([" and ".join(parts), *(f"{value:g}" for value in self.also)])


def _number(value: Any) -> bool:
    """An int or a finite float (a bool is no number here; an int too big for a float is none either:
    every numeric option ends up in float arithmetic somewhere)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


NAME_MAX = 255  # the longest folder or file name, in bytes, of the usual file systems (ext4, XFS, APFS, NTFS)


def _takes_path(annotation: Any) -> bool:
    return annotation is Path or Path in typing.get_args(annotation)


def _too_long(value: str) -> bool:
    return any(len(part.encode("utf-8", "surrogatepass")) > NAME_MAX for part in Path(value).parts)


def fits(value: Any, annotation: Any) -> bool:
    """Whether ``value`` (as TOML or JSON gives it) is of the annotated type."""
    if annotation in (inspect.Parameter.empty, Any, object):
        return True
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        return any(fits(value, arg) for arg in args)
    if annotation is type(None) or annotation is None:
        return value is None
    if origin is Literal:
        return any(value == arg and type(value) is type(arg) for arg in args)
    if annotation is bool:
        return isinstance(value, bool)
    if annotation is int:
        return isinstance(value, int) and not isinstance(value, bool) and _number(value)
    if annotation is float:
        return _number(value)
    if annotation is str:
        return isinstance(value, str)
    if annotation is Path or annotation is os.PathLike:
        return isinstance(value, (str, os.PathLike))
    if origin in (list, tuple, collections.abc.Sequence) or annotation in (list, tuple):
        if not isinstance(value, (list, tuple)):
            return False
        item = args[0] if args else Any
        return all(fits(v, item) for v in value)
    if origin in (dict, collections.abc.Mapping) or annotation is dict:
        return isinstance(value, dict)
    return isinstance(value, annotation) if isinstance(annotation, type) else True


def expected(annotation: Any, bounds: Range | None = None) -> str:
    """What a value of ``annotation`` within ``bounds`` is, in words ("an integer >= 1")."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        kinds = list(dict.fromkeys(expected(arg, bounds) for arg in args if arg is not type(None)))
        if type(None) in args:
            kinds.append("nothing (leave it out)")
        return " or ".join(kinds)
    if origin is Literal:
        return "one of " + ", ".join(repr(arg) for arg in args)
    names = {bool: "true or false", int: "an integer", float: "a number", str: "a string", Path: "a path",
             dict: "a table"}
    if origin in (list, tuple, collections.abc.Sequence) or annotation in (list, tuple):
        item = expected(args[0]) if args else "value"
        return f"a list of {item.removeprefix('a ').removeprefix('an ')} values"
    if origin in (dict, collections.abc.Mapping):
        return "a table"
    text = names.get(annotation, getattr(annotation, "__name__", str(annotation)))
    if bounds is not None and annotation in (int, float):
        text += " " + bounds.describe()
    return text


def check_value(value: Any, annotation: Any, bounds: Range | None, name: str, *, where: str = "",
                path: str | Path | None = None, line: int | None = None, how: str = "") -> None:
    """Refuse ``value`` unless it is of the annotated type and, a number, within ``bounds``.
    ``name``: how the user set it (``names_limit``, ``--option names_limit``, ``train.lr``);
    ``where``: what it belongs to (``probe #2 (name_gender.v1)``); ``how``: what to do, where
    that is not plain from ``name`` ("fix it in the suite")."""
    # JSON's or TOML's "\u0000": no file name or setting holds one, and the C libraries below refuse it
    if isinstance(value, str) and "\x00" in value:
        problem = f"{name} = {shown(value)} holds a NUL character"
    elif isinstance(value, str) and _takes_path(annotation) and _too_long(value):
        # the file system refuses it (ENAMETOOLONG), and only where the path is first used
        problem = f"{name} = {shown(value)} has a folder or file name longer than {NAME_MAX} bytes"
    elif not fits(value, annotation):
        problem = f"{name} must be {expected(annotation, bounds)}, got {shown(value)}"
    elif bounds is not None and _number(value) and not bounds.contains(value):
        problem = f"{name} = {shown(value)} is out of range: it must be {bounds.describe()}" + \
            (f" ({bounds.why})" if bounds.why else "")
    else:
        return
    raise ConfigError(f"{where}: {problem}" if where else problem, path=path, line=line,
                      hint=how or None)


def signature_types(function: Callable[..., Any]) -> dict[str, inspect.Parameter]:
    """The parameters of ``function`` with their annotations evaluated (``from __future__ import
    annotations`` leaves them as text); one that names what the module imports only for type
    checking is left unchecked (Any) rather than failing the check itself."""
    try:
        return dict(inspect.signature(function, eval_str=True).parameters)
    except (NameError, TypeError, SyntaxError):
        pass
    namespace = getattr(inspect.unwrap(function), "__globals__", {})
    out = {}
    for name, parameter in inspect.signature(function).parameters.items():
        annotation = parameter.annotation
        if isinstance(annotation, str):
            try:
                annotation = eval(annotation, namespace)  # noqa: S307 - the module's own annotation text
            except Exception:
                annotation = Any
        out[name] = parameter.replace(annotation=annotation)
    return out


def declared_ranges(owner: type) -> dict[str, Range]:
    """The ``option_ranges`` of ``owner`` and of the classes it inherits from (a subclass adds or
    overrides; BaseProbe declares the ones every probe shares: beam, seed, resamples, limit)."""
    out: dict[str, Range] = {}
    for cls in reversed(getattr(owner, "__mro__", (owner,))):
        out.update(vars(cls).get("option_ranges", {}))
    return out


def check_options(options: dict[str, Any], parameters: dict[str, inspect.Parameter], ranges: dict[str, Range], *,
                  where: str, name_of: Callable[[str], str] = str, path: str | Path | None = None,
                  line_of: Callable[[str], int | None] | None = None, how: str = "") -> None:
    """Every option in ``options`` that ``parameters`` declares, checked by :func:`check_value`
    (options it does not declare are the caller's to refuse, with its own did-you-mean).
    ``how``: where to fix it, for the hint (see :func:`check_value`)."""
    for key, value in options.items():
        parameter = parameters.get(key)
        if parameter is None:
            continue
        check_value(value, parameter.annotation, ranges.get(key), name_of(key), where=where, path=path,
                    line=line_of(key) if line_of else None, how=how)


__all__ = ["Range", "fits", "expected", "check_value", "signature_types", "declared_ranges", "check_options"]
