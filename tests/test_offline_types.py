"""Entity types from the offline extractor's context cues and gazetteer spellings (issue 15, rules 8), and from what
a name does in its sentence (rules 9: kgkit.extractors.offline.cues; one-word leagues, facilities "of" X, places
after a placed one): what a name's sentence says it is when spaCy's small model gives it one bare label, and the
cases each cue must leave alone."""

from __future__ import annotations

import pytest

from kgkit.core.domain import Domain
from kgkit.extractors.offline import OfflineExtractor
from kgkit.extractors.offline.gazetteer import load_places, plain_spelling


@pytest.fixture(scope="module")
def typed(general_domain: Domain):  # type: ignore[no-untyped-def]
    ex = OfflineExtractor(cooccurrence=False)

    def run(*texts: str) -> dict[str, str]:
        out: dict[str, str] = {}
        for result in ex.extract(list(texts), domain=general_domain):
            assert result.ok, result.error
            out.update((e.name, e.type) for e in result.entities)
        return out

    return run


def test_works_products_and_broadcasters_spacy_called_otherwise(typed) -> None:  # type: ignore[no-untyped-def]
    found = typed("The museum holds Édouard Manet's The Absinthe Drinker and Auguste Rodin's The Thinker.",
                  "CKNL-FM is a radio station in Fort St. John. It shares a tower with CKRX-FM.",
                  "He starred in Ong Bak 2 with Tony Jaa.",
                  "Airlines flew Sikorsky S-38 amphibians into the 1960s.",
                  "The idea was repurposed for a device known as Chromecast, which streams video.",
                  "It was released on the Atlantic label in 1955.",
                  "Chachalacas are birds from the genus Ortalis. It belongs to the subfamily Oecophorinae.",
                  "He joined the Upper Elbe Public Transport Company Pirna Sebnitz Ltd. in 1990.")
    assert found["Absinthe Drinker"] == found["Thinker"] == "Work"  # a capitalised "The" inside a sentence
    assert found["CKNL-FM"] == found["CKRX-FM"] == "Organization"  # call signs, not the station's place
    assert found["Ong Bak 2"] == "Work" and found["Sikorsky S-38"] == "Product"  # no person ends in a number
    assert found["Chromecast"] == "Product"  # "a device known as X": the noun it is another name of
    assert found["Atlantic"] == "Organization"  # a record label, not the ocean
    assert found["Ortalis"] == found["Oecophorinae"] == "Other"  # taxa
    assert found["Upper Elbe Public Transport Company Pirna Sebnitz Ltd."] == "Organization"  # "Ltd." with its dot
    assert found["Tony Jaa"] == found["Édouard Manet"] == "Person"


def test_places_and_people_from_their_sentence(typed) -> None:  # type: ignore[no-untyped-def]
    found = typed("It is bordered on the south by Lake Tana, on the north by Semien Gondar, and on the east by Wag Hemra.",
                  "It carries the main road to Hillswick in the north west of Shetland.",
                  "Boltenhagen is a German seaside resort on the Baltic coast.",
                  "In Plautus' play, the slave asks for help.",
                  "The deputy mayor is Terje Halleland (Progress Party).",
                  "Nikos Aliagas (/ Níkos Aliágas; born Nikólaos Aliágas on 13 May 1969 in Paris) is a journalist.",
                  "His parents are Andreas and Harula Aliagas.",
                  "The film was classified by OFLC in 2009.")
    assert found["Semien Gondar"] == found["Wag Hemra"] == found["Hillswick"] == found["Boltenhagen"] == "Location"
    assert found["Plautus"] == found["Terje Halleland"] == found["Nikos Aliagas"] == found["Andreas"] == "Person"
    assert found["OFLC"] == "Organization"  # capitals are an acronym, not a person


def test_distances_locations_kin_lists_and_awards(typed) -> None:  # type: ignore[no-untyped-def]
    found = typed("Other nearby settlements include Aldoth, Tarns, one-and-a-half miles to the south-west, and Beckfoot.",
                  "His children included Srutakarma, Iravan, Babruvahana, and Abhimanyu.",
                  "He was born in Berthier, Canada East, the son of Louis Mousseau.",
                  "The capital is planned to move to the more centrally located Ramciel in the future.",
                  "Close to the sea lies the little castle of Gross-Schwansee.",
                  "Brightman received a Bronze Star for his efforts.", "Smith was awarded the Pulitzer Prize in 1950.")
    assert found["Tarns"] == found["Ramciel"] == found["Gross-Schwansee"] == "Location"
    assert found["Canada East"] == "Location"  # "the son of ..." is Louis Mousseau's noun, not the place's
    assert {found[n] for n in ("Srutakarma", "Iravan", "Babruvahana", "Abhimanyu")} == {"Person"}
    assert found["Bronze Star"] == "Other" and found["Smith"] == "Person"  # the award, not the one awarded


def test_weak_cues_leave_bands_and_companies_alone(typed) -> None:  # type: ignore[no-untyped-def]
    found = typed("He played bass for The Beatles before 1962.", "Microsoft and Bill Gates announced it.",
                  "It was released by Columbia Records in Canada.")
    assert found["Beatles"] == "Organization"  # a plural after "The" is a band, not a title
    assert found["Microsoft"] == "Organization" and found["Bill Gates"] == "Person"  # listed with a person
    assert found["Columbia Records"] == "Organization"


def test_the_gazetteer_knows_places_by_their_plain_spelling() -> None:
    places = load_places()
    assert plain_spelling("Chhattīsgarh") == "Chhattisgarh" and plain_spelling("Ryazan’") == "Ryazan"
    assert places.kind("Chhattisgarh") == "region" and places.kind("Ryazan") == "city"
    assert places.kind("Kabul") == "city"  # the city keeps its name: "Kābul" the province does not take it over
    assert places.kind("Bush") is None and places.kind("Perez") is None  # short plain spellings are not added
    assert places.may_contain("Russia", "Ryazan") is True


def test_people_by_what_they_say_and_are_asked(typed) -> None:  # type: ignore[no-untyped-def]
    found = typed("In the second act, Epidicus asks the girl about the ring.",
                  "The president asked Omer Beriziky to form a new government.",
                  "The founder of the order was Phraya Manopakorn Nititada.", "The protagonist is Florent, a prisoner.")
    assert found["Epidicus"] == found["Omer Beriziky"] == found["Phraya Manopakorn Nititada"] == "Person"
    assert found["Florent"] == "Person"


def test_labels_clubs_and_platforms_by_their_verb(typed) -> None:  # type: ignore[no-untyped-def]
    found = typed("The album was released by Interscope in 2001.",
                  "In 2013 he was signed by Chelsea for a fee of 3.5 million pounds.",
                  "He joined Serie A side Torino in 1990.",
                  "The game was released for the GameCube, Microsoft Windows and Xbox in 2005.")
    assert found["Interscope"] == found["Chelsea"] == found["Torino"] == "Organization"  # not the city of Chelsea
    assert found["Microsoft Windows"] == found["Xbox"] == "Product"  # platforms a game is released for


def test_other_spellings_take_the_names_type(typed) -> None:  # type: ignore[no-untyped-def]
    found = typed("Goght ( formerly Goghot ) is a village in the Kotayk Province of Armenia.")
    assert found["Goght"] == found["Goghot"] == "Location"


def test_leagues_facilities_and_places_after_places(typed) -> None:  # type: ignore[no-untyped-def]
    found = typed("He moved to the Bundesliga in 1963 and later to the Deutsche Eishockey Liga.",
                  "The oratory became the basilica of Santa Restituta.",
                  "He was born in Buttenhausen in Münsingen, Württemberg, the third child of Meier Bernheimer.")
    assert found["Bundesliga"] == found["Deutsche Eishockey Liga"] == "Organization"
    assert found["Santa Restituta"] == found["Württemberg"] == "Location"
    assert found["Meier Bernheimer"] == "Person"


def test_roles_leave_bodies_and_acronyms_alone(typed) -> None:  # type: ignore[no-untyped-def]
    found = typed("I ask the Congress to enact this law.", "NASA said the launch would be delayed.",
                  "Microsoft said on Monday that its sales rose.",
                  "The album was produced by Quincy Jones and released by Epic Records.")
    assert found["Congress"] == found["NASA"] == found["Microsoft"] == found["Epic Records"] == "Organization"
    assert found["Quincy Jones"] == "Person"  # "produced by" is no label's verb
