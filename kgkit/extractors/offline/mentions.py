"""Entity mentions of one parsed text: spaCy's named entities, cleaned, filtered and typed by votes.
More in docs/extraction.md, "Module notes": kgkit.extractors.offline.mentions."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from kgkit.core.domain import Domain
from kgkit.core.given_names import GIVEN_NAMES
from kgkit.extractors.offline.context_votes import list_votes, pronoun_votes, spelled_out
from kgkit.extractors.offline.editions import edition_number
from kgkit.extractors.offline.fused import split_spans
from kgkit.extractors.offline.gazetteer import Places
from kgkit.extractors.offline.joins import before_particle, owns_nothing, verbal_name_word
from kgkit.extractors.offline.lexicon import (
    ADJECTIVAL,
    COMPASS,
    DEMONYMS,
    DETERMINERS,
    GENERIC,
    HEADS,
    HONORIFICS,
    NAME_PARTICLES,
    RANKS,
    SUFFIXES,
    TITLES,
)
from kgkit.extractors.offline.nonnames import drop_non_names
from kgkit.extractors.offline.parsed import HYPHENS, NAME, QUOTED, closes, join_clitics, lowered, sentence_of, text_of
from kgkit.extractors.offline.passes import Mention, Pass, PassContext, Span, run_passes
from kgkit.extractors.offline.spans import SPAN_PASSES
from kgkit.extractors.offline.votes import head_label, mention_votes, outside_title
from kgkit.extractors.offline.wordlists import words

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

__all__ = ["MENTION_PASSES", "Mention", "find_mentions", "format_votes", "sentence_of", "text_of"]

_FUNCTION = words("mentions", "function")
_POSSESSIVES = words("mentions", "possessives")
_POSSESSIVE = re.compile(r"(?:\s?['’]s|['’])$")
_EDGE_CHARS = " \t\r\n\"'“”‘’`.,;:!?()[]{}<>-–—_*/\\|"
_NOMINAL_OF = re.compile(r"[a-z]+(?:ion|ment|al)")
_NOT_NAMES = words("mentions", "not_names")
_ADJECTIVE_END = re.compile(r"(?:ary|al|ic|ive|ous)$")
_DECADE = re.compile(r"\d{2,4}s")  # "1990s Rocksburg"


def format_votes(votes: Sequence[tuple[str, float]]) -> str:
    """"Location:2.5,Person:1" (the form kept in ExtractedEntity.attributes["votes"])."""
    return ",".join(f"{t}:{w:g}" for t, w in votes)


def find_mentions(doc: Doc, domain: Domain, places: Places, context: PassContext | None = None) -> list[Mention]:
    """The mentions of a parsed text, in text order (none overlap): SPAN_PASSES, then MENTION_PASSES (their
    counts in `context`)."""
    context = context or PassContext(domain=domain, places=places)
    return run_passes(doc, [], (*SPAN_PASSES, *MENTION_PASSES), context)


def _used_labels(doc: Doc, spans: list[Span], context: PassContext) -> list[Span]:
    """The spans whose label the domain types (or NAME); others (DATE, MONEY, ...) are dropped."""
    return context.keep(spans, lambda s: "" if s.label == NAME or context.domain.entity_type_for_label(s.label.strip())
                        is not None else "unused label")


def _cleaned(doc: Doc, spans: list[Span], context: PassContext) -> list[Mention]:
    """Each span cleaned into a typed mention (`_clean`), or dropped with the reason it names nothing."""
    heading = _heading_sentences(doc)
    out = []
    for s in spans:
        m = _clean(doc, s.start, s.end, s.label, context.domain, context.places, heading)
        if isinstance(m, str):
            context.drop(s, m)
        else:
            out.append(m)
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



def _clean(doc: Doc, first: int, last: int, label: str, domain: Domain, places: Places, heading: set[int]) -> Mention | str:
    """Clean one token range and type it; the reason it names nothing when it does not."""
    quoted = label == QUOTED
    label = label.strip()
    tokens = list(doc[first:last])
    event = label == "EVENT"
    # leading: determiners, lower-case possessives and words, punctuation, numbers (but an event's year);
    # a quoted title stays whole
    while tokens and quoted and (tokens[0].is_punct or tokens[0].is_space):
        tokens.pop(0)
    while tokens and not quoted and (
        (tokens[0].lower_ in DETERMINERS and not (label == "WORK_OF_ART" and len(tokens) > 1 and (tokens[0].text in ("This", "These")
                                                   or (tokens[0].text in ("A", "An") and not tokens[0].is_sent_start))))
        or tokens[0].is_punct or tokens[0].is_space
        or (tokens[0].text in _POSSESSIVES)
        or (tokens[0].is_lower and tokens[0].is_alpha and tokens[0].lower_ not in NAME_PARTICLES and tokens[0].i not in lowered(doc))
        or (tokens[0].like_num and any(c.isdigit() for c in tokens[0].text) and not (event and len(tokens) > 1) and not edition_number(tokens))
        or (_DECADE.fullmatch(tokens[0].text) and len(tokens) > 1)  # "1990s Rocksburg"
        or (tokens[0].lower_ in DEMONYMS and label in ("PERSON", NAME) and len(tokens) > 2)  # "Irishman Tadhg Kennelly"
        or (tokens[0].tag_ in _NOT_NAMES and label != "WORK_OF_ART" and len(tokens) > 1 and not verbal_name_word(tokens[0]))
    ):
        tokens.pop(0)
    # trailing: possessive 's, punctuation, prepositions, conjunctions, determiners, lower-case words
    while tokens and (
        (tokens[-1].tag_ == "POS" and (label == "PERSON" or not owns_nothing(tokens[-1]))) or tokens[-1].pos_ in ("PUNCT", "ADP", "CCONJ", "DET") or tokens[-1].is_space
        or (tokens[-1].tag_ == "RB" and label != "WORK_OF_ART" and len(tokens) > 1)  # "Federal and Federally"
        or (tokens[-1].is_lower and tokens[-1].is_alpha and tokens[-1].lower_ not in SUFFIXES)
    ) and not (quoted and (not tokens[-1].is_punct or closes(tokens))) and not _hyphenated_end(tokens, label):
        tokens.pop()
    if not tokens or _abbreviation(doc, tokens):
        return "abbreviation" if tokens else "empty"
    head_after = _head_after(doc, tokens, label)
    if head_after is False:
        return "cut before head"  # "Enactment of Federal [airport legislation]": a fragment
    if head_after is not None:
        tokens.append(head_after)  # "the International Monetary fund": the head noun the name was cut before
    # titles: "Prime Minister Churchill" -> Churchill, title "Prime Minister"
    if (of := _role_of(tokens)) is not None:
        tokens = of  # "the Bishop of Pittsburgh", "King of Romania": the place or body the role is of
        label = NAME if label in ("PERSON", "NORP") else label
    title_tokens: list[Token] = []
    honorific = tokens[0].lower_ in HONORIFICS or (  # a rank before a name spaCy took for a body, a place ...
        label in ("ORG", "GPE", "LOC", "NORP", "FAC", "PRODUCT", "EVENT")  # ... "King Ferdinand died" (GPE)
        and 2 <= len(tokens) <= 5 and tokens[0].lower_ in RANKS and head_label(tokens) is None)
    if places.kind(" ".join(t.text for t in tokens)) is not None:
        pass  # "Saint Lucia", "King George Island": a place, no title
    elif honorific or label in ("PERSON", NAME):
        while len(tokens) > 1 and (tokens[0].lower_ in TITLES or (tokens[0].text in (".", "-") and title_tokens)) and not before_particle(tokens):
            if (label == "PERSON" and not title_tokens and len(tokens) == 2 and tokens[0].lower_ in GIVEN_NAMES
                    and not outside_title(doc, tokens[0])):
                break  # "Dean Acheson", "Earl Warren": a given name, not a title
            title_tokens.append(tokens.pop(0))
    if tokens and tokens[0].lower_ in ("of", "for", "to") and title_tokens:
        return "role"  # "Secretary of Agriculture"
    if not tokens:
        return "empty"
    if all(t.lower_ in TITLES or t.lower_ in _FUNCTION or t.is_punct for t in tokens):
        return "titles only"  # "President", "Head Writer"
    if sum(c.isalpha() for t in tokens for c in t.text) == 1:
        return "letter"  # "E.", "islands A, C, and E."
    if all(t.lower_ in GENERIC or t.lemma_.lower() in GENERIC or t.lower_ in TITLES or t.lower_ in _FUNCTION or t.is_punct
           or t.tag_ == "POS" or (t.lower_.endswith("s") and t.lower_[:-1] in GENERIC) for t in tokens) \
            and not _generic_name(tokens, label):
        return "generic"  # "Government", "Federal Government", "Budget the Bank", "Republics"
    if len(tokens) > 2 and tokens[0].lower_ == "list" and tokens[1].lower_ == "of":
        return "list page"  # "List of Taito games": a page, not a thing
    if (len(tokens) == 1 and tokens[0].lower_.endswith("cene")) or (len(tokens) == 2 and tokens[1].lower_ in ("age", "ages")):
        return "time span"  # "Pliocene", "Bronze Age", "Middle Ages"
    if (len(tokens) > 3 and tokens[1].lower_ == "of" and _NOMINAL_OF.fullmatch(tokens[0].lower_)
            and HEADS.get(tokens[-1].lower_) == "LAW"):
        tokens = tokens[2:]  # "Extension of Price Control Act": the act is the thing named
        label = "LAW"
    text = text_of(doc)
    start, end = tokens[0].idx, tokens[-1].idx + len(tokens[-1].text)
    if (possessive := _POSSESSIVE.search(text[start:end])) and end - start > 2 and (label == "PERSON" or not owns_nothing(tokens[-1])):
        end -= len(possessive.group())
    while start < end and text[start] in _EDGE_CHARS:
        start += 1
    while end > start and text[end - 1] in _EDGE_CHARS and not (text[end - 1] == "." and _keeps_dot(text[start:end])) \
            and not (text[end - 1] == ")" and "(" in text[start:end]):
        end -= 1
    name = " ".join(text[start:end].split())
    if head_after is not None:
        name = name[: len(name) - len(head_after.text)] + head_after.text.capitalize()
    if raised := [t.idx - start for t in tokens if t.i in lowered(doc) and start <= t.idx < end]:
        name = "".join(c.upper() if n in raised else c for n, c in enumerate(text[start:end]))  # "farm Security Administration"
        name = " ".join(name.split())
    if len(set(name.split())) == 1 and " " in name and not quoted:  # "Scrooge Scrooge": one name said twice
        end = start + len(name.split()[0])
        name = name.split()[0]
    name = join_clitics(name)
    letters = [c for c in (name.split(" ", 1)[-1] if edition_number(tokens) else name) if c.isalpha()]
    if len(name) < 2 or not letters:
        return "too short"
    camel = len(letters) > 1 and letters[1].isupper()  # "iPhone" stays
    if letters[0].islower() and not camel and name.split()[0].lower() not in NAME_PARTICLES:
        return "lower case"
    if end < len(text) - 1 and text[end] in "-–" and text[end + 1].islower() and len(letters) <= 3:
        return "hyphenated word"  # "VE" of "VE-day"
    if sentence_of(doc, tokens[0].i)[0] in heading and all(t.is_upper or not t.is_alpha for t in tokens) and len(letters) > 4:
        return "heading"  # capitals in a heading-like sentence
    if len(tokens) == 1 and label != "NORP" and not quoted and tokens[0].tag_ in _NOT_NAMES:
        return "function word"  # "Hitherto" (an adverb opening a sentence), "Were"
    if (len(tokens) > 1 and tokens[-1].tag_ in ("NNS", "NNPS") and tokens[-1].text.endswith("s")
            and HEADS.get(tokens[-1].lower_[:-1]) in ("ORG", "LOC") and tokens[-1].lower_ not in HEADS  # "Cook Islands"
            and name.endswith(tokens[-1].text)
            and _coordinated_before(doc, tokens[0].i)):
        name = name[:-1]  # "the War and Navy Departments", "the Arctic and Pacific Oceans": each is one
    if label == NAME and tokens[-1].lower_ in TITLES:
        return "role"  # "Acting Deputy Director"
    if title_tokens:
        label = "PERSON" if label in ("PERSON", "ORG", "NORP", NAME) or honorific else label
    votes = mention_votes(doc, tokens, name, label, title_tokens, domain, places, quoted)
    if not votes:
        return "untyped"
    etype = votes[0][0]
    title = " ".join(filter(None, (outside_title(doc, doc[first]), " ".join(t.text for t in title_tokens))))
    return Mention(name=domain.canonical_name(name), type=etype, label=label, start=start, end=end,
                   first=tokens[0].i, last=tokens[-1].i + 1, title=title, votes=votes)


_NOT_ROLES = words("mentions", "not_roles")  # also open names ("General Motors", "Major League") or roles
_ROLE_WORDS = words("mentions", "role_words")


def _role_of(tokens: list[Token]) -> list[Token] | None:
    """The name after a role "of" it, or None: "Bishop of Pittsburgh" -> Pittsburgh, "Emperor of Japan" -> Japan,
    "Co-Chief Executive Officer of Power Corporation of Canada" -> Power Corporation of Canada (a title word opens
    it; not one that also opens names: "General", "Major", "Master")."""
    of = next((n for n, t in enumerate(tokens) if t.lower_ == "of"), None)
    if of is None or of == 0 or of + 1 >= len(tokens):
        return None
    before = tokens[:of]
    if before[0].lower_ == "foreign" and len(before) > 1:
        before = before[1:]  # "the Foreign Ministers of Great Britain"
    if before[0].lower_ not in TITLES or before[0].lower_ in _NOT_ROLES or not all(
            t.lower_ in TITLES or t.lower_ in _ROLE_WORDS for t in before):
        return None
    rest = tokens[of + 1 :]
    while rest and rest[0].lower_ in DETERMINERS:
        rest = rest[1:]
    return rest if rest and rest[0].text[:1].isupper() else None


def _coordinated_before(doc: Doc, i: int) -> bool:
    """The name at token i is the last of a list whose members share its plural head word: "the War and [Navy
    Departments]", "the Arctic and [Pacific Oceans]" (each is one: Navy Department, Pacific Ocean)."""
    j = i - 1 if i > 0 and doc[i - 1].lower_ == "the" else i
    return j >= 2 and doc[j - 1].lower_ in ("and", "or", ",") and (doc[j - 2].text[:1].isupper() or doc[j - 2].text == ",")


def _abbreviation(doc: Doc, tokens: list[Token]) -> bool:
    """A one-word name cut from an abbreviation written with a full stop that ends no sentence: "(79th Cong., 2d
    sess.)" -> no "Cong"."""
    i = tokens[-1].i
    return (len(tokens) == 1 and not tokens[0].whitespace_ and i + 2 < len(doc) and doc[i + 1].text == "."
            and (doc[i + 2].text in (",", ")", ";") or doc[i + 2].is_lower or doc[i + 2].is_digit))


def _head_after(doc: Doc, tokens: list[Token], label: str) -> Token | bool | None:
    """A name of several words ending in an adjective ("Monetary", "Federal") that modifies the lower-case noun after
    it was cut before its head: the noun when it is an organisation's head word ("the International Monetary
    [fund]"); False when the adjective is a generic word (a fragment: "Enactment of Federal [airport legislation]");
    None otherwise."""
    i, last = tokens[-1].i + 1, tokens[-1]
    head = last.head
    if (label != "ORG" or len(tokens) < 2 or not last.text[:1].isupper() or not i <= head.i < i + 3
            or not _ADJECTIVE_END.search(last.lower_) or last.lower_ in DEMONYMS or head.pos_ != "NOUN"
            or not all(t.is_lower and t.is_alpha for t in doc[i : head.i + 1]) or sentence_of(doc, head.i) != sentence_of(doc, i - 1)):
        return None
    if head.i == i and HEADS.get(head.lower_) == "ORG":
        return head
    return False if last.lower_ in GENERIC else None


def _hyphenated_end(tokens: list[Token], label: str) -> bool:
    """A name ending in a lower-case part after a hyphen: "Kim Won-yong", "Prayut Chan-o-cha" (a person's name
    the hyphen joins, spaced or not; another name only when nothing spaces the hyphen)."""
    return (len(tokens) >= 3 and tokens[-1].is_alpha and tokens[-2].text in HYPHENS and tokens[-3].is_alpha
            and (label == "PERSON" or not (tokens[-3].whitespace_ or tokens[-2].whitespace_)))


def _generic_name(tokens: list[Token], label: str) -> bool:
    """Generic words that still make a name: a body or place "of" or "for" something capitalised ("Department of
    Labor", "Church of the East"), a compass word and a natural feature ("North Sea"), or a noun before the head
    word of an organisation spaCy called one ("Labour Party", "State Department"; not "Federal Government")."""
    first, last = tokens[0].lower_, tokens[-1]
    if (len(tokens) > 2 and tokens[1].lower_ in ("of", "for") and first not in TITLES and last.text[:1].isupper()
            and HEADS.get(first) in ("ORG", "GPE", "LOC", "FAC")):
        return True
    if len(tokens) == 2 and first in COMPASS and HEADS.get(last.lower_) == "LOC":
        return True
    return (len(tokens) == 2 and label == "ORG" and HEADS.get(last.lower_) == "ORG" and first not in ADJECTIVAL
            and first not in TITLES and tokens[0].text[:1].isupper())


def _keeps_dot(name: str) -> bool:
    """"U.S." / "Jr." / "Inc." keep their final dot."""
    words = name.split()
    last = words[-1].lower()
    if len(words) > 1 and len(last) == 2 and not re.fullmatch(r"[a-z]\.", words[-2].lower()):
        return last in SUFFIXES  # "World War I.": a name never ends in an initial, so the dot ends the sentence
    return last in SUFFIXES or bool(re.fullmatch(r"(?:[a-z]\.)+", last))


MENTION_PASSES: tuple[Pass, ...] = (
    Pass("labels", _used_labels),
    Pass("splits", split_spans),
    Pass("clean", _cleaned),
    Pass("non-names", drop_non_names),
    Pass("list votes", lambda doc, ms, ctx: list_votes(doc, ms)),
    Pass("pronoun votes", lambda doc, ms, ctx: pronoun_votes(doc, ms, ctx.domain.entity_type_for_label("PERSON"))),
    Pass("spelled out", lambda doc, ms, ctx: spelled_out(doc, ms)),
)
"""The passes `find_mentions` runs after SPAN_PASSES, in order: the spans the domain types, cut at their breaks
and into the names they hold, cleaned into typed mentions, non-names dropped (with their reason), then votes
(the extractor's context votes follow)."""
