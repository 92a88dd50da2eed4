"""Parse and validate recipes: unknown keys, wrong types, missing files — all before any work.

``--set train.epochs=3`` style overrides are applied to the raw TOML tables first, so they
are validated exactly like the file.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
import tomllib
import types
import typing
from pathlib import Path
from typing import Any, Iterable

from ..errors import ConfigError, InputError, shown
from ..options import check_value
from ..textio import parse_toml, read_text
from .schema import CHOICES, RANGES, Recipe

_SECTIONS = {f.name: f for f in dataclasses.fields(Recipe) if f.name != "source"}


def _did_you_mean(word: str, options: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(options), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else f"known keys: {', '.join(sorted(options))}"


def _coerce(value: Any, annotation: Any, where: str, path: Path | None, base: Path, must_exist: bool = True) -> Any:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(annotation) if a is not type(None)]
        if value is None or value == "":
            return None
        for option in options[:-1]:  # `bool | str`: the first type the value is
            try:
                return _coerce(value, option, where, path, base, must_exist)
            except ConfigError:
                continue
        return _coerce(value, options[-1], where, path, base, must_exist)
    if annotation is Path:
        if not isinstance(value, str):
            raise ConfigError(f"{where} must be a path string, got {type(value).__name__}", path=path)
        resolved = (base / value).resolve() if not Path(value).is_absolute() else Path(value)
        if must_exist and not resolved.exists():
            from ..models.hub import looks_like_hub_id, resolve_model

            if where == "model.init" and looks_like_hub_id(value):
                # a hub id: the snapshot in the local cache (fetched now when downloads are allowed)
                try:
                    return resolve_model(value, what=where).path
                except InputError as exc:
                    raise ConfigError(f"{where} = '{value}': {exc.message}", path=path, hint=exc.hint) from None
            raise ConfigError(f"{where} = '{value}': file not found ({resolved})", path=path,
                              hint="fix the path; relative paths are taken from the recipe's folder")
        return resolved
    if origin is tuple:
        item_type = typing.get_args(annotation)[0]
        if not isinstance(value, list) or not all(isinstance(v, item_type) and not isinstance(v, bool)
                                                  for v in value):
            raise ConfigError(f"{where} must be a list of {item_type.__name__} values", path=path)
        return tuple(value)
    if annotation in (bool, float, int, str):
        check_value(value, annotation, None, where, path=path)
        return float(value) if annotation is float else value
    if annotation is dict:  # a table of settings another component checks (e.g. [debias.options])
        if not isinstance(value, dict):
            raise ConfigError(f"{where} must be a table, e.g. [{where}]", path=path)
        return dict(value)
    raise TypeError(f"unsupported field type {annotation!r}")


def _build_section(cls: type, table: Any, section: str, path: Path | None, base: Path,
                   outputs: bool) -> Any:
    """``outputs``: the section's paths are made by the run (a synthetic corpus), so they are
    resolved like any path but need not exist yet."""
    if not isinstance(table, dict):
        raise ConfigError(f"[{section}] must be a table", path=path)
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    for key in table:
        if key not in fields:
            raise ConfigError(f"unknown key {shown(f'{section}.{key}')}", path=path, hint=_did_you_mean(key, fields))
    kwargs = {}
    for name, f in fields.items():
        where = f"{section}.{name}"
        if name not in table:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:  # type: ignore[misc]
                raise ConfigError(f"missing required key '{where}'", path=path)
            continue
        kwargs[name] = _coerce(table[name], hints[name], where, path, base, must_exist=not outputs)
        allowed = CHOICES.get((section, name))
        if allowed and kwargs[name] not in allowed:
            raise ConfigError(f"{where} = {kwargs[name]!r} is not one of {', '.join(allowed)}", path=path,
                              hint=_did_you_mean(str(kwargs[name]), allowed))
        check_value(kwargs[name], hints[name], RANGES.get((section, name)), where, path=path,
                    how="fix it in the recipe or its --set override")
    return cls(**kwargs)


def parse_recipe(raw: dict[str, Any], *, path: Path | None = None, base: Path | None = None) -> Recipe:
    base = base or (path.parent if path else Path.cwd())
    for section, value in raw.items():
        if not isinstance(value, dict):  # `seed = 3` above every [table], or misplaced above its table
            hints = typing.get_type_hints(Recipe)
            owners = [name for name in _SECTIONS
                      if section in {f.name for f in dataclasses.fields(hints[name])}]
            where = (f"it belongs under [{owners[0]}]" if len(owners) == 1 else
                     f"it belongs under one of {', '.join(f'[{o}]' for o in owners)}" if owners else
                     "every key belongs under a table such as [run] or [train]")
            raise ConfigError(f"'{section} = {value!r}' stands outside any table: {where}", path=path,
                              hint=f"move it below the [{owners[0] if owners else 'run'}] header; keys above "
                                   "the first header belong to no table")
        if section not in _SECTIONS:
            raise ConfigError(f"unknown table [{section}]", path=path, hint=_did_you_mean(section, _SECTIONS))
    for required in ("run", "data"):
        if required not in raw:
            raise ConfigError(f"missing table [{required}]", path=path)
    # A synthetic corpus is generated by the run itself, so its files need not exist yet.
    synth = bool(raw.get("data", {}).get("synth", False))
    hints = typing.get_type_hints(Recipe)
    kwargs = {name: _build_section(hints[name], raw[name], name, path, base, outputs=synth and name == "data")
              for name in _SECTIONS if name in raw}
    recipe = Recipe(**kwargs, source=str(path or ""))
    _cross_checks(recipe, path)
    return recipe


def _cross_checks(recipe: Recipe, path: Path | None) -> None:
    data = recipe.data
    if (data.dev_src is None) != (data.dev_tgt is None):
        raise ConfigError("data.dev_src and data.dev_tgt go together: give both or neither", path=path)
    train = recipe.train
    _check_run_name(recipe.run.name, path)
    # a causal model keeps its own positions; its max_len bounds the whole prompt + translation
    if recipe.model.kind == "seq2seq" and train.max_len > recipe.model.max_positions:
        raise ConfigError(f"train.max_len = {train.max_len} exceeds model.max_positions = "
                          f"{recipe.model.max_positions}", path=path, hint="lower train.max_len or raise max_positions")
    _check_languages(recipe, path)  # checks that need probes, NER or word lists: pipeline.check_recipe
    if recipe.model.init and recipe.tokenizer != type(recipe.tokenizer)():
        raise ConfigError("[tokenizer] settings do not apply when model.init is set (its tokenizer is used)",
                          path=path)
    _check_model_kind(recipe.model, path)
    _check_lora(recipe, path)


def _check_lora(recipe: Recipe, path: Path | None) -> None:
    """LoRA adapts a decoder-only LM fine-tuned from model.init; its keys mean nothing without a
    rank, and a frozen input table makes re-projecting it every epoch pointless. (Whether peft is
    installed and lora_modules name layers of the model is checked by the pipeline and the trainer.)"""
    train, defaults = recipe.train, type(recipe.train)()
    if not train.lora_rank:
        given = [key for key in ("lora_alpha", "lora_dropout", "lora_modules")
                 if getattr(train, key) != getattr(defaults, key)]
        if given:
            raise ConfigError(f"train.{given[0]} is a LoRA setting, and train.lora_rank = 0 fine-tunes every weight",
                              path=path,
                              hint=f"set train.lora_rank (e.g. 8) to train adapters, or drop train.{given[0]}")
        return
    if recipe.model.kind != "causal":
        raise ConfigError(f"train.lora_rank = {train.lora_rank}: LoRA adapts a decoder-only LM fine-tuned from "
                          "model.init (model.kind = \"causal\"); this recipe trains an encoder-decoder", path=path,
                          hint="set train.lora_rank = 0: LoRA is implemented for decoder-only models only")
    if not train.lora_modules or not all(name.strip() for name in train.lora_modules):
        raise ConfigError(f"train.lora_modules = {list(train.lora_modules)!r}: LoRA needs the names of the linear "
                          "layers to adapt", path=path, hint="e.g. [\"q_proj\", \"v_proj\"], or leave the key out "
                                                             "for the attention and MLP projections")
    if recipe.debias.method != "none" and recipe.debias.when == "every_epoch":
        raise ConfigError("debias.when = \"every_epoch\" re-projects the input embeddings before every save; with "
                          f"train.lora_rank = {train.lora_rank} that table is frozen, so the adapters would learn on "
                          "the table as it was and see it edited under them at the first save, and later "
                          "projections would change nothing", path=path,
                          hint="use debias.when = \"init\" (edit the frozen table once, before training) or "
                               "\"posthoc\", or set train.lora_rank = 0")


def _check_model_kind(model, path: Path | None) -> None:
    """A causal model is fine-tuned from model.init and asked by a prompt; the prompt keys mean
    nothing to an encoder-decoder. (Whether model.init really is decoder-only is checked by
    :func:`mtdebias.experiments.pipeline.check_recipe`, which reads its config.)"""
    from ..translators.llm_prompt import PROMPT_OPTIONS

    given = [key for key in PROMPT_OPTIONS if getattr(model, key) is not None]
    if model.kind == "seq2seq" and given:
        raise ConfigError(f"model.{given[0]} is a prompt option of a decoder-only model; this recipe trains an "
                          "encoder-decoder (model.kind = \"seq2seq\")", path=path,
                          hint="set model.kind = \"causal\" with model.init naming a decoder-only LM, or drop "
                               f"model.{given[0]}")
    if model.kind == "causal" and model.init is None:
        raise ConfigError("model.kind = \"causal\" fine-tunes a released decoder-only LM: model.init must name it",
                          path=path, hint="set model.init to a model folder, a hub id or a .gguf file")
    if isinstance(model.chat, str) and model.chat != "auto":
        raise ConfigError(f"model.chat = {model.chat!r}: expected true, false or \"auto\"", path=path)


# a run name is one folder under run.dir: no separators, no "." or "..", nothing hidden
_RUN_NAME = re.compile(r"[\w][\w.,=+@-]*")


def _check_run_name(name: str, path: Path | None) -> None:
    if not _RUN_NAME.fullmatch(name) or name in (".", ".."):
        raise ConfigError(f"run.name = {name!r} is not a safe folder name", path=path,
                          hint="use letters, digits and . , = + @ - _ (no '/', no leading '.' or '-'), "
                               "e.g. --set run.name=try1")


def _check_languages(recipe: Recipe, path: Path | None) -> None:
    """Language codes are real (whether the tools the recipe uses know them is checked by
    :func:`mtdebias.experiments.pipeline.check_recipe`)."""
    from ..lang.codes import check_language_code

    data = recipe.data
    for key in ("src_lang", "tgt_lang"):
        check_language_code(getattr(data, key), f"data.{key}", path=path, error=ConfigError)


def apply_overrides(raw: dict[str, Any], overrides: Iterable[str]) -> dict[str, Any]:
    """Apply ``section.key=value`` overrides; the value is read as TOML, else as a string."""
    raw = {k: dict(v) if isinstance(v, dict) else v for k, v in raw.items()}
    for item in overrides:
        key, sep, text = item.partition("=")
        if not sep or "." not in key:
            raise ConfigError(f"override {shown(item)} must look like section.key=value (e.g. train.epochs=3)")
        section, name = key.strip().split(".", 1)
        try:
            value = tomllib.loads(f"v = {text}")["v"]
        except tomllib.TOMLDecodeError:
            value = text
        except RecursionError:  # a value nested hundreds of levels deep: no setting is
            raise ConfigError(f"--set {shown(key)}: the value is nested too deeply to read") from None
        raw.setdefault(section, {})[name] = value
    return raw


def load_recipe(path: str | Path, overrides: Iterable[str] = ()) -> Recipe:
    path = Path(path)
    if not path.is_file():
        raise ConfigError("recipe file not found", path=path)
    raw = parse_toml(read_text(path), path, ConfigError)
    return parse_recipe(apply_overrides(raw, overrides), path=path)


def recipe_to_dict(recipe: Recipe) -> dict[str, Any]:
    """The resolved recipe as TOML-ready tables (paths as strings, no empty values)."""
    out: dict[str, Any] = {}
    for name in _SECTIONS:
        table = {}
        for key, value in dataclasses.asdict(getattr(recipe, name)).items():
            if value is None:
                continue
            table[key] = str(value) if isinstance(value, Path) else (list(value) if isinstance(value, tuple) else value)
        out[name] = table
    return out
