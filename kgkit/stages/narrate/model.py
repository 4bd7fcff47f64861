"""The records a narrative is made of, and its two outputs: Markdown and data (JSON, DataFrames).

Every sentence carries the relation ids and document paths it was written from; `Narrative.sources` holds
those relations (statement, evidence, documents), so a reader can check each sentence against the graph.

>>> s = Sentence(text="Ada works for Acme.", relations=("rel:1",), documents=("a.txt",))
>>> sec = Section(kind="overview", title="Overview", sentences=(s,), source="extractive")
>>> n = Narrative(overview=sec, chains=sec, timeline=sec,
...               sources={"rel:1": SourceRelation(id="rel:1", statement="Ada works for Acme", documents=("a.txt",))})
>>> "Ada works for Acme. [1]" in n.to_markdown(), n.cited_relations()
(True, ['rel:1'])
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from kgkit.core.records import Record

if TYPE_CHECKING:
    import pandas as pd

Source = Literal["llm", "extractive"]
FORMAT = "kgkit.narrative/1"


class Sentence(Record):
    """One sentence and what it was written from."""

    text: str
    relations: tuple[str, ...] = ()  # relation ids
    documents: tuple[str, ...] = ()  # document paths
    date: str | None = None  # timeline entries


class Section(Record):
    """A part of the narrative. `fallback` says why LLM text was wanted but not used (budget, invalid output,
    provider error): the sentences are then the extractive ones."""

    kind: str
    title: str
    sentences: tuple[Sentence, ...] = ()
    source: Source = "extractive"
    fallback: str | None = None


class EntityDescription(Record):
    entity: str
    name: str
    type: str
    degree: int
    mentions: int
    community: str | None = None
    sentences: tuple[Sentence, ...] = ()
    source: Source = "extractive"
    fallback: str | None = None

    @property
    def text(self) -> str:
        return " ".join(s.text for s in self.sentences)


class CommunityText(Record):
    """A community's label and description: the per-community cached value (no community id in it, so a
    renumbered but unchanged community is not recomputed). `error` (why an LLM label was not used) keeps a
    fallback out of the cache, so a later run with more budget asks again."""

    label: str
    sentences: tuple[Sentence, ...] = ()
    terms: tuple[str, ...] = ()
    source: Source = "extractive"
    error: str | None = None


class CommunityLabel(Record):
    community: str
    size: int
    relations: int
    top_entities: tuple[str, ...] = ()
    top_names: tuple[str, ...] = ()
    terms: tuple[str, ...] = ()
    label: str
    sentences: tuple[Sentence, ...] = ()
    source: Source = "extractive"
    fallback: str | None = None

    @property
    def description(self) -> str:
        return " ".join(s.text for s in self.sentences)


class SourceRelation(Record):
    """A cited relation: what it says, its evidence quote and its documents."""

    id: str
    statement: str
    type: str = ""
    support: int = 0
    evidence: str | None = None
    documents: tuple[str, ...] = ()


class Narrative(Record):
    """Overview, relationship chains, timeline, entity descriptions, community labels, and the cited sources."""

    overview: Section
    chains: Section
    timeline: Section
    entities: tuple[EntityDescription, ...] = ()
    communities: tuple[CommunityLabel, ...] = ()
    sources: dict[str, SourceRelation] = Field(default_factory=dict)
    model: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)

    # ------------------------------------------------------------------ data

    def sentences(self) -> Iterator[tuple[str, Sentence]]:
        """(where, sentence) for every sentence: section kind, entity id or community id."""
        for sec in (self.overview, self.chains, self.timeline):
            for s in sec.sentences:
                yield sec.kind, s
        for e in self.entities:
            for s in e.sentences:
                yield e.entity, s
        for c in self.communities:
            for s in c.sentences:
                yield c.community, s

    def cited_relations(self) -> list[str]:
        """Every relation id cited anywhere, sorted."""
        return sorted({r for _, s in self.sentences() for r in s.relations})

    def fallbacks(self) -> dict[str, str]:
        """Where LLM text was wanted but extractive text was used, and why."""
        out = {sec.kind: sec.fallback for sec in (self.overview, self.chains, self.timeline) if sec.fallback}
        out.update({e.entity: e.fallback for e in self.entities if e.fallback})
        out.update({c.community: c.fallback for c in self.communities if c.fallback})
        return out

    def entity_frame(self) -> pd.DataFrame:
        """One row per described entity: entity, name, type, degree, mentions, community, description,
        relations (cited ids), documents, source, fallback."""
        import pandas as pd

        rows = [{"entity": e.entity, "name": e.name, "type": e.type, "degree": e.degree, "mentions": e.mentions,
                 "community": e.community, "description": e.text, "relations": _cited(e.sentences, "relations"),
                 "documents": _cited(e.sentences, "documents"), "source": e.source, "fallback": e.fallback}
                for e in self.entities]
        return pd.DataFrame(rows, columns=["entity", "name", "type", "degree", "mentions", "community", "description",
                                           "relations", "documents", "source", "fallback"])

    def community_frame(self) -> pd.DataFrame:
        """One row per community: community, size, relations, label, description, terms, top_names,
        top_entities, cited (relation ids), documents, source, fallback."""
        import pandas as pd

        rows = [{"community": c.community, "size": c.size, "relations": c.relations, "label": c.label,
                 "description": c.description, "terms": list(c.terms), "top_names": list(c.top_names),
                 "top_entities": list(c.top_entities), "cited": _cited(c.sentences, "relations"),
                 "documents": _cited(c.sentences, "documents"), "source": c.source, "fallback": c.fallback}
                for c in self.communities]
        return pd.DataFrame(rows, columns=["community", "size", "relations", "label", "description", "terms",
                                           "top_names", "top_entities", "cited", "documents", "source", "fallback"])

    def to_json_dict(self) -> dict[str, Any]:
        """The stable JSON form (format ``kgkit.narrative/1``)."""
        return {"format": FORMAT, **self.model_dump(mode="json")}

    @classmethod
    def from_json_dict(cls, data: dict[str, Any]) -> Narrative:
        if data.get("format") != FORMAT:
            raise ValueError(f"not a kgkit narrative (format={data.get('format')!r})")
        return cls.model_validate({k: v for k, v in data.items() if k != "format"})

    # ------------------------------------------------------------------ Markdown

    def to_markdown(self, *, title: str = "Narrative", max_communities: int = 20) -> str:
        """The narrative as Markdown: numbered citations [n] after each sentence point into "Sources"."""
        numbers: dict[str, int] = {}
        lines = [f"# {title}", ""]
        how = f"written by {self.model}" if self.model else "extractive, written offline from the graph"
        lines += [f"_{how}; every sentence cites the relations [n] and documents it comes from._", ""]
        for sec in (self.overview, self.chains, self.timeline):
            lines += [f"## {sec.title}", ""]
            lines += _note(sec.source, sec.fallback)
            bullets = sec.kind != "overview"
            if not sec.sentences:
                lines += ["_Nothing to report._", ""]
            body = [_md_sentence(s, numbers, date=sec.kind == "timeline") for s in sec.sentences]
            if body:
                lines += [f"- {b}" for b in body] if bullets else [" ".join(body)]
                lines.append("")
        if self.entities:
            lines += ["## Main entities", ""]
            for e in self.entities:
                lines += [f"### {_md(e.name)} ({_md(e.type)})", ""]
                lines += _note(e.source, e.fallback)
                lines += [" ".join(_md_sentence(s, numbers) for s in e.sentences), ""]
        shown = [c for c in self.communities if c.size > 1][:max_communities]
        if shown:
            lines += ["## Communities", ""]
            for c in shown:
                lines += [f"### {c.community}: {_md(c.label)} ({c.size} entities)", ""]
                lines += _note(c.source, c.fallback)
                if c.terms:
                    lines += [f"Terms: {', '.join(_md(t) for t in c.terms)}", ""]
                lines += [" ".join(_md_sentence(s, numbers) for s in c.sentences), ""]
            rest = len([c for c in self.communities if c.size > 1]) - len(shown)
            if rest > 0:
                lines += [f"_{rest} more communities in the data (`community_frame()`, narrative.json)._", ""]
        if numbers:
            lines += ["## Sources", ""]
            for rid, n in sorted(numbers.items(), key=lambda kv: kv[1]):
                src = self.sources.get(rid)
                if src is None:
                    lines.append(f"{n}. `{rid}`")
                    continue
                docs = f" ({', '.join(_md(d) for d in src.documents[:5])})" if src.documents else ""
                quote = f' — "{_md(src.evidence)}"' if src.evidence else ""
                lines.append(f"{n}. `{rid}` {_md(src.statement)}{docs}{quote}")
            lines.append("")
        return "\n".join(lines)


def _cited(sentences: tuple[Sentence, ...], what: str) -> list[str]:
    return list(dict.fromkeys(x for s in sentences for x in getattr(s, what)))


def _note(source: str, fallback: str | None) -> list[str]:
    if fallback:
        return [f"_Extractive text: the LLM text was not used ({_md(fallback[:200])})._", ""]
    return []


def _md(text: str) -> str:
    """Document text made inert in Markdown (no HTML, links or emphasis from the corpus)."""
    out = text.replace("\\", "\\\\")
    for ch in "`*_[]<>#|":
        out = out.replace(ch, "\\" + ch)
    return " ".join(out.split())


def _md_sentence(s: Sentence, numbers: dict[str, int], *, date: bool = False) -> str:
    refs = [str(numbers.setdefault(r, len(numbers) + 1)) for r in s.relations]
    cite = f" [{', '.join(refs)}]" if refs else ""
    if not refs and s.documents:
        cite = f" ({', '.join(_md(d) for d in s.documents[:5])})"
    prefix = f"**{_md(s.date)}**: " if date and s.date else ""
    return f"{prefix}{_md(s.text)}{cite}"
