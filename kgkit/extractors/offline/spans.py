"""Candidate name spans of one parsed text: spaCy's entities, mended where its small model cuts or splits names,
proper-noun runs and acronyms it left out, and quoted titles (kgkit.extractors.offline.mentions cleans and types
them; a bare proper-noun run is labelled NAME and kept only if something types it).

- A year before an event joins it ("2002 Winter Olympics"); a first name left out before a person's name joins it
  ("Anatoly [Borisovich Chubais]"), and the proper nouns, particles and hyphens after it ("João Paulo de Leiria
  [e Silva]"), with a nickname or maiden name in brackets or quotes ("Jacqueline (Maranger) Desmarais").
- Names cut at a hyphen are joined again ("Moravian - Silesian Region"); two names joined by "and" that share the
  second one's head word are one ("the Delaware and Hudson Railroad").
- A quoted title-case phrase is a work and replaces the entities inside it.

>>> from kgkit.extractors.offline import DEFAULT_MODEL, load_model
>>> doc = load_model(DEFAULT_MODEL)("Land was sold to the Delaware and Hudson Railroad in 1823.")
>>> [(doc[a:b].text, label) for a, b, label in candidate_spans(doc)]  # "Land": a run that only opens a sentence
[('Land', 'NAME'), ('Delaware and Hudson Railroad', 'GPE')]
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from kgkit.extractors.offline.lexicon import ADJECTIVAL, DEMONYMS, GENERIC, HEADS, NAME_PARTICLES, PREFIXES, TITLES
from kgkit.extractors.offline.votes import NAME, head_label

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token

__all__ = ["NICKNAMED", "NUMERIC_LABELS", "QUOTED", "candidate_spans", "closes", "sentence_of", "text_of"]

NUMERIC_LABELS = ("DATE", "CARDINAL", "ORDINAL")
QUOTED = "WORK_OF_ART "  # a quoted title: typed as spaCy's WORK_OF_ART, with the quote's vote
NICKNAMED = "PERSON "  # a person's name with a nickname in brackets or quotes: not cut there
_QUOTES = {'"', "“", "”", "``", "''"}
_HYPHENS = {"-", "–"}
_ROMAN = re.compile(r"[IVXLC]+\.?")
_OPENERS, _CLOSERS = {"(", '"', "“", "``"}, {")", '"', "”", "''"}
_JOINING = NAME_PARTICLES | {"e", "y", "von", "der"}  # "João Paulo de Leiria e Silva", "García y Pérez"


def sentence_of(doc: Doc, i: int) -> tuple[int, int]:
    """(start, end) token bounds of the sentence holding token i, from a table built once per parsed text (spaCy's
    `Token.sent` walks the document on every call)."""
    table = doc.user_data.get("kgkit.sentences")
    if table is None:
        table = [(0, 0)] * len(doc)
        for sent in doc.sents:
            table[sent.start : sent.end] = [(sent.start, sent.end)] * (sent.end - sent.start)
        doc.user_data["kgkit.sentences"] = table
    return table[i]


def text_of(doc: Doc) -> str:
    """The parsed text, joined once (spaCy's `Doc.text` joins every token on every call)."""
    text = doc.user_data.get("kgkit.text")
    if text is None:
        text = doc.user_data["kgkit.text"] = doc.text
    return text


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
        if label == "PERSON":
            end, label = _name_after(doc, end)
        covered = end
        spans.append((start, end, label))
    for run in _proper_runs(doc) + _acronyms(doc):
        if not any(s[0] < run[1] and run[0] < s[1] for s in spans):
            spans.append(run)
    spans = _join_coordinated(doc, _join_hyphens(doc, sorted(spans)))
    quoted = _quoted_titles(doc)
    if quoted:
        spans = [s for s in spans if not any(s[0] < q[1] and q[0] < s[1] for q in quoted)] + quoted
    return sorted(spans)


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


def _quoted_titles(doc: Doc) -> list[tuple[int, int, str]]:
    """' " Two Doors Down " ': a quoted phrase of 2-12 words in title case (every word of 4 letters or more
    capitalised, no ! or ? inside) in one sentence."""
    out = []
    for sent in doc.sents:
        marks = [t.i for t in sent if t.text in _QUOTES]
        for a, b in zip(marks[::2], marks[1::2]):
            inner = [t for t in doc[a + 1 : b]]
            if any(t.text in ("!", "?") for t in inner):
                continue  # an exclamation or a question is speech, not a title
            while inner and inner[-1].is_punct and not closes(inner):
                inner.pop()
            words = [t for t in inner if t.is_alpha]
            if not 2 <= len(words) <= 12 or not inner[0].text[:1].isupper():
                continue
            if all(t.text[:1].isupper() for t in words if len(t.text) >= 4):
                out.append((inner[0].i, inner[-1].i + 1, QUOTED))
    return out


def closes(tokens: list[Token]) -> bool:
    """The last token closes a bracket opened inside the name ("I Wonder (Departure)")."""
    return tokens[-1].text == ")" and any(t.text == "(" for t in tokens)
