"""Community labels and descriptions: extractive offline (top entities, distinctive evidence terms, an evidence
sentence), or written by an LLM, cached per community by the community's content.

`community_inputs(graph, communities)` gives one `CommunityInput` per community: everything its label is made
from (members, inside relations, distinctive terms) and nothing else — not its id, so a community that is only
renumbered keeps its cache entry. `label_communities(items, llm=...)` is the batch stage for `Cache.map`:

    texts = cache.map(label_communities, items)                       # offline; one entry per community
    texts = cache.map(label_communities, items, llm=client, prompt=PROMPT_HASH)   # LLM labels

so editing one community recomputes only its label. Distinctive terms are TF-IDF over the evidence text of each
community's relations (a word frequent in this community's evidence and rare in other communities'), words of
the label's names and stop words left out.

>>> from kgkit.stages.narrate.model import Sentence
>>> item = CommunityInput(size=2, relations_total=1, members=(Member(id="a", name="Ada", type="Person", degree=1),
...     Member(id="b", name="Acme", type="Organization", degree=1)),
...     facts=(CommunityFact(id="r1", statement="Ada works for Acme", type="WORKS_FOR", support=2,
...            evidence="Ada joined Acme as an engineer.", documents=("a.txt",)),), terms=("engineer",))
>>> [t.label for t in label_communities([item])]
['Ada / Acme']
>>> label_communities([item])[0].sentences[0].relations
('r1',)
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from kgkit.core.fingerprint import fingerprint
from kgkit.core.records import Record
from kgkit.core.stage import stage
from kgkit.llm.client import LLMClient, run_sync
from kgkit.stages.narrate.model import CommunityText, Sentence
from kgkit.stages.narrate.prompt import Fact, LabelResponse, SectionInput, cited_sentences, render_messages

if TYPE_CHECKING:
    import pandas as pd

    from kgkit.core.graph import Graph
    from kgkit.stages.communities import Communities

_WORD = re.compile(r"[^\W\d_]{3,}")
STOPWORDS = frozenset("""about above after again against all also and any are because been before being below
between both but can could did does doing down during each every few for from further had has have having her here
hers him his how into its itself just more most must nor not now off once only other our ours out over own same shall
she should some such than that the their theirs them then there these they this those through too under until upon
very was were what when where which while who whom why will with would you your yours may might one two made make
many much new year years let""".split())  # noqa: SIM905 (a word list reads better as text)


class Member(Record):
    id: str
    name: str
    type: str
    degree: int


class CommunityFact(Record):
    id: str
    statement: str
    type: str
    support: int
    evidence: str | None = None
    documents: tuple[str, ...] = ()


class CommunityInput(Record):
    """What one community's label is made from (its content; no id)."""

    size: int
    relations_total: int
    members: tuple[Member, ...]  # the most connected, at most `top`
    facts: tuple[CommunityFact, ...] = ()  # the strongest relations inside, at most `max_facts`
    terms: tuple[str, ...] = ()
    type_counts: tuple[tuple[str, int], ...] = ()  # entity types of all members
    relation_types: tuple[tuple[str, int], ...] = ()  # types of all relations inside
    documents: tuple[str, ...] = ()  # where the top members are mentioned (for communities without relations)


@fingerprint.register(LLMClient)
def _(client: LLMClient) -> str:
    """An LLM client's cache identity: what changes its answers (model and parameters), not its ledger."""
    return fingerprint({"model": client.model, "settings": client.settings.key()})


def _tokens(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.casefold()) if w not in STOPWORDS]


def distinctive_terms(texts: Sequence[str], excluded: Sequence[set[str]], *, k: int = 5) -> list[tuple[str, ...]]:
    """TF-IDF: per text (one per community), the `k` words with the highest count x log(N / texts using it),
    ties by word; words in `excluded[i]` are skipped. With a single text, plain counts.

    >>> distinctive_terms(["war war navy", "farm farm navy"], [set(), set()], k=2)
    [('war',), ('farm',)]
    """
    counts = [Counter(_tokens(t)) for t in texts]
    df = Counter(w for c in counts for w in c)
    n = len(texts)
    out = []
    for c, skip in zip(counts, excluded):
        scored = [(-(tf * (math.log(n / df[w]) if n > 1 else 1.0)), w) for w, tf in c.items() if w not in skip]
        out.append(tuple(w for s, w in sorted(scored) if s < 0)[:k])
    return out


def community_inputs(graph: Graph, communities: Communities, facts: pd.DataFrame, *, top: int = 10,
                     max_facts: int = 12, terms: int = 5) -> list[tuple[str, CommunityInput]]:
    """(community id, its CommunityInput) for every community, in the order of `communities.summary`.
    One pass over entities and relations (plain lists: fast on arrow-backed tables too)."""
    member_of = dict(zip(communities.membership["entity"].tolist(), communities.membership["community"].tolist()))
    ents = graph.entities.sort_values(["degree", "mentions", "id"], ascending=[False, False, True], kind="stable")
    members_of: dict[str, list[Member]] = {}
    types_of: dict[str, Counter[str]] = {}
    for i, n, t, d in zip(ents["id"].tolist(), ents["name"].tolist(), ents["type"].tolist(), ents["degree"].tolist()):
        cid = member_of.get(i)
        if cid is None:
            continue
        types_of.setdefault(cid, Counter())[str(t)] += 1
        group = members_of.setdefault(cid, [])
        if len(group) < top:
            group.append(Member(id=i, name=str(n), type=str(t), degree=int(d)))
    cols = {c: facts[c].tolist() for c in ("id", "source", "target", "type", "statement", "support", "evidence",
                                           "documents", "negated", "weak")}
    inside: dict[str, list[int]] = {}  # facts are strongest first, so each list is too
    for k, (src, dst) in enumerate(zip(cols["source"], cols["target"])):
        cid = member_of.get(src)
        if cid is not None and cid == member_of.get(dst):
            inside.setdefault(cid, []).append(k)
    paths = dict(zip(graph.documents["id"].tolist(), graph.documents["path"].tolist()))
    prov = graph.provenance
    wanted = {m.id for group in members_of.values() for m in group[:3]}
    mentioned: dict[str, set[str]] = {}
    for item, kind, doc in zip(prov["item_id"].tolist(), prov["kind"].tolist(), prov["document_id"].tolist()):
        if kind == "entity" and item in wanted:
            mentioned.setdefault(item, set()).add(paths.get(doc, doc))
    rows: list[tuple[str, CommunityInput]] = []
    texts: list[str] = []
    excluded: list[set[str]] = []
    for cid in communities.summary["community"].tolist():
        members = tuple(members_of.get(cid, ()))
        own = inside.get(cid, [])
        live = [k for k in own if not cols["negated"][k]]
        chosen = ([k for k in live if not cols["weak"][k]] or live)[:max_facts]
        cfacts = tuple(CommunityFact(id=cols["id"][k], statement=cols["statement"][k], type=cols["type"][k],
                                     support=int(cols["support"][k]), evidence=cols["evidence"][k],
                                     documents=tuple(cols["documents"][k])) for k in chosen)
        docs = () if cfacts else tuple(sorted({d for m in members[:3] for d in mentioned.get(m.id, ())})[:3])
        item = CommunityInput(
            size=sum(types_of.get(cid, Counter()).values()), relations_total=len(own), members=members,
            facts=cfacts, type_counts=_ranked(types_of.get(cid, Counter())),
            relation_types=_ranked(Counter(cols["type"][k] for k in own)), documents=docs)
        rows.append((cid, item))
        texts.append(" ".join(cols["evidence"][k] for k in own if cols["evidence"][k]))
        excluded.append({w for m in members[:3] for w in _tokens(m.name)})
    found = distinctive_terms(texts, excluded, k=terms)
    return [(cid, item.model_copy(update={"terms": t})) for (cid, item), t in zip(rows, found)]


def _ranked(counts: Counter[str]) -> tuple[tuple[str, int], ...]:
    return tuple(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def offline_label(item: CommunityInput) -> CommunityText:
    """Extractive label (the top three names) and description (size and types, terms, one evidence quote)."""
    names = [m.name for m in item.members[:3]]
    label = " / ".join(names) or "(empty)"
    types = ", ".join(f"{t} {n}" for t, n in item.type_counts[:4])
    sentences = []
    first = (f"{item.size} entities ({types}) with {item.relations_total} relations among them"
             if item.size > 1 else f"{names[0] if names else 'One entity'} ({types}), on its own")
    if item.facts:
        kinds = item.relation_types or tuple(Counter(f.type for f in item.facts).items())
        common = ", ".join(f"{t} ({n})" for t, n in kinds[:3])
        sentences.append(Sentence(text=f"{first}; relation types {common}.", relations=(item.facts[0].id,),
                                  documents=item.facts[0].documents))
        if item.terms:
            uses = [f for f in item.facts if set(_tokens(f.evidence or "")) & set(item.terms)][:3] or [item.facts[0]]
            sentences.append(Sentence(text="Distinctive terms in its evidence: " + ", ".join(item.terms) + ".",
                                      relations=tuple(f.id for f in uses),
                                      documents=tuple(sorted({d for f in uses for d in f.documents}))))
        quoted = next((f for f in item.facts if f.evidence), None)
        if quoted is not None:
            sentences.append(Sentence(text=f'{quoted.statement}: "{quoted.evidence}"', relations=(quoted.id,),
                                      documents=quoted.documents))
    else:
        sentences.append(Sentence(text=f"{first}.", documents=item.documents))
    return CommunityText(label=label, sentences=tuple(sentences), terms=item.terms)


def _label_input(item: CommunityInput) -> SectionInput:
    members = ", ".join(f"{m.name} ({m.type})" for m in item.members)
    context = [f"Community of {item.size} entities and {item.relations_total} relations.", f"Members: {members}."]
    if item.terms:
        context.append("Distinctive words in its evidence: " + ", ".join(item.terms) + ".")
    facts = [Fact(id=f.id, statement=f.statement, evidence=f.evidence, documents=list(f.documents)) for f in item.facts]
    return SectionInput(task="community", facts=facts, context=context, max_sentences=3)


async def alabel(item: CommunityInput, *, llm: LLMClient, label: str = "") -> CommunityText:
    """An LLM label for one community; the extractive one (with `error` set) when the LLM text is not usable."""
    fallback = offline_label(item)
    if not item.facts:
        return fallback  # nothing to cite: the extractive label is the label
    inp = _label_input(item)
    answer = await llm.ask(render_messages(inp), LabelResponse, stage="narrate_community", label=label,
                           context={"relations": inp.allowed})
    if answer.value is None:
        return fallback.model_copy(update={"error": answer.error or "no answer"})
    by_id = {f.id: f.documents for f in item.facts}
    sentences = cited_sentences(answer.value.sentences, by_id)
    if not sentences:
        return fallback.model_copy(update={"error": "the LLM cited none of the facts it was given"})
    return CommunityText(label=answer.value.label, sentences=tuple(sentences), terms=item.terms, source="llm")


@stage(version="1")
def label_communities(items: list[CommunityInput], *, llm: LLMClient | None = None,
                      prompt: str | None = None) -> list[CommunityText]:
    """One label per community: extractive without `llm`, else LLM-written (concurrently, through the client's
    ledger and request cache). `prompt` (the narrate PROMPT_HASH) only keys the stage cache."""
    if llm is None:
        return [offline_label(item) for item in items]

    async def all_labels() -> list[CommunityText]:
        import asyncio

        return list(await asyncio.gather(*(alabel(item, llm=llm) for item in items)))

    return run_sync(all_labels)


def labels_frame_rows(pairs: Sequence[tuple[str, CommunityInput]], texts: Sequence[CommunityText],
                      summary: pd.DataFrame) -> list[dict[str, Any]]:
    """CommunityLabel fields for each community (id, counts and top entities from `summary`)."""
    info = summary.set_index("community")
    out = []
    for (cid, item), text in zip(pairs, texts):
        row = info.loc[cid]
        out.append({"community": cid, "size": int(row["size"]), "relations": int(row["relations"]),
                    "top_entities": tuple(m.id for m in item.members[:5]),
                    "top_names": tuple(m.name for m in item.members[:5]), "terms": text.terms, "label": text.label,
                    "sentences": text.sentences, "source": text.source, "fallback": text.error})
    return out
