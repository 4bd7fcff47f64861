"""The type votes of one mention: what its label, its words, the gazetteer and its context say it is.
More in docs/extraction.md, "Module notes": kgkit.extractors.offline.votes.

>>> from kgkit.extractors.offline import DEFAULT_MODEL, load_model
>>> from kgkit.extractors.offline.gazetteer import load_places
>>> from kgkit.io import load_domain
>>> doc = load_model(DEFAULT_MODEL)("The wilderness lies southwest of Flagstaff.")
>>> [flagstaff] = [t for t in doc if t.text == "Flagstaff"]
>>> [t for t, _ in mention_votes(doc, [flagstaff], "Flagstaff", "ORG", [], load_domain("general"), load_places(), False)]
['Location', 'Organization']
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from kgkit.core.domain import Domain
from kgkit.core.given_names import GIVEN_NAMES
from kgkit.extractors.offline.cues import (
    AUTHORED,
    AWARDED,
    BORN,
    DISTANCE,
    MADE_BY,
    NOUNS,
    TAXA,
    WAYS,
    alias_of,
    entity_tokens,
    first_conjunct,
    head_label,
    head_word,
    outside_title,
    placed,
    renamed_label,
    role_label,
    with_people,
)
from kgkit.extractors.offline.fitted import cue_sums, record_cues, type_weights
from kgkit.extractors.offline.gazetteer import Places
from kgkit.extractors.offline.lexicon import (
    BY_PERSON,
    COMPASS,
    DEMONYMS,
    DIRECTIONAL,
    GENERIC,
    KIN,
    LOCATIVE,
    MONTHS,
    MOTION,
    PERSON_SUBJECT,
    SEIZED,
    WORK_OBJECT,
)
from kgkit.extractors.offline.parsed import NAME, text_of
from kgkit.extractors.offline.surnames import PLACE_SURNAMES
from kgkit.extractors.offline.wordlists import words

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

__all__ = ["CONTEXT_WEIGHT", "HEAD_WEIGHT", "NAME", "head_label", "mention_votes", "outside_title"]

# the hand-set scale the votes added after this one (list, pronoun, context votes) are read on; the cues' own
# weights are kgkit.extractors.offline.fitted.type_weights() (fitted on gold, hand-set in HAND_WEIGHTS)
LABEL_WEIGHT, HEAD_WEIGHT, CONTEXT_WEIGHT, DEMONYM_WEIGHT = 1.0, 2.0, 1.5, 2.0
_BY_LABEL = frozenset(["label", "head", "classifier", "context"])  # cues whose weight may differ by the label voted
_DOTTED = re.compile(r"(?:[A-Z]\.){2,}[A-Z]?\.?")
_ACRONYM = re.compile(r"[A-Z]{3,6}")
_CALL_SIGN = re.compile(r"[A-Z]{3,4} ?- ?(?:FM|AM|TV|DT|LP|HD)")
_YEAR = re.compile(r"1[0-9]{3}|20[0-9]{2}")
_REGIONS, _PLAY_FOR, _SPELL = words("votes", "regions"), words("votes", "play_for"), words("votes", "spell")
_BOUNDING, _BIO = words("votes", "bounding"), words("votes", "bio")


def _root(tokens: list[Token]) -> Token:
    """The token of the name whose head lies outside it (the last one when none does)."""
    first, last = tokens[0].i, tokens[-1].i
    return next((t for t in tokens if not first <= t.head.i <= last), tokens[-1])


def _classifier(doc: Doc, tokens: list[Token], root: Token) -> str | None:
    """The label a common noun beside the name implies: "the town of X", "the cruiser X", "X is a German film",
    "X, a town in ...", "the American writer X"."""
    after = doc[tokens[-1].i + 1] if tokens[-1].i + 1 < len(doc) else None
    if after is not None and after.is_lower and root.head.i == after.i and NOUNS.get(after.lemma_.lower()) in ("GPE", "LOC"):
        return NOUNS[after.lemma_.lower()]  # "Mie prefecture", "Vienna city council": places only
    if after is not None and after.is_lower and root.head.i == after.i and after.lemma_.lower() in MADE_BY:
        return "ORG"  # "on the Atlantic label", "the Penguin imprint"
    before = doc[tokens[0].i - 1] if tokens[0].i > 0 else None
    if before is not None and before.is_lower and (label := NOUNS.get(before.lemma_.lower())) is not None:
        return label  # "the cruiser Prinz Eugen", "the film Aanandam"
    if before is not None and before.is_lower and before.lower_ in TAXA and tokens[0].ent_type_:
        return "MISC"  # "the genus Ortalis", "the subfamily Oecophorinae": a taxon
    if (label := _listed(root)) is not None:
        return label  # "missiles such as Cirit and UMTAS", "the television series Lost, Alias and Fringe"
    head = root.head
    if (root.dep_ == "pobj" and head.lower_ == "of" and head.head.is_lower and head.head.i < root.i
            and (label := NOUNS.get(head.head.lemma_.lower())) in ("GPE", "LOC", "FAC")):
        return label  # "the town of Watersmeet", "the castle of Gross-Schwansee" (not "the chairman of Shaw Communications")
    nouns = [c for c in root.children if c.dep_ == "appos" and c.is_lower]
    if root.dep_ == "appos" and head.is_lower:
        nouns.append(head)
    if root.dep_ in ("nsubj", "nsubjpass") and head.lemma_ == "be":
        nouns += [c for c in head.children if c.dep_ == "attr" and c.is_lower]
    for noun in nouns:
        for n in (noun, *noun.conjuncts):
            if (label := NOUNS.get(n.lemma_.lower())) is not None and not (label == "PERSON" and placed(root)):
                return label
    return None


def _listed(root: Token) -> str | None:
    """The label of the plural noun a list of names exemplifies: "NOUNS such as A, B and C", "NOUNS including A",
    "NOUNS like A", "NOUNS include A", "A, B and C NOUNS"; or of the common noun just before the list's first name ("the television series Lost, Alias
    and Fringe": the second and third names)."""
    first = first_conjunct(root)
    head = first.head
    if first.dep_ == "pobj" and (head.lower_ in ("including", "like") or (
            head.lower_ == "as" and head.i > 0 and head.doc[head.i - 1].lower_ == "such")):
        noun = head.head.head if head.head.lower_ == "such" else head.head
        if noun.tag_ == "NNS" and (label := NOUNS.get(noun.lemma_.lower())) is not None:
            return label
    if (first.dep_ in ("compound", "nmod") and first.conjuncts and head.i > first.i and head.is_lower
            and root.lower_ not in DEMONYMS and root.pos_ == "PROPN"
            and head.tag_ == "NNS" and (label := NOUNS.get(head.lemma_.lower())) is not None):
        return label  # "the Final Fantasy, Dragon Quest and Kingdom Hearts series", "Stinger and Rapier missiles"
    if first.dep_ == "dobj" and head.lemma_ == "include":  # "Other nearby settlements include Aldoth, Tarns ..."
        for noun in head.children:
            if noun.dep_ == "nsubj" and noun.tag_ == "NNS" and (label := NOUNS.get(noun.lemma_.lower())) is not None:
                return label
            if noun.dep_ == "nsubj" and noun.tag_ == "NNS" and (noun.lemma_.lower() in KIN or noun.lower_ == "children"):
                return "PERSON"  # "His children included Srutakarma, Iravan, Babruvahana, and Abhimanyu"
    if first is not root and first.left_edge.i > 0:
        before = first.doc[first.left_edge.i - 1]
        if before.is_lower and before.pos_ == "NOUN" and (label := NOUNS.get(before.lemma_.lower())) is not None:
            return label
    return None


def _context(doc: Doc, tokens: list[Token], root: Token, places: Places) -> str | None:
    """What the words around a name say it is (docs/extraction.md, "Module notes"), or None."""
    head = root.head
    end = tokens[-1].i + 1
    if end + 2 < len(doc) and doc[end].text == "(":
        inside = [t for t in doc[end + 1 : min(end + 12, len(doc))]]
        close = next((n for n, t in enumerate(inside) if t.text == ")"), len(inside))
        inside = inside[:close]
        if len(inside) == 1 and _YEAR.fullmatch(inside[0].text):
            return "WORK_OF_ART"  # "The Wooden Horse (1950)"
        words = {t.lower_ for t in inside}
        if len(inside) > 1 and inside[-1].lower_ == "party" and all(t.text[:1].isupper() for t in inside) \
                and len(tokens) > 1:
            return "PERSON"  # "the deputy mayor is Terje Halleland ( Progress Party )": a politician
        if (any(_YEAR.fullmatch(t.text) for t in inside) and (words & _BIO or words & MONTHS)) or words & BORN:
            return "PERSON"  # "(11 October 1874, in Liegnitz - ...", "(born 1963 in ...)", "( / Níkos Aliágas ; born ..."
    start = tokens[0].i
    if start >= 2 and _YEAR.fullmatch(doc[start - 1].text) and (doc[start - 2].tag_ == "POS" or doc[start - 2].lower_ == "own"):
        return "WORK_OF_ART"  # "Taito's 1986 Arkanoid", "Coltrane's own 1957 Blue Train"
    if end + 1 < len(doc) and doc[end].text in ("-", "–") and doc[end + 1].lower_ in ("nominated", "winning"):
        return "MISC"  # an award: "Oscar-nominated", "Grammy-winning"
    lemma = head.lemma_.lower()
    if root.dep_ == "pobj" and head.lower_ == "by" and head.head.lemma_.lower() in BY_PERSON:
        return "PERSON"  # "directed by X", "voiced by X"
    if (root.dep_ == "nsubj" and lemma in PERSON_SUBJECT and lemma != "bear") or (root.dep_ == "nsubjpass" and lemma == "bear"):
        return "PERSON"  # "X died", "X was born"
    if (root.dep_ == "poss" and head.lemma_.lower() in KIN) or (
            root.dep_ == "pobj" and head.lower_ == "of" and head.head.lemma_.lower() in KIN and head.head.is_lower):
        return "PERSON"  # "X's wife", "the son of X"
    if root.dep_ == "poss" and head.lemma_.lower() in AUTHORED and head.is_lower:
        return "PERSON"  # "Plautus' play", "E. D. Baker's novel" (not "album", "film": bands, studios)
    if (root.dep_ == "dobj" and lemma in WORK_OBJECT) or (root.dep_ == "nsubjpass" and lemma in WORK_OBJECT):
        return "WORK_OF_ART"  # "Epic released Renegades", "X was published"
    if root.dep_ == "pobj" and ((head.lower_ == "of" and head.head.lower_ in COMPASS) or head.lower_ in ("near", "past")
                                or (head.lower_ == "by" and head.head.lemma_.lower() in _BOUNDING)):
        return "GPE"  # "southwest of Flagstaff", "near Rosharon", "bordered on the south by Misraq Gojjam"
    if root.dep_ == "pobj" and head.lower_ == "by" and head.i >= 2 and doc[head.i - 1].lower_ in COMPASS \
            and doc[head.i - 2].lower_ == "the":
        return "GPE"  # "on the north by Semien Gondar, on the northeast by Wag Hemra"
    if root.dep_ == "pobj" and head.lower_ in ("to", "from", "through", "via") and head.head.lemma_.lower() in WAYS:
        return "GPE"  # "the main A970 road to Hillswick", "the railway from Pirna"
    if (root.dep_ == "nsubjpass" and lemma in ("locate", "situate")) or (start > 0 and doc[start - 1].lower_ in ("located", "situated")):
        return "GPE"  # "Ramciel is located ...", "the more centrally located Ramciel"
    if end + 2 < len(doc) and doc[end].text == "," and (doc[end + 1].like_num or doc[end + 1].lower_ in ("a", "half")) \
            and any(t.lower_ in DISTANCE for t in doc[end + 2 : end + 10]):
        return "GPE"  # "Tarns, one-and-a-half miles to the south-west"
    if head_label(tokens) is None and ((root.dep_ == "dobj" and lemma in AWARDED)
                                       or (root.dep_ == "nsubjpass" and lemma in ("receive", "win", "earn"))):
        return "MISC"  # an award: "received a Bronze Star", "awarded him the Pulitzer" (not "Smith was awarded")
    if (other := renamed_label(root)) is not None:
        return other
    if root.dep_ == "pobj" and head.lower_ == "to" and head.head.lemma_.lower() in ("marry", "married"):
        return "PERSON"  # "married to Alexandra Colen"
    first = first_conjunct(root)  # "loaned him to Vitesse Arnhem, Everton and Málaga"
    prep = first.head
    if first.dep_ == "pobj" and (
            (prep.lower_ == "for" and prep.head.lemma_.lower() in _PLAY_FOR)
            or (prep.lower_ in ("to", "at", "with", "from", "for") and prep.head.lemma_.lower() in _SPELL)):
        return "ORG"  # a team: "played for Treze", "loaned to Málaga", "his spell with Olaria", "a career with Porto"
    if first.dep_ == "pobj" and prep.lower_ == "of" and prep.head.lemma_.lower() == "member" and prep.head.is_lower:
        return "ORG"  # "a member of the Spurs"
    if end + 1 < len(doc) and doc[end].text == "," and doc[end + 1].text[:1].isupper():
        after = [doc[end + 1]]
        while len(after) < 3 and after[-1].i + 1 < len(doc) and doc[after[-1].i + 1].pos_ == "PROPN":
            after.append(doc[after[-1].i + 1])
        for n in range(len(after), 0, -1):
            if places.kind(" ".join(t.text for t in after[:n])) in ("region", "country"):
                return "GPE"  # "McKees Rocks, Pennsylvania"
    return role_label(root)


def _team(tokens: list[Token], places: Places) -> bool:
    """A city or region followed by one or two capitalised words ending in a plural noun that is no head word or
    nationality ("Los Angeles Lakers", "Kansas City Kings"; not "Salt Lake City", "New York Times")."""
    last = tokens[-1]
    if last.tag_ not in ("NNPS", "NNS") or not last.text[:1].isupper() or last.lower_ in DEMONYMS \
            or last.lower_ in GENERIC or head_word(last) is not None or tokens[0].lower_ in GIVEN_NAMES:
        return False
    return any(places.kind(" ".join(t.text for t in tokens[:n])) in ("city", "region")
               for n in (len(tokens) - 1, len(tokens) - 2) if n >= 1)


def _no_surname(token: Token, label: str) -> bool:
    """A word spaCy called a person that is neither a common surname that places also bear ("Lincoln") nor a given
    name ("Florence"): as a known place, it votes Location as strongly as a name of several words ("Pirna")."""
    return label == "PERSON" and token.lower_ not in PLACE_SURNAMES and token.lower_ not in GIVEN_NAMES


def _given_name(tokens: list[Token]) -> bool:
    """A name of two to four words that opens with a given name and has no head word, function word or generic
    word after it ("Leona Naess", "Vivian French", not "Jackson Memorial Hospital")."""
    if not 2 <= len(tokens) <= 4 or tokens[0].lower_ not in GIVEN_NAMES:
        return False
    rest = tokens[1:]
    return all((t.text[:1].isupper() or t.text in ("-", ".")) and t.lower_ not in GENERIC and head_word(t) is None
               for t in rest)


def mention_votes(doc: Doc, tokens: list[Token], name: str, label: str, title: list[Token], domain: Domain,
                  places: Places, quoted: bool, *, aliases: bool = True) -> tuple[tuple[str, float], ...]:
    """(domain type, weight) pairs, best first, for the mention `tokens` named `name` with spaCy's `label`."""
    weights, cues = type_weights(), []

    def add(lab: str, cue: str) -> None:
        if (etype := domain.entity_type_for_label(lab)) is not None:
            cues.append((f"{cue}:{lab}" if cue in _BY_LABEL else cue, etype))

    add(label, "label")
    root = _root(tokens)
    if label == "NORP" and not quoted and (cls := _classifier(doc, tokens, root)) is not None:
        add(cls, "classifier")  # "Alexeni is a commune ..."
    if (label == "LANGUAGE" and len(tokens) == 1 and tokens[0].lower_ in DEMONYMS and tokens[0].dep_ in ("amod", "compound")
            and tokens[0].head.pos_ in ("NOUN", "PROPN")):
        add("NORP", "demonym")  # "an English actor": a nationality, not the language
    elif quoted or (label in ("NORP", "LAW", "LANGUAGE") and not title):
        pass  # a nationality, a quoted title, a law: the label says it; head words and places do not
    elif len(tokens) == 1 and tokens[0].lower_ in DEMONYMS:
        add("NORP", "demonym")  # "Americans": a group, whatever spaCy said
    elif len(tokens) == 1 and tokens[0].lower_ in _REGIONS:
        add("LOC", "head")  # "the Northwest", "the Midwest"
    else:
        if (head := head_label(tokens)) is not None:
            add(head, "head")
        if (cls := _classifier(doc, tokens, root)) is not None:
            add(cls, "classifier")
        if title or outside_title(doc, tokens[0]):
            add("PERSON", "title")
        kind = places.kind(name)
        if kind in ("city", "region") and len(tokens) == 1 and name.isupper() and len(name) > 2:
            kind = None  # "ABBA": capitals are an acronym or a band, not the town of Abba
        if head is None and kind is None and _team(tokens, places):
            add("ORG", "team")  # "San Antonio Spurs", "Fort Wayne Zollner Pistons": a team
        if kind == "country" or kind == "continent":
            add("GPE", "country")
        elif kind is not None:
            add("GPE", "place" if len(tokens) > 1 or _no_surname(tokens[0], label)
                else "org_place" if label == "ORG" else "short_place")
        prep = tokens[-1].head
        if tokens[-1].dep_ == "pobj" and (
            (label in ("PERSON", "PRODUCT", NAME) and prep.lower_ in LOCATIVE)
                or (label in ("PERSON", "PRODUCT", "ORG", "WORK_OF_ART", NAME)
                    and ((prep.lower_ in DIRECTIONAL and prep.head.lemma_.lower() in MOTION)
                         or (prep.lower_ == "of" and prep.head.lemma_.lower() in SEIZED)))):
            add("GPE", "locative")  # "in Kwajalein", "taken to Kwajalein", "our conquest of Tarawa"
        elif (label == "ORG" and len(tokens) == 1 and tokens[0].dep_ == "pobj" and prep.lower_ in LOCATIVE
              and prep.lower_ != "at" and tokens[0].is_title and head_word(tokens[0]) is None
              and tokens[0].lower_ not in GENERIC):
            add("GPE", "locative")  # "in Ryazan" (but "at Google", "in Congress", "in NATO" stay)
        if kind is None and (_DOTTED.fullmatch(name) or (label == "PERSON" and _ACRONYM.fullmatch(name))):
            add("ORG", "acronym")  # "N.R.A.", "OFLC": capitals that are no known place and no person's name
        if label == "PERSON" and len(tokens) > 1 and any(ch.isdigit() for ch in tokens[-1].text) and head is None:
            add("WORK_OF_ART" if tokens[-1].is_digit else "PRODUCT", "numbered")  # "Ong Bak 2", "Sikorsky S-38"
        if _CALL_SIGN.fullmatch(name):
            add("ORG", "call_sign")  # "CKNL-FM", "WNBC-TV": a broadcaster's call sign
        if (cue := _context(doc, tokens, root, places)) is not None and not (cue == "PERSON" and label == NAME) \
                and not (cue == "ORG" and label == "PERSON" and len(tokens) > 1):
            add(cue, "context")  # an untyped run is a person by a given name only ("Whereat Scrooge's niece")
        start = tokens[0].i
        titled = start > 0 and doc[start - 1].text == "The" and not doc[start - 1].is_sent_start
        if (label == "ORG" and head is None and kind is None and titled and tokens[-1].tag_ != "NNPS"
                and not tokens[-1].lower_.endswith("s")):
            add("WORK_OF_ART", "weak_title")  # "Manet's The Absinthe Drinker", "the blog The Brussels Journal"
        if kind is None and head is None and _given_name(tokens):
            add("PERSON", "given_name")
        if kind is None and head is None and label != "PERSON" and (label != "ORG" or len(tokens) > 1) and not titled \
                and with_people(root):
            add("PERSON", "with_people")  # "Thalía and Fernando Colunga" (not "Microsoft and Bill Gates")
    if quoted:
        add("WORK_OF_ART", "quote")
    votes = cue_sums(cues, weights)
    if aliases and not quoted and (other := alias_of(tokens, root)) is not None:
        words = entity_tokens(other)
        theirs = mention_votes(doc, words, " ".join(t.text for t in words), other.ent_type_, [], domain, places, False,
                               aliases=False)
        if theirs and theirs[0][1] > LABEL_WEIGHT and (len(theirs) == 1 or theirs[0][1] > theirs[1][1]):
            cues.append(("alias", theirs[0][0]))  # "Goght ( formerly Goghot )"
            votes = cue_sums(cues, weights)
    if label == NAME and not votes:
        cues.append(("name", domain.fallback_entity_type))  # nothing says what it is: the corpus may
        votes = cue_sums(cues, weights)
    if aliases:
        record_cues(text_of(doc), name, cues)  # the text joined once per parse, not per mention
    return tuple(sorted(votes.items(), key=lambda kv: (-kv[1], kv[0])))

