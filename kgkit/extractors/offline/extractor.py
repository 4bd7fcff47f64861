"""The OfflineExtractor: parse with spaCy, find mentions (kgkit.extractors.offline.mentions), relate them
(kgkit.extractors.offline.rules), type the relations through the domain."""

from __future__ import annotations

import importlib.metadata
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from kgkit.core.domain import Domain
from kgkit.core.records import DocumentExtraction, ExtractedEntity, ExtractedRelation, Span, TextExtraction
from kgkit.extractors.offline.confidence import rule_confidence
from kgkit.extractors.offline.context_votes import group_votes, mate_votes, meeting_votes
from kgkit.extractors.offline.gazetteer import Places, gazetteer_version, load_places, use_places_cache
from kgkit.extractors.offline.identity import code_version, settings
from kgkit.extractors.offline.loading import (
    DEFAULT_MODEL,
    WITHOUT_TORCH,
    load_model,
    run_lock,
)
from kgkit.extractors.offline.mentions import Mention, find_mentions, format_votes, sentence_of, text_of
from kgkit.extractors.offline.passes import MentionPass, PassContext, run_passes
from kgkit.extractors.offline.patterns import pattern_relations
from kgkit.extractors.offline.rules import Rel, Rules, antecedents, cooccurrences
from kgkit.stages.extract import ExtractorBase

if TYPE_CHECKING:  # spaCy is imported lazily, on the first extract() call
    from spacy.language import Language
    from spacy.tokens import Doc

__all__ = ["CONFIDENCE", "CONTEXT_PASSES", "DEFAULT_MODEL", "ENTITY_CONFIDENCE", "TYPED_ONLY", "WITHOUT_TORCH", "OfflineExtractor",
           "load_model", "split_text"]

ENTITY_CONFIDENCE = 0.7
# per rule: its measured confidence (kgkit.extractors.offline.confidence; data/rule_confidence.json, written by
# bench/bench_extract.py --write-confidence)
CONFIDENCE = rule_confidence()
# weak rules: kept only when the domain types the predicate
TYPED_ONLY = frozenset({"noun-prep", "co-subject", "co-occurrence", "poss"})
# after find_mentions' passes (kgkit.extractors.offline.mentions.MENTION_PASSES): what the context says
CONTEXT_PASSES: tuple[MentionPass, ...] = (
    MentionPass("group votes", lambda doc, ms, ctx: group_votes(doc, ms, ctx.domain.entity_type_for_label("NORP"))),
    MentionPass("meeting votes", lambda doc, ms, ctx: meeting_votes(doc, ms, ctx.domain.entity_type_for_label("EVENT"))),
    MentionPass("mate votes", lambda doc, ms, ctx: mate_votes(doc, ms)),
)
_CONTAINMENT = re.compile(r"(?:^| )(?:in|at)$")  # predicates a place chain extends: "locate in", "bear in"
_PARAGRAPH = re.compile(r"\S(?:[^\n]|\n(?![ \t\r]*\n))*")  # text between blank lines

def _package_version(name: str) -> str:
    """Installed version of a distribution (as `a_b` or `a-b`), read from metadata without importing it."""
    for candidate in (name, name.replace("_", "-")):
        try:
            return importlib.metadata.version(candidate)
        except importlib.metadata.PackageNotFoundError:
            continue
    return "missing"


def split_text(text: str, limit: int) -> list[tuple[int, str]]:
    """Cut text into (offset, piece) parts: one per paragraph (blank lines separate them, so no sentence spans
    two paragraphs), and a paragraph longer than `limit` at a line, sentence or word break.

    >>> split_text("Title\\n\\none two. three four", 10)
    [(0, 'Title'), (7, 'one two. '), (16, 'three four')]
    """
    parts: list[tuple[int, str]] = []
    for para in _PARAGRAPH.finditer(text):
        start, end = para.start(), para.start() + len(para.group().rstrip())
        while end - start > limit:
            window = text[start : start + limit]
            cut = next((at + len(sep) for sep in ("\n", ". ", " ") if (at := window.rfind(sep)) >= limit // 2), limit)
            parts.append((start, text[start : start + cut]))
            start += cut
        parts.append((start, text[start:end]))
    return parts


class OfflineExtractor(ExtractorBase):
    """spaCy NER + dependency rules; satisfies `kgkit.stages.extract.Extractor`.

    `id` names spaCy's and the model's versions, the hash of this package's source and data files
    (kgkit.extractors.offline.identity), the gazetteer's packages and every constructor setting; it reads no
    module but package metadata and files, so reading it never imports spaCy. The model and the gazetteer load
    on the first `extract` call, once per process. Texts are parsed per paragraph, a paragraph longer than
    `max_chars` in pieces.
    """

    def __init__(
        self, model: str = DEFAULT_MODEL, *, batch_size: int = 64, max_chars: int = 100_000,
        cooccurrence: bool = True,
    ) -> None:
        if batch_size < 1 or max_chars < 100:
            raise ValueError("batch_size must be >= 1 and max_chars >= 100")
        self.model, self.batch_size, self.max_chars = model, batch_size, max_chars
        self.cooccurrence = cooccurrence
        self.id = (
            f"offline:spacy-{_package_version('spacy')}/{model}-{_package_version(model)}"
            f":code-{code_version()}:{gazetteer_version()}:{settings(self, skip=('model',))}"
        )

    def use_cache(self, cache: Any) -> None:
        """Keep the gazetteer in the run's `cache` (kgkit.extractors.offline.gazetteer.use_places_cache): the
        workflows that extract hand their cache to any extractor with this method."""
        use_places_cache(cache)

    def refine_documents(self, extractions: Sequence[DocumentExtraction], *, domain: Domain,
                         texts: Mapping[str, str]) -> list[DocumentExtraction]:
        """The document hook: one type per name, aliases, capitalised words dropped (kgkit.extractors.offline.coref),
        what no per-chunk extraction can do."""
        from kgkit.extractors.offline.coref import coref_documents

        return coref_documents(extractions, domain=domain, texts=texts)

    def __repr__(self) -> str:
        return f"OfflineExtractor({self.id!r})"

    def _nlp(self) -> Language:
        nlp = load_model(self.model)
        nlp.max_length = max(nlp.max_length, self.max_chars + 1)
        return nlp

    def _parse(self, pieces: list[str]) -> list[Doc | Exception]:
        """Parse in batches; if a batch fails, parse its pieces one by one so that only the bad ones fail."""
        nlp = self._nlp()
        with run_lock(self.model):
            try:
                return list(nlp.pipe(pieces, batch_size=self.batch_size))
            except Exception:
                out: list[Doc | Exception] = []
                for piece in pieces:
                    try:
                        out.append(nlp(piece))
                    except Exception as exc:
                        out.append(exc)
                return out

    def extract(self, texts: Sequence[str], *, domain: Domain) -> list[TextExtraction]:
        """One TextExtraction per text, in order; a text spaCy or the rules cannot handle gets `error` set."""
        return self.extract_counting(texts, domain=domain)[0]

    def extract_counting(self, texts: Sequence[str], *, domain: Domain, dropped: list[tuple[int, int, int, str, str]] | None = None
                         ) -> tuple[list[TextExtraction], dict[str, dict[str, int]]]:
        """`extract`, and what each span and mention pass changed over all texts (pass -> "added", "removed",
        "removed: <reason>", "joined", "split", "resized", "renamed", "retyped" -> count), passes in pipeline order.
        `dropped`, when given, receives every record a pass dropped: (text index, start, end, pass, reason), its
        character offsets in its text."""
        counts: dict[str, dict[str, int]] = {}
        texts = list(texts)
        errors: dict[int, str] = {}
        jobs: list[tuple[int, int, str]] = []  # (text index, offset of the piece, piece)
        for i, text in enumerate(texts):
            if not isinstance(text, str):
                errors[i] = f"TypeError: expected str, got {type(text).__name__}"
            else:
                jobs.extend((i, offset, piece) for offset, piece in split_text(text, self.max_chars))
        docs = self._parse([piece for _, _, piece in jobs]) if jobs else []
        places = load_places() if jobs else None
        entities: list[list[ExtractedEntity]] = [[] for _ in texts]
        relations: list[list[ExtractedRelation]] = [[] for _ in texts]
        for (i, offset, _), doc in zip(jobs, docs):
            if i in errors:
                continue
            try:
                if isinstance(doc, Exception):
                    raise doc
                ents, rels = self._extract_doc(doc, domain, offset, places, counts, None if dropped is None else
                                               lambda start, end, step, why, i=i: dropped.append((i, start, end, step, why)))
            except Exception as exc:  # one bad text must not end the batch
                errors[i] = f"{type(exc).__name__}: {exc}"
                continue
            entities[i].extend(ents)
            relations[i].extend(rels)
        return [
            TextExtraction(extractor_id=self.id, quality="offline", error=errors[i])
            if i in errors
            else TextExtraction(
                extractor_id=self.id,
                quality="offline",
                entities=tuple(sorted(entities[i], key=_entity_order)),
                relations=tuple(sorted(relations[i], key=_relation_order)),
            )
            for i in range(len(texts))
        ], counts

    def _extract_doc(self, doc: Doc, domain: Domain, offset: int, places: Places | None,
                     counts: dict[str, dict[str, int]] | None = None, on_dropped: Any = None,
                     ) -> tuple[list[ExtractedEntity], list[ExtractedRelation]]:
        """Entities and relations of one parsed piece, with spans shifted by the piece's offset in its text."""
        places = places or Places()
        context = PassContext(domain=domain, places=places, counts=counts if counts is not None else {})
        mentions = run_passes(doc, find_mentions(doc, domain, places, context), CONTEXT_PASSES, context)
        if on_dropped is not None:
            for step, record, why in context.dropped:
                if not isinstance(record, Mention) and record.end <= record.start:
                    continue
                start, end = ((record.start, record.end) if isinstance(record, Mention)
                              else (doc[record.start].idx, doc[record.end - 1].idx + len(doc[record.end - 1])))
                on_dropped(start + offset, end + offset, step, why)
        by_token: dict[int, Mention] = {}
        entities: list[ExtractedEntity] = []
        for m in mentions:
            by_token.update((i, m) for i in range(m.first, m.last))
            attributes = {"votes": format_votes(m.votes)}
            if m.title:
                attributes["title"] = m.title
            surface = " ".join(text_of(doc)[m.start : m.end].split())
            if surface != m.name:
                attributes["surface"] = surface
            entities.append(ExtractedEntity(name=m.name, type=m.type, label=m.label,
                                            span=Span(start=m.start + offset, end=m.end + offset),
                                            confidence=ENTITY_CONFIDENCE, attributes=attributes))
        if len(mentions) < 2:
            return entities, []
        person = domain.entity_type_for_label("PERSON") or "Person"
        resolved = {**antecedents(doc, by_token, person), **by_token}
        rules = Rules(doc, resolved, places, domain.entity_type_for_label("GPE") or "Location")
        candidates = [r for r in (*pattern_relations(rules), *rules.nationalities()) if not r.hypothetical]
        candidates += [r for r in rules.modifiers(mentions) if not r.hypothetical]
        candidates += list(rules.kind_of(mentions))
        chains = rules.chains(mentions)
        candidates += list(rules.chain_relations(chains))
        candidates += list(rules.gazetteer_pairs(mentions, candidates))
        candidates += list(rules.piece_country(mentions, candidates))
        if self.cooccurrence:
            candidates += cooccurrences(doc, by_token, candidates)
        found: dict[tuple[Any, ...], ExtractedRelation] = {}
        for rel in candidates:
            for record in self._records(rel, doc, domain, offset, chains):
                key = (record.evidence_span.start if record.evidence_span else -1, record.source, record.source_type,
                       record.target, record.target_type, record.type, record.predicate, record.negated)
                if key not in found or found[key].confidence < record.confidence:
                    found[key] = record  # one relation per sentence, from the most confident rule
        return entities, list(found.values()) + _transitive(list(found.values()), domain)

    def _records(self, rel: Rel, doc: Doc, domain: Domain, offset: int, chains: list[list[Mention]]) -> list[ExtractedRelation]:
        """The relation typed through the domain (none when it is a self-loop or a weak rule the domain leaves
        untyped), and its extensions along a place chain that starts at its target."""
        if (rel.source.name, rel.source.type) == (rel.target.name, rel.target.type):
            return []
        predicate, rtype = _choose(rel.predicates, domain, rel.source.type, rel.target.type)
        if rel.rule in TYPED_ONLY and rtype == domain.fallback_relation_type:
            return []
        first, last = sentence_of(doc, rel.anchor)
        text = text_of(doc)
        start, end = _trimmed(text, doc[first].idx, doc[last - 1].idx + len(doc[last - 1].text))

        def record(target: Mention, rule: str) -> ExtractedRelation:
            attributes = {"rule": rule}
            if not domain.allows(rtype, rel.source.type, target.type):
                attributes["signature"] = "violation"
            return ExtractedRelation(
                source=rel.source.name, source_type=rel.source.type, target=target.name, target_type=target.type,
                type=rtype, predicate=predicate, evidence=text[start:end],
                evidence_span=Span(start=start + offset, end=end + offset), negated=rel.negated,
                confidence=CONFIDENCE[rule], attributes=attributes,
            )  # fmt: skip

        out = [record(rel.target, rel.rule)]
        if rel.rule != "chain" and _CONTAINMENT.search(predicate) and rtype != domain.fallback_relation_type:
            for chain in chains:
                if chain[0] == rel.target:
                    out += [record(m, "chain-transitive") for m in chain[1:] if m.name != rel.source.name]
        return out


def _transitive(relations: list[ExtractedRelation], domain: Domain) -> list[ExtractedRelation]:
    """One step of containment across sentences: A located in B and B located in C -> A located in C (rule
    "transitive", the evidence of A in B), unless the piece already relates A and C. Names, not (name, type),
    join the steps: the types are settled per document later (kgkit.extractors.offline.coref)."""
    contained = domain.relation_type_for_predicate("locate in")
    if contained == domain.fallback_relation_type:
        return []
    edges = [r for r in relations if r.type == contained and not r.negated]
    related = {frozenset((r.source, r.target)) for r in relations}
    onward: dict[str, list[ExtractedRelation]] = {}
    for r in edges:
        onward.setdefault(r.source, []).append(r)
    out: list[ExtractedRelation] = []
    for first in edges:
        for second in onward.get(first.target, ()):
            pair = frozenset((first.source, second.target))
            if len(pair) < 2 or pair in related:
                continue
            related.add(pair)
            attributes = {"rule": "transitive"}
            if not domain.allows(contained, first.source_type, second.target_type):
                attributes["signature"] = "violation"
            out.append(first.model_copy(update={"target": second.target, "target_type": second.target_type,
                                                "confidence": CONFIDENCE["transitive"], "attributes": attributes}))
    return out


def _entity_order(e: ExtractedEntity) -> tuple[Any, ...]:
    return (e.span.start if e.span else -1, e.span.end if e.span else -1, e.name, e.type)


def _relation_order(r: ExtractedRelation) -> tuple[Any, ...]:
    start = r.evidence_span.start if r.evidence_span else -1
    return (start, r.source, r.source_type, r.target, r.target_type, r.type, r.predicate or "", r.negated)


def _choose(predicates: tuple[str, ...], domain: Domain, source_type: str, target_type: str) -> tuple[str, str]:
    """The first predicate the domain maps to a type whose signature admits the two ends; else the first it maps
    to any specific type (kept, flagged as a signature violation); else the most specific, with the fallback."""
    typed = [(p, t) for p in predicates if (t := domain.relation_type_for_predicate(p)) != domain.fallback_relation_type]
    for predicate, rtype in typed:
        if domain.allows(rtype, source_type, target_type):
            return predicate, rtype
    return typed[0] if typed else (predicates[0], domain.fallback_relation_type)


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink [start, end) so it neither starts nor ends with whitespace."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
