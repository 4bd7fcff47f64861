"""Small workspaces for tests and docs, built for real by the workflows with a tiny rule-based extractor.

>>> import tempfile
>>> ws = sample_workspace(tempfile.mkdtemp())
>>> sorted(ws.read_json("run.json")["outputs"])
['communities', 'extractions', 'graph', 'summary']
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from kgkit.core.domain import Domain
from kgkit.core.records import ExtractedEntity, ExtractedRelation, TextExtraction

__all__ = ["SAMPLE_DOCUMENTS", "CapitalisedNames", "sample_workspace"]

SAMPLE_DOCUMENTS = {
    "babbage.txt": "Charles Babbage designed the Analytical Engine. Ada Lovelace wrote notes on the engine.",
    "lovelace.txt": "Ada Lovelace worked with Charles Babage in London. Lovelace published her notes.",
}


class CapitalisedNames:
    """A deterministic extractor for tests: runs of capitalised words are Person entities, and the first two
    in a sentence are linked by MENTIONED_WITH."""

    id = "capitalised-names:1"

    def extract(self, texts: Sequence[str], *, domain: Domain) -> list[TextExtraction]:
        out = []
        for text in texts:
            entities, relations = [], []
            for sentence in re.split(r"(?<=\.)\s+", text):
                names = [m.group(0) for m in re.finditer(r"\b[A-Z][a-z]+(?: [A-Z][a-z]+)*", sentence)
                         if m.group(0) not in {"The", "A"}]
                entities += [ExtractedEntity(name=n, type="Person") for n in names]
                if len(names) >= 2:
                    relations.append(ExtractedRelation(source=names[0], source_type="Person", target=names[1],
                                                       target_type="Person", type="MENTIONED_WITH",
                                                       evidence=sentence))
            out.append(TextExtraction(extractor_id=self.id, entities=tuple(entities), relations=tuple(relations)))
        return out


def sample_workspace(root: str | os.PathLike[str]):  # -> Workspace
    """A workspace at `root`/ws built from SAMPLE_DOCUMENTS (written to `root`/docs) by the run workflow."""
    from kgkit.workflows.graph import as_workspace
    from kgkit.workflows.run import run

    docs = Path(root) / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    for name, text in SAMPLE_DOCUMENTS.items():
        (docs / name).write_text(text, encoding="utf-8")
    ws = as_workspace(Path(root) / "ws")
    run(ws, docs, extractor=CapitalisedNames(), write_view=False)
    return ws


def paris_workspace(root: str | os.PathLike[str]):  # -> Workspace
    """A workspace at `root`/ws whose extractions.jsonl holds builders.paris_extractions (Paris, France in two
    documents, Paris, Texas in one), built by the build workflow with the general domain."""
    from kgkit.io.workspace import EXTRACTIONS
    from kgkit.testing.builders import paris_extractions
    from kgkit.workflows.graph import as_workspace, build

    ws = as_workspace(Path(root) / "ws")
    with ws.writer(step="extract"):
        gen = ws.begin("extract", config={"domain_source": "general"})
        gen.write_jsonl(EXTRACTIONS, [e.model_dump(mode="json") for e in paris_extractions()])
        gen.commit()
    build(ws, write_view=False)
    return ws
