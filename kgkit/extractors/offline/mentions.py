"""Entity mentions of one parsed text: spaCy's named entities, cleaned, filtered and typed by votes.

- **Boundaries.** A mention is cut at a sentence break, a bracket or a quote inside it, and split at a comma
  ("Secretaries of Agriculture, Commerce"); leading determiners, numbers (but the year of "2002 Winter Olympics")
  and lower-case words, trailing particles, possessives and punctuation go. A year just before an event joins it.
- **Titles.** A title or honorific before a name becomes the `title` attribute: "Prime Minister Churchill" ->
  Churchill (title "Prime Minister"), "Ministers Churchill" -> Churchill. A title alone ("the President", "Head
  Writer") or a role ("Secretary of Agriculture", "Bishop of Pittsburgh") is no entity.
- **Filters.** A name made only of generic capitalised words, titles and function words ("Government", "Federal
  Government", "Budget the Bank"), a lower-case one ("communist"), a fragment glued to a hyphenated word ("VE" of
  "VE-day") and capitals in a heading-like sentence are dropped.
- **Quoted titles.** A quoted title-case phrase (' " Two Doors Down " ') is a work.
- **Types by votes.** spaCy's label is one vote (1.0); the name's head word ("... County", "... University",
  "... Act": 2.0), a classifying noun beside it ("the town of X", "X is a German film", "the cruiser X": 2.5),
  a title (Person, 2.0), a locative preposition before a name spaCy called a person ("in Kwajalein": 1.2) and the
  gazetteer (a country 3.0; a city or region 1.5 for a name of several words, 0.8 for one word) add theirs. The
  winner is the mention's type; the votes travel in `attributes["votes"]` so that the document- and corpus-level
  vote (kgkit.stages.coref) can add them up across mentions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from kgkit.core.domain import Domain
from kgkit.extractors.offline.gazetteer import Places
from kgkit.extractors.offline.lexicon import (
    CLASSIFIERS,
    DIRECTIONAL,
    GENERIC,
    HEADS,
    HONORIFICS,
    LOCATIVE,
    MOTION,
    NAME_PARTICLES,
    PREFIXES,
    SEIZED,
    SUFFIXES,
    TITLES,
)

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

__all__ = ["Mention", "find_mentions", "format_votes", "sentence_of", "text_of", "type_of_votes"]

LABEL_WEIGHT, HEAD_WEIGHT, CLASSIFIER_WEIGHT, TITLE_WEIGHT, LOCATIVE_WEIGHT = 1.0, 2.0, 2.5, 2.0, 1.2
COUNTRY_WEIGHT, PLACE_WEIGHT, SHORT_PLACE_WEIGHT, QUOTE_WEIGHT = 3.0, 1.5, 0.8, 2.5
LIST_WEIGHT, LIST_CAP, ACRONYM_WEIGHT, NAME_WEIGHT = 0.5, 1.5, 1.2, 0.1
NUMERIC_LABELS = ("DATE", "CARDINAL", "ORDINAL")
NAME = "NAME"  # a run of proper nouns spaCy's NER left out, with nothing in it to type it: kept only if the
# corpus-level stage (kgkit.stages.coref) finds a type for it or a full name it stands for
QUOTED = "WORK_OF_ART "  # a quoted title: typed as spaCy's WORK_OF_ART, with the quote's vote

_FUNCTION = frozenset(["the", "a", "an", "of", "and", "&", "for", "in", "on", "at", "to", "by", "with", "de", "la", "le", "du", "des", "del", "der", "von", "van"])
_DETERMINERS = frozenset(["the", "a", "an", "this", "that", "these", "those"])
_POSSESSIVES = frozenset(["our", "their", "his", "her", "its", "my", "your"])
_POSSESSIVE = re.compile(r"(?:\s?['’]s|['’])$")
_EDGE_CHARS = " \t\r\n\"'“”‘’`.,;:!?()[]{}<>-–—_*/\\|"
_QUOTES = {'"', "“", "”", "``", "''"}
_HYPHENS = {"-", "–"}
_DOTTED = re.compile(r"(?:[A-Z]\.){2,}[A-Z]?\.?")
_NOMINAL_OF = re.compile(r"[a-z]+(?:ion|ment|al)")
_ROMAN = re.compile(r"[IVXLC]+\.?")
_NOT_NAMES = frozenset(["RB", "RBR", "RBS", "VB", "VBD", "VBG", "VBN", "VBP", "VBZ", "MD", "IN", "DT", "PRP", "PRP$", "WDT", "WP", "WRB", "CC", "UH"])
_BREAKS = {"(", ")", "[", "]", '"', "“", "”", "``", "''", ";", ":", "|"}


@dataclass(frozen=True)
class Mention:
    name: str  # canonical name
    type: str
    label: str  # spaCy's label (WORK_OF_ART for a quoted title)
    start: int  # char offsets of the cleaned name in the parsed piece
    end: int
    first: int  # token range [first, last)
    last: int
    title: str = ""
    votes: tuple[tuple[str, float], ...] = ()  # (domain type, weight), best first


def sentence_of(doc: Doc, i: int) -> tuple[int, int]:
    """(start, end) token bounds of the sentence holding token i, from a table built once per parsed text (spaCy's
    `Token.sent` walks the document on every call)."""
    table = doc.user_data.get("kgkit.sentences")
    if table is None:
        table = [(0, 0)] * len(doc)
        for sent in doc.sents:
            table[sent.start : sent.end] = [(sent.start, sent.end)] * (sent.end - sent.start)
        doc.user_data["kgkit.sentences"] = table
    return table[i]


def text_of(doc: Doc) -> str:
    """The parsed text, joined once (spaCy's `Doc.text` joins every token on every call)."""
    text = doc.user_data.get("kgkit.text")
    if text is None:
        text = doc.user_data["kgkit.text"] = doc.text
    return text


def format_votes(votes: Sequence[tuple[str, float]]) -> str:
    """"Location:2.5,Person:1" (the form kept in ExtractedEntity.attributes["votes"])."""
    return ",".join(f"{t}:{w:g}" for t, w in votes)


def type_of_votes(votes: dict[str, float], fallback: str) -> str:
    """The type with the most votes (ties: the alphabetically first), or `fallback` with none."""
    return min(votes, key=lambda t: (-votes[t], t)) if votes else fallback


def find_mentions(doc: Doc, domain: Domain, places: Places) -> list[Mention]:
    """The mentions of a parsed text, in text order (none overlap)."""
    spans = _candidate_spans(doc)
    heading = _heading_sentences(doc)
    out: list[Mention] = []
    for first, last, label in spans:
        if domain.entity_type_for_label(label.strip()) is None and label != NAME:
            continue  # a label the domain ignores (DATE, MONEY, ...)
        for part in _split(doc, first, last):
            if (m := _clean(doc, part[0], part[1], label, domain, places, heading)) is not None:
                out.append(m)
    return _list_votes(doc, out)


def _list_votes(doc: Doc, mentions: list[Mention]) -> list[Mention]:
    """Names in one list ("Harrogate, Hull, Scarborough and York") are mostly of one kind: each gets
    LIST_WEIGHT for every other list member's type (at most LIST_CAP in all)."""
    root = {m.last - 1: m for m in mentions}
    out = []
    for m in mentions:
        mates = [root[t.i] for t in doc[m.last - 1].conjuncts if t.i in root and root[t.i] is not m]
        if not mates:
            out.append(m)
            continue
        votes = dict(m.votes)
        for mate in mates:
            votes[mate.type] = votes.get(mate.type, 0.0) + min(LIST_WEIGHT, LIST_CAP / len(mates))
        ranked = tuple(sorted(((t, round(w, 2)) for t, w in votes.items()), key=lambda kv: (-kv[1], kv[0])))
        out.append(replace(m, type=ranked[0][0], votes=ranked))
    return out


def _candidate_spans(doc: Doc) -> list[tuple[int, int, str]]:
    """Entity token ranges with their labels: spaCy's entities (a year before an event joined to it) and quoted
    titles (which replace the entities inside them)."""
    ents = list(doc.ents)
    spans: list[tuple[int, int, str]] = []
    for n, ent in enumerate(ents):
        if ent.label_ in NUMERIC_LABELS:
            continue
        start = ent.start
        previous = ents[n - 1] if n else None
        if (ent.label_ == "EVENT" and previous is not None and previous.end == ent.start and previous.label_ in NUMERIC_LABELS
                and len(previous) == 1 and re.fullmatch(r"\d{4}|[IVXLC]+", previous.text)):
            start = previous.start  # "2002 Winter Olympics"
        spans.append((start, ent.end, ent.label_))
    for run in _proper_runs(doc) + _acronyms(doc):
        if not any(s[0] < run[1] and run[0] < s[1] for s in spans):
            spans.append(run)
    spans = _join_hyphens(doc, sorted(spans))
    quoted = _quoted_titles(doc)
    if quoted:
        spans = [s for s in spans if not any(s[0] < q[1] and q[0] < s[1] for q in quoted)] + quoted
    return sorted(spans)


def _acronyms(doc: Doc) -> list[tuple[int, int, str]]:
    """Capitals the NER left out ("INSEAD", "DLNA"): an organisation, by default."""
    return [(t.i, t.i + 1, "ORG") for t in doc if t.tag_ == "NNP" and t.is_upper and t.is_alpha and 3 <= len(t.text) <= 6
            and not t.ent_type_ and not _ROMAN.fullmatch(t.text)]


def _join_hyphens(doc: Doc, spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Names cut at a hyphen joined again: "Moravian - Silesian Region", "Cambodia – Vietnam Friendship Monument"
    (the part after the hyphen has two words or more, so "Japan - China relations" stays two names), and a
    person's name going on in lower case ("Kang Won - yong")."""
    out: list[tuple[int, int, str]] = []
    for span in spans:
        if out and span[0] == out[-1][1] + 1 and doc[out[-1][1]].text in _HYPHENS and span[1] - span[0] >= 2 \
                and doc[span[0]].text[:1].isupper():
            out[-1] = (out[-1][0], span[1], span[2])
            continue
        out.append(span)
    joined = []
    for first, last, label in out:
        while (label == "PERSON" and last + 1 < len(doc) and doc[last].text in _HYPHENS and doc[last + 1].is_lower
               and doc[last + 1].is_alpha and not doc[last + 1].is_stop and len(doc[last + 1].text) <= 5):
            last += 2
        joined.append((first, last, label))
    return joined


def _proper_runs(doc: Doc) -> list[tuple[int, int, str]]:
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
            label = _head_label(tokens) or PREFIXES.get(tokens[0].lower_) or NAME
            start = i - 1 if label == "EVENT" and i > 0 and re.fullmatch(r"\d{4}", doc[i - 1].text) else i
            out.append((start, j, label))
        elif len(tokens) == 1 and tokens[0].is_alpha and tokens[0].is_title and len(tokens[0].text) > 2:
            out.append((i, j, NAME))
        i = max(j, i + 1)
    return out


def _quoted_titles(doc: Doc) -> list[tuple[int, int, str]]:
    """' " Two Doors Down " ': a quoted phrase of 2-12 words in title case (every word of 4 letters or more
    capitalised, no ! or ? inside) in one sentence."""
    out = []
    for sent in doc.sents:
        marks = [t.i for t in sent if t.text in _QUOTES]
        for a, b in zip(marks[::2], marks[1::2]):
            inner = [t for t in doc[a + 1 : b]]
            if any(t.text in ("!", "?") for t in inner):
                continue  # an exclamation or a question is speech, not a title
            while inner and inner[-1].is_punct:
                inner.pop()
            words = [t for t in inner if t.is_alpha]
            if not 2 <= len(words) <= 12 or not inner[0].text[:1].isupper():
                continue
            if all(t.text[:1].isupper() for t in words if len(t.text) >= 4):
                out.append((inner[0].i, inner[-1].i + 1, QUOTED))
    return out


def _heading_sentences(doc: Doc) -> set[int]:
    """Start tokens of sentences written mostly in capitals (a heading that reached the parser)."""
    out = set()
    for sent in doc.sents:
        words = [t for t in sent if t.is_alpha and len(t.text) >= 2]
        caps = sum(t.is_upper for t in words)
        if caps >= 3 and caps >= 0.6 * len(words):
            out.add(sent.start)
    return out


def _split(doc: Doc, first: int, last: int) -> list[tuple[int, int]]:
    """A token range cut at a sentence break, at brackets and quotes (the part before them), and split at commas
    (unless what follows is a suffix: "Inc.", "Jr.", "D.C.")."""
    sent_end = sentence_of(doc, first)[1]
    last = min(last, sent_end)
    for t in doc[first:last]:
        if t.text in _BREAKS and t.i > first:
            last = t.i
            break
    for t in doc[first + 1 : last - 1]:  # "World War I. Angell was ...": a sentence the parser did not see end
        if _ROMAN.fullmatch(t.text) and t.text.endswith(".") and doc[t.i + 1].is_title:
            last = t.i + 1
            break
    parts, start = [], first
    for t in doc[first:last]:
        if t.text == "," and t.i + 1 < last and doc[t.i + 1].lower_ not in SUFFIXES:
            parts.append((start, t.i))
            start = t.i + 1
    parts.append((start, last))
    return [(a, b) for a, b in parts if b > a]


def _clean(doc: Doc, first: int, last: int, label: str, domain: Domain, places: Places, heading: set[int]) -> Mention | None:
    """Clean one token range and type it; None when it names nothing."""
    quoted = label == QUOTED
    label = label.strip()
    tokens = list(doc[first:last])
    event = label == "EVENT"
    # leading: determiners, lower-case possessives and words, punctuation, numbers (but an event's year);
    # a quoted title stays whole
    while tokens and quoted and (tokens[0].is_punct or tokens[0].is_space):
        tokens.pop(0)
    while tokens and not quoted and (
        tokens[0].lower_ in _DETERMINERS or tokens[0].is_punct or tokens[0].is_space
        or (tokens[0].text in _POSSESSIVES)
        or (tokens[0].is_lower and tokens[0].is_alpha and tokens[0].lower_ not in NAME_PARTICLES)
        or (tokens[0].like_num and any(c.isdigit() for c in tokens[0].text) and not (event and len(tokens) > 1))
        or (tokens[0].tag_ in _NOT_NAMES and label != "WORK_OF_ART" and len(tokens) > 1)  # "Hitherto Congress"
    ):
        tokens.pop(0)
    # trailing: possessive 's, punctuation, prepositions, conjunctions, determiners, lower-case words
    while tokens and (
        tokens[-1].tag_ == "POS" or tokens[-1].pos_ in ("PUNCT", "ADP", "CCONJ", "DET") or tokens[-1].is_space
        or (tokens[-1].is_lower and tokens[-1].is_alpha and tokens[-1].lower_ not in SUFFIXES)
    ) and not (quoted and not tokens[-1].is_punct):
        tokens.pop()
    if not tokens:
        return None
    # titles: "Prime Minister Churchill" -> Churchill, title "Prime Minister"
    title_tokens: list[Token] = []
    honorific = tokens[0].lower_ in HONORIFICS
    if honorific or label in ("PERSON", NAME):
        while len(tokens) > 1 and (tokens[0].lower_ in TITLES or (tokens[0].text in (".", "-") and title_tokens)):
            title_tokens.append(tokens.pop(0))
    if tokens and tokens[0].lower_ in ("of", "for", "to") and title_tokens:
        return None  # "Secretary of Agriculture": a role
    if not tokens:
        return None
    if all(t.lower_ in TITLES or t.lower_ in _FUNCTION or t.is_punct for t in tokens):
        return None  # "President", "Head Writer"
    if all(t.lower_ in GENERIC or t.lemma_.lower() in GENERIC or t.lower_ in TITLES or t.lower_ in _FUNCTION or t.is_punct
           or t.tag_ == "POS" or (t.lower_.endswith("s") and t.lower_[:-1] in GENERIC) for t in tokens):
        return None  # "Government", "Federal Government", "Budget the Bank", "Republics"
    if len(tokens) > 2 and tokens[0].lower_ == "list" and tokens[1].lower_ == "of":
        return None  # "List of Taito games": a page, not a thing
    if (len(tokens) > 3 and tokens[1].lower_ == "of" and _NOMINAL_OF.fullmatch(tokens[0].lower_)
            and HEADS.get(tokens[-1].lower_) == "LAW"):
        tokens = tokens[2:]  # "Extension of Price Control Act": the act is the thing named
        label = "LAW"
    text = text_of(doc)
    start, end = tokens[0].idx, tokens[-1].idx + len(tokens[-1].text)
    if (possessive := _POSSESSIVE.search(text[start:end])) and end - start > 2:
        end -= len(possessive.group())
    while start < end and text[start] in _EDGE_CHARS:
        start += 1
    while end > start and text[end - 1] in _EDGE_CHARS and not (text[end - 1] == "." and _keeps_dot(text[start:end])):
        end -= 1
    name = " ".join(text[start:end].split())
    if len(set(name.split())) == 1 and " " in name:  # "Scrooge Scrooge": one name said twice
        end = start + len(name.split()[0])
        name = name.split()[0]
    letters = [c for c in name if c.isalpha()]
    if len(name) < 2 or not letters:
        return None
    camel = len(letters) > 1 and letters[1].isupper()  # "iPhone" stays
    if letters[0].islower() and not camel and name.split()[0].lower() not in NAME_PARTICLES:
        return None
    if end < len(text) - 1 and text[end] in "-–" and text[end + 1].islower() and len(letters) <= 3:
        return None  # "VE" of "VE-day"
    if sentence_of(doc, tokens[0].i)[0] in heading and all(t.is_upper or not t.is_alpha for t in tokens) and len(letters) > 4:
        return None  # capitals in a heading-like sentence
    if len(tokens) == 1 and label != "NORP" and not quoted and tokens[0].tag_ in _NOT_NAMES:
        return None  # "Hitherto" (an adverb opening a sentence), "Were"
    if label == NAME and tokens[-1].lower_ in TITLES:
        return None  # "Acting Deputy Director": a role
    if title_tokens:
        label = "PERSON" if label in ("PERSON", "ORG", "NORP", NAME) or honorific else label
    votes = _votes(doc, tokens, name, label, title_tokens, domain, places, quoted)
    if not votes:
        return None
    etype = votes[0][0]
    title = " ".join(filter(None, (_outside_title(doc, doc[first]), " ".join(t.text for t in title_tokens))))
    return Mention(name=domain.canonical_name(name), type=etype, label=label, start=start, end=end,
                   first=tokens[0].i, last=tokens[-1].i + 1, title=title, votes=votes)


def _keeps_dot(name: str) -> bool:
    """"U.S." / "Jr." / "Inc." keep their final dot."""
    last = name.split()[-1].lower()
    return last in SUFFIXES or bool(re.fullmatch(r"(?:[a-z]\.)+", last))


def _head_label(tokens: list[Token]) -> str | None:
    """The label a name's head word implies: the word before "of" ("University of Toronto" -> ORG, "Battle of
    Midway" -> EVENT, "Government of the United States" -> ORG) unless the last word names a body, event or law
    itself ("Gulf of Mexico Alliance"), else the last word ("Salt Lake County" -> GPE), else its first word
    ("Lake Tana")."""
    words = [t for t in tokens if not t.like_num] or tokens  # "Public Law 132" -> "Law"
    of = next((n for n, t in enumerate(words) if t.lower_ == "of"), 0)
    last = _head_word(words[-1])
    if of > 0 and (head := _head_word(words[of - 1])) is not None and last in (None, "GPE", "LOC"):
        return head  # "Government of the United States", "Gulf of Mexico", not "Gulf of Mexico Alliance"
    if last is not None and len(tokens) > 1:
        return last
    if len(tokens) > 1 and (label := PREFIXES.get(tokens[0].lower_)) is not None:
        return label
    return None


def _head_word(token: Token) -> str | None:
    word = token.lower_
    return HEADS.get(word) or HEADS.get(token.lemma_.lower()) or HEADS.get(word[:-1] if word.endswith("s") else "")


def _outside_title(doc: Doc, token: Token) -> str:
    """Title words just before the mention, outside it ("President [Roosevelt]")."""
    words: list[str] = []
    i = token.i - 1
    while i >= 0 and doc[i].lower_ in TITLES and doc[i].text[:1].isupper() and len(words) < 3:
        words.insert(0, doc[i].text)
        i -= 1
    return " ".join(words)


def _classifier(doc: Doc, tokens: list[Token]) -> str | None:
    """The label a common noun beside the name implies: "the town of X", "the cruiser X", "X is a German film",
    "X, a town in ...", "the American writer X"."""
    root = tokens[0]
    for t in tokens:
        if t.head.i < tokens[0].i or t.head.i > tokens[-1].i:
            root = t
            break
    after = doc[tokens[-1].i + 1] if tokens[-1].i + 1 < len(doc) else None
    if after is not None and after.is_lower and root.head.i == after.i and CLASSIFIERS.get(after.lemma_.lower()) in ("GPE", "LOC"):
        return CLASSIFIERS[after.lemma_.lower()]  # "Mie prefecture", "Vienna city council": places only
    before = doc[tokens[0].i - 1] if tokens[0].i > 0 else None
    if before is not None and before.is_lower and (label := CLASSIFIERS.get(before.lemma_.lower())) is not None:
        return label  # "the cruiser Prinz Eugen", "the film Aanandam"
    head = root.head
    if (root.dep_ == "pobj" and head.lower_ == "of" and head.head.is_lower and head.head.i < root.i
            and (label := CLASSIFIERS.get(head.head.lemma_.lower())) is not None):
        return label  # "the town of Watersmeet"
    nouns = [c for c in root.children if c.dep_ == "appos" and c.is_lower]
    if root.dep_ == "appos" and head.is_lower:
        nouns.append(head)
    if root.dep_ in ("nsubj", "nsubjpass") and head.lemma_ == "be":
        nouns += [c for c in head.children if c.dep_ == "attr" and c.is_lower]
    for noun in nouns:
        for n in (noun, *noun.conjuncts):
            if (label := CLASSIFIERS.get(n.lemma_.lower())) is not None:
                return label
    return None


def _votes(doc: Doc, tokens: list[Token], name: str, label: str, title: list[Token], domain: Domain,
           places: Places, quoted: bool) -> tuple[tuple[str, float], ...]:
    votes: dict[str, float] = {}

    def add(lab: str, weight: float) -> None:
        if (etype := domain.entity_type_for_label(lab)) is not None:
            votes[etype] = votes.get(etype, 0.0) + weight

    add(label, LABEL_WEIGHT)
    if label == "NORP" and not quoted and (cls := _classifier(doc, tokens)) is not None:
        add(cls, CLASSIFIER_WEIGHT)  # "Alexeni is a commune ..."
    if quoted or (label in ("NORP", "LAW", "LANGUAGE") and not title):
        pass  # a nationality, a quoted title, a law: the label says it; head words and places do not
    else:
        if (head := _head_label(tokens)) is not None:
            add(head, HEAD_WEIGHT)
        if (cls := _classifier(doc, tokens)) is not None:
            add(cls, CLASSIFIER_WEIGHT)
        if title or _outside_title(doc, tokens[0]):
            add("PERSON", TITLE_WEIGHT)
        kind = places.kind(name)
        if kind == "country" or kind == "continent":
            add("GPE", COUNTRY_WEIGHT)
        elif kind is not None:
            add("GPE", PLACE_WEIGHT if len(tokens) > 1 else SHORT_PLACE_WEIGHT)
        prep = tokens[-1].head
        if tokens[-1].dep_ == "pobj" and (
            (label in ("PERSON", "PRODUCT", NAME) and prep.lower_ in LOCATIVE)
                or (label in ("PERSON", "PRODUCT", "ORG", "WORK_OF_ART", NAME)
                    and ((prep.lower_ in DIRECTIONAL and prep.head.lemma_.lower() in MOTION)
                         or (prep.lower_ == "of" and prep.head.lemma_.lower() in SEIZED)))):
            add("GPE", LOCATIVE_WEIGHT)  # "in Kwajalein", "taken to Kwajalein", "our conquest of Tarawa"
        if _DOTTED.fullmatch(name) and kind is None:
            add("ORG", ACRONYM_WEIGHT)  # "N.R.A.": dotted capitals that are no known place
    if quoted:
        add("WORK_OF_ART", QUOTE_WEIGHT - LABEL_WEIGHT)
    if label == NAME and not votes:
        votes[domain.fallback_entity_type] = NAME_WEIGHT  # nothing says what it is: the corpus may
    return tuple(sorted(votes.items(), key=lambda kv: (-kv[1], kv[0])))
