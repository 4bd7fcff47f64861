"""Context words and checks for the offline extractor's type votes (kgkit.extractors.offline.votes): classifying
nouns beside the lexicon's, what a name is another name of ("a device known as Chromecast"), a name listed only
with people, a person's noun that belongs to someone else, the role a verb gives a name ("Palaestra says",
"asked Omer Beriziky to form", "released by Avex Trax", "signed by Chelsea", "recorded for Windham Hill") and the
name it is another spelling of ("Goght (formerly Goghot)", "also known as Beijing Shougang"). English words only,
none taken from a corpus.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgkit.extractors.offline.lexicon import CLASSIFIERS, HEADS, PREFIXES, TITLES
from kgkit.extractors.offline.wordlists import table, words

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Token

__all__ = ["ALIAS_OPENERS", "AUTHORED", "AWARDED", "BORN", "DISTANCE", "MADE_BY", "NAMING", "NOUNS", "RENAMED_LABELS",
           "TAXA", "WAYS", "alias_of", "entity_tokens", "entity_words", "first_conjunct", "head_label", "head_word",
           "outside_title", "placed", "renamed_label", "role_label", "with_people"]

WAYS, TAXA, NAMING = words("cues", "ways"), words("cues", "taxa"), words("cues", "naming")
RENAMED_LABELS, BORN, AUTHORED = words("cues", "renamed_labels"), words("cues", "born"), words("cues", "authored")
MADE_BY, DISTANCE, AWARDED = words("cues", "made_by"), words("cues", "distance"), words("cues", "awarded")
NOUNS = {**{w: label for label, ws in table("cues", "nouns").items() for w in ws.split()}, **CLASSIFIERS}
UTTER = words("cues", "utter")  # what people do, not bodies
SPEECH = UTTER | words("cues", "speech")  # what a body's spokesman may do too ("Microsoft said")
ASKED, APPOINTED, ISSUED_BY = words("cues", "asked"), words("cues", "appointed"), words("cues", "issued_by")
MADE_FOR, PORTED, SIGNED = words("cues", "made_for"), words("cues", "ported"), words("cues", "signed")
CAREER, ALIAS_OPENERS = words("cues", "career"), words("cues", "alias_openers")


def head_label(tokens: list[Token]) -> str | None:
    """The label a name's head word implies: the word before "of", "for" or "on" ("University of Toronto" -> ORG,
    "Battle of Midway" -> EVENT, "Institute for Advanced Study" -> ORG) unless the last word names a body, event or law
    itself ("Gulf of Mexico Alliance"), else the last word ("Salt Lake County" -> GPE), else its first word
    ("Lake Tana", "East Indies", "Piazza XX Settembre"); one word ending in "-shire" is a county.

    >>> nlp = _nlp()
    >>> [head_label(list(nlp(name))) for name in ("Institute for Advanced Study", "East Indies", "Gulf of Mexico Alliance")]
    ['ORG', 'LOC', 'ORG']
    """
    words = [t for t in tokens if not t.like_num] or tokens  # "Public Law 132" -> "Law"
    of = next((n for n, t in enumerate(words) if t.lower_ in ("of", "for", "on")), 0)
    last = head_word(words[-1])
    if of > 0 and (head := head_word(words[of - 1])) is not None and (last in (None, "GPE", "LOC")
                                                                      or head in ("EVENT", "LAW")):
        return head  # "Government of the United States", "Gulf of Mexico", "Act of Union", not "Gulf of Mexico Alliance"
    if last is not None and len(tokens) > 1:
        return last
    if len(tokens) > 1 and (label := PREFIXES.get(tokens[0].lower_)) is not None:
        return label
    if len(tokens) == 1 and tokens[0].lower_.endswith("shire") and len(tokens[0]) > 6:
        return "GPE"  # "Yorkshire", "Lincolnshire": an English county, never a person
    if len(tokens) == 1 and tokens[0].lower_.rstrip("s").endswith("liga") and len(tokens[0]) > 6:
        return "ORG"  # "Bundesliga", "Oberligas": a league
    return None


def head_word(token: Token) -> str | None:
    word = token.lower_.rstrip(".") or token.lower_  # "Ltd.", "Corp.", "Co." as "ltd", "corp", "co"
    return HEADS.get(word) or HEADS.get(token.lemma_.lower()) or HEADS.get(word[:-1] if word.endswith("s") else "")


def outside_title(doc: Doc, token: Token) -> str:
    """Title words just before the mention, outside it ("President [Roosevelt]").

    >>> doc = _nlp()("We met Prime Minister Attlee.")
    >>> outside_title(doc, doc[4])
    'Prime Minister'
    """
    words: list[str] = []
    i = token.i - 1
    while i >= 0 and doc[i].lower_ in TITLES and doc[i].text[:1].isupper() and len(words) < 3:
        words.insert(0, doc[i].text)
        i -= 1
    return " ".join(words)


def placed(root: Token) -> bool:
    """Whether the name (or the one it stands beside) is the object of "in", "at" or "near": a person's noun after
    it belongs to someone else ("born in Berthier, Canada East, the son of Louis Mousseau").

    >>> doc = _nlp()("He was born in Berthier, Canada East, the son of Louis Mousseau.")
    >>> placed(doc[7]), placed(doc[0])  # "East", the root of "Canada East"
    (True, False)
    """
    while root.dep_ in ("appos", "conj", "compound") and root.head.i < root.i:
        root = root.head
    if root.dep_ == "pobj" and root.head.lower_ in ("in", "at", "near"):
        return True
    at = root.left_edge.i  # "born in Münsingen, Württemberg, the third child of ...": a place after a placed one
    return at >= 2 and root.doc[at - 1].text == "," and root.doc[at - 2].ent_type_ in ("GPE", "LOC") \
        and root.doc[at - 2].dep_ == "pobj" and root.doc[at - 2].head.lower_ in ("in", "at", "near")


def renamed_label(root: Token) -> str | None:
    """The label of what this name is another name of: "a device known as Chromecast" (the noun), "Klamath Falls
    was originally named Linkville", "the Financial District, also known as FiDi" (spaCy's label of the name).

    >>> doc = _nlp()("The idea was used for a device known as Chromecast.")
    >>> renamed_label(doc[-2])
    'PRODUCT'
    """
    head = root.head
    if root.dep_ == "pobj" and head.lower_ == "as" and head.head.lemma_.lower() in NAMING:
        verb = head.head
    elif root.dep_ in ("oprd", "attr", "dobj") and head.lemma_.lower() in NAMING and head.lemma_.lower() != "know":
        verb = head
    else:
        return None
    if verb.dep_ in ("acl", "relcl") and verb.head.i < verb.i:
        other = verb.head
    else:
        other = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if other is None or other.i == root.i:
        return None
    if other.ent_type_ in RENAMED_LABELS:
        return other.ent_type_
    return NOUNS.get(other.lemma_.lower()) if other.is_lower else None


def with_people(root: Token) -> bool:
    """Whether every name listed with this one is a person's full name, as spaCy labels it ("Thalía and Fernando
    Colunga", "Andreas and Harula Aliagas").

    >>> doc = _nlp()("His parents are Andreas and Harula Aliagas.")
    >>> with_people(doc[3]), with_people(doc[6])
    (True, False)
    """
    members = [c for c in root.conjuncts if c.pos_ == "PROPN"]
    return bool(members) and all(c.ent_type_ == "PERSON" and entity_words(c) > 1 for c in members)


def first_conjunct(token: Token) -> Token:
    """The first name of the list `token` ends or stands in ("Vitesse Arnhem, Everton and Málaga": "Arnhem").

    >>> doc = _nlp()("He was loaned to Vitesse Arnhem, Everton and Málaga.")
    >>> first_conjunct(doc[-2]).text
    'Arnhem'
    """
    while token.dep_ == "conj" and token.head.i < token.i:
        token = token.head
    return token


def entity_words(token: Token) -> int:
    """How many words spaCy's entity holding `token` has (0 for none)."""
    return len(entity_tokens(token)) if token.ent_iob_ in ("B", "I") else 0


def entity_tokens(token: Token) -> list[Token]:
    """The tokens of spaCy's entity holding `token` (`[token]` for none).

    >>> doc = _nlp()("He met Ada Lovelace in London.")
    >>> [t.text for t in entity_tokens(doc[3])]
    ['Ada', 'Lovelace']
    """
    if token.ent_iob_ not in ("B", "I"):
        return [token]
    doc, start, end = token.doc, token.i, token.i + 1
    while start > 0 and doc[start].ent_iob_ == "I":
        start -= 1
    while end < len(doc) and doc[end].ent_iob_ == "I":
        end += 1
    return list(doc[start:end])


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
    first = first_conjunct(root)  # "released for the GameCube, Microsoft Windows, N-Gage and Xbox"
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
    root = first_conjunct(root)  # "also known as Beijing Shougang or Beijing Ducks"
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
