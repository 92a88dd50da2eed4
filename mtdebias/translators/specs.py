"""The translator registry: every backend's kind, named by a spec ``KIND:REST``.

``hf:MODEL`` and ``ct2:MODEL`` (a transformers encoder-decoder: folder or hub id; the same model
named by its path alone opens with ``--backend``), ``fairseq:MODEL`` (a fairseq save),
``file:TRANSLATIONS`` (fixed translations), ``hf-causal:MODEL`` (a decoder-only LM: folder, hub
id or GGUF file), ``llamacpp:FILE.gguf`` (the same GGUF model run by llama.cpp),
``openai:MODEL@URL`` (any OpenAI-compatible chat server) and ``apertium:en-es`` (the rule-based
engine) are chosen the same way on every command (``translate SPEC``, ``eval SPEC`` or ``--translator SPEC``) and in a
suite's ``[translator]`` table. Kinds resolve lazily (nothing heavy is imported to check a
command line) and an unknown kind gets a did-you-mean, before any model loads.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from ..options import check_options, declared_ranges, signature_types
from ..plugins import Plugin, load_object, merged
from ..signature import hash_json
from .base import BaseTranslator

if TYPE_CHECKING:
    from .source import ModelSource

KINDS = {
    "hf": "mtdebias.translators.hf:HFTranslator",
    "ct2": "mtdebias.translators.ct2:CT2Translator",
    "fairseq": "mtdebias.translators.fairseq:FairseqTranslator",
    "file": "mtdebias.translators.file:FileTranslator",
    "hf-causal": "mtdebias.translators.hf_causal:HFCausalTranslator",
    "openai": "mtdebias.translators.openai_api:OpenAITranslator",
    "apertium": "mtdebias.translators.apertium:ApertiumTranslator",
    "llamacpp": "mtdebias.translators.llamacpp:LlamaCppTranslator",
    "ct2-causal": "mtdebias.translators.ct2_causal:CT2CausalTranslator",
}


@functools.cache
def _plugin_kinds() -> dict[str, Plugin]:
    return merged("translator", KINDS, valid_name=lambda kind: bool(_KIND.fullmatch(kind)),
                  name_rule="a translator kind is lower-case letters, digits, '-' and '_'")[1]


def kinds() -> dict[str, str]:
    """:data:`KINDS` plus the kinds installed distributions declare (entry points of the group
    ``mtdebias.translators``; a name already in KINDS is refused)."""
    return {**KINDS, **{kind: plugin.value for kind, plugin in _plugin_kinds().items() if kind not in KINDS}}


# options that change how a system is reached, not what it answers: left out of its identity
OPERATIONAL = frozenset({"cache_dir", "backoff", "retries", "timeout", "concurrency", "api_key_env", "device",
                         "batch_tokens", "n_threads", "threads", "batch_size"})
# kinds that call a server: they keep a response cache in the run store (cache_dir)
CACHED_KINDS = ("openai",)
_KIND = re.compile(r"[a-z][a-z0-9_-]*")
_SPEC = re.compile(rf"^({_KIND.pattern}):(.*)$", re.S)


def is_spec(text: str | Path) -> bool:
    """``kind:rest`` that is not an existing path (a folder may contain a colon)."""
    return bool(_SPEC.match(str(text))) and not Path(str(text)).exists()


def split_spec(text: str) -> tuple[str, str]:
    """(kind, rest), the kind checked against :data:`KINDS` with a did-you-mean."""
    found = _SPEC.match(str(text))
    if not found:
        raise ConfigError(f"{text!r} is not a translator spec", hint="write KIND:REST, e.g. apertium:en-es")
    kind, rest = found.groups()
    known = kinds()
    if kind not in known:
        close = difflib.get_close_matches(kind, list(known), n=1)
        raise ConfigError(f"unknown translator kind {kind!r} in {text!r}",
                          hint=f"did you mean '{close[0]}'?" if close else f"kinds: {', '.join(known)}")
    return kind, rest


def spec_from_table(table: dict[str, Any], where: str = "[translator]") -> tuple[str, dict[str, Any]]:
    """A suite's ``[translator]`` table → (spec, options): ``kind`` plus ``model`` (and ``url``
    for openai, ``pair`` for apertium); every other key is an option of that kind."""
    table = dict(table)
    kind = table.pop("kind", None)
    if not kind:
        raise ConfigError(f"{where}: missing key 'kind'", hint=f"kinds: {', '.join(kinds())}")
    split_spec(f"{kind}:")  # checks the kind
    if kind == "apertium":
        rest = table.pop("pair", "")
    elif kind == "openai":
        model, url = table.pop("model", ""), table.pop("url", "")
        rest = f"{model}@{url}" if url else model
    else:
        rest = table.pop("model", "")
    return f"{kind}:{rest}", table


def identity(spec: "ModelSource", options: dict[str, Any] | None = None) -> str:
    """What request keys name a spec translator by, known before it loads: the spec, the options
    that change its answers (a prompt is one; retries or a cache folder are not) and, for a
    local model folder or a local file (any kind), its content hash. ``spec``: as
    :func:`~.load.classify` classified it."""
    model = spec.rest
    if spec.model is not None:  # a hub model by its commit, a GGUF by the file's hash, a folder by its content
        model = spec.model.identity
    elif spec.rest and Path(spec.rest).expanduser().is_file():
        from ..signature import hash_checkpoint_cached

        # a kind that reads a local file (a lexicon, a model file) is what the file holds: an
        # edited file is another system, and a moved one the same
        model = hash_checkpoint_cached(Path(spec.rest).expanduser())
    settings = {k: v for k, v in (options or {}).items() if k not in OPERATIONAL}
    return f"translator:{spec.backend}:{model}:{hash_json(settings)[:12]}"


def prepare_spec(spec: str, download: bool = True) -> "ModelSource | None":
    """Check a spec before any work (:func:`~.load.classify` calls it): its kind; for
    ``hf-causal``/``ct2-causal``, its model — a hub id is fetched into the cache here, by the
    command, visibly (the translator itself never downloads), and a GGUF file's architecture and
    tensor types are checked against what transformers reads; for ``llamacpp``, that it names a
    GGUF file and llama.cpp is there. The model the rest names, resolved, where it names one."""
    from .source import resolve

    kind, rest = split_spec(spec)
    source = None
    if kind in ("hf", "ct2", "fairseq") and rest:  # a transformers checkpoint or a fairseq save
        source = resolve(rest, what="checkpoint", download=download, fairseq=kind == "fairseq")
        if kind == "fairseq" and source.kind != "fairseq":
            raise ConfigError(f"{spec}: not a fairseq model", hint="name a .pt file, a fairseq save folder or a "
                                                                   "fairseq.toml")
    if kind in ("hf-causal", "ct2-causal") and rest:
        if kind == "ct2-causal":
            from .ct2_causal import require_ctranslate2

            require_ctranslate2()
        source = resolve(rest, what=f"{kind} model", download=download, fairseq=False)
        if source.kind == "gguf":
            from ..models.gguf_model import check_readable, read_header

            check_readable(read_header(source.path))
    if kind == "llamacpp":
        from .llamacpp import require_llama_cpp

        source = resolve(rest, what="GGUF model", fairseq=False)
        if source.kind != "gguf":
            raise ConfigError(f"{spec}: llamacpp runs GGUF files", hint="name a .gguf file")
        require_llama_cpp()
    return source


def translator_class(kind: str) -> type:
    """The class the registry holds for ``kind`` (a built-in or a plugin's), checked to be a translator."""
    split_spec(f"{kind}:")  # an unknown kind: did-you-mean
    return _kind_class(kind)


def _kind_class(kind: str) -> type:
    plugin = _plugin_kinds().get(kind) if kind not in KINDS else None
    cls = plugin.load() if plugin else load_object(KINDS[kind])
    check_translator_kind(cls, kind, plugin.where() if plugin else f"translator kind {kind!r}")
    return cls if issubclass(cls, BaseTranslator) else _declaring(cls)


def check_translator_kind(obj: object, name: str, where: str) -> None:
    """What a translator kind (``KINDS`` or a plugin of ``mtdebias.translators``) must name, checked
    when loaded: a class with ``from_spec`` and the calls of :class:`~.base.Translator`."""
    lacking = [member for member in ("from_spec", "translate", "sample", "score", "signature")
               if not callable(getattr(obj, member, None))]
    if not isinstance(obj, type) or lacking:
        raise ConfigError(f"{where}: names {obj!r}, not a translator class"
                          + (f" (it lacks {', '.join(lacking)})" if lacking else ""),
                          hint="a class with from_spec(rest, src_lang, tgt_lang, **options), translate, sample, "
                               "score and signature")


@functools.cache
def _declaring(cls: type) -> type:
    """A plugin's class written to the bare protocol, with the optional parts it lacks declared
    (:class:`~.base.BaseTranslator`'s defaults; what it defines is its own): what the registry
    opens then has every part the runner and the commands read."""
    return type(cls.__name__, (cls, BaseTranslator), {"__module__": cls.__module__, "__qualname__": cls.__qualname__,
                                                      "__doc__": cls.__doc__})


def translator_options(cls: type) -> dict[str, inspect.Parameter]:
    """The options a translator class declares, each with its type: the keyword parameters of its
    ``from_spec`` after the spec's rest and, where ``from_spec`` passes the others on
    (``**options``), the keyword-only ones of its ``__init__`` — and of a parent's, where that
    ``__init__`` passes its own ``**options`` on (llamacpp → hf-causal)."""
    parameters = list(signature_types(cls.from_spec).values())[1:]
    out = {p.name: p for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    passes_on = any(p.kind is p.VAR_KEYWORD for p in parameters)
    for owner in cls.__mro__:
        if not passes_on:
            break
        if "__init__" in vars(owner):
            init = signature_types(vars(owner)["__init__"]).values()
            out.update({p.name: p for p in init if p.kind is p.KEYWORD_ONLY and p.name not in out})
            passes_on = any(p.kind is p.VAR_KEYWORD for p in init)
    named = getattr(cls, "options", None)  # a kind that lists what its from_spec takes (llamacpp: no dtype)
    return {k: p for k, p in out.items() if k in named} if isinstance(named, tuple) else out


def check_translator_options(spec: str, options: dict[str, Any], *, given_as: str = "",
                             path: str | Path | None = None) -> None:
    """Each option of a spec translator checked against its declared type and range (the class's
    ``option_ranges``) before anything loads: ``retries = -1`` or ``timeout = "x"`` is one message
    naming the option, not a traceback from the first request. Options the kind does not know are
    its ``from_spec``'s to refuse. ``given_as``: the flag that set them (``--translator-option``)."""
    if not options:
        return
    kind, _ = split_spec(spec)
    cls = _kind_class(kind)
    check_options(options, translator_options(cls), declared_ranges(cls), where=f"translator {kind}", path=path,
                  name_of=lambda key: f"{given_as} {key}" if given_as else key,
                  how="fix it in the suite's [translator] table" if path else "")


def load_spec(spec: str, **options: Any):
    """The translator a spec names; ``options`` (checked by :func:`check_translator_options`) go
    to the kind's ``from_spec``. A command opens the spec it classified instead
    (:func:`~.load.open_translator`), so that a model the rest names is not resolved again."""
    kind, rest = split_spec(spec)
    check_translator_options(spec, options)
    return _kind_class(kind).from_spec(rest, **options)
