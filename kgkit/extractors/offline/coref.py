"""Name coreference for offline extractions: one type per name, a short name standing for the full one, names
that are only capitalised words dropped. Document- and corpus-level steps the per-chunk extractor cannot take
(it is cached per chunk text), applied after it and before the build.
More in docs/extraction.md, "Module notes": kgkit.extractors.offline.coref.

>>> from kgkit.core.domain import parse_domain
>>> from kgkit.core.records import *
>>> dom = parse_domain("name: d\\nentity_types: {Person: a, Organization: b, Location: c, Other: d}")
>>> te = TextExtraction(extractor_id="x", entities=(
...     ExtractedEntity(name="Franklin D. Roosevelt", type="Person", span=Span(start=0, end=21)),
...     ExtractedEntity(name="Roosevelt", type="Organization", span=Span(start=27, end=36)),
...     ExtractedEntity(name="Roosevelt", type="Person", span=Span(start=43, end=52))))
>>> doc = DocumentExtraction(document_id="d", path="a.txt", chunks=(ChunkExtraction(chunk_id="c", document_id="d", extraction=te),))
>>> [out] = coref_documents([doc], domain=dom)
>>> [(e.name, e.type, e.attributes.get("surface")) for e in out.chunks[0].extraction.entities]
[('Franklin D. Roosevelt', 'Person', None), ('Franklin D. Roosevelt', 'Person', 'Roosevelt'), ('Franklin D. Roosevelt', 'Person', 'Roosevelt')]
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from kgkit.core.domain import Domain
from kgkit.core.given_names import GIVEN_NAMES
from kgkit.core.records import ChunkExtraction, DocumentExtraction, ExtractedEntity, ExtractedRelation
from kgkit.core.stage import stage
from kgkit.extractors.offline.lexicon import NAME_PARTICLES
from kgkit.extractors.offline.wordlists import words

__all__ = ["WordStats", "coref_documents", "parse_votes"]

CORPUS_WEIGHT = 0.5  # the other documents' votes count half
PLACE_EVIDENCE = 1.5  # a place vote above this (a label and a cue) keeps a name from standing for a person
REPEAT_WEIGHT = 0.3
STRONG_CUE = 2.0  # a vote this strong (a head word, a classifying noun) is not outweighed by a name part's
LOWER_RATIO = 3  # a one-word name written in lower case this many times as often as capitalised is a common word
UNTYPED_LABEL = "NAME"  # the offline extractor's label for a proper-noun run its NER left out  # within a document, every mention's vote but the strongest counts this share
_PARTICLES = NAME_PARTICLES | words("coref", "particles")
_FUNCTION = words("coref", "function")
_WORD = re.compile(r"[^\W\d_][\w'’.-]*")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;\"“”(\[]|\n\s*\n|\n)\s*$")


def parse_votes(text: str | None) -> dict[str, float]:
    """"Location:2.5,Person:1" -> {"Location": 2.5, "Person": 1.0} ({} for None or a malformed value)."""
    out: dict[str, float] = {}
    for item in (text or "").split(","):
        name, _, weight = item.rpartition(":")
        try:
            out[name] = out.get(name, 0.0) + float(weight)
        except ValueError:
            continue
    return {k: v for k, v in out.items() if k}


def _key(name: str) -> str:
    return " ".join(name.casefold().split())


@dataclass
class _Doc:
    """The offline mentions of one document: (chunk index, entity index, entity) and the name votes."""

    mentions: list[tuple[int, int, ExtractedEntity]] = field(default_factory=list)
    votes: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))


def _offline(chunk: ChunkExtraction) -> bool:
    return chunk.extraction.error is None and chunk.extraction.quality == "offline"


def _mention_votes(e: ExtractedEntity) -> dict[str, float]:
    return parse_votes(e.attributes.get("votes")) or {e.type: 1.0}


@stage(version="3")
def coref_documents(extractions: Sequence[DocumentExtraction], *, domain: Domain,
                    texts: Mapping[str, str] | None = None, words: WordStats | None = None) -> list[DocumentExtraction]:
    """The documents' offline extractions with one type per name (document vote plus half the corpus vote),
    short names and acronyms resolved to the full name, and sentence-start-only capitalised words dropped
    (`texts`: document id -> text, for the corpus's word counts; without it that step is skipped; `words`:
    `WordStats(texts)` when the caller counted them already, e.g. while extraction workers parsed)."""
    docs = []
    corpus: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))  # name -> type -> doc votes
    for d in extractions:
        info = _Doc()
        weights: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        for ci, chunk in enumerate(d.chunks):
            if not _offline(chunk):
                continue
            for ei, e in enumerate(chunk.extraction.entities):
                info.mentions.append((ci, ei, e))
                for t, w in _mention_votes(e).items():
                    weights[_key(e.name)][t].append(w)
        for name, by_type in weights.items():
            info.votes[name] = Counter({t: _repeated(ws) for t, ws in by_type.items()})
        for name, votes in info.votes.items():
            for t, w in votes.items():
                corpus[name][t].append(w)
        docs.append(info)
    if words is None and texts:
        words = WordStats(texts)
    return [_refine(d, info, corpus, domain, words, texts.get(d.document_id) if texts else None)
            for d, info in zip(extractions, docs)]


def _repeated(weights: list[float]) -> float:
    """A type's vote in a document: its strongest mention's vote, plus REPEAT_WEIGHT of the others' (a label
    repeated on every mention says less than one mention with a classifying noun: "Leonessa is a town ...").

    >>> _repeated([1.0, 1.0, 1.0, 2.5])
    3.4
    """
    ordered = sorted(weights, reverse=True)
    return round(ordered[0] + REPEAT_WEIGHT * sum(ordered[1:]), 2)


def _type_for(name: str, info: _Doc, corpus: dict[str, dict[str, list[float]]], fallback: str,
              lent: Counter | None = None) -> tuple[str, str]:
    own = info.votes.get(name, Counter())
    score = Counter({t: w for t, w in own.items()})
    others = _elsewhere(own, corpus.get(name, {}))
    for t, w in others.items():
        score[t] += CORPUS_WEIGHT * w
    score.update(lent or Counter())
    if not score:
        return fallback, ""
    best = min(score, key=lambda t: (-score[t], t))
    evidence = "doc " + " ".join(f"{t}:{w:g}" for t, w in own.most_common())
    if others:
        evidence += " | corpus " + " ".join(f"{t}:{w:g}" for t, w in others.most_common())
    if lent:
        evidence += " | name parts " + " ".join(f"{t}:{w:g}" for t, w in lent.most_common())
    return best, evidence


def _elsewhere(own: Counter, corpus: Mapping[str, list[float]]) -> Counter:
    """The other documents' vote per type: the sum of their votes (weighing only the strongest document's, as
    within a document, was measured and did not help: Re-DocRED dev 0.815 either way).

    >>> _elsewhere(Counter({"Event": 1.0}), {"Event": [1.0, 2.0], "Location": [1.0, 1.0, 1.0]})
    Counter({'Location': 3.0, 'Event': 2.0})
    """
    out = Counter()
    for t, votes in corpus.items():
        rest = list(votes)
        if own.get(t) in rest:
            rest.remove(own[t])
        if rest:
            out[t] = round(sum(rest), 2)
    return out


def _part_votes(first_name: dict[str, str], types: dict[str, tuple[str, str]], info: _Doc,
                person: str, runs: set[str]) -> dict[str, Counter]:
    """The Person votes a full name borrows from its surname or first name seen alone as a person in the same
    document ("Naess" typed Person lends to "Leona Naess", which spaCy called an organisation once). Only names of
    two to four words without a function word ("Gulf of Mexico") nor a head word or classifying noun, not an
    untyped run (`runs`: "Master Scrooge" stands for Ebenezer Scrooge instead), and a part typed Person on its own.

    >>> info = _Doc(votes={"leona naess": Counter({"Organization": 1.0}), "naess": Counter({"Person": 1.3})})
    >>> types = {"leona naess": ("Organization", ""), "naess": ("Person", "")}
    >>> _part_votes({"leona naess": "Leona Naess", "naess": "Naess"}, types, info, "Person", set())
    {'leona naess': Counter({'Person': 1.3})}
    """
    out: dict[str, Counter] = {}
    for key, name in first_name.items():
        tokens = _tokens(name)
        if (not 2 <= len(tokens) <= 4 or any(w.lower() in _FUNCTION for w in tokens) or types[key][0] == person
                or key in runs):
            continue
        own = info.votes.get(key, Counter())
        if max([w for t, w in own.items() if t != person] + [0.0]) >= STRONG_CUE:
            continue  # a head word or a classifying noun ("Yorkshire Post", "San Antonio Spurs")
        core = [w for w in tokens if w.lower() not in _PARTICLES]
        parts = {_key(w) for w in core[-1:] + [w for w in core[:1] if w in GIVEN_NAMES] if len(w) > 1}
        weight = sum(info.votes[p].get(person, 0.0) for p in parts if p != key and p in types and types[p][0] == person)
        if weight:
            out[key] = Counter({person: weight})
    return out


def _typed(domain: Domain, label: str, default: str) -> str:
    """The domain's type for a spaCy label, else the type of that name if the domain has it (else "")."""
    etype = domain.entity_type_for_label(label)
    if etype is not None and etype != domain.fallback_entity_type:
        return etype
    return default if default in domain.entity_types else ""


def _tokens(name: str) -> list[str]:
    return [w for w in name.replace(",", " ").split() if w]


def _is_alias(short: list[str], full: list[str]) -> bool:
    """"Roosevelt" / "Franklin" / "Franklin Roosevelt" / "D. Roosevelt" for "Franklin D. Roosevelt"."""
    if len(short) >= len(full) or not short:
        return False
    if len(short) == 1:
        word = short[0]
        core = [w for w in full if w.lower() not in _PARTICLES]
        return bool(core) and len(word) > 1 and (word == core[-1] or (word == core[0] and len(core) > 1))
    return (short[0] == full[0] and short[-1] == full[-1]) or short == full[-len(short):]


def _initials(name: str) -> str:
    return "".join(w[0] for w in _tokens(name) if w[0].isupper() and w.lower() not in _FUNCTION)


class WordStats:
    """Per word (as written): how often the corpus writes it in lower case, and capitalised inside a sentence.

    >>> WordStats({"d": "Hitherto we went. We went hitherto."}).only_opens_sentences("Hitherto")
    True
    """

    def __init__(self, texts: Mapping[str, str]) -> None:
        self.lower: Counter = Counter()
        self.inner: Counter = Counter()
        for text in texts.values():
            for m in _WORD.finditer(text):
                word = m.group().rstrip(".'’")
                if word.islower():
                    self.lower[word] += 1
                elif word[:1].isupper() and not _SENTENCE_START.search(text[max(0, m.start() - 4) : m.start()]):
                    self.inner[word.lower()] += 1

    def only_opens_sentences(self, word: str) -> bool:
        low = word.lower()
        return self.lower[low] > 0 and self.inner[low] == 0

    def mostly_lower(self, word: str) -> bool:
        """Written in lower case at least LOWER_RATIO times as often as capitalised inside a sentence (and at
        least three times): a common word ("Constitutional", "Reconstruction"), not a name."""
        low = word.lower()
        return self.lower[low] >= max(3, LOWER_RATIO * self.inner[low])


def _refine(d: DocumentExtraction, info: _Doc, corpus: dict[str, dict[str, list[float]]], domain: Domain,
            words: WordStats | None, text: str | None) -> DocumentExtraction:
    if not info.mentions:
        return d
    fallback = domain.fallback_entity_type
    person, place, org = (_typed(domain, label, default) for label, default in
                          (("PERSON", "Person"), ("GPE", "Location"), ("ORG", "Organization")))
    types = {name: _type_for(name, info, corpus, fallback) for name in info.votes}
    # mentions in text order (document offsets), with the name each one stands for
    chunk_start = {ci: c.chunk_start for ci, c in enumerate(d.chunks)}
    ordered = sorted(info.mentions, key=lambda m: (chunk_start[m[0]] + (m[2].span.start if m[2].span else 0), m[0], m[1]))
    persons_seen: list[str] = []  # full person names, in order of first mention
    orgs_seen: list[str] = []
    first_name: dict[str, str] = {}  # key -> a name as written
    for _, _, e in ordered:
        first_name.setdefault(_key(e.name), e.name)
    runs = {k for k in first_name} - {_key(e.name) for _, _, e in ordered if e.label != UNTYPED_LABEL}
    for key, lent in _part_votes(first_name, types, info, person, runs).items():
        types[key] = _type_for(key, info, corpus, fallback, lent)
    full_persons = [n for k, n in first_name.items() if types[k][0] == person and len(_tokens(n)) > 1]
    full_orgs = [n for k, n in first_name.items() if types[k][0] == org and len(_tokens(n)) > 2]
    target: dict[tuple[int, int], str] = {}  # (chunk, entity) -> the name it stands for
    for ci, ei, e in ordered:
        key = _key(e.name)
        etype = types[key][0]
        tokens = _tokens(e.name)
        if etype == person and len(tokens) > 1 and e.name not in persons_seen:
            persons_seen.append(e.name)
        if etype == org and e.name not in orgs_seen:
            orgs_seen.append(e.name)
        own = info.votes.get(key, Counter())
        if own.get(place, 0.0) > max([w for t, w in own.items() if t != place] + [PLACE_EVIDENCE]):
            continue  # a place ("Washington" the city) stands for no person; a bare label is not enough
        if (etype not in (person, org, fallback, place) and own.get(person, 0.0) == 0
                and own.get(etype, 0.0) >= STRONG_CUE):
            continue  # a work or an event by its head word or a cue ("Churchill Downs"), not a bare label
        # an untyped run ending in a person's surname ("Master Scrooge", "Whereat Scrooge") stands for the person
        short = tokens[-1:] if e.label == UNTYPED_LABEL and len(tokens) > 1 and etype == fallback else tokens
        candidates = [f for f in persons_seen if f != e.name and _is_alias(short, _tokens(f))]
        if not candidates:
            candidates = [f for f in full_persons if f != e.name and _is_alias(short, _tokens(f))]
            candidates = candidates if len(candidates) == 1 else []
        if candidates:
            target[(ci, ei)] = candidates[-1]
            continue
        if len(tokens) == 1 and e.name.isupper() and 2 <= len(e.name) <= 6:
            spelled = [f for f in (*orgs_seen, *full_orgs) if _initials(f) == e.name and f != e.name]
            if spelled:
                target[(ci, ei)] = spelled[0]
    # capitalised words that only open sentences
    dropped: set[str] = set()
    if words is not None and text is not None:
        starts: dict[str, list[bool]] = defaultdict(list)
        for ci, _ei, e in ordered:
            if e.span is not None and (ci, _ei) not in target and len(_tokens(e.name)) == 1:
                at = chunk_start[ci] + e.span.start
                starts[_key(e.name)].append(bool(_SENTENCE_START.search(text[max(0, at - 4) : at])))
        dropped = {k for k, flags in starts.items() if (types[k][0] != person
                   and ((all(flags) and words.only_opens_sentences(first_name[k])) or words.mostly_lower(first_name[k])))
                   or (all(flags) and sum(info.votes[k].values()) <= 1.0 and words.only_opens_sentences(first_name[k]))}
    dropped |= _untyped_names(ordered, target, types, fallback, words)
    # rewrite the chunks
    renamed: dict[tuple[str, str], Counter] = defaultdict(Counter)  # per chunk: (name, type) -> new names
    chunks = []
    for ci, chunk in enumerate(d.chunks):
        if not _offline(chunk):
            chunks.append(chunk)
            continue
        ext = chunk.extraction
        new_entities, mapping = [], {}
        for ei, e in enumerate(ext.entities):
            key = _key(e.name)
            if key in dropped:
                mapping[(e.name, e.type)] = None
                continue
            name = target.get((ci, ei), e.name)
            etype, evidence = types[_key(name)] if _key(name) in types else types[key]
            attributes = dict(e.attributes)
            if name != e.name:
                attributes.setdefault("surface", e.name)
            if evidence:
                attributes["type_votes"] = evidence
            new_entities.append(e.model_copy(update={"name": name, "type": etype, "attributes": attributes}))
            mapping.setdefault((e.name, e.type), (name, etype))
            renamed[(e.name, e.type)][(name, etype)] += 1
        new_relations = []
        for r in ext.relations:
            ends = []
            for name, etype in ((r.source, r.source_type), (r.target, r.target_type)):
                new = mapping.get((name, etype), "unseen")
                if new == "unseen":  # an end named outside this chunk's entities ("he" -> a person)
                    known = renamed.get((name, etype))
                    new = known.most_common(1)[0][0] if known else (None if _key(name) in dropped else
                                                                     (name, types.get(_key(name), (etype, ""))[0]))
                ends.append(new)
            if ends[0] is None or ends[1] is None or ends[0] == ends[1]:
                continue
            new_relations.append(_retyped(r, ends[0], ends[1], domain))
        chunks.append(chunk.model_copy(update={"extraction": ext.model_copy(update={
            "entities": tuple(new_entities), "relations": tuple(new_relations)})}))
    return d.model_copy(update={"chunks": tuple(chunks)})


def _untyped_names(ordered: list[tuple[int, int, ExtractedEntity]], target: dict[tuple[int, int], str],
                   types: dict[str, tuple[str, str]], fallback: str, words: WordStats | None) -> set[str]:
    """Names found only as untyped proper-noun runs (label "NAME") that stand for no full name, when one word
    the corpus also writes in lower case ("Census"), or one word or words all written in lower case elsewhere
    ("Special Recognition") that nothing in the document or the corpus typed. "Old Crow Medicine Show" stays
    (as `fallback` unless the corpus typed it): "Crow" is never written in lower case."""
    kept: set[str] = set()
    candidates: set[str] = set()
    for ci, ei, e in ordered:
        key = _key(e.name)
        if e.label != UNTYPED_LABEL or (ci, ei) in target:
            kept.add(key)
            continue
        single = len(_tokens(e.name)) == 1
        common = words is not None and all(words.lower[w.lower()] > 0 for w in _tokens(e.name) if w.lower() not in _FUNCTION)
        if (types[key][0] == fallback and (single or common)) or (single and common):
            candidates.add(key)
    return candidates - kept


def _retyped(r: ExtractedRelation, source: tuple[str, str], target: tuple[str, str], domain: Domain) -> ExtractedRelation:
    if (r.source, r.source_type, r.target, r.target_type) == (*source, *target):
        return r
    attributes = dict(r.attributes)
    attributes.pop("signature", None)
    if not domain.allows(r.type, source[1], target[1]):
        attributes["signature"] = "violation"
    return r.model_copy(update={"source": source[0], "source_type": source[1], "target": target[0],
                                "target_type": target[1], "attributes": attributes})
