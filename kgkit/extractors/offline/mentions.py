"""Entity mentions of one parsed text: spaCy's named entities, cleaned, filtered and typed by votes.

- **Candidates** (kgkit.extractors.offline.spans): spaCy's entities mended where it cuts or splits names, proper-noun
  runs and acronyms it left out, quoted titles.
- **Boundaries.** A mention is cut at a sentence break, a bracket or a quote inside it, split at a comma ("Secretaries of
  Agriculture, Commerce"); leading determiners, numbers (not an edition's: kgkit.extractors.offline.editions) and
  lower-case words, trailing particles, possessives and punctuation go; fused names are split
  (kgkit.extractors.offline.fused); a name cut before its head noun takes it ("the International Monetary fund"); an
  acronym in brackets is the name it spells ("(DSM)"); "79th Cong." is no name; "the War and Navy Departments" are two.
- **Titles.** A title or honorific before a name becomes the `title` attribute: "Prime Minister Churchill" ->
  Churchill (title "Prime Minister"), "Ministers Churchill" -> Churchill, "King Ferdinand" (a rank before a name
  spaCy took for a place or a body) -> Ferdinand. A title alone ("the President", "Head Writer") is no entity; a
  role names what it is of ("the Bishop of Pittsburgh" -> Pittsburgh, "Secretary of Agriculture" -> nothing).
- **Filters.** A name made only of generic capitalised words, titles and function words ("Government", "Federal
  Government", "Budget the Bank"), a lower-case one ("communist"), a fragment glued to a hyphenated word ("VE" of
  "VE-day"), capitals in a heading-like sentence and words that name no thing (kgkit.extractors.offline.nonnames:
  "1600 MW", "Grade II", "Minister for Social Protection") are dropped; a nationality word before a person's name
  ("Irishman Tadhg Kennelly") and a decade before a name ("1990s Rocksburg") are no part of it; spans of time
  ("Pliocene", "Bronze Age") are no names.
- **Types by votes** (kgkit.extractors.offline.votes): spaCy's label, the name's head word, a classifying noun
  beside it, a title, the gazetteer, a given name and what the context says ("directed by X", "X (1950)",
  "southwest of X") each vote; names in one list add a little for each other's type. The winner is the
  mention's type; the votes travel in `attributes["votes"]` so that the document- and corpus-level vote
  (kgkit.extractors.offline.coref) can add them up across mentions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from kgkit.core.domain import Domain
from kgkit.core.given_names import GIVEN_NAMES
from kgkit.extractors.offline.editions import edition_number
from kgkit.extractors.offline.fragments import drop_fragments
from kgkit.extractors.offline.fused import split_fused
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
    SENTENCE_ADVERBS,
    SUFFIXES,
    TITLES,
)
from kgkit.extractors.offline.nonnames import drop_non_names
from kgkit.extractors.offline.parsed import join_clitics, nicknamed
from kgkit.extractors.offline.passes import Mention, MentionPass, PassContext, add_counts, run_passes
from kgkit.extractors.offline.spans import (
    NICKNAMED,
    QUOTED,
    candidate_spans,
    closes,
    lowered,
    sentence_of,
    split_pair,
    text_of,
)
from kgkit.extractors.offline.votes import CONTEXT_WEIGHT, NAME, head_label, mention_votes, outside_title
from kgkit.extractors.offline.wordlists import words

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

__all__ = ["MENTION_PASSES", "Mention", "candidate_mentions", "find_mentions", "format_votes", "sentence_of", "text_of", "type_of_votes"]

LIST_WEIGHT, LIST_CAP = 0.5, 1.5

_FUNCTION = words("mentions", "function")
_POSSESSIVES = words("mentions", "possessives")
_POSSESSIVE = re.compile(r"(?:\s?['’]s|['’])$")
_EDGE_CHARS = " \t\r\n\"'“”‘’`.,;:!?()[]{}<>-–—_*/\\|"
_HYPHENS = {"-", "–"}
_NOMINAL_OF = re.compile(r"[a-z]+(?:ion|ment|al)")
_ROMAN = re.compile(r"[IVXLC]+\.?")
_NOT_NAMES = words("mentions", "not_names")
_BREAKS = {"(", ")", "[", "]", '"', "“", "”", "``", "''", ";", ":", "|"}
_ADJECTIVE_END = re.compile(r"(?:ary|al|ic|ive|ous)$")
_DECADE = re.compile(r"\d{2,4}s")  # "1990s Rocksburg"


def format_votes(votes: Sequence[tuple[str, float]]) -> str:
    """"Location:2.5,Person:1" (the form kept in ExtractedEntity.attributes["votes"])."""
    return ",".join(f"{t}:{w:g}" for t, w in votes)


def type_of_votes(votes: dict[str, float], fallback: str) -> str:
    """The type with the most votes (ties: the alphabetically first), or `fallback` with none."""
    return min(votes, key=lambda t: (-votes[t], t)) if votes else fallback


def find_mentions(doc: Doc, domain: Domain, places: Places, context: PassContext | None = None) -> list[Mention]:
    """The mentions of a parsed text, in text order (none overlap): the candidates, then MENTION_PASSES (their
    counts in `context`)."""
    context = context or PassContext(domain=domain, places=places)
    candidates = candidate_mentions(doc, domain, places)
    add_counts(context.counts, {"candidates": {"added": len(candidates)}})
    return run_passes(doc, candidates, MENTION_PASSES, context)


def candidate_mentions(doc: Doc, domain: Domain, places: Places) -> list[Mention]:
    """The candidate spans (kgkit.extractors.offline.spans) cut, split and cleaned into typed mentions."""
    spans = candidate_spans(doc)
    heading = _heading_sentences(doc)
    out: list[Mention] = []
    for first, last, label in spans:
        if domain.entity_type_for_label(label.strip()) is None and label != NAME:
            continue  # a label the domain ignores (DATE, MONEY, ...)
        for part in (p for whole in _split(doc, first, last, label in (QUOTED, NICKNAMED), nicknamed(doc, first, last, label))
                     for q in split_pair(doc, *whole, places) for p in split_fused(doc, *q, label, places)):
            if (m := _clean(doc, part[0], part[1], part[2] if len(part) > 2 else label, domain, places, heading)) is not None:
                out.append(m)
    return out


def _spelled_out(doc: Doc, mentions: list[Mention]) -> list[Mention]:
    """An acronym in brackets just after the name it abbreviates is that name: "the Distinguished Service Medal
    (DSM)", "Norges Statsbaner (NSB)" -> the mention of "DSM" is named and typed as the medal (its surface stays
    "DSM"; kgkit.extractors.offline.coref adds its votes to the name's)."""
    out: list[Mention] = []
    for m in mentions:
        before = out[-1] if out else None
        if (before is not None and m.last - m.first == 1 and m.first >= 1 and doc[m.first - 1].text == "("
                and before.last == m.first - 1 and _abbreviates(m.name, before.name)):
            m = replace(m, name=before.name)  # its own votes join the name's (kgkit.extractors.offline.coref adds them up)
        out.append(m)
    return out


def _abbreviates(short: str, name: str) -> bool:
    """"DSM" for "Distinguished Service Medal", "U.S.A." for "United States of America" (the initials of its
    capitalised words, or of all words but function words)."""
    letters = short.replace(".", "")
    if not (2 <= len(letters) <= 8 and letters.isalpha() and letters.isupper()):
        return False
    words = [w for w in re.split(r"[\s\-–]+", name) if w and w[0].isalpha()]
    capitals = "".join(w[0] for w in words if w[0].isupper())
    initials = "".join(w[0].upper() for w in words if w.lower() not in _FUNCTION)
    return len(words) >= 2 and letters in (capitals, initials)


def _pronoun_votes(doc: Doc, mentions: list[Mention], person: str | None) -> list[Mention]:
    """A name that is the subject of a verb other than "be", with "he" or "she" opening the next sentence or "his"
    or "him" later in its own (and no other person named before that word), is a person: CONTEXT_WEIGHT more for
    Person ("Thranduil ruled ... He ...", "Mbomio released his ..."; not "Tobolsk was the seat ... He ..."). Not
    for an untyped run ("Whereat Scrooge said ... his"): kgkit.extractors.offline.coref joins those to the person they end in."""
    if person is None:
        return mentions
    by_sentence: dict[int, list[Mention]] = {}
    for m in mentions:
        by_sentence.setdefault(sentence_of(doc, m.first)[0], []).append(m)
    out = []
    for m in mentions:
        start, end = sentence_of(doc, m.first)
        root = doc[m.last - 1]
        if root.dep_ not in ("nsubj", "nsubjpass") or root.head.lemma_ == "be" or m.type == person or m.label == NAME:
            out.append(m)
            continue
        later = [t for t in doc[m.last : end] if t.lower_ in ("his", "him", "himself")]
        said = bool(later) and not any(o.type == person and m.last <= o.first < later[0].i for o in by_sentence[start])
        said = said or (end < len(doc) and doc[end].lower_ in ("he", "she") and sentence_of(doc, end)[0] == end)
        if not said:
            out.append(m)
            continue
        out.append(_revoted(m, {person: CONTEXT_WEIGHT}))
    return out


def _revoted(m: Mention, more: dict[str, float]) -> Mention:
    """The mention with `more` votes added, its type the new winner."""
    votes = dict(m.votes)
    for etype, weight in more.items():
        votes[etype] = votes.get(etype, 0.0) + weight
    ranked = tuple(sorted(((t, round(w, 2)) for t, w in votes.items()), key=lambda kv: (-kv[1], kv[0])))
    return replace(m, type=ranked[0][0], votes=ranked)


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
        more: dict[str, float] = {}
        for mate in mates:
            more[mate.type] = more.get(mate.type, 0.0) + min(LIST_WEIGHT, LIST_CAP / len(mates))
        out.append(_revoted(m, more))
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



def _split(doc: Doc, first: int, last: int, quoted: bool = False, nicknamed: bool = False) -> list[tuple[int, int]]:
    """A token range cut at a sentence break, at brackets and quotes (the part before them), and split at commas
    (unless what follows is a suffix: "Inc.", "Jr.", "D.C.") and at a slash standing alone ("VFL / AFL"); a quoted
    title keeps its brackets, commas and slashes ("I Wonder (Departure)", "It's All Wrong, but It's All Right"), a
    nicknamed person's name its quotes ('William "Bill" Clinton')."""
    sent_end = sentence_of(doc, first)[1]
    last = min(last, sent_end)
    for t in doc[first:last]:
        if t.text in _BREAKS and t.i > first and not (quoted and t.text in "()[]") and not nicknamed:  # "I Wonder (Departure)"
            last = t.i
            break
    for t in doc[first + 1 : last - 1]:  # "World War I. Angell was ...": a sentence the parser did not see end
        if _ROMAN.fullmatch(t.text) and t.text.endswith(".") and doc[t.i + 1].is_title \
                and not (len(t.text) == 2 and doc[t.i - 1].lower_ in GIVEN_NAMES):  # "Robert L. Ghormley" goes on
            last = t.i + 1
            break
    for t in doc[first + 1 : last]:  # "A, C, and E. However, Admiral Halsey": an adverb opening a sentence
        if t.lower_ in SENTENCE_ADVERBS and doc[t.i - 1].text.endswith("."):
            last = t.i
            break
    parts, start = [], first
    for t in doc[first:last]:
        if not quoted and ((t.text == "," and t.i + 1 < last and doc[t.i + 1].lower_ not in SUFFIXES) or t.text == "/"):
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
        return None
    head_after = _head_after(doc, tokens, label)
    if head_after is False:
        return None  # "Enactment of Federal [airport legislation]": a fragment
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
        return None  # "Secretary of Agriculture": a role
    if not tokens:
        return None
    if all(t.lower_ in TITLES or t.lower_ in _FUNCTION or t.is_punct for t in tokens):
        return None  # "President", "Head Writer"
    if sum(c.isalpha() for t in tokens for c in t.text) == 1:
        return None  # a letter ("E.", "islands A, C, and E."): no name
    if all(t.lower_ in GENERIC or t.lemma_.lower() in GENERIC or t.lower_ in TITLES or t.lower_ in _FUNCTION or t.is_punct
           or t.tag_ == "POS" or (t.lower_.endswith("s") and t.lower_[:-1] in GENERIC) for t in tokens) \
            and not _generic_name(tokens, label):
        return None  # "Government", "Federal Government", "Budget the Bank", "Republics"
    if len(tokens) > 2 and tokens[0].lower_ == "list" and tokens[1].lower_ == "of":
        return None  # "List of Taito games": a page, not a thing
    if (len(tokens) == 1 and tokens[0].lower_.endswith("cene")) or (len(tokens) == 2 and tokens[1].lower_ in ("age", "ages")):
        return None  # a span of time: "Pliocene", "Bronze Age", "Middle Ages"
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
    if (len(tokens) > 1 and tokens[-1].tag_ in ("NNS", "NNPS") and tokens[-1].text.endswith("s")
            and HEADS.get(tokens[-1].lower_[:-1]) in ("ORG", "LOC") and tokens[-1].lower_ not in HEADS  # "Cook Islands"
            and name.endswith(tokens[-1].text)
            and _coordinated_before(doc, tokens[0].i)):
        name = name[:-1]  # "the War and Navy Departments", "the Arctic and Pacific Oceans": each is one
    if label == NAME and tokens[-1].lower_ in TITLES:
        return None  # "Acting Deputy Director": a role
    if title_tokens:
        label = "PERSON" if label in ("PERSON", "ORG", "NORP", NAME) or honorific else label
    votes = mention_votes(doc, tokens, name, label, title_tokens, domain, places, quoted)
    if not votes:
        return None
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
    return (len(tokens) >= 3 and tokens[-1].is_alpha and tokens[-2].text in _HYPHENS and tokens[-3].is_alpha
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


MENTION_PASSES: tuple[MentionPass, ...] = (
    MentionPass("fragments", lambda doc, ms, ctx: drop_fragments(doc, ms)),
    MentionPass("non-names", drop_non_names),
    MentionPass("list votes", lambda doc, ms, ctx: _list_votes(doc, ms)),
    MentionPass("pronoun votes", lambda doc, ms, ctx: _pronoun_votes(doc, ms, ctx.domain.entity_type_for_label("PERSON"))),
    MentionPass("spelled out", lambda doc, ms, ctx: _spelled_out(doc, ms)),
)
"""The passes `find_mentions` runs over the candidates, in order (the extractor's context votes follow)."""
