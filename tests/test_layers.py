"""The package's layers and the arrows between its modules, read from the source (ast, no module
is imported):

base → language tools → models → translators → augment/debias → uncertainty/probes →
registry → recipe/train → suite/runner → report → ablation/pipeline → commands.

An arrow is an import at module level, an import inside a function (a "lazy" import: it runs
later, but the module still needs the other one, and deferring an import is the usual way to
hide a loop, so it counts the same) or a registry string ``"mtdebias.x.y:Object"``, which the
registry imports when the component is used (``mtdebias/probes/registry.py`` and the tables it gathers,
``translators/specs.KINDS``). An arrow goes from the module holding it to the module it names.
Arrows point to the module's own layer or below, never up, and no chain of arrows comes back to
where it started: not between modules, nor between packages (``mtdebias.align`` → … →
``mtdebias.align``). Running a package's ``__init__`` before its module is not an arrow of its
own (every package that re-exports its modules would be a cycle with each of them).

The registry names the probes, so it sits above them; the recipe is validated against it and
the trainer takes its config from the recipe, so both sit above it. Within the
uncertainty/probes layer, uncertainty may not import probes (the probes use it). And no module
but the run store joins paths inside a run directory.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "mtdebias"

LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("base", ("mtdebias", "mtdebias.errors", "mtdebias.options", "mtdebias.signature", "mtdebias.textio",
              "mtdebias.store", "mtdebias.plugins", "mtdebias.progress", "mtdebias.resources", "mtdebias.stats")),
    ("language tools", ("mtdebias.lang", "mtdebias.align", "mtdebias.ner", "mtdebias.names", "mtdebias.synth",
                        "mtdebias.corpora")),
    ("models", ("mtdebias.models",)),
    ("translators", ("mtdebias.translators",)),
    ("augment/debias", ("mtdebias.augment", "mtdebias.debias")),
    ("uncertainty/probes", ("mtdebias.uncertainty", "mtdebias.probes")),
    ("registry", ("mtdebias.probes.registry",)),
    ("recipe/train", ("mtdebias.recipe", "mtdebias.train")),
    ("suite/runner", ("mtdebias.evaluation",)),
    ("report", ("mtdebias.report",)),
    ("ablation/pipeline", ("mtdebias.experiments",)),
    ("commands", ("mtdebias.commands", "mtdebias.cli", "mtdebias.__main__")),
]

# names of files and folders inside a run directory, and the pieces of run and result names
RUN_PATHS = {"eval", "checkpoints", "finished.json", "recipe.toml", "best.json", "log.jsonl", "environment.json",
             "tokenizer", "annotated", "swaps", "results.jsonl", "eval-watch.log", ".tokenizer.tmp",
             "data_summary.json", ".results.lock", ".claims", "responses", ".train.lock"}
RUN_NAME_PIECES = re.compile(r"\.attempts\.jsonl|\.anova\.json|(?<!-)-seed|^step-")


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        if path.is_relative_to(PACKAGE / "data"):
            continue  # shipped data, not package modules (the scripts that authored it are in tools/)
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _layer(module: str) -> int:
    best, index = -1, None
    for i, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            # the root package matches only itself: a new top-level module must be given a layer
            covers = module == prefix or (prefix != "mtdebias" and module.startswith(prefix + "."))
            if covers and len(prefix) > best:
                best, index = len(prefix), i
    assert index is not None, f"{module} is in no layer: add it to LAYERS"
    return index


@dataclass(frozen=True)
class Arrow:
    """``source`` needs ``target``: an import at module level ("import"), an import inside a
    function ("lazy import", run when the function is) or a ``"module:object"`` string that a
    registry imports on use ("registry string")."""

    source: str
    target: str
    path: str  # the file holding the arrow, relative to the repository
    line: int
    kind: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.source} -> {self.target} ({self.kind})"


# a registry entry (mtdebias/probes/registry.py, translators/specs.KINDS): "mtdebias.x.y:Object.attr"
REGISTRY_STRING = re.compile(r"^(mtdebias(?:\.\w+)*):[A-Za-z_][\w.]*$")


def _import_targets(node: ast.Import | ast.ImportFrom, package: str, modules: set[str]) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == "mtdebias"]
    if node.level:
        base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    if target != "mtdebias" and not target.startswith("mtdebias."):
        return []
    # `from . import x` / `from mtdebias import x` may name a submodule; one arrow per module named
    return list(dict.fromkeys(f"{target}.{a.name}" if f"{target}.{a.name}" in modules else target
                              for a in node.names))


def _arrows(module: str, path: Path, modules: set[str] | None = None) -> list[Arrow]:
    """Every arrow out of one module, read from its source (nothing is imported). The package a
    module sits in is not an arrow of its own: `import a.b` runs `a/__init__`, but counting that
    would make every package whose `__init__` re-exports its modules a cycle."""
    modules = set(_MODULES) if modules is None else modules
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    where = str(path.relative_to(PACKAGE.parent)) if path.is_relative_to(PACKAGE.parent) else str(path)
    found: list[Arrow] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            kind = "lazy import" if in_function else "import"
            found.extend(Arrow(module, t, where, node.lineno, kind) for t in _import_targets(node, package, modules))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            named = REGISTRY_STRING.match(node.value)
            if named:
                found.append(Arrow(module, named.group(1), where, node.lineno, "registry string"))
        inner = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        for child in ast.iter_child_nodes(node):
            visit(child, inner)

    visit(ast.parse(path.read_text(encoding="utf-8")), False)
    return found


def _imports(module: str, path: Path) -> list[tuple[str, int]]:
    """The modules one module imports (at module level or in a function), with the line."""
    return [(a.target, a.line) for a in _arrows(module, path) if a.kind != "registry string"]


_MODULES = _modules()
_ARROWS = [arrow for module, path in sorted(_MODULES.items()) for arrow in _arrows(module, path)]


def upward_arrows(arrows: list[Arrow]) -> list[str]:
    """The arrows that point up the layers, each as a readable line."""
    return [f"{a}: {LAYERS[_layer(a.source)][0]} -> {LAYERS[_layer(a.target)][0]}"
            for a in arrows if _layer(a.target) > _layer(a.source)]


def cycles(arrows: list[Arrow], node=lambda module: module) -> list[list[Arrow]]:
    """One cycle per strongly connected group of the graph whose nodes are ``node(module)``
    (the module itself, or the package it belongs to), as the arrows that close it.

    Tarjan's algorithm finds the groups; inside a group a breadth-first search from its first
    node back to itself gives a shortest cycle to show. A node's arrows to itself are no cycle."""
    graph: dict[str, dict[str, Arrow]] = {}
    for a in arrows:
        source, target = node(a.source), node(a.target)
        graph.setdefault(target, {})
        if source != target:
            # the first arrow found stands for the pair; an eager import is preferred to a lazy
            # one so that a cycle shown through a lazy import really needs it
            kept = graph.setdefault(source, {}).get(target)
            if kept is None or (kept.kind != "import" and a.kind == "import"):
                graph[source][target] = a
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def connect(v: str) -> None:  # recursion depth is bounded by the package's size
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    found = []
    for group in sorted(groups):
        members, start = set(group), group[0]
        came_from: dict[str, Arrow] = {}
        queue = [start]
        while queue and start not in came_from:
            v = queue.pop(0)
            for w, arrow in sorted(graph[v].items()):
                if w in members and w not in came_from:
                    came_from[w] = arrow
                    queue.append(w)
        path, v = [], start
        while True:  # walk the found arrows back from the start to the start
            path.append(came_from[v])
            v = node(path[-1].source)
            if v == start:
                break
        found.append(path[::-1])
    return found


def _show(cycle: list[Arrow]) -> str:
    lazy = " (closed by a lazy import)" if any(a.kind == "lazy import" for a in cycle) else ""
    return f"cycle{lazy}:\n" + "\n".join(f"    {a}" for a in cycle)


def _package(module: str) -> str:
    """``mtdebias.align.aligners`` → ``mtdebias.align``; a top-level module is its own package."""
    return ".".join(module.split(".")[:2])


def _members(cycle: list[Arrow], node=lambda module: module) -> tuple[str, ...]:
    return tuple(sorted({node(a.source) for a in cycle}))


# Cycles known and not yet removed, each with why, keyed by the sorted modules of the cycle.
# Remove an entry with its cycle: the test fails on an entry whose cycle is gone, so the list
# cannot outlive its reasons.
ALLOWED_CYCLES: dict[tuple[str, ...], str] = {}


def test_every_arrow_points_down_the_layers():
    """Imports (eager and lazy) and registry strings alike: a registry entry is imported the
    moment the component is used, so it is as much a dependency as an import."""
    upward = upward_arrows(_ARROWS)
    assert not upward, "\n".join(upward)


def test_no_module_comes_back_to_itself():
    found = cycles(_ARROWS)
    unexplained = [_show(c) for c in found if _members(c) not in ALLOWED_CYCLES]
    assert not unexplained, "\n".join(unexplained)
    stale = set(ALLOWED_CYCLES) - {_members(c) for c in found}
    assert not stale, f"ALLOWED_CYCLES lists cycles that are gone: remove {sorted(stale)}"


def test_no_package_comes_back_to_itself():
    """``registry`` → ``align.aligners`` → ``registry`` was such a loop: the registry named the
    aligners, and the aligners imported the registry to pick one by name. Between packages a
    loop can exist where modules form none (see the synthetic test below)."""
    allowed = {tuple(sorted({_package(m) for m in members})) for members in ALLOWED_CYCLES}
    found = [_show(c) for c in cycles(_ARROWS, node=_package) if _members(c, _package) not in allowed]
    assert not found, "\n".join(found)


def test_every_registry_string_names_a_module_of_the_package():
    """A misspelt entry would otherwise be no arrow at all (and fail only when used)."""
    strings = [a for a in _ARROWS if a.kind == "registry string"]
    assert len(strings) >= 15, "the registries' strings are no longer found: is REGISTRY_STRING out of date?"
    unknown = [str(a) for a in strings if a.target not in _MODULES]
    assert not unknown, "\n".join(unknown)


# --- the checks catch what they are for, shown on small made-up graphs ---------------------------

def _arrow(source: str, target: str, kind: str = "import") -> Arrow:
    return Arrow(source, target, "made_up.py", 1, kind)


def test_an_upward_registry_string_is_reported():
    arrows = [_arrow("mtdebias.errors", "mtdebias.probes.winomt.probe", "registry string"),
              _arrow("mtdebias.probes.winomt.probe", "mtdebias.errors")]
    assert upward_arrows(arrows) == [
        "made_up.py:1: mtdebias.errors -> mtdebias.probes.winomt.probe (registry string): base -> uncertainty/probes"]


def test_registry_strings_and_lazy_imports_are_read_as_arrows(tmp_path):
    source = tmp_path / "tables.py"
    source.write_text('X = {"a.v1": "mtdebias.probes.winomt.probe:WinoMTProbe.from_options",\n'
                      '     "note": "mtdebias.probes is no entry", "b": "os.path:join"}\n'
                      "def f():\n    from mtdebias.align import align_pairs\n", encoding="utf-8")
    arrows = _arrows("mtdebias.errors", source)
    assert [(a.target, a.line, a.kind) for a in arrows] == [
        ("mtdebias.probes.winomt.probe", 1, "registry string"), ("mtdebias.align", 4, "lazy import")]


def test_a_cycle_is_found_and_its_lazy_import_named():
    arrows = [_arrow("mtdebias.registry", "mtdebias.align.aligners", "registry string"),
              _arrow("mtdebias.align.aligners", "mtdebias.registry", "lazy import"),
              _arrow("mtdebias.align.aligners", "mtdebias.errors"),
              _arrow("mtdebias.align", "mtdebias.align.aligners")]
    found = cycles(arrows)
    assert [[(a.source, a.target) for a in c] for c in found] == [
        [("mtdebias.align.aligners", "mtdebias.registry"), ("mtdebias.registry", "mtdebias.align.aligners")]]
    assert "closed by a lazy import" in _show(found[0])
    assert cycles([arrows[0], *arrows[2:]]) == []  # without the lazy import, no cycle


def test_a_cycle_between_packages_is_found_where_modules_form_none():
    """``debias.apply`` → ``registry`` → ``debias.hard``: no module comes back to itself, but
    the debias package does (importing ``debias.hard`` runs the package's ``__init__``)."""
    arrows = [_arrow("mtdebias.debias.apply", "mtdebias.registry"),
              _arrow("mtdebias.registry", "mtdebias.debias.hard", "registry string")]
    assert cycles(arrows) == []
    assert [[a.source for a in c] for c in cycles(arrows, node=_package)] == [
        ["mtdebias.debias.apply", "mtdebias.registry"]]


def test_uncertainty_does_not_import_probes_and_recipes_do_not_import_suites():
    for module, path in _MODULES.items():
        targets = [t for t, _ in _imports(module, path)]
        if module.startswith("mtdebias.uncertainty"):
            assert not [t for t in targets if t.startswith("mtdebias.probes")], module
        if module.startswith("mtdebias.recipe"):
            # the registry (probes/registry.py) names the probes without importing one
            assert not [t for t in targets if t.startswith(("mtdebias.probes", "mtdebias.evaluation"))
                        and t != "mtdebias.probes.registry"], module
        if module.startswith("mtdebias.train"):
            # causal training renders its pairs with the hf-causal translator itself (the prompt a
            # checkpoint is scored with must be the one it was trained on): that module alone may
            allowed = ("mtdebias.translators.hf_causal", "mtdebias.translators.source")
            assert not [t for t in targets if t.startswith(("mtdebias.probes", "mtdebias.translators"))
                        and not (module == "mtdebias.train.causal" and t in allowed)], module


def _strings(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        return [v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str)]
    return []


def test_only_the_store_joins_run_directory_paths():
    offenders = []
    for module, path in sorted(_MODULES.items()):
        if module == "mtdebias.store.runs":
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
    item keys, paired tests): a probe's name written there would be a list kept by hand. Only
    the probe families' own views (report/views/<family>.py) name their probes, which is how
    :func:`mtdebias.report.views.view_of` finds them."""
    from mtdebias.probes.registry import PROBES

    bases = {name.rsplit(".v", 1)[0] for name in PROBES.entries}
    # "quality" is also an English word: only its probe name and string forms count
    patterns = [re.compile(rf"\b{re.escape(b)}\b" if b != "quality" else r"quality\.v\d|[\"']quality[\"'*.]")
                for b in sorted(bases)]
    views = PACKAGE / "report" / "views"
    families = {path for path in views.glob("*.py") if path.stem not in ("__init__", "page", "figures")}
    sources = sorted(set((PACKAGE / "report").rglob("*.py")) - families) + [PACKAGE / "experiments" / "ablation.py"]
    found = [f"{path.relative_to(PACKAGE.parent)}:{n}: {line.strip()}"
             for path in sources for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if any(p.search(line) for p in patterns)]
    assert not found, "\n".join(found)


def test_at_most_ten_loose_modules():
    """Issue 41: a module lives in the package of what it does (store/, stats/, models/, …);
    only the entry points and the smallest shared helpers stay at the top of the package."""
    loose = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert len(loose) <= 10, f"{len(loose)} loose modules in mtdebias/: {loose}"
