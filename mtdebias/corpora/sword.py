"""Read SWORD Bible modules (CrossWire's format, as Debian's ``sword-text-*`` packages install
them) without libsword: the ``.conf`` file and the zText driver's compressed verse files.

A module is described by ``mods.d/<name>.conf`` (an INI-like file: ``[ModuleName]`` then
``Key=Value`` lines) whose ``DataPath`` names a folder holding, per testament (``ot``/``nt``):

* ``{t}.bzs`` — block index, 12 bytes per block: offset in ``.bzz``, compressed size,
  uncompressed size (uint32 little-endian each);
* ``{t}.bzv`` — verse index, 10 bytes per verse slot: block number, offset inside the
  uncompressed block (uint32 each), length in bytes (uint16);
* ``{t}.bzz`` — the blocks, each compressed with zlib (``CompressType=ZIP``).

The verse slots follow the module's versification (see :mod:`.versification`); the text of a
slot is OSIS markup (:mod:`.osis` turns it into plain text).
"""

from __future__ import annotations

import os
import struct
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from .versification import entries_in

# where libsword looks, in its order of preference (SWORD_PATH first)
DEFAULT_SWORD_PATHS = ("~/.sword", "/usr/share/sword", "/usr/local/share/sword")

# friendly names → the modules Debian ships, and the package that installs each
ALIASES = {"kjv": "engKJV2006eb", "spa": "spaRV1909eb", "sparv": "spaRV1909eb", "rv1909": "spaRV1909eb"}
DEBIAN_PACKAGES = {"engkjv2006eb": "sword-text-kjv", "kjv": "sword-text-kjv",
                   "sparv1909eb": "sword-text-sparv", "sparv": "sword-text-sparv"}
INSTALL_HINT = "install them with: sudo apt-get install sword-text-kjv sword-text-sparv"

_BLOCK = struct.Struct("<III")
_VERSE = struct.Struct("<IIH")


@dataclass
class ModuleConf:
    """The keys of a module's ``.conf`` that reading and citing it need."""

    name: str
    path: Path                      # the .conf file
    keys: dict[str, str] = field(default_factory=dict)

    def get(self, key: str, default: str = "") -> str:
        return self.keys.get(key.lower(), default)

    @property
    def data_dir(self) -> Path:
        # DataPath is relative to the library root, the folder that holds mods.d/
        return (self.path.parent.parent / self.get("DataPath").lstrip("./").rstrip("/")).resolve()

    @property
    def lang(self) -> str:
        return self.get("Lang")

    def citation(self) -> dict[str, str]:
        """What data/README and summary.json record about the text's origin and licence."""
        return {"module": self.name, "description": self.get("Description"),
                "version": self.get("Version"), "date": self.get("SwordVersionDate"),
                "lang": self.lang, "versification": self.versification,
                "licence": self.get("DistributionLicense") or self.get("Copyright"),
                "copyright": self.get("ShortCopyright") or self.get("Copyright")}

    @property
    def versification(self) -> str:
        return self.get("Versification", "KJV")   # SWORD's default when the key is absent


def parse_conf(path: str | Path) -> ModuleConf:
    """Parse one ``.conf``. Keys are case-insensitive; repeated keys keep the first value
    (``GlobalOptionFilter`` and ``History_*`` repeat; nothing here needs them); lines ending in
    a backslash continue on the next line, as libsword reads them."""
    path = Path(path)
    name, keys, pending = None, {}, ""
    for number, raw in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        line = pending + raw.strip()
        pending = ""
        if line.endswith("\\"):
            pending = line[:-1] + " "
            continue
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            if name is None:
                name = line[1:-1].strip()
            continue
        if "=" in line:
            key, value = line.split("=", 1)
            keys.setdefault(key.strip().lower(), value.strip())
    if not name:
        raise InputError("no [ModuleName] line: not a SWORD module .conf", path=path)
    if "datapath" not in keys:
        raise InputError(f"module {name} has no DataPath key", path=path,
                         hint="the module's .conf is incomplete; reinstall the module")
    return ModuleConf(name=name, path=path, keys=keys)


def sword_paths(extra: str | Path | None = None) -> list[Path]:
    """Library roots (folders with a ``mods.d/``): the explicit one alone when given, else
    $SWORD_PATH's folders and the usual places."""
    if extra:
        return [Path(extra).expanduser()]
    roots = [p for p in os.environ.get("SWORD_PATH", "").split(os.pathsep) if p]
    roots += list(DEFAULT_SWORD_PATHS)
    return [Path(r).expanduser() for r in roots]


def installed_modules(sword_path: str | Path | None = None) -> list[ModuleConf]:
    modules, seen = [], set()
    for root in sword_paths(sword_path):
        for conf in sorted((root / "mods.d").glob("*.conf")) if (root / "mods.d").is_dir() else []:
            module = parse_conf(conf)
            if module.name.lower() not in seen:
                seen.add(module.name.lower())
                modules.append(module)
    return modules


def find_module(name: str, sword_path: str | Path | None = None) -> ModuleConf:
    """A module by its name (``engKJV2006eb``), its ``Abbreviation`` (``KJV``), a name it
    ``Obsoletes`` or one of :data:`ALIASES` (``SpaRV``), case-insensitively."""
    wanted = {name.lower(), ALIASES.get(name.lower(), name).lower()}
    modules = installed_modules(sword_path)
    for match in (lambda m: m.name.lower() in wanted,
                  lambda m: m.get("Abbreviation").lower() in wanted,
                  lambda m: m.get("Obsoletes").lower() in wanted):
        hits = [m for m in modules if match(m)]
        if hits:
            return hits[0]
    where = ", ".join(str(r) for r in sword_paths(sword_path))
    known = ", ".join(m.name for m in modules) or "none"
    package = DEBIAN_PACKAGES.get(name.lower()) or DEBIAN_PACKAGES.get(ALIASES.get(name.lower(), "").lower())
    hint = (f"install it with: sudo apt-get install {package}" if package else INSTALL_HINT) + \
        "; or point --sword-path (or $SWORD_PATH) at a folder holding mods.d/"
    raise InputError(f"SWORD module {name!r} not found under {where} (installed: {known})", hint=hint)


class ZTextModule:
    """Random access to the raw (markup) text of a zText module's verse slots."""

    def __init__(self, conf: ModuleConf):
        self.conf = conf
        driver = conf.get("ModDrv").lower()
        if driver != "ztext":
            raise InputError(f"module {conf.name} uses the {conf.get('ModDrv')} driver; only zText is read",
                             path=conf.path, hint="pick a compressed Bible text module (ModDrv=zText)")
        compress = conf.get("CompressType", "ZIP").upper()
        if compress != "ZIP":
            raise InputError(f"module {conf.name} is compressed with {compress}; only ZIP (zlib) is read",
                             path=conf.path)
        if conf.get("CipherKey"):
            raise InputError(f"module {conf.name} is enciphered (CipherKey); it cannot be read",
                             path=conf.path)
        self.encoding = "latin-1" if conf.get("Encoding", "").lower() == "latin1" else "utf-8"
        self._index: dict[str, list[tuple[int, int, int]]] = {}
        self._blocks: dict[str, list[tuple[int, int, int]]] = {}
        self._data: dict[str, bytes] = {}
        self._cache: dict[tuple[str, int], bytes] = {}

    def _load(self, testament: str) -> None:
        if testament in self._index:
            return
        folder = self.conf.data_dir
        files = {ext: folder / f"{testament}.{ext}" for ext in ("bzs", "bzv", "bzz")}
        if not all(p.exists() for p in files.values()):
            # a module may hold one testament only (a NT-only Bible): every slot reads as empty
            self._index[testament], self._blocks[testament], self._data[testament] = [], [], b""
            return
        raw_v, raw_s = files["bzv"].read_bytes(), files["bzs"].read_bytes()
        for raw, size, path in ((raw_v, _VERSE.size, files["bzv"]), (raw_s, _BLOCK.size, files["bzs"])):
            if len(raw) % size:
                raise InputError(f"{len(raw)} bytes is not a whole number of {size}-byte entries: "
                                 "the index is damaged", path=path, hint="reinstall the module")
        self._index[testament] = [e for e in _VERSE.iter_unpack(raw_v)]
        self._blocks[testament] = [b for b in _BLOCK.iter_unpack(raw_s)]
        self._data[testament] = files["bzz"].read_bytes()
        expected = entries_in(testament)
        if self.conf.versification == "KJV" and len(self._index[testament]) not in (expected, expected + 1):
            raise InputError(f"{testament}.bzv has {len(self._index[testament])} entries, the KJV "
                             f"versification needs {expected}", path=files["bzv"],
                             hint="the module is damaged or not KJV-versified")

    def _block(self, testament: str, number: int) -> bytes:
        key = (testament, number)
        if key not in self._cache:
            offset, compressed, size = self._blocks[testament][number]
            data = self._data[testament][offset:offset + compressed]
            try:
                self._cache[key] = zlib.decompress(data)
            except zlib.error as exc:
                raise InputError(f"block {number} of {testament}.bzz does not decompress ({exc})",
                                 path=self.conf.data_dir / f"{testament}.bzz",
                                 hint="the module is damaged; reinstall it") from exc
            if len(self._cache) > 8:             # blocks are whole books: keep a few
                self._cache.pop(next(iter(self._cache)))
        return self._cache[key]

    def raw(self, testament: str, index: int) -> str:
        """The markup stored in verse slot ``index`` ('' when the slot is empty or absent)."""
        self._load(testament)
        entries = self._index[testament]
        if index >= len(entries):
            return ""
        block, offset, size = entries[index]
        if size == 0:
            return ""
        text = self._block(testament, block)[offset:offset + size]
        return text.rstrip(b"\0").decode(self.encoding, errors="replace")
