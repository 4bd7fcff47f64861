"""`narrate(graph, ...)`: the stage that writes a Narrative — extractive offline, LLM-written with a model.

With `llm=None` every sentence is templated from relations and their evidence (deterministic). With an
`LLMClient`, each part (overview, chains, timeline, one request per described entity, one per labelled
community) is one request through the client — so through its one budget ledger and its per-request cache —
given only the facts of that part, and every sentence must cite the ids of those facts. A part whose request
is refused by the budget, fails, or returns unusable citations keeps its extractive text, marked with
`fallback` (the reason). Citations are checked twice: the response model rejects ids it was not given (instructor
re-asks), and the answer is filtered again before use, so a narrative never cites a relation the graph lacks.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from kgkit.core.graph import Graph
from kgkit.core.stage import stage
from kgkit.llm.client import LLMClient, run_sync
from kgkit.stages.narrate import facts as F
from kgkit.stages.narrate.labels import community_inputs, label_communities, labels_frame_rows
from kgkit.stages.narrate.model import CommunityLabel, EntityDescription, Narrative, Section, Sentence, SourceRelation
from kgkit.stages.narrate.prompt import (
    PROMPT_HASH,
    Fact,
    SectionInput,
    SectionResponse,
    cited_sentences,
    render_messages,
)

if TYPE_CHECKING:
    import pandas as pd

    from kgkit.core.protocols import StageCache
    from kgkit.stages.communities import Communities

TITLES = {"overview": "Overview", "chains": "Main relationship chains", "timeline": "Timeline"}


def _facts_for(facts: pd.DataFrame, rows: Sequence[int], *, dates: Mapping[int, str] | None = None) -> list[Fact]:
    return [Fact(id=facts.at[i, "id"], statement=facts.at[i, "statement"], evidence=facts.at[i, "evidence"],
                 documents=list(facts.at[i, "documents"]), date=(dates or {}).get(i)) for i in rows]


async def _llm_part(llm: LLMClient, inp: SectionInput, *, stage_name: str, label: str,
                    documents: Mapping[str, Sequence[str]]) -> tuple[list[Sentence] | None, str | None]:
    """(sentences, None) or (None, why the LLM text cannot be used)."""
    if not inp.facts:
        return None, None  # nothing to cite: extractive text, not a failure
    answer = await llm.ask(render_messages(inp), SectionResponse, stage=stage_name, label=label,
                           context={"relations": inp.allowed})
    if answer.value is None:
        return None, answer.error or "no answer"
    dates = {f.id: f.date for f in inp.facts if f.date}
    sentences = cited_sentences(answer.value.sentences, documents, dates)
    return (sentences, None) if sentences else (None, "the LLM cited none of the facts it was given")


def _section(kind: str, extractive: list[Sentence], llm_result: tuple[list[Sentence] | None, str | None] | None) -> Section:
    if llm_result is None or llm_result[0] is None:
        return Section(kind=kind, title=TITLES[kind], sentences=tuple(extractive),
                       fallback=None if llm_result is None else llm_result[1])
    return Section(kind=kind, title=TITLES[kind], sentences=tuple(llm_result[0]), source="llm")


@stage(version="1")
def narrate(
    graph: Graph, *, communities: Communities | None = None, llm: LLMClient | None = None, cache: StageCache | None = None,
    top_entities: int = 10, chains: int = 5, chain_length: int = 3, timeline: int = 12, llm_communities: int = 10,
    weak_types: tuple[str, ...] = F.WEAK_TYPES, seed: int = 0,
) -> Narrative:
    """An overview, the main relationship chains, a timeline of dated facts, descriptions of the `top_entities`
    most connected entities and a label for every community (LLM-written for the `llm_communities` largest with
    relations inside, when `llm` is given).

    `communities`: those of `kgkit.stages.communities` (default: the graph's own, or Louvain with `seed`). `cache`: when
    given, community labels go through `cache.map`, one entry per community's content. LLM requests are made
    in a fixed order — overview, chains, timeline, entities, communities — so under a tight cap the first
    parts get the budget.

    >>> from kgkit.testing.builders import ada_works_for_acme
    >>> n = narrate(ada_works_for_acme(evidence="Ada joined Acme in 1990."))
    >>> [s.text for s in n.chains.sentences], n.timeline.sentences[0].date, n.cited_relations()
    (['Ada works for Acme (support 1).'], '1990', ['r1'])
    >>> n.communities[0].label
    'Ada / Acme'
    """
    from kgkit.stages.communities import communities_of

    facts = F.relation_facts(graph, weak_types=weak_types)
    comms = communities if communities is not None else communities_of(graph, seed=seed)
    top = F.top_entities(graph, k=top_entities)
    member_of = dict(zip(comms.membership["entity"], comms.membership["community"]))
    ent_docs = _entity_documents(graph, list(top["id"]))
    documents = dict(zip(facts["id"], facts["documents"]))

    index = F.touching(facts)
    chain_rows = F.strongest_chains(facts, k=chains, length=chain_length)
    dated = F.dated_facts(facts, limit=timeline)
    drafts = {
        "overview": F.overview_sentences(graph, facts, comms.summary, entities=top, index=index),
        "chains": F.chain_sentences(facts, chain_rows),
        "timeline": F.timeline_sentences(facts, dated=dated),
    }
    entity_drafts = {e["id"]: F.entity_sentences(e, facts, ent_docs.get(e["id"], ()), index) for e in top.to_dict("records")}
    results: dict[str, Any] = {}
    if llm is not None:
        inputs = _llm_inputs(graph, facts, comms.summary, top, chain_rows, dated, index)
        results = run_sync(lambda: _ask_all(llm, inputs, documents))

    pairs = community_inputs(graph, comms, facts)
    texts = _labels(pairs, llm=llm, cache=cache, llm_communities=llm_communities)
    labels = tuple(CommunityLabel(**row) for row in labels_frame_rows(pairs, texts, comms.summary))

    descriptions = []
    for e in top.to_dict("records"):
        got = results.get(("entity", e["id"]))
        ok = got is not None and got[0] is not None
        descriptions.append(EntityDescription(
            entity=e["id"], name=str(e["name"]), type=str(e["type"]), degree=int(e["degree"]),
            mentions=int(e["mentions"]), community=member_of.get(e["id"]),
            sentences=tuple(got[0] if ok else entity_drafts[e["id"]]), source="llm" if ok else "extractive",
            fallback=None if ok or got is None else got[1]))
    narrative = Narrative(
        overview=_section("overview", drafts["overview"], results.get("overview")),
        chains=_section("chains", drafts["chains"], results.get("chains")),
        timeline=_section("timeline", drafts["timeline"], results.get("timeline")),
        entities=tuple(descriptions), communities=labels, model=None if llm is None else llm.model,
        params={"top_entities": top_entities, "chains": chains, "chain_length": chain_length, "timeline": timeline,
                "llm_communities": llm_communities if llm is not None else 0, "weak_types": list(weak_types),
                "seed": seed, "prompt": PROMPT_HASH if llm is not None else None,
                "communities": dict(comms.params)})
    return narrative.model_copy(update={"sources": _sources(facts, narrative.cited_relations())})


def _entity_documents(graph: Graph, ids: list[str], k: int = 3) -> dict[str, tuple[str, ...]]:
    """Entity id -> up to `k` paths of documents mentioning it (sorted)."""
    prov = graph.provenance
    prov = prov[(prov["kind"] == "entity") & prov["item_id"].isin(ids)][["item_id", "document_id"]]
    paths = dict(zip(graph.documents["id"], graph.documents["path"]))
    out: dict[str, set[str]] = {}
    for item, doc in zip(prov["item_id"], prov["document_id"]):
        out.setdefault(item, set()).add(paths.get(doc, doc))
    return {k_: tuple(sorted(v)[:k]) for k_, v in out.items()}


def _llm_inputs(graph: Graph, facts: pd.DataFrame, summary: pd.DataFrame, top: pd.DataFrame,
                chain_rows: list[list[int]], dated: pd.DataFrame,
                index: dict[str, list[int]]) -> dict[Any, SectionInput]:
    """One SectionInput per LLM request, in the order they are asked."""
    strong = list(F.strong_facts(facts).index[:20])
    types = facts["type"].value_counts()
    context = [f"{len(graph.documents)} documents, {len(graph.entities)} entities, {len(facts)} relations.",
               "Relation types: " + ", ".join(f"{t} ({n})" for t, n in sorted(types.items(),
                                                                               key=lambda kv: (-kv[1], kv[0]))[:8]) + ".",
               "Most connected: " + ", ".join(f"{n} ({t})" for n, t in zip(top["name"][:8], top["type"][:8])) + "."]
    big = summary[summary["size"] > 1].head(5)
    if len(big):
        context.append("Largest communities: " + "; ".join(f"{lbl} ({s} entities)" for lbl, s in
                                                          zip(big["label"], big["size"])) + ".")
    inputs: dict[Any, SectionInput] = {
        "overview": SectionInput(task="overview", facts=_facts_for(facts, strong), context=context)}
    flat = [i for chain in chain_rows for i in chain]
    lines = [f"Chain {k + 1}: " + " -> ".join(facts.at[i, "id"] for i in chain) for k, chain in enumerate(chain_rows)]
    inputs["chains"] = SectionInput(task="chains", facts=_facts_for(facts, flat), context=lines,
                                    max_sentences=max(1, len(chain_rows)))
    inputs["timeline"] = SectionInput(task="timeline", facts=_facts_for(facts, list(dated.index),
                                                                          dates=dict(zip(dated.index, dated["date"]))),
                                      max_sentences=max(1, len(dated)))
    for e in top.to_dict("records"):
        rows = F.entity_rows(facts, e["id"], index=index)
        inputs[("entity", e["id"])] = SectionInput(
            task="entity", facts=_facts_for(facts, rows), subject=f"{e['name']} ({e['type']})", max_sentences=3,
            context=[f"{e['name']} is mentioned {int(e['mentions'])} times in {int(e['documents'])} documents and "
                     f"has {int(e['degree'])} relations."])
    return inputs


async def _ask_all(llm: LLMClient, inputs: dict[Any, SectionInput],
                   documents: Mapping[str, Sequence[str]]) -> dict[Any, tuple[list[Sentence] | None, str | None]]:
    """Overview, chains and timeline one after the other (first served under a tight cap), then the entities
    concurrently (the client bounds requests in flight)."""
    out: dict[Any, tuple[list[Sentence] | None, str | None]] = {}
    for kind in ("overview", "chains", "timeline"):
        out[kind] = await _llm_part(llm, inputs[kind], stage_name=f"narrate_{kind}", label=kind, documents=documents)
    told = out["timeline"][0]
    if told is not None:  # a timeline reads in date order, whatever order the model wrote it in
        out["timeline"] = (sorted(told, key=lambda s: s.date or ""), None)
    keys = [k for k in inputs if isinstance(k, tuple)]
    found = await asyncio.gather(*(_llm_part(llm, inputs[k], stage_name="narrate_entity", label=k[1],
                                             documents=documents) for k in keys))
    out.update(zip(keys, found))
    return out


def _labels(pairs: list[tuple[str, Any]], *, llm: LLMClient | None, cache: StageCache | None,
            llm_communities: int) -> list[Any]:
    """Community texts: LLM for the first `llm_communities` with relations inside, extractive for the rest;
    through `cache.map` (one entry per community's content) when a cache is given."""
    items = [item for _, item in pairs]
    chosen = [i for i, item in enumerate(items) if item.facts][:llm_communities] if llm is not None else []
    rest = [i for i in range(len(items)) if i not in set(chosen)]
    out: list[Any] = [None] * len(items)
    for idxs, kwargs in ((chosen, {"llm": llm, "prompt": PROMPT_HASH}), (rest, {})):
        if not idxs:
            continue
        batch = [items[i] for i in idxs]
        done = cache.map(label_communities, batch, batch_size=64, **kwargs) if cache is not None \
            else label_communities(batch, **kwargs)
        for i, text in zip(idxs, done):
            out[i] = text
    return out


def _sources(facts: pd.DataFrame, ids: Sequence[str]) -> dict[str, SourceRelation]:
    known = set(facts["id"].tolist())
    rows = facts.set_index("id").loc[[i for i in ids if i in known]]
    return {rid: SourceRelation(id=rid, statement=r["statement"], type=r["type"], support=int(r["support"]),
                                evidence=r["evidence"], documents=tuple(r["documents"]))
            for rid, r in zip(rows.index, rows.to_dict("records"))}
