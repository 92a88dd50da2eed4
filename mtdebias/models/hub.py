"""Model names as users write them: a local folder, a hub id ``org/name``, or ``org/name@REV``.

This is the one module that talks to the Hugging Face hub. A hub id resolves through
``huggingface_hub`` to a snapshot folder in the standard cache (``HF_HUB_CACHE``, else
``HF_HOME``/hub, else ~/.cache/huggingface/hub), downloading it — with the library's own
progress bars — only when downloads are allowed. With ``HF_HUB_OFFLINE`` or
``TRANSFORMERS_OFFLINE`` set, nothing is downloaded: a model that is not cached is an error
that gives the exact command to fetch it.

A snapshot is named by its commit, so results name a hub model as ``hub:org/name@<sha12>``
(:func:`snapshot_id`): the same files downloaded again are the same model, and a model changed
on the hub is a different one.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError

_TRUE = {"1", "true", "yes", "on"}
# …/models--ORG--NAME/snapshots/<commit>: how huggingface_hub lays out its cache
_SNAPSHOT = re.compile(r"models--(?P<repo>[^/]+)/snapshots/(?P<commit>[0-9a-f]{40})$")


@dataclass(frozen=True)
class ResolvedModel:
    """A model name made local: ``path`` to open, and for hub models the repo and commit."""

    path: Path
    repo_id: str | None = None
    commit: str | None = None


def offline() -> bool:
    """Whether downloads are off (read at each call, so tests and users can set it late)."""
    return any(os.environ.get(name, "").strip().lower() in _TRUE for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))


def cache_dir() -> Path:
    """The hub cache huggingface_hub uses, from the environment at this moment."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    if os.environ.get("HF_HOME"):
        return Path(os.environ["HF_HOME"]).expanduser() / "hub"
    return Path("~/.cache/huggingface/hub").expanduser()


def split_revision(name: str) -> tuple[str, str | None]:
    """``org/name@REV`` → (``org/name``, ``REV``); no ``@``: (name, None)."""
    base, sep, revision = str(name).partition("@")
    return (base, revision or None) if sep else (base, None)


# files users name models by: a name ending so is a path, never a hub id (hub ids have no suffix)
MODEL_FILE_SUFFIXES = (".gguf", ".pt", ".toml", ".safetensors", ".bin")


def looks_like_hub_id(text: str) -> bool:
    """``org/name`` (``@REV`` allowed) or ``name`` that is not an existing path. A name whose
    first part is a local folder (``runs/tyni`` beside ``runs/``) or that ends like a model file
    (``model.gguf``) is a mistyped path: looking it up on the hub would answer with advice to
    download something that was never there."""
    base, _ = split_revision(text)
    path = Path(base).expanduser()
    return (bool(base) and not path.is_absolute() and base.count("/") <= 1 and not base.startswith((".", "~"))
            and not Path(text).exists() and re.fullmatch(r"[\w.-]+(/[\w.-]+)?", base) is not None
            and not ("/" in base and Path(base.partition("/")[0]).is_dir())
            and not base.lower().endswith(MODEL_FILE_SUFFIXES))


def missing_path_error(path: Path, what: str) -> InputError:
    """The error for a model path that does not exist, with the nearest names beside it."""
    import difflib

    is_file = path.suffix.lower() in MODEL_FILE_SUFFIXES
    kind = "GGUF file" if path.suffix.lower() == ".gguf" else f"{what} file" if is_file else f"{what} directory"
    parent = path.parent
    siblings = sorted(p.name for p in parent.iterdir()) if parent.is_dir() else []
    close = difflib.get_close_matches(path.name, siblings, n=1, cutoff=0.5)
    if close:
        hint = f"did you mean {parent / close[0]}?"
    elif not parent.is_dir():
        hint = f"its folder {parent} does not exist either: check the path"
    elif is_file:
        hint = "check the path"
    else:
        hint = "check the path, or give a hub id such as Helsinki-NLP/opus-mt-en-de"
    return InputError(f"{kind} does not exist", path=path, hint=hint)


def fetch_command(name: str | Path, revision: str | None = None) -> str:
    """The command that puts a hub model into the local cache (same HF_HOME / HF_HUB_CACHE)."""
    base, rev = split_revision(str(name))
    revision = revision or rev
    return f"hf download {base}" + (f" --revision {revision}" if revision else "")


def resolve_model(name: str | Path, revision: str | None = None, what: str = "model",
                  download: bool = True) -> ResolvedModel:
    """A local folder as it is; a hub id through the cache. Commands and recipe checks pass
    ``download=True`` (fetching, visibly, when downloads are allowed); loaders pass False, so
    opening a model never starts a download behind the user's back."""
    path = Path(name).expanduser()
    if path.is_dir():
        if revision is not None:
            raise InputError(f"--revision {revision} applies to hub ids; {path} is a local folder", path=path)
        check_snapshot_links(path)  # a snapshot folder named by its path
        return ResolvedModel(path)
    text = str(name)
    if not looks_like_hub_id(text):
        if path.exists():
            raise InputError(f"expected a {what} directory, found a file", path=path,
                             hint="pass the directory that holds config.json")
        raise missing_path_error(path, what)
    repo_id, pinned = split_revision(text)
    if revision and pinned and revision != pinned:
        raise InputError(f"{what} '{text}' pins revision {pinned}, and --revision asks for {revision}",
                         hint="give the revision once")
    revision = revision or pinned
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import HfHubHTTPError, HFValidationError, LocalEntryNotFoundError

    where = cache_dir()
    try:
        folder = snapshot_download(repo_id, revision=revision, cache_dir=where,
                                   local_files_only=offline() or not download)
    except LocalEntryNotFoundError:
        why = ("downloads are off (HF_HUB_OFFLINE or TRANSFORMERS_OFFLINE is set)" if offline()
               else "it could not be downloaded (no connection to the hub)" if download
               else "models are fetched by the command that names them, not while loading")
        raise InputError(f"{what} '{text}' is not in the Hugging Face cache ({where}) and {why}",
                         hint=f"fetch it with `{fetch_command(repo_id, revision)}` on a machine with network "
                              f"access and the same HF_HOME / HF_HUB_CACHE, then run again") from None
    except (HfHubHTTPError, HFValidationError) as exc:
        raise InputError(f"{what} '{text}' could not be resolved on the hub: {str(exc).splitlines()[0]}",
                         hint="check the name and revision (and HF_TOKEN for a gated or private model)") from None
    folder = Path(folder)
    check_snapshot_links(folder)
    return ResolvedModel(folder, repo_id, folder.name)


def check_snapshot_links(snapshot: Path) -> None:
    """Refuse a hub snapshot holding a symbolic link that leads outside its repository's folder
    in the cache (``models--ORG--NAME``, whose ``blobs/`` the links of a real download point
    into): a planted link would make a loader read any file of the machine as a model file."""
    snapshot = Path(snapshot)
    found = _SNAPSHOT.search(snapshot.expanduser().absolute().as_posix())
    if not found:
        return
    repo = snapshot.expanduser().absolute().parents[1].resolve()
    for path in sorted(snapshot.rglob("*")):
        if path.is_symlink() and not path.resolve().is_relative_to(repo):
            raise InputError(f"{path.relative_to(snapshot)} links outside the Hugging Face cache, to "
                             f"{os.readlink(path)}", path=snapshot,
                             hint="a download never makes such a link: delete this snapshot folder and fetch "
                                  "the model again")


def local_model_dir(name_or_path: str | Path, what: str = "model", revision: str | None = None,
                    download: bool = False) -> Path:
    """The local folder for a model name (see :func:`resolve_model`); cached models only,
    unless a command asks to ``download``."""
    return resolve_model(name_or_path, revision, what, download).path


def model_available(name: str | Path) -> bool:
    """Whether ``name`` can be opened here without downloading anything (no error raised)."""
    path = Path(name).expanduser()
    if path.is_dir():
        return True
    if not looks_like_hub_id(str(name)):
        return False
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import HfHubHTTPError, HFValidationError, LocalEntryNotFoundError

    repo_id, revision = split_revision(str(name))
    try:
        snapshot_download(repo_id, revision=revision, cache_dir=cache_dir(), local_files_only=True)
    except (LocalEntryNotFoundError, HfHubHTTPError, HFValidationError):
        return False
    return True


def snapshot_id(path: str | Path) -> str | None:
    """``hub:org/name@<sha12>`` when ``path`` is a snapshot folder of a hub cache, else None."""
    found = _SNAPSHOT.search(Path(path).expanduser().absolute().as_posix())
    if not found:
        return None
    return f"hub:{found['repo'].replace('--', '/', 1)}@{found['commit'][:12]}"
