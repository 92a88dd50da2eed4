"""The language registry (mtdebias/lang/languages.py) is the only place a language list is written."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from mtdebias.errors import ConfigError
from mtdebias.lang.languages import LANGUAGES, langs_with, missing, require

PACKAGE = Path(__file__).resolve().parents[1] / "mtdebias"
# a literal tuple/list/set/dict of language codes bound to a name that says it lists languages
_LIST_NAME = re.compile(r"(LANGS|LOCALES|LANGUAGES)$")
# seed_corpus.LANGS maps a language to its column in the generated rows: data layout, not capability
_DATA_LAYOUT = {("align/seed_corpus.py", "LANGS")}


def _literal_strings(node: ast.AST) -> bool:
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        elements = node.elts
    elif isinstance(node, ast.Dict):
        elements = node.keys
    else:
        return False
    return bool(elements) and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in elements)


def test_no_module_but_the_registry_writes_a_language_list():
    found = []
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel == "lang/languages.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
                if isinstance(node, ast.AnnAssign) and node.value is not None else []
            for target in targets:
                if isinstance(target, ast.Name) and _LIST_NAME.search(target.id) \
                        and _literal_strings(node.value) and (rel, target.id) not in _DATA_LAYOUT:
                    found.append(f"{rel}:{node.lineno}: {target.id}")
    assert found == [], "language lists outside mtdebias/lang/languages.py: " + ", ".join(found)


def test_implementations_match_the_registry():
    from mtdebias import lang
    from mtdebias.lang import first_person

    # the registry entry is the only place a detector is named: each one it names imports and
    # has a detect function, and a language without the capability gets none
    for code in langs_with("detector"):
        assert callable(lang.detector_of(code)), code
    assert lang.detector_of("pl") is None and "pl" not in lang.SUPPORTED_LANGS
    for code in langs_with("first_person"):
        module = LANGUAGES[code].first_person
        assert (PACKAGE / "lang" / "first_person" / f"{module}.py").is_file(), (code, module)
    assert first_person.SPEAKER_LANGS == langs_with("first_person")
    assert {entry.reinflection for entry in LANGUAGES.values()} == {"morph", "identity", "plain"}
    assert all(entry.pymorphy for entry in LANGUAGES.values() if entry.reinflection == "morph")


def test_require_names_every_missing_capability_and_why():
    assert missing("ru", ("detector", "first_person", "ner", "lemmatiser")) == []
    assert missing("de", ("detector", "first_person")) == ["first-person speaker-gender detector"]
    lacking = missing("sk", ("detector", "first_person"))
    assert lacking[0] == "target-side gender detector"
    assert lacking[1].startswith("first-person speaker-gender detector (no morphological analyser")
    assert missing("xx", ("name_table",)) == ["name table"]  # unknown code: has nothing
    with pytest.raises(ConfigError, match="language 'pl' has no target-side gender detector") as err:
        require("pl", ("detector", "first_person"), "probe 'x'")
    assert "first-person speaker-gender detector exists for cs, pl, ru, uk" in err.value.hint
    require("uk", ("detector", "first_person"), "probe 'x'")  # has both: no error
