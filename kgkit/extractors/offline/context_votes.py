"""Type votes from a name's context that the mention votes (kgkit.extractors.offline.votes, .mentions) leave to
spaCy's bare label, added after them by the offline extractor.

**A side's adjective** before a common noun ("the Allied armies", "the Fascist tyranny", "a Communist deputy"):
spaCy often labels such a word ORG; it names no body but the people it ranges the noun with (the Allies, the
Fascists, the Communists): a Group, as a nationality word before a noun is ("an English actor"). Only the endings
of a side's adjective ("-ist", "-ied"): an adjective made from a name ("Biblical", "Napoleonic", "Pentecostal",
"Liberal") may be a body's name too ("the Liberal party"), so those keep their votes.

**An adjective spaCy labelled a law** before a common noun ("my Constitutional duty") is no name at all: a law's
name is never one adjective (`not_names` drops it).

**A meeting** is an event (the domain's Event: "war, battle, conference"), whatever spaCy's label: a session of a
body ("the Regular Session of the 73d Congress") and a conference on a subject or in a place ("an Inter-American
Conference on Problems of War and Peace", "the Conference in Buenos Aires"). Not a conference named alone ("the
Big Ten Conference", "the National Conference": leagues and parties are bodies) nor an album ("A Blowin' Session").

**A name listed with names of one sure kind**, and with nothing but spaCy's label of its own, is of that kind:
"over Wake and Guam" (Guam a known country: Wake a place, not spaCy's ORG). The list votes of
kgkit.extractors.offline.mentions give each member a little of its mates' types; that is too little against
spaCy's label when the mates are sure and the name has nothing else: here it gets enough to win. A name with its
own cues (a head word, a given name, a place the gazetteer knows) keeps its type.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from kgkit.extractors.offline.parsed import sentence_of
from kgkit.extractors.offline.votes import DEMONYM_WEIGHT, HEAD_WEIGHT, LABEL_WEIGHT

if TYPE_CHECKING:
    from spacy.tokens import Doc

    from kgkit.extractors.offline.mentions import Mention

__all__ = ["ADJECTIVE_ENDINGS", "attributive", "group_votes", "mate_votes", "meeting", "meeting_votes",
           "not_names"]

ADJECTIVE_ENDINGS = ("ist", "ied")
"""Endings of a side's adjective, required beside spaCy's JJ tag (as NNP, "Allied" may be a body's name)."""
GROUP_WEIGHT = DEMONYM_WEIGHT  # as a nationality word's
STRONG = 2.5  # a list mate's winning vote at least this (a known country, a head word and a label, ...)
BARE = LABEL_WEIGHT  # spaCy's label alone
MATE_WEIGHT = 1.0
MEETING_WEIGHT = HEAD_WEIGHT  # as a head word's
_ABOUT = frozenset(["on", "in", "at", "for"])
_LABELS = frozenset({"ORG", "PERSON"})


def _revoted(m: Mention, etype: str, weight: float) -> Mention:
    """The mention with `weight` more for `etype`, its type the new winner."""
    votes = dict(m.votes)
    votes[etype] = votes.get(etype, 0.0) + weight
    ranked = tuple(sorted(votes.items(), key=lambda kv: (-kv[1], kv[0])))
    return replace(m, votes=ranked, type=ranked[0][0])


def _before_noun(doc: Doc, first: int, last: int) -> bool:
    """Tokens [first, last) are one capitalised word spaCy tags as an adjective, directly before a lower-case common
    noun of the same sentence."""
    if last - first != 1:
        return False
    word = doc[first]
    if not word.is_alpha or not word.text[:1].isupper() or word.is_upper or word.tag_ != "JJ":
        return False
    if last >= sentence_of(doc, first)[1]:
        return False
    noun = doc[last]
    return noun.tag_ in ("NN", "NNS") and noun.is_lower and noun.is_alpha


def not_names(doc: Doc, mentions: list[Mention]) -> list[Mention]:
    """The mentions less an adjective spaCy labelled a law before a common noun ("my Constitutional duty").

    >>> from kgkit.extractors.offline import OfflineExtractor
    >>> from kgkit.io import load_domain
    >>> [out] = OfflineExtractor().extract(["In pursuance of my Constitutional duty, I wrote to the Congress."],
    ...                                    domain=load_domain("general"))
    >>> [e.name for e in out.entities]
    ['Congress']
    """
    return [m for m in mentions if not (m.label.strip() == "LAW" and _before_noun(doc, m.first, m.last))]


def attributive(doc: Doc, *, first: int, last: int, label: str) -> bool:
    """True when tokens [first, last) are one capitalised adjective of a side that spaCy labelled a body or a
    person, directly before a lower-case common noun of the same sentence ("the Allied armies").

    >>> from kgkit.extractors.offline import DEFAULT_MODEL, load_model
    >>> doc = load_model(DEFAULT_MODEL)("He led all the Allied armies in France.")
    >>> attributive(doc, first=4, last=5, label="ORG"), attributive(doc, first=7, last=8, label="GPE")
    (True, False)
    """
    return label in _LABELS and _before_noun(doc, first, last) and doc[first].lower_.endswith(ADJECTIVE_ENDINGS) \
        and doc[first].ent_type_ not in ("NORP", "GPE", "LOC")


def group_votes(doc: Doc, mentions: list[Mention], group: str | None) -> list[Mention]:
    """The mentions, an attributive adjective's with a Group vote added (see `attributive`) and its type chosen
    again; unchanged when the domain has no Group type.

    >>> from kgkit.extractors.offline import OfflineExtractor
    >>> from kgkit.io import load_domain
    >>> [out] = OfflineExtractor().extract(["He led all the Allied armies in France."], domain=load_domain("general"))
    >>> [(e.name, e.type) for e in out.entities]
    [('Allied', 'Group'), ('France', 'Location')]
    """
    if group is None:
        return mentions
    return [_revoted(m, group, GROUP_WEIGHT) if attributive(doc, first=m.first, last=m.last, label=m.label.strip())
            else m for m in mentions]


def meeting(doc: Doc, *, first: int, last: int) -> bool:
    """True when tokens [first, last) name a session of something ("Regular Session" before "of") or a conference
    on a subject or in a place ("Conference in Buenos Aires", "Conference" before "on").

    >>> from kgkit.extractors.offline import DEFAULT_MODEL, load_model
    >>> doc = load_model(DEFAULT_MODEL)("At the Regular Session of the Congress he praised the Big Ten Conference.")
    >>> meeting(doc, first=2, last=4), meeting(doc, first=10, last=13)
    (True, False)
    """
    words = [t.lower_ for t in doc[first:last]]
    after = doc[last].lower_ if last < len(doc) else ""
    if words[-1] == "session":
        return after == "of" and len(words) > 1
    at = [k for k, w in enumerate(words) if w == "conference"]
    return bool(at) and (any(k + 1 < len(words) and words[k + 1] in _ABOUT for k in at)
                         or (at[-1] == len(words) - 1 and after in _ABOUT))


def meeting_votes(doc: Doc, mentions: list[Mention], event: str | None) -> list[Mention]:
    """The mentions, a meeting's (see `meeting`) with an Event vote added and its type chosen again.

    >>> from kgkit.extractors.offline import OfflineExtractor
    >>> from kgkit.io import load_domain
    >>> [out] = OfflineExtractor().extract(["Its Extraordinary Session of the 73rd Congress ended."],
    ...                                    domain=load_domain("general"))
    >>> [(e.name, e.type) for e in out.entities]
    [('Extraordinary Session', 'Event'), ('73rd Congress', 'Organization')]
    """
    if event is None:
        return mentions
    return [_revoted(m, event, MEETING_WEIGHT) if meeting(doc, first=m.first, last=m.last) else m for m in mentions]


def mate_votes(doc: Doc, mentions: list[Mention]) -> list[Mention]:
    """The mentions, a bare-labelled one whose list mates all have one sure type with MATE_WEIGHT more for it.

    >>> from kgkit.extractors.offline import DEFAULT_MODEL, load_model
    >>> from kgkit.extractors.offline.gazetteer import load_places
    >>> from kgkit.extractors.offline.mentions import find_mentions
    >>> from kgkit.io import load_domain
    >>> doc = load_model(DEFAULT_MODEL)("I am proud that the flag will fly again over Wake and Guam.")
    >>> found = find_mentions(doc, load_domain("general"), load_places())
    >>> [(m.name, m.type) for m in found], [(m.name, m.type) for m in mate_votes(doc, found)]
    ([('Wake', 'Organization'), ('Guam', 'Location')], [('Wake', 'Location'), ('Guam', 'Location')])
    """
    root = {m.last - 1: m for m in mentions}
    out = []
    for m in mentions:
        mates = [root[t.i] for t in doc[m.last - 1].conjuncts if t.i in root and root[t.i] is not m]
        kinds = {mate.votes[0][0] for mate in mates if mate.votes}
        if (mates and len(kinds) == 1 and all(mate.votes and mate.votes[0][1] >= STRONG for mate in mates)
                and max((w for _, w in m.votes), default=0.0) <= BARE and (kind := kinds.pop()) != m.type):
            m = _revoted(m, kind, MATE_WEIGHT)
        out.append(m)
    return out
