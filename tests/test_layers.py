"""The package's layers, checked on the source: every `import` of every kgkit/**/*.py, read with `ast`.

    core        records, graph, domain, names, fingerprint, stage, executor, constants, protocols
                -> imports nothing of kgkit but core
    stages      pure stage functions (load, chunk, extract, build, temporal, postprocess, communities,
                topology, diff, embed, discover, resolve, search, narrate) -> core, stages, llm (the client
                type, run_sync); never a file, a workspace, a view, a workflow or the CLI
    extractors  offline and LLM extractors with their prompts -> core, stages, llm
    llm         client, ledger, limits, report, validation -> core (the per-request cache is given to the
                client: kgkit.core.protocols.RequestCache)
    io          files, cache, workspace, importers, export, decisions, search store -> core, stages, io
    views       graph, diff, cluster, widgets -> core, stages
    workflows   drivers tying stages to files -> anything but cli and testing
    cli         the `kgkit` command -> anything but testing
    testing     builders and fake providers for tests; no product module imports it

Checked here, each failure listed as `file:line -> imported module (rule)`:

- `test_layer_rules`: every import (module level, inside functions, under `if TYPE_CHECKING:`) against
  `MAY_IMPORT` below.
- `test_no_private_cross_module_imports`: `from kgkit.a import _x`, `import kgkit.a._x`, or `alias._x` on an
  imported kgkit module, unless kgkit.a is the importing module itself. A private *name* belongs to its module
  (a package's `__init__` is a module too, so its submodules may not take its private names); a private
  *module* (`kgkit/io/export/_common.py`) belongs to its package, whose modules may import it. Doctest
  examples are checked as well.
- `test_no_import_cycles`: circles among kgkit modules over every static import (module level, inside
  functions, under TYPE_CHECKING); importing `kgkit.a.b` runs `kgkit.a/__init__` too, so that counts.
- `test_no_arrows_back_up`: no import of a module in a layer above the importer's, above as the whole-layer
  entries of `MAY_IMPORT` order them (core < llm < stages < extractors, io, views < workflows < the front ends);
  an exception in MAY_IMPORT cannot let an import climb back.
  `python bench/imports.py` prints both, with the lines that make each circle.
- `test_product_never_imports_testing`: no module outside kgkit.testing imports it (doctests may).
"""

from __future__ import annotations

import ast
import doctest
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "kgkit"

_PRODUCT = ("kgkit.core", "kgkit.stages", "kgkit.extractors", "kgkit.llm", "kgkit.io", "kgkit.views")

# The layer a module belongs to (the longest matching prefix) -> the kgkit modules it may import (prefixes).
MAY_IMPORT: dict[str, tuple[str, ...]] = {
    "kgkit": (),  # the package's __init__: only __version__
    "kgkit.__main__": ("kgkit.cli",),
    "kgkit.core": ("kgkit.core",),
    "kgkit.stages": ("kgkit.core", "kgkit.stages", "kgkit.llm"),
    "kgkit.extractors": ("kgkit.core", "kgkit.stages", "kgkit.llm", "kgkit.extractors"),
    "kgkit.llm": ("kgkit.core", "kgkit.llm"),
    "kgkit.io": ("kgkit.core", "kgkit.stages", "kgkit.io"),
    "kgkit.views": ("kgkit.core", "kgkit.stages", "kgkit.views"),
    "kgkit.workflows": (*_PRODUCT, "kgkit.workflows"),
    "kgkit.mcp": (*_PRODUCT, "kgkit.workflows", "kgkit.mcp"),  # the MCP server: a front end like the CLI
    "kgkit.cli": (*_PRODUCT, "kgkit.workflows", "kgkit.mcp", "kgkit.cli"),
    "kgkit.testing": (*_PRODUCT, "kgkit.workflows", "kgkit.testing"),
    "kgkit.notebook": (*_PRODUCT, "kgkit.workflows", "kgkit.notebook"),  # what a notebook's setup imports
}


# --------------------------------------------------------------------------- reading the imports


@dataclass(frozen=True)
class Import:
    file: str  # relative to the repository root
    line: int
    importer: str  # dotted module name of the importing file
    target: str  # the kgkit module imported (`from a import b` is a.b when b is a module)
    names: tuple[str, ...]  # names taken by `from target import ...` (empty for `import target`)
    module_level: bool  # runs at import time: not inside a function, not under TYPE_CHECKING
    doctest: bool = False


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_files() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


MODULES = {module_name(p) for p in source_files()}


def is_package(module: str) -> bool:
    return (ROOT / module.replace(".", "/") / "__init__.py").exists()


def kgkit_module_of(dotted: str) -> str | None:
    """The longest prefix of `dotted` that is a kgkit module (`kgkit.core.graph._rel` -> kgkit.core.graph)."""
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in MODULES:
            return candidate
    return None


def _absolute(importer: str, node: ast.ImportFrom, package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = importer.split(".") if package else importer.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports_in(tree: ast.AST, file: str, importer: str, package: bool, doctest_: bool = False) -> list[Import]:
    found: list[Import] = []

    def visit(node: ast.AST, module_level: bool) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "kgkit":
                    found.append(Import(file, node.lineno, importer, alias.name, (), module_level, doctest_))
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(importer, node, package)
            if source.split(".")[0] == "kgkit":
                modules = [a.name for a in node.names if f"{source}.{a.name}" in MODULES]
                others = tuple(a.name for a in node.names if f"{source}.{a.name}" not in MODULES)
                for name in modules:  # `from kgkit.io import cache` imports kgkit.io.cache
                    found.append(Import(file, node.lineno, importer, f"{source}.{name}", (), module_level, doctest_))
                if others or not modules:
                    found.append(Import(file, node.lineno, importer, source, others, module_level, doctest_))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            module_level = False
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                visit(child, False)
            for child in node.orelse:
                visit(child, module_level)
            return
        for child in ast.iter_child_nodes(node):
            visit(child, module_level)

    visit(tree, True)
    return found


@dataclass(frozen=True)
class Parsed:
    path: Path
    file: str
    module: str
    tree: ast.Module
    imports: tuple[Import, ...]
    doctest_imports: tuple[Import, ...]


def _docstrings(tree: ast.Module) -> list[tuple[int, str]]:
    """(line of the opening quotes, docstring) of the module, its classes and functions."""
    found = []
    for node in (tree, *ast.walk(tree)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                found.append((first.lineno, first.value.value))
    return list(dict.fromkeys(found))


def _parse(path: Path, source: str | None = None) -> Parsed:
    """The imports of one file (`source` stands in for its text in the checker's own tests)."""
    file = str(path.relative_to(ROOT))
    module = module_name(path)
    package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8") if source is None else source, filename=file)
    in_docs: list[Import] = []
    parser = doctest.DocTestParser()
    for start, doc in _docstrings(tree):
        for example in parser.get_examples(doc):
            try:
                snippet = ast.parse(example.source)
            except (SyntaxError, ValueError):  # not Python, or text no source file could hold (lone surrogates)
                continue
            for imp in _imports_in(snippet, file, module, package, doctest_=True):
                line = start + example.lineno + imp.line - 1
                in_docs.append(Import(file, line, module, imp.target, imp.names, False, True))
    return Parsed(path, file, module, tree, tuple(_imports_in(tree, file, module, package)), tuple(in_docs))


PARSED = [_parse(p) for p in source_files()]


def _layer(module: str) -> str:
    matches = [layer for layer in MAY_IMPORT if module == layer or module.startswith(layer + ".")]
    return max(matches, key=len)


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def _short(layer: str) -> str:
    return layer.removeprefix("kgkit.") if layer != "kgkit" else "kgkit"


def _report(title: str, lines: list[str]) -> str:
    return f"{title} ({len(lines)}):\n  " + "\n  ".join(sorted(set(lines)))


# --------------------------------------------------------------------------- the checks


def layer_violations(modules: Sequence[Parsed] = PARSED) -> list[str]:
    found = []
    for parsed in modules:
        layer = _layer(parsed.module)
        allowed = MAY_IMPORT[layer]
        for imp in parsed.imports:
            if imp.target == parsed.module or any(_within(imp.target, a) for a in allowed):
                continue
            rule = ", ".join(_short(a) for a in allowed) or "nothing of kgkit"
            found.append(f"{imp.file}:{imp.line} -> {imp.target} ({_short(layer)} may import only {rule})")
    return found


def test_layer_rules():
    found = layer_violations()
    assert not found, _report("imports breaking the layer rules (see MAY_IMPORT in tests/test_layers.py)", found)


def _private_owner(importer: str, dotted: str) -> str | None:
    """If the dotted path reaches into something private that `importer` does not own, the owner; else None."""
    parts = dotted.split(".")
    for i, part in enumerate(parts):
        if i == 0 or not part.startswith("_") or (part.startswith("__") and part.endswith("__")):
            continue
        owner = ".".join(parts[:i])
        if ".".join(parts[: i + 1]) in MODULES:  # a private module: private to its package
            if not _within(importer, owner):
                return owner
        elif owner != importer:  # a private name: private to its module
            return owner
    return None


def _attribute_chain(node: ast.Attribute) -> list[str] | None:
    chain = [node.attr]
    value = node.value
    while isinstance(value, ast.Attribute):
        chain.append(value.attr)
        value = value.value
    if not isinstance(value, ast.Name):
        return None
    chain.append(value.id)
    return chain[::-1]


def _module_aliases(tree: ast.Module, importer: str, package: bool) -> dict[str, str]:
    """Names bound to kgkit modules by imports: `import kgkit.a.b` binds kgkit; `import kgkit.a as x` binds x;
    `from kgkit import a` binds a."""
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "kgkit":
                    bound[alias.asname or "kgkit"] = alias.name if alias.asname else "kgkit"
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(importer, node, package)
            for alias in node.names:
                if f"{source}.{alias.name}" in MODULES:
                    bound[alias.asname or alias.name] = f"{source}.{alias.name}"
    return bound


def private_violations(modules: Sequence[Parsed] = PARSED) -> list[str]:
    found = []
    for parsed in modules:
        for imp in (*parsed.imports, *parsed.doctest_imports):
            where = f"{imp.file}:{imp.line}{' (doctest)' if imp.doctest else ''}"
            owner = _private_owner(imp.importer, imp.target)
            if owner is not None:
                found.append(f"{where} -> {imp.target} (private to {owner})")
            for name in imp.names:
                owner = _private_owner(imp.importer, f"{imp.target}.{name}")
                if owner is not None:
                    found.append(f"{where} -> {imp.target}.{name} (private to {owner})")
        aliases = _module_aliases(parsed.tree, parsed.module, parsed.path.name == "__init__.py")
        for node in ast.walk(parsed.tree):
            if not isinstance(node, ast.Attribute) or not node.attr.startswith("_"):
                continue
            chain = _attribute_chain(node)
            if chain is None or chain[0] not in aliases:
                continue
            dotted = ".".join([aliases[chain[0]], *chain[1:]])
            if dotted.rsplit(".", 1)[0] not in MODULES:
                continue  # an attribute of a class or object, not of a module
            owner = _private_owner(parsed.module, dotted)
            if owner is not None:
                found.append(f"{parsed.file}:{node.lineno} -> {dotted} (private to {owner})")
    return found


def test_no_private_cross_module_imports():
    found = private_violations()
    assert not found, _report("private names used outside their module (make them public or move them to "
                              "kgkit.testing)", found)


def import_graph(modules: Sequence[Parsed] = PARSED, *, at_import_only: bool = True) -> dict[str, dict[str, int]]:
    """module -> {module it imports: first line}, with the packages each import runs. `at_import_only`: only
    the imports that run when the module is imported (module level, not under TYPE_CHECKING); else every
    static import (inside functions and under TYPE_CHECKING too)."""
    edges: dict[str, dict[str, int]] = {m: {} for m in MODULES}
    for parsed in modules:
        for imp in parsed.imports:
            if at_import_only and not imp.module_level:
                continue
            target = kgkit_module_of(imp.target)
            if target is None:
                continue
            parts = target.split(".")
            for end in range(1, len(parts) + 1):
                ran = ".".join(parts[:end])
                implicit = ran != target
                if ran == parsed.module or ran not in MODULES:
                    continue
                if implicit and _within(parsed.module, ran):
                    continue  # a package the importer is inside of: already running
                edges[parsed.module].setdefault(ran, imp.line)
    return edges


def _strongly_connected(edges: dict[str, dict[str, int]]) -> list[list[str]]:
    """The components of two or more modules that import each other (directly or round a circle), sorted."""
    import networkx as nx

    graph = nx.DiGraph([(a, b) for a, targets in edges.items() for b in targets])
    graph.add_nodes_from(edges)
    return sorted(sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1)


def _cycle_through(edges: dict[str, dict[str, int]], component: list[str]) -> list[str]:
    """A shortest cycle through the component's first module (breadth first inside the component)."""
    members = set(component)
    start = component[0]
    parents: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(edges[node]):
                if child not in members:
                    continue
                if child == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(parents[path[-1]])
                    return [*path[::-1], start]
                if child not in parents:
                    parents[child] = node
                    following.append(child)
        frontier = following
    return [start]


def cycles(modules: Sequence[Parsed] = PARSED, *, at_import_only: bool = False) -> list[str]:
    """Each import circle (strongly connected component) as a shortest cycle with the lines that make it, over
    every static import (`at_import_only`: over the imports that run at import time only)."""
    edges = import_graph(modules, at_import_only=at_import_only)
    files = {p.module: p.file for p in modules}
    found = []
    for component in _strongly_connected(edges):
        cycle = _cycle_through(edges, component)
        steps = [f"{files[a]}:{edges[a][b]} imports {b}" for a, b in pairwise(cycle)]
        found.append(f"{len(component)} modules: " + ", ".join(component) + "\n      "
                     + " -> ".join(cycle) + "\n      " + "\n      ".join(steps))
    return found


def _whole_layers(layer: str) -> set[str]:
    """The other layers `layer` may import as a whole (an entry naming one module of a layer is an exception
    to the order, not a part of it)."""
    return {allowed for allowed in MAY_IMPORT[layer] if allowed in MAY_IMPORT and allowed != layer}


def layers_below(layer: str) -> set[str]:
    """The layers under `layer`: those it may import, directly or through a layer it may import.

    >>> sorted(_short(x) for x in layers_below("kgkit.stages"))
    ['core', 'llm']
    """
    below: set[str] = set()
    todo = list(_whole_layers(layer))
    while todo:
        nxt = todo.pop()
        if nxt not in below:
            below.add(nxt)
            todo.extend(_whole_layers(nxt))
    return below


def layer_order() -> list[str]:
    """The layers, each after every layer below it (ties by name)."""
    return sorted(MAY_IMPORT, key=lambda layer: (len(layers_below(layer)), layer))


def arrows_back_up(modules: Sequence[Parsed] = PARSED) -> list[str]:
    """Imports (any: module level, in a function, under TYPE_CHECKING) of a module in a layer above the
    importer's: a layer whose modules may import the importer's layer, as MAY_IMPORT orders them."""
    found = []
    for parsed in modules:
        layer = _layer(parsed.module)
        for imp in parsed.imports:
            target = kgkit_module_of(imp.target) or imp.target
            above = _layer(target)
            if above != layer and layer in layers_below(above):
                found.append(f"{imp.file}:{imp.line} -> {target} ({_short(layer)} is below {_short(above)}, "
                             f"which may import it)")
    return found


def test_no_import_cycles():
    found = cycles()
    assert not found, _report("import cycles over every static import, in functions too (python bench/imports.py)",
                              found)


def test_no_arrows_back_up():
    found = arrows_back_up()
    assert not found, _report("imports of a layer above the importer's (python bench/imports.py)", found)


def test_layer_order_has_no_circle():
    """No entry of MAY_IMPORT lets a layer reach itself through others: the layers form one order."""
    assert [layer for layer in MAY_IMPORT if layer in layers_below(layer)] == []
    assert [_short(x) for x in layer_order()][:4] == ["kgkit", "core", "llm", "stages"]


def product_imports_of_testing(modules: Sequence[Parsed] = PARSED) -> list[str]:
    return [f"{imp.file}:{imp.line} -> {imp.target}" for parsed in modules
            if not _within(parsed.module, "kgkit.testing")
            for imp in parsed.imports if _within(imp.target, "kgkit.testing")]


def test_product_never_imports_testing():
    found = product_imports_of_testing()
    assert not found, _report("product modules importing kgkit.testing", found)


# --------------------------------------------------------------------------- the checker checks itself


def _check(source: str, module: str) -> tuple[list[Import], ast.Module]:
    tree = ast.parse(source)
    return _imports_in(tree, f"{module}.py", module, package=False), tree


def test_reader_sees_function_and_type_checking_imports():
    imports, _ = _check(
        "from typing import TYPE_CHECKING\n"
        "import kgkit.core.graph\n"
        "if TYPE_CHECKING:\n    from kgkit.io.cache import Cache\n"
        "def f():\n    from kgkit.io import cache\n"
        "from . import records\n",
        "kgkit.core.names")
    got = [(i.line, i.target, i.module_level) for i in imports]
    assert got == [(2, "kgkit.core.graph", True), (4, "kgkit.io.cache", False), (6, "kgkit.io.cache", False),
                   (7, "kgkit.core.records", True)]


@pytest.mark.parametrize(("importer", "dotted", "owner"), [
    ("kgkit.stages.build", "kgkit.core.graph._rel", "kgkit.core.graph"),
    ("kgkit.core.graph", "kgkit.core.graph._rel", None),
    ("kgkit.stages.search.search_index", "kgkit.stages.search._helper", "kgkit.stages.search"),  # own package __init__
    ("kgkit.io.export.rdf", "kgkit.io.export._common.records", None),  # private module, same package
    ("kgkit.io.files", "kgkit.io.export._common", "kgkit.io.export"),
    ("kgkit.core.graph", "kgkit.core.graph.__version__", None),
])
def test_private_owner(importer, dotted, owner):
    assert _private_owner(importer, dotted) == owner


def test_cycle_finder():
    edges = {"a": {"b": 1}, "b": {"c": 2}, "c": {"a": 3, "d": 4}, "d": {}}
    assert _strongly_connected(edges) == [["a", "b", "c"]]
    assert _cycle_through(edges, ["a", "b", "c"]) == ["a", "b", "c", "a"]


def _planted(file: str, source: str) -> Parsed:
    return _parse(ROOT / file, source)


def test_planted_violations_are_reported():
    stage = _planted("kgkit/stages/topology.py", '''"""Doc.

>>> from kgkit.stages.resolve.scoring import _hidden
"""
from typing import TYPE_CHECKING
from kgkit.core.graph import Graph, _private
import kgkit.core.names as names
if TYPE_CHECKING:
    from kgkit.io.cache import Cache
def f():
    from kgkit.workflows import run
    return names._secret
''')
    assert layer_violations([stage]) == [
        "kgkit/stages/topology.py:9 -> kgkit.io.cache (stages may import only core, stages, llm)",
        "kgkit/stages/topology.py:11 -> kgkit.workflows.run (stages may import only core, stages, llm)"]
    assert sorted(private_violations([stage])) == [
        "kgkit/stages/topology.py:12 -> kgkit.core.names._secret (private to kgkit.core.names)",
        "kgkit/stages/topology.py:3 (doctest) -> kgkit.stages.resolve.scoring._hidden (private to "
        "kgkit.stages.resolve.scoring)",
        "kgkit/stages/topology.py:6 -> kgkit.core.graph._private (private to kgkit.core.graph)"]
    llm = _planted("kgkit/llm/report.py", "from kgkit.testing.clock import FakeClock\nfrom kgkit.io.cache import Cache\n")
    assert product_imports_of_testing([llm]) == ["kgkit/llm/report.py:1 -> kgkit.testing.clock"]
    assert [v.split(" -> ")[1] for v in layer_violations([llm])] == [
        "kgkit.testing.clock (llm may import only core, llm)", "kgkit.io.cache (llm may import only core, llm)"]


def test_planted_cycle_is_reported():
    a = _planted("kgkit/core/names.py", "from kgkit.core import records\n")
    b = _planted("kgkit/core/records.py", "def f():\n    from kgkit.core.names import x\nimport kgkit.core.stage\n")
    c = _planted("kgkit/core/stage.py", "from kgkit.core.names import normalise\n")
    assert cycles([a, b, c], at_import_only=True) == [
        "3 modules: kgkit.core.names, kgkit.core.records, kgkit.core.stage\n"
        "      kgkit.core.names -> kgkit.core.records -> kgkit.core.stage -> kgkit.core.names\n"
        "      kgkit/core/names.py:1 imports kgkit.core.records\n"
        "      kgkit/core/records.py:3 imports kgkit.core.stage\n"
        "      kgkit/core/stage.py:1 imports kgkit.core.names"]
    assert cycles([a, b], at_import_only=True) == []  # the import back is inside a function: none at import time
    assert cycles([a, b]) == [  # but a circle all the same
        "2 modules: kgkit.core.names, kgkit.core.records\n"
        "      kgkit.core.names -> kgkit.core.records -> kgkit.core.names\n"
        "      kgkit/core/names.py:1 imports kgkit.core.records\n"
        "      kgkit/core/records.py:2 imports kgkit.core.names"]


def test_planted_arrow_back_up_is_reported():
    llm = _planted("kgkit/llm/report.py", "def f():\n    from kgkit.io.cache import Cache\nfrom kgkit.core import records\n")
    core = _planted("kgkit/core/names.py", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                    "    from kgkit.stages.build import build_graph\n")
    io = _planted("kgkit/io/files.py", "from kgkit.stages.load import load_corpus\n")  # io is above stages: down
    assert arrows_back_up([llm, core, io]) == [
        "kgkit/llm/report.py:2 -> kgkit.io.cache (llm is below io, which may import it)",
        "kgkit/core/names.py:3 -> kgkit.stages.build (core is below stages, which may import it)"]
