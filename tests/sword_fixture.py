"""Write a tiny SWORD zText module library (mods.d/*.conf + ot/nt .bzs/.bzv/.bzz) for tests,
byte for byte in the layout libsword reads: no Debian package needed."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

from mtdebias.corpora.versification import entries_in, verse_slots

CONF = """[{name}]
Abbreviation={abbreviation}
Description={description}
DataPath=./modules/texts/ztext/{folder}/
ModDrv={driver}
SourceType=OSIS
Encoding=UTF-8
CompressType=ZIP
BlockType=BOOK
Versification={versification}
Lang={lang}
Version=1.0
DistributionLicense=Public Domain
"""


def write_module(root: Path, name: str, lang: str, verses: dict[str, str], *, abbreviation: str = "",
                 description: str = "Test Bible", driver: str = "zText",
                 versification: str = "KJV") -> Path:
    """A module whose verse ``"Gen.1.1"`` holds ``verses["Gen.1.1"]`` (OSIS markup); every other
    slot is empty. One compressed block per book, as Debian's modules (BlockType=BOOK)."""
    folder = name.lower()
    (root / "mods.d").mkdir(parents=True, exist_ok=True)
    (root / "mods.d" / f"{folder}.conf").write_text(CONF.format(
        name=name, abbreviation=abbreviation or name, description=description, folder=folder,
        driver=driver, versification=versification, lang=lang), encoding="utf-8")
    data_dir = root / "modules" / "texts" / "ztext" / folder
    data_dir.mkdir(parents=True, exist_ok=True)
    for testament in ("ot", "nt"):
        slots = [(0, 0, 0)] * entries_in(testament)
        # header entries 0/1 as osis2mod writes them: block 0 holds the importer milestone
        blocks: list[bytes] = [b'<milestone type="x-importer"/>']
        slots[1] = (0, 0, len(blocks[0]))
        book_block: dict[str, int] = {}
        for book, chapter, verse, index in verse_slots(testament):
            text = verses.get(f"{book}.{chapter}.{verse}")
            if not text:
                continue
            if book not in book_block:
                book_block[book] = len(blocks)
                blocks.append(b"")
            number = book_block[book]
            raw = text.encode("utf-8")
            slots[index] = (number, len(blocks[number]), len(raw))
            blocks[number] += raw
        bzz, bzs = b"", b""
        for block in blocks:
            packed = zlib.compress(block)
            bzs += struct.pack("<III", len(bzz), len(packed), len(block))
            bzz += packed
        (data_dir / f"{testament}.bzs").write_bytes(bzs)
        (data_dir / f"{testament}.bzv").write_bytes(b"".join(struct.pack("<IIH", *s) for s in slots))
        (data_dir / f"{testament}.bzz").write_bytes(bzz)
    return data_dir
