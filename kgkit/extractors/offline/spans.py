"""Candidate name spans of one parsed text: spaCy's entities, mended where its small model cuts or splits names,
proper-noun runs and acronyms it left out, and quoted titles (kgkit.extractors.offline.mentions cleans and types
them; a bare proper-noun run is labelled NAME and kept only if something types it).

- A year before an event joins it ("2002 Winter Olympics", "the 2004 NFL Draft", "the 2016–17 Ranji Trophy"), an
  ordinal before a unit ("the 24th Infantry Division"); a first name left out before a person's name joins it
  ("Anatoly [Borisovich Chubais]"), and the proper nouns, particles and hyphens after it ("João Paulo de Leiria
  [e Silva]"), with a nickname or maiden name in brackets or quotes ("Jacqueline (Maranger) Desmarais").
- Names cut at a hyphen, a foreign particle, an "of" or a nationality word are joined again ("Moravian - Silesian
  Region", "Sogn og Fjordane", "the Bay of Biscay", "the Russian Far East"), as are two names the parse makes one
  noun phrase ("Tokyo Imperial Palace") and two joined by "and" sharing a head word ("the Delaware and Hudson Railroad").
- A quoted title-case phrase, one a sentence defines or a work's noun introduces, is one name replacing the entities
  inside it (kgkit.extractors.offline.titles); a name of several words is the same name wherever its words recur.
- Pieces of one name across a possessive, a "for", a word tagged as a verb or a regnal number are joined by
  kgkit.extractors.offline.joins ("Martha's River", "the Court of Appeals for the Second Circuit", "Creve Coeur Park").
- Lower-case nouns a text left inside an organisation's name join it ("the farm Security Administration", "the
  Reconstruction finance Corporation"; capitalised in the name), and a document its number ("House Document 398").

>>> from kgkit.extractors.offline import DEFAULT_MODEL, load_model
>>> doc = load_model(DEFAULT_MODEL)("Land was sold to the Delaware and Hudson Railroad in 1823.")
>>> [(doc[a:b].text, label) for a, b, label in candidate_spans(doc)]  # "Land": a run that only opens a sentence
[('Land', 'NAME'), ('Delaware and Hudson Railroad', 'GPE')]
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from kgkit.core.given_names import GIVEN_NAMES
from kgkit.extractors.offline.editions import editions
from kgkit.extractors.offline.fragments import split_joined
from kgkit.extractors.offline.joins import join_pieces
from kgkit.extractors.offline.lexicon import (
    ADJECTIVAL,
    COMPASS,
    DEMONYMS,
    DETERMINERS,
    GENERIC,
    HEADS,
    NAME_PARTICLES,
    PREFIXES,
    TITLES,
)
from kgkit.extractors.offline.parsed import NICKNAMED, QUOTED, closes, lowered, sentence_of, text_of
from kgkit.extractors.offline.titles import classified_titles, defined_subjects, quoted_titles
from kgkit.extractors.offline.votes import NAME, head_label

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token

    from kgkit.extractors.offline.gazetteer import Places

__all__ = ["NICKNAMED", "NUMERIC_LABELS", "QUOTED", "candidate_spans", "closes", "lowered", "sentence_of", "split_pair", "text_of"]

NUMERIC_LABELS = ("DATE", "CARDINAL", "ORDINAL")
_HYPHENS = {"-", "–"}
_ROMAN = re.compile(r"[IVXLC]+\.?")
_REGNAL = re.compile(r"(?:X{0,2})(?:IX|IV|V?I{0,3})")  # I to XXIX
_OPENERS, _CLOSERS = {"(", '"', "“", "``"}, {")", '"', "”", "''"}
_JOINING = NAME_PARTICLES | {"e", "y", "von", "der"}  # "João Paulo de Leiria e Silva", "García y Pérez"
# lower-case words that join two capitalised parts of one foreign name: "Sogn og Fjordane", "Zell am See", "San
# Pietro ad Aram", "Bruck an der Leitha" ("an" only before "der"/"dem": it is an English article too)
_CONNECTORS = (NAME_PARTICLES - {"st", "la", "le", "el", "al"}) | {"og", "am", "ad", "y", "e", "von", "der", "den", "zu", "zum", "zur", "im", "sur", "upon"}
_SECOND_CONNECTORS = {"der", "den", "dem", "la", "las", "los", "le", "les", "el", "al"}  # "an der", "de la", "de los"
_CUT_AT = {"of"} | NAME_PARTICLES  # an entity ending in one of these was cut before the rest of its name
_NUMBERED, _ROAD_NUMBER = {"route", "highway", "interstate", "motorway", "expressway", "freeway", "autobahn", "document"}, re.compile(r"[A-Z]{0,2}-?\d{1,4}[A-Z]?")


def candidate_spans(doc: Doc) -> list[tuple[int, int, str]]:
    """Entity token ranges with their labels: spaCy's entities (a year before an event joined to it) and quoted
    titles (which replace the entities inside them)."""
    ents = list(doc.ents)
    spans: list[tuple[int, int, str]] = []
    covered = 0  # a person's name taken over the entities after it ("Jacqueline (Maranger) Desmarais")
    for n, ent in enumerate(ents):
        if ent.label_ in NUMERIC_LABELS or ent.start < covered:
            continue
        start = ent.start
        previous = ents[n - 1] if n else None
        if (ent.label_ == "EVENT" and previous is not None and previous.end == ent.start and previous.label_ in NUMERIC_LABELS
                and len(previous) == 1 and re.fullmatch(r"\d{4}|[IVXLC]+", previous.text)):
            start = previous.start  # "2002 Winter Olympics"
        while ent.label_ == "PERSON" and start > 0 and _first_name_before(doc[start - 1], ent):
            start -= 1  # "Anatoly [Borisovich Chubais]": a proper noun the NER left out before a person's name
        end, label = ent.end, ent.label_
        if label == "ORG":
            start, end = _lower_before(doc, start, end), _lower_inside(doc, start, end)
        if label == "PERSON":
            end, label = _name_after(doc, end)
            end += _regnal(doc, end)
        elif doc[end - 1].lower_ in _NUMBERED and end < len(doc) and _ROAD_NUMBER.fullmatch(doc[end].text):
            end += 1  # "U.S. Route 20", "County Route 501", "Interstate I-95": the number is the name
        covered = end
        spans.append((start, end, label))
    for run in _proper_runs(doc) + _acronyms(doc):
        if not any(s[0] < run[1] and run[0] < s[1] for s in spans):
            spans.append(run)
    spans = _join_coordinated(doc, _join_hyphens(doc, _join_particles(doc, _join_compounds(doc, _join_nationality(doc, sorted(spans))))))
    spans = join_pieces(doc, spans)
    quoted = quoted_titles(doc) + defined_subjects(doc) + classified_titles(doc)
    if quoted:
        spans = [s for s in spans if not any(s[0] < q[1] and q[0] < s[1] for q in quoted)] + quoted
    return editions(doc, _numbered(doc, _same_everywhere(doc, sorted(spans))))


def _numbered(doc: Doc, spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """A name ending in a word that takes a number takes the number after it, read as a number or an amount:
    "House Document 398", "County Route 501"."""
    out: list[tuple[int, int, str]] = []
    for span in spans:
        if (out and out[-1][1] == span[0] and span[1] - span[0] == 1 and doc[span[0] - 1].lower_ in _NUMBERED
                and span[2] in (*NUMERIC_LABELS, "MONEY", "QUANTITY") and _ROAD_NUMBER.fullmatch(doc[span[0]].text)):
            out[-1] = (out[-1][0], span[1], out[-1][2])
            continue
        out.append(span)
    return out


def _same_everywhere(doc: Doc, spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """A name of several words found once is the same name wherever its words recur in the text: the pieces spaCy
    cut it into elsewhere ("Rage Against the Machine" defined, then "Rage Against the [Machine]'s songs") give way to
    it, unless a longer name holds the place."""
    longest: dict[tuple[str, ...], tuple[int, int, str]] = {}
    for span in spans:
        if span[1] - span[0] >= 2 and doc[span[0]].text[:1].isupper() and doc[span[1] - 1].text[:1].isupper():
            key = tuple(t.text for t in doc[span[0] : span[1]])
            longest.setdefault(key, span)
    if not longest:
        return spans
    firsts: dict[str, list[tuple[str, ...]]] = {}
    for key in sorted(longest, key=len, reverse=True):
        firsts.setdefault(key[0], []).append(key)
    out = list(spans)
    for i, token in enumerate(doc):
        for key in firsts.get(token.text, ()):
            end = i + len(key)
            if end > len(doc) or tuple(t.text for t in doc[i:end]) != key or longest[key][0] == i:
                continue
            if sentence_of(doc, i) != sentence_of(doc, end - 1):
                continue
            inside = [s for s in out if i <= s[0] and s[1] <= end]
            if any(s[0] < end and i < s[1] and s not in inside for s in out) or [s[:2] for s in inside] == [(i, end)]:
                continue  # a longer or crossing name holds the place, or it is already the name
            out = [s for s in out if s not in inside] + [(i, end, longest[key][2])]
            break
    return sorted(out)


def _lower_before(doc: Doc, start: int, end: int) -> int:
    """The start of an organisation's name with the lower-case nouns between "the" and it, in a text that lost their
    capitals: "the farm [Credit Administration]", "the food and [Agriculture Organization]" (its head word ends it;
    not adjectives: "the former [Foreign Office]")."""
    if HEADS.get(doc[end - 1].lower_) != "ORG":
        return start
    first = next((t.i for t in doc[start:end] if t.text[:1].isupper()), end)  # spaCy may have taken them in
    if any(not (t.is_lower and t.tag_ in ("NN", "CC", "DT")) for t in doc[start:first]):
        return start
    i = first
    while i > 0 and doc[i - 1].is_lower and (doc[i - 1].tag_ == "NN" or (doc[i - 1].lower_ == "and" and i > 1 and doc[i - 2].tag_ == "NN")):
        i -= 1
    if not (i < first and i > 0 and doc[i - 1].lower_ == "the" and doc[i].lower_ != "and"):
        return start
    lowered(doc).update(t.i for t in doc[i:first] if t.lower_ != "and")
    return min(i, start)


def _lower_inside(doc: Doc, start: int, end: int) -> int:
    """The end of an organisation's name cut before a lower-case noun and the capitalised head word after it, in a
    text that lost their capitals: "the [Reconstruction] finance Corporation"."""
    if (end + 1 < len(doc) and doc[end].is_lower and doc[end].tag_ == "NN" and doc[end + 1].text[:1].isupper()
            and HEADS.get(doc[end + 1].lower_) == "ORG" and doc[end - 1].text[:1].isupper()
            and doc[end + 1].ent_iob_ != "I" and sentence_of(doc, end) == sentence_of(doc, end + 1)):
        lowered(doc).add(end)
        return end + 2
    return end


def _name_after(doc: Doc, end: int) -> tuple[int, str]:
    """The end of a person's name the NER cut short, and its label: capitalised proper nouns outside any entity
    after it, with the particles and hyphens between them ("Carl Gösta Björn Joachim [von der] Esch", "João Paulo
    de Leiria [e Silva]", "Jeanne Lucie Augustine [Claudia Faure - Favier]"), and a nickname or maiden name in
    brackets or quotes followed by the surname ("Jacqueline (Maranger) Desmarais", 'James Llewellyn "Jimmy"
    Frise': label NICKNAMED, so that the brackets stay inside)."""
    label = "PERSON"
    sent_end = sentence_of(doc, end - 1)[1]
    if not doc[end - 1].text[:1].isupper():
        return end, label  # "Tony Day of [Cape Town]": the name stopped before
    if (end + 3 < sent_end and doc[end].text in _OPENERS and doc[end + 1].is_title and doc[end + 1].is_alpha
            and doc[end + 2].text in _CLOSERS and _goes_on(doc[end + 3], True)):
        end, label = end + 4, NICKNAMED
    while end < sent_end:
        if _goes_on(doc[end], label == NICKNAMED):
            end += 1
            continue
        joint = end  # particles ("von der") or a hyphen between two parts of the name
        while joint < sent_end and joint - end < 2 and ((doc[joint].is_lower and doc[joint].lower_ in _JOINING)
                                                        or (doc[joint].text in _HYPHENS and joint == end)):
            joint += 1
        if joint == end or joint >= sent_end or not _goes_on(doc[joint], False) or not doc[end - 1].text[:1].isupper():
            break
        end = joint + 1
    return end, label


def _regnal(doc: Doc, end: int) -> int:
    """1 when a regnal number follows a person's name: "King Constantine I of Greece", "Bush I in 1989",
    "Henry VIII, who"; not the pronoun "I" before a verb ("when Smith and I went")."""
    if end >= len(doc) or not _REGNAL.fullmatch(doc[end].text):
        return 0
    after = doc[end + 1] if end + 1 < len(doc) else None
    return int(after is None or after.is_punct or after.lower_ in ("of", "in", "and", "'s", "’s", "the"))


def _goes_on(token: Token, inside_entity: bool) -> bool:
    """A capitalised proper noun that can go on a person's name (outside any entity but a person's, unless
    `inside_entity`)."""
    return (token.tag_ == "NNP" and token.text[:1].isupper() and any(c.isalpha() for c in token.text)
            and (inside_entity or token.ent_type_ in ("", "PERSON")) and not token.is_sent_start and token.lower_ not in TITLES
            and token.lower_ not in GENERIC and token.lower_ not in DEMONYMS and token.lower_ not in HEADS
            and not _ROMAN.fullmatch(token.text))


def _first_name_before(token: Token, ent: Span) -> bool:
    """A capitalised proper noun just before a person's name, outside any entity, that modifies a word of it."""
    return (token.tag_ == "NNP" and token.is_alpha and token.is_title and not token.ent_type_ and not token.is_sent_end
            and token.dep_ == "compound" and ent.start <= token.head.i < ent.end and token.lower_ not in TITLES
            and token.lower_ not in GENERIC and token.lower_ not in DEMONYMS)


def _acronyms(doc: Doc) -> list[tuple[int, int, str]]:
    """Capitals the NER left out ("INSEAD", "DLNA"): an organisation, by default."""
    return [(t.i, t.i + 1, "ORG") for t in doc if t.tag_ == "NNP" and t.is_upper and t.is_alpha and 3 <= len(t.text) <= 6
            and not t.ent_type_ and not _ROMAN.fullmatch(t.text)]


def _join_nationality(doc: Doc, spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """A nationality word just before a name is part of it ("the Swedish Riksdag", "the Russian Far East", "the
    Norwegian Premier League"; not before a person's name, "Irishman Tadhg Kennelly", nor a title, "Malaysian Prime
    Minister Mahathir", nor a given name spaCy did not call a person, "Democrat Sidney Yates"). The name's label
    stays."""
    out: list[tuple[int, int, str]] = []
    for span in spans:
        if out and out[-1][1] == span[0] and out[-1][1] - out[-1][0] == 1 and span[2] not in ("PERSON", "NORP", NICKNAMED) \
                and span[2] not in NUMERIC_LABELS:
            word, after = doc[out[-1][0]], doc[span[0]]
            headed = head_label(list(doc[span[0] : span[1]])) is not None  # "Premier League", "Senate"
            if ((word.lower_ in DEMONYMS or out[-1][2] == "NORP") and word.text[:1].isupper()
                    and after.tag_ in ("NNP", "NNPS") and after.text[:1].isupper()
                    and ((after.lower_ not in TITLES and after.lower_ not in GIVEN_NAMES) or headed)
                    and sentence_of(doc, word.i) == sentence_of(doc, after.i)):
                out[-1] = (out[-1][0], span[1], span[2])
                continue
        out.append(span)
    return out


def _join_compounds(doc: Doc, spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Two names side by side that the parse makes one noun phrase (the first's last word a compound modifier of a
    word of the second) are one name: "Tokyo Imperial Palace", "Daniel K. Inouye International Airport", "AFC
    Bournemouth", "Mladá Boleslav"; a person's name only before a head word). Not a title before a name
    ("General [Lucius D. Clay]", "U.S. Representative"), nor a place before a person's full name ("Republic of
    Kazakhstan Nursultan Nazarbayev"). The label is the
    second's (the head's; none when it had none: "Hollywood Reporter"), or the first's when the second is a
    one-word person ("Mladá Boleslav"), a compass word ("Dublin West") or the city of a club or firm ("DVA
    Miami")."""
    out: list[tuple[int, int, str]] = []
    for span in spans:
        if out and out[-1][1] == span[0] and _one_phrase(doc, out[-1], span):
            a = out[-1]
            label = span[2]
            if span[2] in ("PERSON", NICKNAMED) or (span[2] == NAME and span[1] - span[0] == 1 and doc[span[0]].lower_ in COMPASS) \
                    or (a[2] == "ORG" and span[2] in ("GPE", "LOC")):
                label = a[2]  # "Mladá Boleslav", "Dublin West", "DVA Miami" (a club or firm and its city)
            out[-1] = (a[0], span[1], label)
            continue
        out.append(span)
    return out


def _one_phrase(doc: Doc, a: tuple[int, int, str], b: tuple[int, int, str]) -> bool:
    labels = (a[2].strip(), b[2].strip())
    last, first = doc[a[1] - 1], doc[b[0]]
    return (last.dep_ == "compound" and b[0] <= last.head.i < b[1] and last.text[:1].isupper() and first.text[:1].isupper()
            and not any(x in NUMERIC_LABELS or x in ("NORP", QUOTED.strip()) for x in labels)
            and not any(t.lower_ in TITLES for t in doc[a[0] : a[1]])
            and first.lower_ not in TITLES and doc[b[1] - 1].lower_ not in TITLES
            and not (labels[1] == "PERSON" and b[1] - b[0] >= 2)
            and (labels[0] != "PERSON" or (labels[1] != "PERSON" and head_label(list(doc[b[0] : b[1]])) is not None))
            and sentence_of(doc, a[0]) == sentence_of(doc, b[0]))


def _join_particles(doc: Doc, spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Two capitalised parts of one name joined again across what spaCy cut them at: lower-case particles of a
    foreign name ("Sogn og Fjordane", "San Pietro ad Aram", "Jeanne Thérèse du Han de Martigny"; the second part
    a name or one capitalised word outside any, "Zell am See"), or an entity (not a person's, nor a role) that
    ends in "of" or a particle, followed at once by the rest of its name ("the Bay of" + "Biscay", "the Circuit
    Court of" + "Cook County"; a bare run only when it is one kind word before no person: "Library of" + "Congress",
    not "the Ghost of" + "Jacob Marley"). The first part's label stays (unless it had none)."""
    starts = {s[0]: s for s in spans}
    taken = {i for s in spans for i in range(s[0], s[1])}
    out: list[tuple[int, int, str]] = []
    skip = -1
    for span in spans:
        if span[0] < skip:
            continue
        first, end, label = span
        while True:
            nxt = _joined_part(doc, first, end, label, starts, taken)
            if nxt is None:
                break
            end, label = nxt[1], label if label != NAME else nxt[2]
        skip = end
        out.append((first, end, label))
    return out


def _joined_part(doc: Doc, first: int, end: int, label: str, starts: dict[int, tuple[int, int, str]],
                 taken: set[int]) -> tuple[int, int, str] | None:
    """The part of a name after the span [first, end) across particles or a cut, or None."""
    if end >= len(doc) or sentence_of(doc, first) != sentence_of(doc, end):
        return None
    last = doc[end - 1]
    if (last.lower_ in _CUT_AT and last.is_lower and end - first >= 2 and doc[end - 2].text[:1].isupper()
            and label != "PERSON" and (label != NAME or (end - first == 2 and (doc[first].lower_ in GENERIC or doc[first].lower_ in HEADS)
                                                         and starts.get(end, (0, 0, "PERSON"))[2] != "PERSON"))
            and not any(t.lower_ in TITLES for t in doc[first:end])):
        gap = end  # spaCy's entity took the "of" and stopped: "the Bay of" + "Biscay"; a kind word's "Library of" + "Congress"
    elif last.text[:1].isupper() and last.is_alpha:
        gap = end
        if doc[gap].lower_ in _CONNECTORS and doc[gap].is_lower:
            gap += 1
            if gap < len(doc) and doc[gap].lower_ in _SECOND_CONNECTORS and doc[gap].is_lower:
                gap += 1
        elif doc[gap].lower_ == "an" and gap + 1 < len(doc) and doc[gap + 1].lower_ in ("der", "dem"):
            gap += 2
        if gap == end or gap - end > 2:
            return None
    else:
        return None
    if gap >= len(doc) or sentence_of(doc, gap) != sentence_of(doc, first) or not doc[gap].text[:1].isupper() \
            or not doc[gap].is_alpha:
        return None
    if gap in starts:
        return starts[gap]
    if gap not in taken and gap > end and doc[gap].is_title and (gap + 1 >= len(doc) or not doc[gap + 1].text[:1].isupper()):
        return gap, gap + 1, NAME  # "Zell am See": one capitalised word outside any name
    return None


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


def _join_coordinated(doc: Doc, spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Two names joined by "and" that share the second one's head word are one name: "the Delaware and Hudson
    Railroad", "the Lewis and Clark Expedition", "the French and Indian War" (the first name, with no head word
    of its own, modifies a word of the second; not "Japan and the Soviet Union", "Holme Abbey and Holme St.
    Cuthbert", nor a plural head shared by two names: "the Arctic and Pacific Oceans", nor titles: "the
    Generalissimo and Marshal Stalin")."""
    out: list[tuple[int, int, str]] = []
    for span in spans:
        if out and span[0] == out[-1][1] + 1 and doc[out[-1][1]].lower_ in ("and", "&") and span[1] - span[0] >= 2:
            modifier, head = doc[out[-1][1] - 1], doc[span[1] - 1]
            if (modifier.dep_ in ("nmod", "compound", "amod") and span[0] < modifier.head.i < span[1]
                    and head.tag_ not in ("NNS", "NNPS") and modifier.lower_ not in ADJECTIVAL
                    and head_label(list(doc[out[-1][0] : out[-1][1]])) is None
                    and not any(t.lower_ in TITLES for t in doc[out[-1][0] : span[0] + 1])
                    and _capitalised(doc[span[0] : span[1]]) and sentence_of(doc, out[-1][0]) == sentence_of(doc, span[0])):
                out[-1] = (out[-1][0], span[1], span[2])
                continue
        out.append(span)
    return out


def _capitalised(tokens: Span) -> bool:
    return all(t.text[:1].isupper() for t in tokens if t.is_alpha)


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
            label = head_label(tokens) or PREFIXES.get(tokens[0].lower_) or NAME
            start = i - 1 if label == "EVENT" and i > 0 and re.fullmatch(r"\d{4}", doc[i - 1].text) else i
            out.append((start, j, label))
        elif len(tokens) == 1 and tokens[0].is_alpha and tokens[0].is_title and len(tokens[0].text) > 2:
            out.append((i, j, NAME))
        i = max(j, i + 1)
    return out




def split_pair(doc: Doc, first: int, last: int, places: Places) -> list[tuple[int, int]]:
    """Two names fused at "and" are two: both known places ("Wake and Bataan", unless the whole is one: "Trinidad and
    Tobago"), or the second repeating the first's opening word ("World War I and World War II"); so are two joined
    by a dash or a team and its league (`split_joined`: "Dallas–Fort Worth", "the Kansas City Chiefs of the NFL").

    >>> from kgkit.extractors.offline import DEFAULT_MODEL, load_model
    >>> from kgkit.extractors.offline.gazetteer import load_places
    >>> doc = load_model(DEFAULT_MODEL)("They spoke of World War I and World War II.")
    >>> [doc[a:b].text for a, b in split_pair(doc, 3, 10, load_places())]
    ['World War I', 'World War II']
    """
    words = [t for t in doc[first:last] if t.lower_ not in DETERMINERS]
    ands = [t.i for t in words if t.lower_ == "and"]
    if len(ands) != 1 or not all(t.text[:1].isupper() for t in words if t.i != ands[0]):
        return split_joined(doc, first, last, places)
    left = [t for t in words if t.i < ands[0]]
    right = [t for t in words if t.i > ands[0]]
    text = lambda ts: " ".join(t.text for t in ts)  # noqa: E731
    if not left or not right or places.kind(text(words)) is not None:
        return split_joined(doc, first, last, places)
    if (places.kind(text(left)) and places.kind(text(right))) or (len(left) >= 2 and len(right) >= 2 and left[0].text == right[0].text):
        return [(first, ands[0]), (ands[0] + 1, last)]
    return split_joined(doc, first, last, places)
