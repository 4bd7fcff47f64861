"""Relation patterns as data: spaCy DependencyMatcher patterns read once from data/relation_patterns.yaml (the
file's header says what each field means), and the declared functions a pattern names for what a dependency
pattern cannot say (a verb's inherited subjects, a token that names no entity, a list read as appositives).

    for rel in pattern_relations(rules):  # every match of every pattern over a parsed piece, as candidates
        ...

>>> [p.rule for p in relation_patterns()][:2]
['svo', 'svo']
>>> sorted(CHECKS)[:3]
['authored', 'not_authored', 'not_listlike']
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kgkit.extractors.offline.lexicon import CLASSIFIERS
from kgkit.extractors.offline.rules import Rel, Rules, negated_verb, says_no
from kgkit.extractors.offline.wordlists import theme

if TYPE_CHECKING:
    from spacy.matcher import DependencyMatcher
    from spacy.tokens import Token
    from spacy.vocab import Vocab

__all__ = ["CHECKS", "OBJECT_DEPS", "PREDICATE_FUNCTIONS", "RelationPattern", "matcher_for", "pattern_relations",
           "relation_patterns"]

OBJECT_DEPS = ("dobj", "attr", "oprd", "dative")
NAMED = "kgkit_named"  # token attribute a pattern may ask for: the token belongs to an entity mention
_WORK_LABELS = ("WORK_OF_ART", "PRODUCT", "LAW")
_CALL = re.compile(r"^@?(\w+)\(([\w, ]*)\)$")  # "unnamed(noun)", "@place_noun(noun, prep)"
_FIELD = re.compile(r"\{(\w+)\.(\w+)\}")  # "{verb.lemma}"


@dataclass(frozen=True)
class RelationPattern:
    """One pattern of data/relation_patterns.yaml: its rule, DependencyMatcher pattern and what a match relates."""

    rule: str
    pattern: tuple[Mapping[str, Any], ...]
    source: str | Mapping[str, str]
    target: str | Mapping[str, str]
    predicates: tuple[str, ...]
    anchor: str
    negated: tuple[str, ...] = ()
    hypothetical: str | None = None
    checks: tuple[str, ...] = ()

    @property
    def nodes(self) -> tuple[str, ...]:
        """The pattern's node names, in the order of a match's token ids."""
        return tuple(p["RIGHT_ID"] for p in self.pattern)


@functools.cache
def relation_patterns() -> tuple[RelationPattern, ...]:
    """The patterns of data/relation_patterns.yaml, in file order; a check or predicate function the code does
    not declare is an error here, not at the first match."""
    out = []
    for entry in theme("relation_patterns")["patterns"]:
        p = RelationPattern(rule=entry["rule"], pattern=tuple(entry["pattern"]), source=entry["source"],
                            target=entry["target"], predicates=tuple(entry["predicates"]), anchor=entry["anchor"],
                            negated=tuple(entry.get("negated", ())), hypothetical=entry.get("hypothetical"),
                            checks=tuple(entry.get("checks", ())))
        for call in p.checks:
            if _call(call)[0] not in CHECKS:
                raise ValueError(f"pattern {p.rule}: no declared check {call!r}")
        for template in p.predicates:
            if template.startswith("@") and _call(template)[0] not in PREDICATE_FUNCTIONS:
                raise ValueError(f"pattern {p.rule}: no declared predicate function {template!r}")
        out.append(p)
    return tuple(out)


_MATCHERS: dict[int, DependencyMatcher] = {}


def matcher_for(vocab: Vocab) -> DependencyMatcher:
    """One DependencyMatcher per vocabulary holding every pattern (key: its position in the file), built once."""
    if (matcher := _MATCHERS.get(id(vocab))) is None:
        from spacy.matcher import DependencyMatcher
        from spacy.tokens import Token

        if not Token.has_extension(NAMED):
            Token.set_extension(NAMED, default=False)
        matcher = DependencyMatcher(vocab)
        for n, p in enumerate(relation_patterns()):
            matcher.add(f"relation-pattern-{n}", [list(p.pattern)])
        _MATCHERS[id(vocab)] = matcher
    return matcher


def pattern_relations(rules: Rules) -> Iterator[Rel]:
    """Every relation the patterns find in the rules' parsed piece, in token order of their anchors; matches of
    one rule relating the same two entities at the same anchor merge their predicates (file order)."""
    doc = rules.doc
    patterns = relation_patterns()
    order = {doc.vocab.strings[f"relation-pattern-{n}"]: n for n in range(len(patterns))}
    merged: dict[tuple[Any, ...], list[Any]] = {}
    for key, ids in _matches(doc, rules.by_token):
        n = order[key]
        p = patterns[n]
        nodes = {name: doc[i] for name, i in zip(p.nodes, ids)}
        if not all(_run_check(rules, call, nodes) for call in p.checks):
            continue
        predicates = _predicates(rules, p, nodes)
        if not predicates:
            continue
        negated = any(_denies(nodes[name]) for name in p.negated)
        hypothetical = p.hypothetical is not None and rules.hypothetical(nodes[p.hypothetical])
        anchor = nodes[p.anchor].i
        for s in _ends(rules, p.source, nodes):
            for t in _ends(rules, p.target, nodes):
                if s == t:
                    continue
                k = (p.rule, s, t, anchor)
                if k in merged:
                    entry = merged[k]
                    entry[2] = tuple(dict.fromkeys((*entry[2], *predicates)))
                    entry[3] = entry[3] or negated
                    continue
                merged[k] = [(anchor, n), p.rule, predicates, negated, hypothetical, s, t]
    for (anchor, _), rule, predicates, negated, hypothetical, s, t in sorted(merged.values(), key=lambda e: e[0]):
        yield Rel(s, t, predicates, rule, negated, anchor, hypothetical)


def _matches(doc: Any, named: Mapping[int, Any]) -> list[tuple[int, list[int]]]:
    """The matcher's matches, with NAMED (the `kgkit_named` token attribute) set on the tokens of the entities
    during the call only."""
    matcher = matcher_for(doc.vocab)
    for i in named:
        doc[i]._.set(NAMED, True)
    try:
        return matcher(doc)
    finally:
        for i in named:
            doc[i]._.set(NAMED, False)


def _call(text: str) -> tuple[str, tuple[str, ...]]:
    m = _CALL.match(text.strip())
    if m is None:
        raise ValueError(f"not a declared call: {text!r}")
    return m.group(1), tuple(a.strip() for a in m.group(2).split(",") if a.strip())


def _run_check(rules: Rules, call: str, nodes: Mapping[str, Token]) -> bool:
    name, args = _call(call)
    return CHECKS[name](rules, *(nodes[a] for a in args))


def _predicates(rules: Rules, p: RelationPattern, nodes: Mapping[str, Token]) -> tuple[str, ...]:
    out: list[str] = []
    for template in p.predicates:
        if template.startswith("@"):
            name, args = _call(template)
            out.extend(PREDICATE_FUNCTIONS[name](rules, *(nodes[a] for a in args)))
        else:
            out.append(_FIELD.sub(lambda m: _field(nodes[m.group(1)], m.group(2)), template))
    return tuple(dict.fromkeys(out))


def _field(token: Token, what: str) -> str:
    if what == "lemma":
        return token.lemma_.lower()
    if what == "lower":
        return token.lower_
    if what == "verb":  # "set up"
        return " ".join([token.lemma_.lower(), *(c.lower_ for c in token.children if c.dep_ == "prt")])
    raise ValueError(f"unknown field {what!r}")


def _ends(rules: Rules, spec: str | Mapping[str, str], nodes: Mapping[str, Token]) -> list[Any]:
    """The entities an end of a pattern stands for (see the data file's header)."""
    if isinstance(spec, str):
        return rules.mentions(nodes[spec])
    if "named" in spec:
        m = rules.by_token.get(nodes[spec["named"]].i)
        return [m] if m is not None else []
    voice = spec.get("voice", "any")
    out: list[Any] = []
    for subject, passive in rules.subjects(nodes[spec["subjects_of"]]):
        if voice == "any" or (voice == "passive") == passive:
            out += [m for m in rules.mentions(subject) if m not in out]
    return out


def _denies(token: Token) -> bool:
    """"did not attack", "never signed", "failed to ratify" on a verb; "no treaty", "never ..." on a noun."""
    return negated_verb(token) if token.pos_ in ("VERB", "AUX") else says_no(token)


# --------------------------------------------------------------------------- declared functions


def unnamed(rules: Rules, token: Token) -> bool:
    """The token names no entity ("the dictator" in "Hitler, the dictator of Germany")."""
    return token.i not in rules.by_token


def not_listlike(rules: Rules, token: Token) -> bool:
    """The token is no member of a comma list the parser read as appositives (conjuncts, an appos of an appos):
    "the Yellow Sea, the China Sea, and the Sea of Japan"."""
    if token.conjuncts or any(c.dep_ == "cc" for c in token.children):
        return False
    return not (token.dep_ == "appos" and (token.head.dep_ == "appos" or any(c.dep_ == "appos" for c in token.children)))


def not_two_places(rules: Rules, first: Token, second: Token) -> bool:
    """Not two places side by side ("Paris, France": the chain rule's)."""
    a, b = rules.by_token.get(first.i), rules.by_token.get(second.i)
    return not (a is not None and b is not None and rules.is_place(a) and rules.is_place(b))


def without_object(rules: Rules, verb: Token) -> bool:
    """The verb has no object ("Stalin and Churchill met", not "... signed the treaty")."""
    return not any(c.dep_ in OBJECT_DEPS for c in verb.children)


def authored(rules: Rules, owner: Token, owned: Token) -> bool:
    """A work, product or law owned by a person or body: its maker ("Rodin's The Thinker")."""
    a, b = rules.by_token.get(owner.i), rules.by_token.get(owned.i)
    return a is not None and b is not None and b.label in _WORK_LABELS and a.label in ("PERSON", "ORG")


def not_authored(rules: Rules, owner: Token, owned: Token) -> bool:
    return not authored(rules, owner, owned)


def place_noun(rules: Rules, noun: Token, prep: Token) -> tuple[str, ...]:
    """"locate in" after "a town in", "a river of", "a suburb of": a noun naming a kind of place."""
    if CLASSIFIERS.get(noun.lemma_.lower()) in ("GPE", "LOC") and prep.lower_ in ("in", "of", "within", "on"):
        return ("locate in",)
    return ()


def placed_in(rules: Rules, owned: Token, owner: Token) -> tuple[str, ...]:
    """"poss in" when a place owns a place, a body or an event ("Ghana's Convention People's Party")."""
    a, b = rules.by_token.get(owner.i), rules.by_token.get(owned.i)
    if a is not None and b is not None and rules.is_place(a) and (rules.is_place(b) or b.label in ("ORG", "EVENT")):
        return ("poss in",)
    return ()


CHECKS: dict[str, Callable[..., bool]] = {f.__name__: f for f in (
    unnamed, not_listlike, not_two_places, without_object, authored, not_authored)}
"""The checks a pattern may name (``checks: ["unnamed(noun)"]``): each takes the rules and the named nodes."""
PREDICATE_FUNCTIONS: dict[str, Callable[..., Sequence[str]]] = {f.__name__: f for f in (place_noun, placed_in)}
"""The predicate functions a pattern may name (``"@place_noun(noun, prep)"``): zero or more predicates."""
