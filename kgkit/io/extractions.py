"""Reading extractions back: a workspace's extractions.jsonl, or the extractions of a sift-kg output folder.

>>> import tempfile, pathlib
>>> from kgkit.core.records import DocumentExtraction
>>> p = pathlib.Path(tempfile.mkdtemp()) / "extractions.jsonl"
>>> _ = p.write_text('{"document_id": "d1", "path": "a.txt", "sha256": "0", "media_type": "text/plain", "chunks": []}\\n')
>>> found = read_extractions(p)
>>> [d.path for d in found], failed_chunks(found)
(['a.txt'], 0)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kgkit.core.records import DocumentExtraction
from kgkit.io.files import read_jsonl

__all__ = ["failed_chunks", "read_extractions"]


def read_extractions(source: str | Path, *, domain: Any = None) -> Any:
    """DocumentExtractions from an extractions.jsonl (or a folder holding one), or the mentions of a sift-kg
    output folder (OUT or OUT/extractions with *.json files) as `kgkit.stages.mention_rows.Mentions` rows."""
    source = Path(source)
    if source.is_dir() and (source / "extractions.jsonl").is_file():
        source = source / "extractions.jsonl"
    if source.is_file():
        return [DocumentExtraction.model_validate(row) for row in read_jsonl(source)]
    if source.is_dir():
        from kgkit.io.importers import read_siftkg_mentions

        return read_siftkg_mentions(source, domain=domain)
    raise FileNotFoundError(f"{source}: no such file or folder")


def failed_chunks(found: Any) -> int:
    """How many chunks failed in DocumentExtractions or `kgkit.stages.mention_rows.Mentions`."""
    from kgkit.stages.mention_rows import Mentions

    if isinstance(found, Mentions):
        return sum(doc.errors for doc in found.documents)
    return sum(len(d.errors) for d in found)
