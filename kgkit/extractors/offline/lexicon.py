"""Word lists of the offline extractor: titles, generic capitalised words, words that tell an entity's type.

All lower case. They describe English, not any corpus: a title before a name ("Prime Minister Churchill"), a
capitalised word that names nothing by itself ("Government", "Board"), the head word of a name ("... County",
"... University", "... Act") and the common noun that classifies a name in context ("the town of X", "X is a
German film", "the cruiser X").
"""

from __future__ import annotations

__all__ = ["ADJECTIVAL", "BY_PERSON", "CLASSIFIERS", "COMPASS", "DEMONYMS", "DETERMINERS", "DIRECTIONAL", "GENERIC", "HEADS",
           "HONORIFICS", "HYPOTHETICAL", "KIN", "LOCATIVE", "MODAL", "MONTHS", "MOTION", "NAME_PARTICLES", "NEGATING",
           "PERSON_SUBJECT", "PREFIXES", "QUOTE_MARKS", "RANKS", "SEIZED", "SENTENCE_ADVERBS", "SUFFIXES", "TITLES", "WORK_OBJECT",
           "names_nothing", "split_title"]

HONORIFICS = frozenset(["mr", "mr.", "mrs", "mrs.", "ms", "ms.", "miss", "dr", "dr.", "sir", "dame", "lady", "lord", "madame", "madam", "mme", "mme.", "mlle", "monsieur", "herr", "frau", "signor", "señor", "senor", "don", "doña", "messrs", "messrs.", "mister", "uncle", "aunt"])

TITLES = HONORIFICS | frozenset(["president", "presidents", "vice", "prime", "minister", "ministers", "premier", "chancellor", "secretary", "secretaries", "general", "generals", "marshal", "marshals", "field", "admiral", "admirals", "commodore", "captain", "capt", "capt.", "colonel", "col", "col.", "lieutenant", "lt", "lt.", "sergeant", "sgt", "sgt.", "corporal", "commander", "commanders", "chief", "king", "kings", "queen", "queens", "emperor", "empress", "prince", "princess", "duke", "duchess", "archduke", "count", "countess", "baron", "baroness", "earl", "viscount", "marquess", "pope", "cardinal", "bishop", "archbishop", "rabbi", "imam", "reverend", "rev", "rev.", "father", "senator", "senators", "sen", "sen.", "congressman", "congresswoman", "representative", "rep", "rep.", "governor", "governors", "gov", "gov.", "mayor", "judge", "justice", "ambassador", "consul", "envoy", "generalissimo", "chairman", "chairwoman", "superintendent", "commissioner", "attorney", "treasurer", "speaker", "czar", "tsar", "tsarina", "kaiser", "shah", "sultan", "caliph", "pharaoh", "professor", "prof", "prof.", "dean", "gen", "gen.", "adm", "adm.", "maj", "maj.", "major", "pres", "pres.", "hon", "hon.", "comrade", "deacon", "producer", "writer", "editor", "director", "composer", "head", "deputy", "assistant", "prophet", "saint", "officer", "viceroy", "commandant", "master", "midshipman", "ensign", "leader", "ceo", "cfo", "coo", "baronet", "chamberlain", "founder",
    "taoiseach", "tánaiste", "teachta", "dála"])  # Irish offices: Taoiseach, Tánaiste, Teachta Dála (a member of the Dáil)

NAME_PARTICLES = frozenset(["de", "del", "della", "der", "di", "da", "das", "do", "dos", "du", "la", "le", "van", "von", "ten", "ter", "al", "el", "bin", "ibn", "ben", "st"])

SUFFIXES = frozenset(["inc", "inc.", "ltd", "ltd.", "llc", "co", "co.", "corp", "corp.", "jr", "jr.", "sr", "sr.", "plc", "d.c.", "ii", "iii", "iv"])

# capitalised words that name nothing by themselves ("the Government", "the Board"): a name made only of these
# (and titles and function words) is not an entity
GENERIC = frozenset(["government", "governments", "executive", "federal", "bank", "banks", "nationwide", "child", "children", "nation", "nations", "state", "states", "administration", "budget", "budgets", "board", "church", "west", "east", "north", "south", "western", "eastern", "northern", "southern", "central", "republic", "empire", "kingdom", "court", "courts", "house", "commission", "committee", "council", "department", "agency", "office", "bureau", "authority", "corporation", "company", "party", "association", "society", "university", "college", "school", "hospital", "museum", "library", "station", "airport", "city", "town", "county", "province", "region", "district", "river", "lake", "mountain", "mountains", "island", "islands", "valley", "sea", "ocean", "street", "avenue", "road", "square", "park", "bridge", "palace", "castle", "cathedral", "temple", "piazza", "hall", "theatre", "theater", "chapter", "section", "part", "title", "article", "act", "bill", "law", "laws", "treaty", "agreement", "charter", "conference", "convention", "program", "programs", "programme", "plan", "plans", "policy", "fund", "funds", "message", "address", "report", "day", "days", "spirit", "spirits", "ghost", "man", "men", "woman", "women", "people", "national", "annual", "legislature", "legislation", "congressional", "cabinet", "branch", "commerce", "agriculture", "labor", "labour", "industry", "industries", "finance", "defense", "defence", "war", "peace", "order", "justice", "health", "education", "welfare", "interior", "treasury", "world", "earth", "nature", "history", "science", "art", "arts", "heaven", "member", "members", "messrs", "chairman", "secretary", "legislative", "judicial", "service", "services", "system", "systems", "fiscal", "year", "years", "month", "months", "week", "today", "tonight", "yesterday", "tomorrow", "chapter", "book", "volume", "page", "contents", "preface", "introduction", "appendix", "index", "note", "notes", "summary", "conclusion", "recommendations", "recommendation", "table", "figure", "coach", "division", "capital", "ph.d", "ph.d.", "phd", "ba", "ma", "mba", "bsc", "msc", "b.a.", "m.a.", "md", "revenue", "revenues", "congresses", "continent", "continents", "dominion", "dominions", "territory", "territories"])

# head word (the name's last word) -> the label it implies
HEADS: dict[str, str] = {}
for _label, _words in {
    "GPE": """city county province region district municipality township prefecture oblast voivodeship canton
        territory territories republic kingdom state governorate town village borough parish hamlet suburb
        neighborhood neighbourhood area dominion""",
    "LOC": """river lake mountains mountain island islands valley sea ocean bay gulf peninsula desert forest reservoir
        canal strait coast hills hill peak peaks heights falls creek harbor harbour plateau basin delta glacier reef
        archipelago range ridge volcano fjord isthmus lagoon estuary canyon gorge cave crater beach wilderness
        badlands waterfall swamp marsh brook pond moor heath bog stream southwest northwest southeast
        northeast midwest hemisphere""",
    "FAC": """street avenue road bridge airport station stadium arena building tower dam mall highway motorway route
        interstate railway square cathedral palace castle monument memorial museum boulevard drive trail expressway freeway
        parkway turnpike tunnel viaduct aqueduct plaza abbey monastery chapel shrine basilica synagogue mosque
        temple pavilion lighthouse barracks mausoleum cemetery prison theatre theater park gardens""",
    "ORG": """university college institute academy company corporation corp inc ltd llc plc party council committee
        commission association society federation league club fc army navy corps bank records press agency ministry
        department board authority bureau foundation trust orchestra airlines airways network studios entertainment
        enterprises industries systems technologies group organization organisation union brotherhood school
        hospital church diocese senate parliament assembly congress court cabinet administration government
        movement force forces brigade regiment battalion squadron fleet holdings publishing productions pictures
        broadcasting alliance coalition software communications media motors pharmaceuticals laboratories labs tv
        television radio partners ventures insurance telecom fund marine""",
    "EVENT": """war wars battle olympics games championship championships cup tournament festival election elections
        revolution rebellion uprising crisis massacre siege summit expo exposition marathon prix derby bowl
        offensive campaign awards contest tour expedition ceremony incident fair fest competition pageant purchase
        draft final finals""",
    "LAW": "act treaty agreement accord pact charter constitution protocol amendment code doctrine statute bill law",
    "WORK_OF_ART": "report document",
    "MISC": "award medal prize trophy chart project program programme",  # an award, a chart, a project: no body,
    # place or person (domain: Other)
}.items():
    HEADS.update((_w, _label) for _w in _words.split())
HEADS.update(dict.fromkeys(["liga", "ligue", "lega"], "ORG"))  # a league in German, Spanish, French, Italian

# a common noun classifying a name beside it -> the label it implies ("the town of X", "X is a German film")
CLASSIFIERS: dict[str, str] = {}
for _label, _words in {
    "GPE": """city town village comune commune municipality county district province region state capital country
        nation neighbourhood neighborhood suburb borough parish hamlet settlement locality canton prefecture oblast
        voivodeship territory township metropolis kingdom republic emirate principality area""",
    "LOC": """island river lake mountain peak volcano valley sea bay gulf peninsula desert forest archipelago reef
        glacier strait cape coast creek reservoir continent""",
    "FAC": """street avenue road bridge airport station stadium arena building palace castle church cathedral museum
        tower dam mall highway route railway motorway monument temple mosque theatre theater""",
    "ORG": """company corporation firm band club team party university college school label
        publisher network channel broadcaster airline agency organization organisation institute association
        federation league council committee ministry bank regiment brigade battalion orchestra choir studio
        manufacturer developer retailer charity foundation society duo trio quartet ensemble outfit conglomerate
        subsidiary franchise""",
    "WORK_OF_ART": """album film movie song single novel book series show play opera poem painting sculpture ep
        telenovela documentary sitcom soundtrack musical ballet symphony sonata concerto comic manga anime episode
        story novella memoir biography track hymn anthem drama miniseries video programme newspaper magazine journal
        periodical broadsheet tabloid game""",
    "PRODUCT": """ship cruiser battleship destroyer submarine carrier frigate aircraft airplane car missile rifle
        locomotive software console device vehicle""",
    "EVENT": """war battle election championship tournament festival olympics summit revolution uprising rebellion
        massacre siege campaign expedition crisis earthquake hurricane competition contest""",
    "PERSON": """actor actress singer songwriter player politician writer author poet painter artist composer musician
        footballer cyclist athlete racer swimmer boxer wrestler producer journalist scientist physicist chemist
        mathematician philosopher historian economist lawyer bishop priest officer soldier businessman
        businesswoman entrepreneur engineer architect designer inventor dancer comedian rapper guitarist drummer
        pianist violinist bassist vocalist coach manager diplomat statesman activist missionary monk nun explorer
        astronaut surgeon physician nurse teacher professor son daughter wife husband brother sister father mother
        founder chairman senator governor mayor candidate pilot sailor spy novelist screenwriter director
        cinematographer sculptor photographer playwright critic broadcaster presenter host character protagonist
        antagonist villain heroine""",
}.items():
    CLASSIFIERS.update((_w, _label) for _w in _words.split())

# prepositions whose object is a place when it is a named thing ("in Kwajalein", "at Stalingrad"), and those
# that say so after a verb of motion ("taken to Kwajalein", "fled from Burma")
DETERMINERS = frozenset(["the", "a", "an", "this", "that", "these", "those"])
"""Determiners no name starts with (spaCy may tag a capitalised one NNP: "Rodin's The Thinker")."""
MONTHS = frozenset(["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
                    "november", "december"])
QUOTE_MARKS = frozenset(['"', "“", "”", "``", "''"])
"""Quotation marks as spaCy's tokens hold them (straight, curly, and the `` '' of pre-tokenised text)."""
LOCATIVE = frozenset(["in", "at", "near", "into", "across", "throughout", "inside", "outside", "within"])
DIRECTIONAL = frozenset(["to", "from", "toward", "towards", "via", "through"])
MOTION = frozenset(["go", "come", "send", "take", "fly", "move", "return", "travel", "sail", "march", "bring", "ship", "drive", "carry", "transfer", "evacuate", "deport", "flee", "escape", "retreat", "advance", "withdraw", "arrive", "head", "emigrate", "immigrate", "migrate", "relocate", "run", "walk", "ride", "push", "pass", "break", "fight", "flow", "drain", "extend", "stretch", "lead", "link", "connect"])
# nouns whose "of" names a place ("our invasion of Kwajalein", "the fall of Stalingrad")
SEIZED = frozenset(["invasion", "occupation", "liberation", "capture", "conquest", "bombing", "bombardment", "defense", "defence", "fall", "siege", "evacuation", "annexation", "blockade", "recapture"])

# what the context says of a name (kgkit.extractors.offline.votes): the agent of these verbs is a person ("directed
# by X", "voiced by X"); their subject is a person ("X died", "X was born"); their object or passive subject is a
# work ("released X", "X was published"); a kinship noun before "of" or after a possessive names a person ("the
# son of X", "X's wife"); a compass word before "of" names a place ("southwest of Flagstaff")
BY_PERSON = frozenset(["direct", "write", "co-write", "compose", "voice", "paint", "sing", "narrate", "illustrate", "sculpt", "choreograph", "portray", "coach", "author", "pen", "invent", "discover", "script", "photograph", "draw", "translate"])
PERSON_SUBJECT = frozenset(["die", "marry", "bear", "graduate", "retire", "resign"])
WORK_OBJECT = frozenset(["release", "publish", "record", "compose", "paint", "premiere", "reissue", "remix", "serialize", "serialise", "air"])
KIN = frozenset(["son", "daughter", "wife", "husband", "father", "mother", "brother", "sister", "widow", "widower", "grandson", "granddaughter", "grandfather", "grandmother", "nephew", "niece", "cousin", "uncle", "aunt", "stepson", "stepdaughter", "fiancé", "fiancée", "spouse"])
COMPASS = frozenset(["north", "south", "east", "west", "northeast", "northwest", "southeast", "southwest", "north-east", "north-west", "south-east", "south-west", "northeastern", "northwestern", "southeastern", "southwestern", "outskirts", "vicinity"])

# nationality words: a nationality before a person's name is no part of it ("Irishman Tadhg Kennelly"), and one
# alone is a group, not a person ("Americans")
_NATIONALITIES = """afghan albanian algerian american angolan argentine argentinian armenian australian
    austrian azerbaijani bangladeshi belarusian belgian bolivian bosnian brazilian british bulgarian burmese cambodian
    cameroonian canadian chilean chinese colombian congolese croatian cuban cypriot czech danish dutch ecuadorian
    egyptian english eritrean estonian ethiopian filipino finnish french georgian german ghanaian greek guatemalan
    haitian honduran hungarian icelandic indian indonesian iranian iraqi irish israeli italian ivorian jamaican japanese
    jordanian kazakh kenyan korean kosovar kurdish kuwaiti kyrgyz lao latvian lebanese liberian libyan lithuanian
    macedonian malagasy malaysian malian maltese mexican moldovan mongolian montenegrin moroccan mozambican namibian
    nepali nepalese nigerian nicaraguan norwegian pakistani palestinian panamanian paraguayan persian peruvian polish
    portuguese romanian russian rwandan salvadoran saudi scottish senegalese serbian singaporean slovak slovenian somali
    african asian european soviet spanish sudanese swedish swiss syrian taiwanese tajik tanzanian thai tibetan tunisian
    turkish turkmen ugandan ukrainian uruguayan uzbek venezuelan vietnamese welsh yemeni zambian zimbabwean"""
DEMONYMS = frozenset(w for stem in _NATIONALITIES.split()
    for w in ((stem,) if stem.endswith(("sh", "ch", "ese", "ss")) else (stem, stem + "s"))) | frozenset(
    f"{stem}{end}" for stem in ("english", "irish", "french", "scots", "dutch", "welsh")
    for end in ("man", "men", "woman", "women"))

# a name's first word -> the label it implies ("Lake Tana", "Battle of Midway", "University of Toronto")
PREFIXES = {w: label for label, words in {
    "LOC": """lake mount mt. cape isle river gulf bay north south east west northern southern eastern western upper
        lower monte mont piton lac loch sierra""",
    "GPE": "fort port",
    "FAC": "via rue piazza plaza avenue avenida boulevard calle",
    "ORG": "university bank house church",
    "EVENT": "battle siege operation",
    "LAW": "treaty",
    "PRODUCT": "hms uss hmas hmcs hmnzs",  # a ship: "HMS Ardent"
}.items() for w in words.split()}

MODAL = frozenset(["would", "could", "might", "may", "should", "shall", "must", "will", "'d", "'ll", "wo"])
HYPOTHETICAL = frozenset(["hope", "plan", "propose", "want", "wish", "seek", "try", "attempt", "intend", "threaten", "aim", "expect", "urge", "ask", "request", "consider", "suggest", "recommend"])
NEGATING = frozenset(["fail", "refuse", "decline", "cease", "neglect"])

_FUNCTION_WORDS = frozenset(["the", "a", "an", "of", "and", "&", "for", "in", "on", "at", "to", "by", "with"])

# titles that open no organisation's name: "Admiral Dufek" is a person whatever spaCy said
RANKS = frozenset(["admiral", "commodore", "captain", "colonel", "lieutenant", "sergeant", "corporal", "marshal",
                   "senator", "congressman", "congresswoman", "governor", "mayor", "ambassador", "bishop", "archbishop",
                   "cardinal", "pope", "rabbi", "reverend", "professor", "king", "queen", "emperor", "empress",
                   "prince", "princess", "duke", "duchess", "sultan", "shah", "tsar", "czar", "kaiser", "midshipman",
                   "generalissimo"])
# generic words that qualify rather than name ("Federal Government", "National Committee")
ADJECTIVAL = frozenset(["federal", "national", "executive", "central", "western", "eastern", "northern", "southern",
                        "annual", "legislative", "judicial", "fiscal", "congressional", "west", "east", "north", "south"])
SENTENCE_ADVERBS = frozenset(["however", "moreover", "therefore", "meanwhile", "nevertheless", "furthermore",
                              "thus", "hence", "consequently", "accordingly", "nonetheless", "instead", "indeed"])


def names_nothing(name: str) -> bool:
    """A name made only of generic capitalised words, titles and function words: "the Government", "Federal
    Government", "President", "the Secretary of State" (also applied to LLM output).

    >>> names_nothing("the Federal Government"), names_nothing("Prime Minister"), names_nothing("Bank of England")
    (True, True, False)
    """
    words = [w.strip(".,;:'’\"").lower() for w in name.split()]
    words = [w[:-2] if w.endswith(("'s", "’s")) else w for w in words if w]
    return bool(words) and all(w in GENERIC or w in TITLES or w in _FUNCTION_WORDS or (w.endswith("s") and w[:-1] in GENERIC)
                               for w in words)


def split_title(name: str) -> tuple[str, str]:
    """(title, name) for a person's name that starts with titles: "Prime Minister Churchill" -> ("Prime Minister",
    "Churchill"); ("", name) when it does not, or when nothing but titles would be left.

    >>> split_title("Prime Minister Winston Churchill"), split_title("Churchill"), split_title("General")
    (('Prime Minister', 'Winston Churchill'), ('', 'Churchill'), ('', 'General'))
    """
    words = name.split()
    n = 0
    while n < len(words) - 1 and words[n].lower() in TITLES:
        n += 1
    if n == 0 or words[n].lower() in ("of", "for", "to"):
        return "", name
    return " ".join(words[:n]), " ".join(words[n:])

