"""The scripts under tools/ that made shipped data (outside the package: an installed mtdebias
never runs them) still make it."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from mtdebias.lang.wordnet import wordnet_available

ROOT = Path(__file__).resolve().parents[1]
AUTHOR_WSD = ROOT / "tools" / "author_wsd_items.py"


def test_no_script_sits_inside_the_package_data():
    assert sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "mtdebias" / "data").rglob("*.py")) == []


def test_the_wsd_authoring_script_reads_its_tables_without_wordnet(monkeypatch):
    """WordNet is loaded when items are written, not when the tables are imported."""
    import mtdebias.lang.wordnet as wordnet

    monkeypatch.setattr(wordnet, "load_wordnet", lambda: pytest.fail("WordNet loaded on import"))
    spec = importlib.util.spec_from_file_location("author_wsd_items", AUTHOR_WSD)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert len(module.ITEMS) == 240 and "bank/NOUN" in module.S


@pytest.mark.skipif(not wordnet_available(), reason="WordNet 3.0 (Debian wordnet-base) is not installed")
def test_the_wsd_authoring_script_reproduces_the_shipped_items(tmp_path):
    out = tmp_path / "items.jsonl"
    subprocess.run([sys.executable, str(AUTHOR_WSD), str(out)], check=True, capture_output=True, cwd=tmp_path)
    assert out.read_bytes() == (ROOT / "mtdebias" / "data" / "wsd" / "items.jsonl").read_bytes()
