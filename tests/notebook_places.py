"""What the notebook tests share: the notebooks, the places in the repository a notebook must not write to, and
an environment without a developer's KGKIT_* settings."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.py"))
# where a notebook could write inside the repository: its own folder, and the folder the notebooks used before
REPO_PLACES = (ROOT / "notebooks", ROOT / "workspace")


def snapshot() -> dict[str, tuple[int, int]]:
    """Every file under the places a notebook could write in the repository: {path: (size, mtime)}."""
    found = {}
    for place in REPO_PLACES:
        for path in place.rglob("*") if place.is_dir() else ():
            if path.is_file() and "__pycache__" not in path.parts:
                info = path.stat()
                found[str(path.relative_to(ROOT))] = (info.st_size, info.st_mtime_ns)
    return found


def changed(before: dict[str, tuple[int, int]]) -> list[str]:
    """The repository files added, removed or modified since `before` (a snapshot())."""
    after = snapshot()
    return sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))


def env_without_settings(**extra: str) -> dict[str, str]:
    """The environment minus every KGKIT_* setting a developer may have exported, plus `extra`."""
    return {**{k: v for k, v in os.environ.items() if not k.startswith("KGKIT_")}, **extra}
