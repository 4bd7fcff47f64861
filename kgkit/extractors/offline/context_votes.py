"""Type votes from a name's context that the mention votes (kgkit.extractors.offline.votes, .mentions) leave to
spaCy's bare label, added after them by the offline extractor.
More in docs/extraction.md, "Module notes": kgkit.extractors.offline.context_votes."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from kgkit.extractors.offline.parsed import NAME, sentence_of
from kgkit.extractors.offline.votes import CONTEXT_WEIGHT, DEMONYM_WEIGHT, HEAD_WEIGHT, LABEL_WEIGHT
from kgkit.extractors.offline.wordlists import words

if TYPE_CHECKING:
    from spacy.tokens import Doc

    from kgkit.extractors.offline.passes import Mention

__all__ = ["ADJECTIVE_ENDINGS", "attributive", "before_noun", "group_votes", "list_votes", "mate_votes", "meeting",
           "meeting_votes", "pronoun_votes", "spelled_out"]

ADJECTIVE_ENDINGS = ("ist", "ied")
"""Endings of a side's adjective, required beside spaCy's JJ tag (as NNP, "Allied" may be a body's name)."""
GROUP_WEIGHT = DEMONYM_WEIGHT  # as a nationality word's
STRONG = 2.5  # a list mate's winning vote at least this (a known country, a head word and a label, ...)
BARE = LABEL_WEIGHT  # spaCy's label alone
MATE_WEIGHT = 1.0
MEETING_WEIGHT = HEAD_WEIGHT  # as a head word's
LIST_WEIGHT, LIST_CAP = 0.5, 1.5
_ABOUT = words("context_votes", "about")
_FUNCTION = words("mentions", "function")
_LABELS = frozenset({"ORG", "PERSON"})


def _revoted(m: Mention, more: dict[str, float], digits: int | None = None) -> Mention:
    """The mention with `more` votes added (the sums rounded to `digits`, if given), its type the new winner."""
    votes = dict(m.votes)
    for etype, weight in more.items():
        votes[etype] = votes.get(etype, 0.0) + weight
    pairs = ((t, w if digits is None else round(w, digits)) for t, w in votes.items())
    ranked = tuple(sorted(pairs, key=lambda kv: (-kv[1], kv[0])))
    return replace(m, votes=ranked, type=ranked[0][0])


def before_noun(doc: Doc, first: int, last: int) -> bool:
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


def attributive(doc: Doc, *, first: int, last: int, label: str) -> bool:
    """True when tokens [first, last) are one capitalised adjective of a side that spaCy labelled a body or a
    person, directly before a lower-case common noun of the same sentence ("the Allied armies").

    >>> from kgkit.extractors.offline import DEFAULT_MODEL, load_model
    >>> doc = load_model(DEFAULT_MODEL)("He led all the Allied armies in France.")
    >>> attributive(doc, first=4, last=5, label="ORG"), attributive(doc, first=7, last=8, label="GPE")
    (True, False)
    """
    return label in _LABELS and before_noun(doc, first, last) and doc[first].lower_.endswith(ADJECTIVE_ENDINGS) \
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
    return [_revoted(m, {group: GROUP_WEIGHT}) if attributive(doc, first=m.first, last=m.last, label=m.label.strip())
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
    return [_revoted(m, {event: MEETING_WEIGHT}) if meeting(doc, first=m.first, last=m.last) else m for m in mentions]


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
            m = _revoted(m, {kind: MATE_WEIGHT})
        out.append(m)
    return out


def spelled_out(doc: Doc, mentions: list[Mention]) -> list[Mention]:
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


def pronoun_votes(doc: Doc, mentions: list[Mention], person: str | None) -> list[Mention]:
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
        out.append(_revoted(m, {person: CONTEXT_WEIGHT}, digits=2))
    return out


def list_votes(doc: Doc, mentions: list[Mention]) -> list[Mention]:
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
        out.append(_revoted(m, more, digits=2))
    return out
