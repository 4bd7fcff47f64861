"""The import graph of kgkit/ (issue 28): import circles and arrows back up, read from the source with `ast`.

    .venv/bin/python bench/imports.py            # the report; exit 1 when there is a circle or an arrow back up
    .venv/bin/python bench/imports.py --json     # the same as JSON

Every static import of every kgkit/**/*.py counts: at module level, inside functions, under TYPE_CHECKING,
relative ones resolved (`from . import x`), and `from kgkit.a import b` as an import of kgkit.a.b when b is a
module; importing kgkit.a.b runs kgkit.a's __init__ too, so that is an import of kgkit.a as well.

- Circles: the strongly connected components of that graph (networkx), each shown as one shortest cycle
  with the lines that make it.
- Arrows back up: an import of a module in a layer above the importer's, in the order of the layer table
  in tests/test_layers.py (MAY_IMPORT: a layer is above another when it may import it, directly or through
  a layer between): cli -> workflows -> views / io -> stages / extractors -> llm -> core.

The reading and the rules are those of tests/test_layers.py (test_no_import_cycles, test_no_arrows_back_up),
imported from there, so the script and the tests cannot disagree.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def layer_rules() -> ModuleType:
    """tests/test_layers.py, imported as a module (it reads kgkit/ when imported)."""
    spec = importlib.util.spec_from_file_location("kgkit_layer_rules", ROOT / "tests" / "test_layers.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


def measure() -> dict[str, object]:
    rules = layer_rules()
    every = rules.import_graph(at_import_only=False)
    at_import = rules.import_graph(at_import_only=True)
    return {
        "modules": len(rules.MODULES),
        "imports": sum(len(t) for t in every.values()),
        "imports_at_import_time": sum(len(t) for t in at_import.values()),
        "layer_order": [rules._short(layer) for layer in rules.layer_order()],
        "cycles": rules.cycles(),
        "arrows_back_up": rules.arrows_back_up(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    found = measure()
    if args.json:
        print(json.dumps(found, indent=1))
    else:
        print(f"kgkit/: {found['modules']} modules, {found['imports']} imports between them "
              f"({found['imports_at_import_time']} run at import time)")
        print("layer order, bottom first: " + " < ".join(found["layer_order"]))  # type: ignore[arg-type]
        for title in ("cycles", "arrows_back_up"):
            items = found[title]
            print(f"\n{title.replace('_', ' ')}: {len(items)}")  # type: ignore[arg-type]
            for item in items:  # type: ignore[union-attr]
                print("  " + item)
    return 1 if found["cycles"] or found["arrows_back_up"] else 0


if __name__ == "__main__":
    sys.exit(main())
