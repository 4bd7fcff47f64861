"""What a name does in its sentence, for the offline extractor's type votes (kgkit.extractors.offline.votes): the
role a verb gives it ("Palaestra says", "asked Omer Beriziky to form", "released by Avex Trax", "signed by
Chelsea", "recorded for Windham Hill") and the name it is another spelling of ("Goght (formerly Goghot)", "also
known as Beijing Shougang"). English words only, none taken from a corpus.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgkit.extractors.offline.cues import entity_tokens
from kgkit.extractors.offline.lexicon import CLASSIFIERS
from kgkit.extractors.offline.wordlists import words

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Token

__all__ = ["ALIAS_OPENERS", "alias_of", "role_label"]

UTTER = words("roles", "utter")  # what people do, not bodies
SPEECH = UTTER | words("roles", "speech")  # what a body's spokesman may do too ("Microsoft said")
ASKED, APPOINTED, ISSUED_BY = words("roles", "asked"), words("roles", "appointed"), words("roles", "issued_by")
MADE_FOR, PORTED, SIGNED = words("roles", "made_for"), words("roles", "ported"), words("roles", "signed")
CAREER, ALIAS_OPENERS = words("roles", "career"), words("roles", "alias_openers")


def role_label(root: Token) -> str | None:
    """The label the verb governing a name gives it, or None. PERSON: the subject of a verb of speech ("Palaestra
    says"); the object of "ask", "invite", "urge" ... with an infinitive after it ("asked Omer Beriziky to form the
    government") or of "appoint", "elect", "marry" ...; what a person's noun "was" ("the first prime minister of
    Siam was Phraya Manopakorn Nititada"). ORG: the passive agent of "release", "publish", "distribute", "sign",
    "loan", "buy" ... ("released by Avex Trax", "signed by Chelsea"); the object of "for" after "record",
    "produce", "animate" ("recorded for Windham Hill"); "with" after a verb whose object is a career or spell
    ("began his career with Porto"). PRODUCT: a platform, the object of "for" or "on" after "release", "port",
    "launch" ... ("released for the GameCube, Microsoft Windows and Xbox"), not a person or a place.

    >>> doc = _nlp()("In the play, Epidicus asks the girl a question.")
    >>> role_label(doc[4])
    'PERSON'
    >>> doc = _nlp()("The single was released by Avex Trax in 2000.")
    >>> role_label(doc[6])
    'ORG'
    """
    head, dep = root.head, root.dep_
    lemma = head.lemma_.lower()
    one_body = root.ent_type_ == "ORG" and len(entity_tokens(root)) == 1  # "Microsoft", "Congress"
    if dep == "nsubj" and head.pos_ == "VERB" and (lemma in UTTER or (lemma in SPEECH and not one_body)) \
            and not root.text.isupper():
        return "PERSON"  # "Palaestra asks", "Nikos said" (not "Microsoft said", "NASA asked")
    if dep == "dobj" and not one_body and (
            lemma in APPOINTED or (lemma in ASKED and any(
            c.dep_ in ("xcomp", "ccomp") and c.i > root.i for c in head.children))):
        return "PERSON"
    if dep == "attr" and lemma == "be" and any(c.dep_ == "nsubj" and c.is_lower and c.pos_ == "NOUN"
                                               and CLASSIFIERS.get(c.lemma_.lower()) == "PERSON" for c in head.children):
        return "PERSON"  # "the first prime minister of Siam was Phraya Manopakorn Nititada"
    if dep == "pobj" and ((head.dep_ == "agent" and head.head.lemma_.lower() in ISSUED_BY | SIGNED)
                          or (head.lower_ == "for" and head.head.lemma_.lower() in MADE_FOR)):
        return "ORG"
    if dep == "pobj" and head.lower_ == "with" and head.head.pos_ == "VERB" and any(
            c.dep_ == "dobj" and c.lemma_.lower() in CAREER for c in head.head.children):
        return "ORG"  # "began his career with Porto"
    first = root
    while first.dep_ == "conj" and first.head.i < first.i:
        first = first.head  # "released for the GameCube, Microsoft Windows, N-Gage and Xbox"
    prep = first.head
    if (first.dep_ == "pobj" and prep.lower_ in ("for", "on") and prep.head.lemma_.lower() in PORTED
            and root.ent_type_ not in ("PERSON", "GPE")):
        return "PRODUCT"  # a platform: "released for the GameCube", "launched on Android"
    return None


def alias_of(tokens: list[Token], root: Token) -> Token | None:
    """The last word of the name this one is another spelling of, in brackets after it: "Goght ( formerly Goghot
    )", "Debub Gondar ( or South Gondar )", "Tobolsk ( initially spelt as Tobolesk )"; or after "also known as",
    "also called", "referred to as" a name is subject of ("the Beijing Shougang Ducks ..., also known as Beijing
    Shougang"). None when there is none.

    >>> doc = _nlp()("Goght ( formerly Goghot ) is a village in Armenia.")
    >>> alias_of([doc[3]], doc[3]).text
    'Goght'
    """
    doc = root.doc
    start = tokens[0].i
    i = start - 1
    words = 0
    while i >= 0 and doc[i].text != "(" and words < 5:
        if doc[i].text in (")", "."):
            return None
        words += 1
        i -= 1
    if i < 1 or doc[i].text != "(":
        return _known_as(root)
    between = [t.lower_ for t in doc[i + 1 : start]]
    if not between or not (set(between) & ALIAS_OPENERS or "spelt" in between or "spelled" in between):
        return _known_as(root)
    before = doc[i - 1]
    return before if before.pos_ == "PROPN" or (before.ent_type_ and before.pos_ == "NOUN") else None


def _known_as(root: Token) -> Token | None:
    """The subject a name is "also known as", "called", "referred to as" (the other name's head word)."""
    while root.dep_ == "conj" and root.head.i < root.i:
        root = root.head  # "also known as Beijing Shougang or Beijing Ducks"
    head = root.head
    if not (root.dep_ == "pobj" and head.lower_ == "as" and head.head.lemma_.lower() in ("know", "refer", "call",
                                                                                          "spell", "style")):
        return None
    verb = head.head
    other = verb.head if verb.dep_ in ("acl", "relcl", "advcl") and verb.head.i < verb.i else next(
        (c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if other is None or other.i >= root.i or not other.ent_type_:
        return None
    return other


def _nlp() -> Language:  # the extractor's model, for the examples above
    from kgkit.extractors.offline.loading import DEFAULT_MODEL, load_model

    return load_model(DEFAULT_MODEL)
