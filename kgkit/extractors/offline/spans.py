"""Candidate name spans of one parsed text, found by the declared span passes (SPAN_PASSES, run by
kgkit.extractors.offline.passes.run_passes over `Span` records): spaCy's entities, mended where its small model cuts
or splits names, proper-noun runs and acronyms it left out, and quoted titles (kgkit.extractors.offline.mentions
cleans and types them; a bare proper-noun run is labelled NAME and kept only if something types it).
More in docs/extraction.md, "Module notes": kgkit.extractors.offline.spans.

>>> from kgkit.extractors.offline import DEFAULT_MODEL, load_model
>>> doc = load_model(DEFAULT_MODEL)("Land was sold to the Delaware and Hudson Railroad in 1823.")
>>> [(doc[s.start:s.end].text, s.label, s.by) for s in candidate_spans(doc)]  # "Land": a run that only opens a sentence
[('Land', 'NAME', 'proper runs'), ('Delaware and Hudson Railroad', 'GPE', 'coordinated')]
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from kgkit.extractors.offline.cues import head_label
from kgkit.extractors.offline.editions import editions
from kgkit.extractors.offline.joins import (
    JOINING,
    join_compounds,
    join_coordinated,
    join_hyphens,
    join_nationality,
    join_particles,
    join_pieces,
)
from kgkit.extractors.offline.lexicon import DEMONYMS, GENERIC, HEADS, PREFIXES, TITLES
from kgkit.extractors.offline.parsed import HYPHENS, NAME, NICKNAMED, NUMERIC_LABELS, ROMAN, lowered, sentence_of
from kgkit.extractors.offline.passes import Pass, PassContext, Span, run_passes
from kgkit.extractors.offline.titles import classified_titles, defined_subjects, quoted_titles
from kgkit.extractors.offline.wordlists import words

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token
    from spacy.tokens import Span as Entity

__all__ = ["SPAN_PASSES", "candidate_spans"]

_REGNAL = re.compile(r"(?:X{0,2})(?:IX|IV|V?I{0,3})")  # I to XXIX
_OPENERS, _CLOSERS = {"(", '"', "“", "``"}, {")", '"', "”", "''"}
_NUMBERED, _ROAD_NUMBER = words("spans", "numbered"), re.compile(r"[A-Z]{0,2}-?\d{1,4}[A-Z]?")


def candidate_spans(doc: Doc, context: PassContext | None = None) -> list[Span]:
    """The candidate spans of a parsed text: SPAN_PASSES run in order (their counts in `context`)."""
    return run_passes(doc, [], SPAN_PASSES, context or PassContext())


def _entities(doc: Doc) -> list[Span]:
    """spaCy's entities, mended (docs/extraction.md, "Module notes")."""
    ents = list(doc.ents)
    spans: list[Span] = []
    covered = 0  # a person's name taken over the entities after it ("Jacqueline (Maranger) Desmarais")
    for n, ent in enumerate(ents):
        if ent.label_ in NUMERIC_LABELS or ent.start < covered:
            continue
        start = ent.start
        previous = ents[n - 1] if n else None
        if (ent.label_ == "EVENT" and previous is not None and previous.end == ent.start and previous.label_ in NUMERIC_LABELS
                and len(previous) == 1 and re.fullmatch(r"\d{4}|[IVXLC]+", previous.text)):
            start = previous.start  # "2002 Winter Olympics"
        while ent.label_ == "PERSON" and start > 0 and _first_name_before(doc[start - 1], ent):
            start -= 1  # "Anatoly [Borisovich Chubais]": a proper noun the NER left out before a person's name
        end, label = ent.end, ent.label_
        if label == "ORG":
            start, end = _lower_before(doc, start, end), _lower_inside(doc, start, end)
        if label == "PERSON":
            end, label = _name_after(doc, end)
            end += _regnal(doc, end)
        elif doc[end - 1].lower_ in _NUMBERED and end < len(doc) and _ROAD_NUMBER.fullmatch(doc[end].text):
            end += 1  # "U.S. Route 20", "County Route 501", "Interstate I-95": the number is the name
        covered = end
        spans.append(Span(start, end, label))
    return spans


def _added(spans: list[Span], more: list[Span]) -> list[Span]:
    """`spans` and those of `more` that overlap none of them, sorted."""
    out = list(spans)
    for run in more:
        if not any(s.start < run.end and run.start < s.end for s in out):
            out.append(run)
    return sorted(out)


def _titles(doc: Doc, spans: list[Span]) -> list[Span]:
    """Quoted, defined and classified titles (kgkit.extractors.offline.titles) in place of the spans they overlap."""
    quoted = quoted_titles(doc) + defined_subjects(doc) + classified_titles(doc)
    if quoted:
        spans = [s for s in spans if not any(s.start < q.end and q.start < s.end for q in quoted)] + quoted
    return sorted(spans)


def _numbered(doc: Doc, spans: list[Span]) -> list[Span]:
    """A name ending in a word that takes a number takes the number after it, read as a number or an amount:
    "House Document 398", "County Route 501"."""
    out: list[Span] = []
    for span in spans:
        if (out and out[-1].end == span.start and span.end - span.start == 1 and doc[span.start - 1].lower_ in _NUMBERED
                and span.label in (*NUMERIC_LABELS, "MONEY", "QUANTITY") and _ROAD_NUMBER.fullmatch(doc[span.start].text)):
            out[-1] = replace(out[-1], end=span.end)
            continue
        out.append(span)
    return out


def _same_everywhere(doc: Doc, spans: list[Span]) -> list[Span]:
    """A name of several words found once is the same name wherever its words recur in the text: the pieces spaCy
    cut it into elsewhere ("Rage Against the Machine" defined, then "Rage Against the [Machine]'s songs") give way to
    it, unless a longer name holds the place."""
    longest: dict[tuple[str, ...], Span] = {}
    for span in spans:
        if span.end - span.start >= 2 and doc[span.start].text[:1].isupper() and doc[span.end - 1].text[:1].isupper():
            key = tuple(t.text for t in doc[span.start : span.end])
            longest.setdefault(key, span)
    if not longest:
        return spans
    firsts: dict[str, list[tuple[str, ...]]] = {}
    for key in sorted(longest, key=len, reverse=True):
        firsts.setdefault(key[0], []).append(key)
    out = list(spans)
    for i, token in enumerate(doc):
        for key in firsts.get(token.text, ()):
            end = i + len(key)
            if end > len(doc) or tuple(t.text for t in doc[i:end]) != key or longest[key].start == i:
                continue
            if sentence_of(doc, i) != sentence_of(doc, end - 1):
                continue
            inside = [s for s in out if i <= s.start and s.end <= end]
            if any(s.start < end and i < s.end and s not in inside for s in out) or [(s.start, s.end) for s in inside] == [(i, end)]:
                continue  # a longer or crossing name holds the place, or it is already the name
            out = [s for s in out if s not in inside] + [Span(i, end, longest[key].label)]
            break
    return sorted(out)


def _lower_before(doc: Doc, start: int, end: int) -> int:
    """The start of an organisation's name with the lower-case nouns between "the" and it, in a text that lost their
    capitals: "the farm [Credit Administration]", "the food and [Agriculture Organization]" (its head word ends it;
    not adjectives: "the former [Foreign Office]")."""
    if HEADS.get(doc[end - 1].lower_) != "ORG":
        return start
    first = next((t.i for t in doc[start:end] if t.text[:1].isupper()), end)  # spaCy may have taken them in
    if any(not (t.is_lower and t.tag_ in ("NN", "CC", "DT")) for t in doc[start:first]):
        return start
    i = first
    while i > 0 and doc[i - 1].is_lower and (doc[i - 1].tag_ == "NN" or (doc[i - 1].lower_ == "and" and i > 1 and doc[i - 2].tag_ == "NN")):
        i -= 1
    if not (i < first and i > 0 and doc[i - 1].lower_ == "the" and doc[i].lower_ != "and"):
        return start
    lowered(doc).update(t.i for t in doc[i:first] if t.lower_ != "and")
    return min(i, start)


def _lower_inside(doc: Doc, start: int, end: int) -> int:
    """The end of an organisation's name cut before a lower-case noun and the capitalised head word after it, in a
    text that lost their capitals: "the [Reconstruction] finance Corporation"."""
    if (end + 1 < len(doc) and doc[end].is_lower and doc[end].tag_ == "NN" and doc[end + 1].text[:1].isupper()
            and HEADS.get(doc[end + 1].lower_) == "ORG" and doc[end - 1].text[:1].isupper()
            and doc[end + 1].ent_iob_ != "I" and sentence_of(doc, end) == sentence_of(doc, end + 1)):
        lowered(doc).add(end)
        return end + 2
    return end


def _name_after(doc: Doc, end: int) -> tuple[int, str]:
    """The end of a person's name the NER cut short, and its label: capitalised proper nouns outside any entity
    after it, with the particles and hyphens between them ("Carl Gösta Björn Joachim [von der] Esch", "João Paulo
    de Leiria [e Silva]", "Jeanne Lucie Augustine [Claudia Faure - Favier]"), and a nickname or maiden name in
    brackets or quotes followed by the surname ("Jacqueline (Maranger) Desmarais", 'James Llewellyn "Jimmy"
    Frise': label NICKNAMED, so that the brackets stay inside)."""
    label = "PERSON"
    sent_end = sentence_of(doc, end - 1)[1]
    if not doc[end - 1].text[:1].isupper():
        return end, label  # "Tony Day of [Cape Town]": the name stopped before
    if (end + 3 < sent_end and doc[end].text in _OPENERS and doc[end + 1].is_title and doc[end + 1].is_alpha
            and doc[end + 2].text in _CLOSERS and _goes_on(doc[end + 3], True)):
        end, label = end + 4, NICKNAMED
    while end < sent_end:
        if _goes_on(doc[end], label == NICKNAMED):
            end += 1
            continue
        joint = end  # particles ("von der") or a hyphen between two parts of the name
        while joint < sent_end and joint - end < 2 and ((doc[joint].is_lower and doc[joint].lower_ in JOINING)
                                                        or (doc[joint].text in HYPHENS and joint == end)):
            joint += 1
        if joint == end or joint >= sent_end or not _goes_on(doc[joint], False) or not doc[end - 1].text[:1].isupper():
            break
        end = joint + 1
    return end, label


def _regnal(doc: Doc, end: int) -> int:
    """1 when a regnal number follows a person's name: "King Constantine I of Greece", "Bush I in 1989",
    "Henry VIII, who"; not the pronoun "I" before a verb ("when Smith and I went")."""
    if end >= len(doc) or not _REGNAL.fullmatch(doc[end].text):
        return 0
    after = doc[end + 1] if end + 1 < len(doc) else None
    return int(after is None or after.is_punct or after.lower_ in ("of", "in", "and", "'s", "’s", "the"))


def _goes_on(token: Token, inside_entity: bool) -> bool:
    """A capitalised proper noun that can go on a person's name (outside any entity but a person's, unless
    `inside_entity`)."""
    return (token.tag_ == "NNP" and token.text[:1].isupper() and any(c.isalpha() for c in token.text)
            and (inside_entity or token.ent_type_ in ("", "PERSON")) and not token.is_sent_start and token.lower_ not in TITLES
            and token.lower_ not in GENERIC and token.lower_ not in DEMONYMS and token.lower_ not in HEADS
            and not ROMAN.fullmatch(token.text))


def _first_name_before(token: Token, ent: Entity) -> bool:
    """A capitalised proper noun just before a person's name, outside any entity, that modifies a word of it."""
    return (token.tag_ == "NNP" and token.is_alpha and token.is_title and not token.ent_type_ and not token.is_sent_end
            and token.dep_ == "compound" and ent.start <= token.head.i < ent.end and token.lower_ not in TITLES
            and token.lower_ not in GENERIC and token.lower_ not in DEMONYMS)


def _acronyms(doc: Doc) -> list[Span]:
    """Capitals the NER left out ("INSEAD", "DLNA"): an organisation, by default."""
    return [Span(t.i, t.i + 1, "ORG") for t in doc if t.tag_ == "NNP" and t.is_upper and t.is_alpha and 3 <= len(t.text) <= 6
            and not t.ent_type_ and not ROMAN.fullmatch(t.text)]


def _proper_runs(doc: Doc) -> list[Span]:
    """Runs of two or more proper nouns the NER left out whose head or first word says what they are ("Winter
    Olympics", "Lake Tana"); an event takes the year before it ("2002 Winter Olympics")."""
    out, i, n = [], 0, len(doc)
    while i < n:
        if doc[i].tag_ not in ("NNP", "NNPS") or doc[i].ent_type_:
            i += 1
            continue
        j = i
        while j < n and (doc[j].tag_ in ("NNP", "NNPS") or (doc[j].lower_ == "of" and j + 1 < n and doc[j + 1].tag_ == "NNP")) \
                and not (doc[j].ent_type_ and doc[j].ent_type_ not in NUMERIC_LABELS):
            j += 1
        tokens = list(doc[i:j])
        if len(tokens) >= 2 and sentence_of(doc, i) == sentence_of(doc, j - 1):
            label = head_label(tokens) or PREFIXES.get(tokens[0].lower_) or NAME
            start = i - 1 if label == "EVENT" and i > 0 and re.fullmatch(r"\d{4}", doc[i - 1].text) else i
            out.append(Span(start, j, label))
        elif len(tokens) == 1 and tokens[0].is_alpha and tokens[0].is_title and len(tokens[0].text) > 2:
            out.append(Span(i, j, NAME))
        i = max(j, i + 1)
    return out


SPAN_PASSES: tuple[Pass, ...] = (
    Pass("entities", lambda doc, spans, ctx: spans + _entities(doc)),
    Pass("proper runs", lambda doc, spans, ctx: _added(spans, _proper_runs(doc))),
    Pass("acronyms", lambda doc, spans, ctx: _added(spans, _acronyms(doc))),
    Pass("nationality", lambda doc, spans, ctx: join_nationality(doc, spans)),
    Pass("compounds", lambda doc, spans, ctx: join_compounds(doc, spans)),
    Pass("particles", lambda doc, spans, ctx: join_particles(doc, spans)),
    Pass("hyphens", lambda doc, spans, ctx: join_hyphens(doc, spans)),
    Pass("coordinated", lambda doc, spans, ctx: join_coordinated(doc, spans)),
    Pass("pieces", lambda doc, spans, ctx: join_pieces(doc, spans)),
    Pass("titles", lambda doc, spans, ctx: _titles(doc, spans)),
    Pass("same everywhere", lambda doc, spans, ctx: _same_everywhere(doc, spans)),
    Pass("numbered", lambda doc, spans, ctx: _numbered(doc, spans)),
    Pass("editions", lambda doc, spans, ctx: editions(doc, spans)),
)
"""The passes that find the candidate spans, in order (kgkit.extractors.offline.mentions cuts and cleans them)."""
