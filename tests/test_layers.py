"""The package's layers, read from its imports (ast, no module is imported):

base → language tools → model/tokenizer/train → translators → augment/debias →
uncertainty/probes → suite/runner → report → ablation/pipeline → commands.

A module may import its own layer and the layers below; nothing points up. Within the
uncertainty/probes layer, uncertainty may not import probes (the probes use it). And no module
but the run store joins paths inside a run directory.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "mtdebias"

LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("base", ("mtdebias", "mtdebias.errors", "mtdebias.atomic", "mtdebias.signature", "mtdebias.textio",
              "mtdebias.store", "mtdebias.recipe", "mtdebias.registry", "mtdebias.resources", "mtdebias.hub",
              "mtdebias.stats", "mtdebias.significance", "mtdebias.locking", "mtdebias.langcodes",
              "mtdebias.languages")),
    ("language tools", ("mtdebias.lang", "mtdebias.align", "mtdebias.ner", "mtdebias.names", "mtdebias.synth",
                        "mtdebias.corpora")),
    ("model/tokenizer/train", ("mtdebias.model", "mtdebias.tokenizer", "mtdebias.train", "mtdebias.subword",
                               "mtdebias.fairseq_env")),
    ("translators", ("mtdebias.translators", "mtdebias.testing")),
    ("augment/debias", ("mtdebias.augment", "mtdebias.debias")),
    ("uncertainty/probes", ("mtdebias.uncertainty", "mtdebias.probes")),
    ("suite/runner", ("mtdebias.suite", "mtdebias.runner")),
    ("report", ("mtdebias.report",)),
    ("ablation/pipeline", ("mtdebias.ablation", "mtdebias.pipeline")),
    ("commands", ("mtdebias.commands", "mtdebias.cli", "mtdebias.__main__")),
]

# names of files and folders inside a run directory, and the pieces of run and result names
RUN_PATHS = {"eval", "checkpoints", "finished.json", "recipe.toml", "best.json", "log.jsonl", "environment.json",
             "tokenizer", "annotated", "swaps", "results.jsonl", "eval-watch.log", ".tokenizer.tmp",
             "data_summary.json", ".results.lock", ".claims", "responses"}
RUN_NAME_PIECES = re.compile(r"\.attempts\.jsonl|\.anova\.json|(?<!-)-seed|^step-")


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        if path.is_relative_to(PACKAGE / "data"):
            continue  # shipped data (and the scripts that authored it), not package modules
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _layer(module: str) -> int:
    best, index = -1, None
    for i, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, index = len(prefix), i
    assert index is not None, f"{module} is in no layer: add it to LAYERS"
    return index


def _imports(module: str, path: Path) -> list[tuple[str, int]]:
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target == "mtdebias" or target.startswith("mtdebias."):
                # `from . import x` / `from mtdebias import x` may name a submodule
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    found.append((sub if sub in _MODULES else target, node.lineno))
        elif isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names if a.name.split(".")[0] == "mtdebias"]
    return found


_MODULES = _modules()


def test_every_import_points_down_the_layers():
    upward = []
    for module, path in sorted(_MODULES.items()):
        own = _layer(module)
        for target, line in _imports(module, path):
            if _layer(target) > own:
                upward.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {module} ({LAYERS[own][0]}) imports "
                              f"{target} ({LAYERS[_layer(target)][0]})")
    assert not upward, "\n".join(upward)


def test_uncertainty_does_not_import_probes_and_recipes_do_not_import_suites():
    for module, path in _MODULES.items():
        targets = [t for t, _ in _imports(module, path)]
        if module.startswith("mtdebias.uncertainty"):
            assert not [t for t in targets if t.startswith("mtdebias.probes")], module
        if module.startswith("mtdebias.recipe"):
            assert not [t for t in targets if t.startswith(("mtdebias.probes", "mtdebias.suite"))], module
        if module.startswith("mtdebias.train"):
            assert not [t for t in targets if t.startswith(("mtdebias.probes", "mtdebias.translators"))], module


def _strings(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        return [v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str)]
    return []


def test_only_the_store_joins_run_directory_paths():
    offenders = []
    for module, path in sorted(_MODULES.items()):
        if module == "mtdebias.store":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            pieces = []
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
                pieces = _strings(node.right)
                if any(p in RUN_PATHS for p in pieces):
                    offenders.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: / {pieces}")
            if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                for piece in _strings(node):
                    if RUN_NAME_PIECES.search(piece) and len(piece) < 40 and "\n" not in piece:
                        offenders.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {piece!r}")
    assert not offenders, "\n".join(offenders)


def test_report_and_ablation_name_no_probe():
    """The report and the ablation ask the registry and each probe (headline labels, views,
    item keys, paired tests): a probe's name written there would be a list kept by hand."""
    from mtdebias.registry import PROBES

    bases = {name.rsplit(".v", 1)[0] for name in PROBES.entries}
    # "quality" is also an English word: only its probe name and string forms count
    patterns = [re.compile(rf"\b{re.escape(b)}\b" if b != "quality" else r"quality\.v\d|[\"']quality[\"'*.]")
                for b in sorted(bases)]
    sources = sorted((PACKAGE / "report").rglob("*.py")) + [PACKAGE / "ablation.py"]
    found = [f"{path.relative_to(PACKAGE.parent)}:{n}: {line.strip()}"
             for path in sources for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if any(p.search(line) for p in patterns)]
    assert not found, "\n".join(found)
