"""Relation rules over one parsed text: dependency patterns between two entity mentions of a sentence.
More in docs/extraction.md, "Module notes": kgkit.extractors.offline.rules."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kgkit.extractors.offline.gazetteer import Places
from kgkit.extractors.offline.lexicon import CLASSIFIERS, HYPOTHETICAL, MODAL, NEGATING
from kgkit.extractors.offline.mentions import Mention, sentence_of
from kgkit.extractors.offline.wordlists import words

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

__all__ = ["COOCCURRENCE_PREDICATE", "MAX_COOCCURRING", "Rel", "Rules", "antecedents", "cooccurrences", "negated_verb",
           "says_no"]

COOCCURRENCE_PREDICATE = "mentioned with"  # a domain opts in by giving it a type (e.g. MENTIONED_WITH)
MAX_COOCCURRING = 5  # sentences naming more entities than this are lists: no co-occurrence pairs from them
_MODIFIER_DEPS = ("poss", "amod", "compound", "nmod")
_PRONOUNS = words("rules", "pronouns")
_PERSONAL = words("rules", "personal")  # pronouns for a person topic
_IMPERSONAL = words("rules", "impersonal")  # ... for any other topic (a band: "they")
_PLACE_LABELS = ("GPE", "LOC", "FAC")


@dataclass(frozen=True)
class Rel:
    source: Mention
    target: Mention
    predicates: tuple[str, ...]  # most specific first: the first the domain knows wins
    rule: str
    negated: bool
    anchor: int  # a token of the sentence (for the evidence)
    hypothetical: bool = False


def antecedents(doc: Doc, by_token: dict[int, Mention], person_type: str) -> dict[int, Mention]:
    """Pronoun token -> the entity it stands for. "he" / "she" / "him": the last person named as a subject in
    the three sentences before it, or earlier in its own sentence. Failing that, and for "it" / "its" / "his" /
    "her" / "they" / "their", the piece's topic (`topic`): the entity a definitional first sentence is about
    ("Leonessa is a town ..." -> "It lies in ...", "The town lies in ...")."""
    out: dict[int, Mention] = {}
    sents = list(doc.sents)
    subjects: list[tuple[int, Mention]] = []  # (sentence number, mention)
    topic = _topic(doc, by_token, sents)
    own_pronouns = (_PERSONAL if topic.type == person_type else _IMPERSONAL) if topic is not None else frozenset()
    kinds = {n.lemma_.lower() for c in sents[0].root.children if c.dep_ == "attr" for n in (c, *c.conjuncts)} \
        if topic is not None else set()  # "a town and comune": "the town" is the topic too
    for n, sent in enumerate(sents):
        for t in sent:
            if t.pos_ == "PRON" and t.i not in by_token:
                if n > 0 and t.i == sent.start and t.lower_ in own_pronouns:
                    out[t.i] = topic  # type: ignore[assignment]  # "He ..." opening a sentence of a biography
                elif t.lower_ in _PRONOUNS:
                    own = [m for i, m in by_token.items() if sent.start <= i < t.i and m.type == person_type]
                    recent = [m for k, m in subjects if n - 3 <= k < n]
                    if own:
                        out[t.i] = own[-1]
                    elif recent:
                        out[t.i] = recent[-1]
                if t.i not in out and n > 0 and t.lower_ in own_pronouns and t.dep_ in ("nsubj", "nsubjpass", "poss"):
                    out[t.i] = topic  # type: ignore[assignment]
            elif n > 0 and t.pos_ == "NOUN" and t.lemma_.lower() in kinds and t.i not in by_token \
                    and any(c.dep_ == "det" and c.lower_ in ("the", "this") for c in t.children) \
                    and not any(c.dep_ in ("compound", "amod", "prep", "poss") for c in t.children):
                out[t.i] = topic  # type: ignore[assignment]  # "The town lies on ..."
            m = by_token.get(t.i)
            if m is not None and m.type == person_type and t.dep_ in ("nsubj", "nsubjpass"):
                subjects.append((n, m))
    return out


def _topic(doc: Doc, by_token: dict[int, Mention], sents: list) -> Mention | None:
    """The entity a piece is about, when its first sentence defines it: the named subject of "be" with a noun
    complement ("Yandina is a town on ...", "X (born 1950) was an American actor")."""
    if not sents:
        return None
    first = sents[0]
    root = first.root
    if root.lemma_ != "be" or not any(c.dep_ == "attr" and c.pos_ == "NOUN" for c in root.children):
        return None
    subjects = [c for c in root.children if c.dep_ == "nsubj" and c.i in by_token]
    if not subjects or by_token[subjects[0].i].label in ("NORP", "LANGUAGE"):
        return None
    return by_token[subjects[0].i]


class Rules:
    """The rules over one parsed piece that no dependency pattern says (kgkit.extractors.offline.patterns runs those)."""

    def __init__(self, doc: Doc, by_token: dict[int, Mention], places: Places, place_type: str = "Location") -> None:
        self.doc, self.by_token, self.places, self.place_type = doc, by_token, places, place_type

    def is_place(self, m: Mention) -> bool:
        """A place by spaCy's label or by its voted type ("Lambton County", that spaCy calls ORG)."""
        return m.label in _PLACE_LABELS or m.type == self.place_type

    def mention(self, token: Token) -> Mention | None:
        """The entity containing the token (any token of it: compounds included), or, for a noun describing an
        entity, that entity: the head of an appos chain ("the Secretary of State, Cordell Hull"), an appositive
        ("Song of Freedom, a film ..."), the complement of "be" ("X is a film ...")."""
        if token.i in self.by_token:
            return self.by_token[token.i]
        for c in token.children:
            if c.dep_ == "appos" and c.i in self.by_token:
                return self.by_token[c.i]
        if token.pos_ == "NOUN" and token.dep_ == "appos" and token.head.i in self.by_token:
            return self.by_token[token.head.i]
        if token.pos_ == "NOUN" and token.dep_ == "attr" and token.head.lemma_ == "be":
            subjects = [c for c in token.head.children if c.dep_ == "nsubj" and c.i in self.by_token]
            if subjects:
                return self.by_token[subjects[0].i]
        return None

    def mentions(self, token: Token) -> list[Mention]:
        """Entities for a token and its conjuncts ("Japan and Germany")."""
        out: list[Mention] = []
        for t in (token, *token.conjuncts):
            if (m := self.mention(t)) is not None and m not in out:
                out.append(m)
        return out

    def hypothetical(self, token: Token) -> bool:
        """A modal, a condition, a question or a verb like "plan to" above the token (the claim is not asserted)."""
        return _hypothetical(token)

    def subjects(self, verb: Token, depth: int = 0) -> list[tuple[Token, bool]]:
        """(subject token, passive?) of a verb: its own, or inherited through conj / xcomp; "which" -> its noun;
        a participle on a noun ("a film directed by ...", "Schneider (born ...)") -> that noun."""
        out = []
        for c in verb.children:
            if c.dep_ in ("nsubj", "nsubjpass"):
                relative = c.tag_ in ("WDT", "WP") and verb.dep_ == "relcl"  # "Japan, which attacked ..."
                out.append((verb.head if relative else c, c.dep_ == "nsubjpass"))
        if out or depth >= 3:
            return out
        if verb.dep_ == "acl" and verb.tag_ in ("VBN", "VBG") and verb.head.pos_ in ("NOUN", "PROPN"):
            return [(verb.head, verb.tag_ == "VBN")]
        if verb.head.pos_ not in ("VERB", "AUX"):
            return out
        if verb.dep_ == "conj":  # "Japan attacked and occupied ...", "... were attacked and occupied by Japan"
            own_passive = any(c.dep_ == "auxpass" for c in verb.children)
            return [(s, own_passive or (p and verb.tag_ == "VBN")) for s, p in self.subjects(verb.head, depth + 1)]
        if verb.dep_ == "xcomp":  # "Germany tried to invade ...", "urged Congress to extend ..."
            controllers = _children(verb.head, "dobj")
            return [(controllers[0], False)] if controllers else [(s, False) for s, _ in self.subjects(verb.head, depth + 1)]
        if verb.dep_ == "advcl" and verb.tag_ == "VBN" and verb.i < verb.head.i:  # "Born in Vienna, Ulrich began"
            return [(s, True) for s, _ in self.subjects(verb.head, depth + 1)]
        return out

    def nationalities(self) -> Iterator[Rel]:
        """"X is a German skeleton racer", "X, an American band", "the American writer X", "German Chancellor X"."""
        done: set[tuple[Mention, Mention]] = set()
        for i, m in self.by_token.items():
            token = self.doc[i]
            if token.i != m.last - 1 or m.label in ("NORP", *_PLACE_LABELS, "LANGUAGE"):
                continue  # the name's last token stands for it; nationalities and places have none
            nouns = [c for c in token.children if c.dep_ == "appos" and c.pos_ == "NOUN"]
            nouns += [c for c in token.children if c.dep_ == "compound" and c.i < m.first and c.pos_ in ("NOUN", "PROPN")]
            if token.dep_ in ("appos", "compound") and token.head.pos_ == "NOUN" and token.head.i not in self.by_token:
                nouns.append(token.head)
            if token.dep_ in ("nsubj", "nsubjpass") and token.head.lemma_ == "be":
                nouns += [c for c in token.head.children if c.dep_ == "attr" and c.pos_ == "NOUN"]
            for noun in nouns:
                if not (noun.lemma_.lower() in CLASSIFIERS or noun.i < m.first or noun.dep_ == "attr"):
                    continue
                for c in noun.children:
                    g = self.by_token.get(c.i)
                    if c.dep_ in _MODIFIER_DEPS and c.i < noun.i and g is not None and g.label in ("NORP", "GPE") and (m, g) not in done:
                        done.add((m, g))
                        yield Rel(m, g, ("nationality",), "nationality", False, token.i, _hypothetical(noun))

    def modifiers(self, mentions: list[Mention]) -> Iterator[Rel]:
        """A nation or place right before another name, inside its noun phrase: "the Japanese Navy", "the U.S.
        Senate", "the German Kriegsmarine" -> "nationality"."""
        for a, b in itertools.pairwise(mentions):
            if a.last == b.first and a.label in ("NORP", "GPE") and b.label not in ("NORP", *_PLACE_LABELS, "PERSON") \
                    and b.first <= self.doc[a.last - 1].head.i < b.last:
                yield Rel(b, a, ("nationality",), "nationality", False, b.first, _hypothetical(self.doc[b.last - 1]))

    def gazetteer_pairs(self, mentions: list[Mention], related: list[Rel]) -> Iterator[Rel]:
        """Two places of one piece that no rule related, a city or region known to lie in a country ("Vancouver
        ... Canada"): "locate in", on the gazetteer's word ("gazetteer" in one sentence, "gazetteer-far" across
        sentences, where a region must belong to one country only and a city name's largest bearer decides)."""
        linked = {frozenset((r.source.name, r.target.name)) for r in related}
        by_name: dict[str, list[Mention]] = {}
        for m in mentions:
            if m.label in ("GPE", "LOC") or m.type == self.place_type:
                by_name.setdefault(m.name, []).append(m)
        countries = [ms for name, ms in by_name.items() if self.places.kind(name) == "country"]
        for name, inners in by_name.items():
            kind = self.places.kind(name)
            if kind not in ("city", "region"):
                continue
            for outers in countries:
                if frozenset((name, outers[0].name)) in linked or not self.places.may_contain(outers[0].name, name):
                    continue
                both = [(a, b) for a in inners for b in outers
                        if sentence_of(self.doc, a.first) == sentence_of(self.doc, b.first)]
                if both:
                    yield Rel(both[0][0], both[0][1], ("locate in",), "gazetteer", False, both[0][0].first)
                elif kind == "city" or len(self.places.codes(name)) == 1:
                    yield Rel(inners[0], outers[0], ("locate in",), "gazetteer-far", False, inners[0].first)

    def piece_country(self, mentions: list[Mention], related: list[Rel]) -> Iterator[Rel]:
        """A piece that defines its topic ("Fyllingen Fotball was a Norwegian football club ...") and names one
        country only: every place of it that no rule related to that country and that the gazetteer does not put
        elsewhere lies in it ("piece-country", "locate in"). Speeches and stories, which open with no definition,
        get none. (Bodies, events and people of the piece measured 0.45-0.64 on gold pairs: left out.)"""
        if _topic(self.doc, self.by_token, list(self.doc.sents)) is None:
            return
        countries = {m.name: m for m in mentions if self.is_place(m) and self.places.kind(m.name) == "country"}
        if len(countries) != 1:
            return
        [country] = countries.values()
        linked = {frozenset((r.source.name, r.target.name)) for r in related}
        done: set[str] = set()
        for m in mentions:
            if m.name in done or m.name == country.name or frozenset((m.name, country.name)) in linked \
                    or self.places.kind(m.name) in ("country", "continent") \
                    or self.places.may_contain(country.name, m.name) is False:
                continue
            done.add(m.name)
            if self.is_place(m):
                yield Rel(m, country, ("locate in",), "piece-country", False, m.first)

    def kind_of(self, mentions: list[Mention]) -> Iterator[Rel]:
        """"the U.S. state of Arizona", "the Canadian province of Saskatchewan", "the U.S. states of Iowa and
        Ohio": a place, a noun naming a kind of place, "of", places -> each of those lies in the first."""
        for outer, inner in itertools.pairwise(mentions):
            between = self.doc[outer.last : inner.first]
            if not (self.is_place(outer) and self.is_place(inner)) or len(between) != 2 or between[1].lower_ != "of" \
                    or CLASSIFIERS.get(between[0].lemma_.lower()) not in ("GPE", "LOC"):
                continue
            root = self.doc[inner.last - 1]
            for t in (root, *root.conjuncts):
                m = self.by_token.get(t.i)
                if m is not None and m != outer and self.is_place(m) and m.name != outer.name \
                        and self.places.may_contain(outer.name, m.name, main=False) is not False:
                    yield Rel(m, outer, ("locate in",), "kind-of", False, m.first)

    def chains(self, mentions: list[Mention]) -> list[list[Mention]]:
        """Places in a row separated by a comma (", in" too): "Salt Lake City, Utah, United States"."""
        out: list[list[Mention]] = []
        current: list[Mention] = []
        for m in mentions:
            if not self.is_place(m):
                continue
            if current and sentence_of(self.doc, current[-1].last - 1) == sentence_of(self.doc, m.first):
                between = [t.lower_ for t in self.doc[current[-1].last : m.first]]
                if between in ([","], [",", "in"], [",", "in", "the"], ["("], [",", "the"]):
                    current.append(m)
                    continue
            if len(current) > 1:
                out.append(current)
            current = [m]
        if len(current) > 1:
            out.append(current)
        return out

    def chain_relations(self, chains: list[list[Mention]]) -> Iterator[Rel]:
        for chain in chains:
            after = self.doc[chain[-1].last : chain[-1].last + 2]
            before = self.doc[max(0, chain[0].first - 2) : chain[0].first]
            listlike = (any(t.lower_ in ("and", "or") for t in (*after, *before))
                        or (len(after) == 2 and after[0].text == "," and after[1].pos_ in ("NOUN", "PROPN", "DET", "ADJ", "NUM"))
                        or (len(before) == 2 and before[1].text == "," and before[0].pos_ in ("NOUN", "PROPN")))
            for n, inner in enumerate(chain):
                for outer in chain[n + 1 :]:
                    known = self.places.may_contain(outer.name, inner.name, main=False)  # the text puts them together
                    if known is False or (known is None and listlike) or inner.name == outer.name:
                        continue
                    yield Rel(inner, outer, ("locate in",), "chain", False, inner.first)


def _hypothetical(token: Token) -> bool:
    """A modal ("would", "may", "will"), a condition ("if", "unless"), a question, or a verb like "plan to" /
    "hope to" above the token."""
    t, depth = token, 0
    while depth < 4:
        if any(c.dep_ in ("aux", "auxpass") and c.lower_ in MODAL for c in t.children):
            return True
        if any(c.dep_ == "mark" and c.lower_ in ("if", "unless", "whether") for c in t.children):
            return True
        if t.dep_ == "xcomp" and t.head.lemma_.lower() in HYPOTHETICAL:
            return True
        if t.head is t:
            break
        t, depth = t.head, depth + 1
    return token.doc[sentence_of(token.doc, token.i)[1] - 1].text == "?"


def cooccurrences(doc: Doc, by_token: dict[int, Mention], related: list[Rel]) -> list[Rel]:
    """Pairs of entities named in one sentence that no dependency rule related: the weakest evidence, typed only
    when the domain gives "mentioned with" a type. Sentences naming more than MAX_COOCCURRING entities are skipped."""
    linked = {(sentence_of(doc, r.anchor)[0], frozenset((r.source.name, r.target.name))) for r in related}
    out: list[Rel] = []
    for sent in doc.sents:
        named = list(dict.fromkeys(by_token[t.i] for t in sent if t.i in by_token))
        if not 2 <= len(named) <= MAX_COOCCURRING:
            continue
        for n, first in enumerate(named):
            for second in named[n + 1 :]:
                if (sent.start, frozenset((first.name, second.name))) not in linked and (first.name, first.type) != (second.name, second.type):
                    out.append(Rel(first, second, (COOCCURRENCE_PREDICATE,), "co-occurrence", False, sent.start))
    return out


def _children(token: Token, dep: str) -> list[Token]:
    return [c for c in token.children if c.dep_ == dep]


def says_no(noun: Token) -> bool:
    """"no treaty", "never ..." on a noun."""
    return any(c.dep_ in ("det", "neg") and c.lower_ in ("no", "never") for c in noun.children)


def negated_verb(verb: Token) -> bool:
    """"did not attack", "never signed", "no longer ..."; "did not try to invade" and "failed to ratify" negate
    the xcomp too."""
    if any(c.dep_ == "neg" or c.lower_ == "never" for c in verb.children):
        return True
    if verb.dep_ == "xcomp":
        head = verb.head
        return any(c.dep_ == "neg" for c in head.children) or head.lemma_.lower() in NEGATING
    return False
