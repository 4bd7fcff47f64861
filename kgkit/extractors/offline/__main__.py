"""Maintenance commands of the offline extractor: `python -m kgkit.extractors.offline given-names NAMES_DIR
LEXEME_PROB` prints kgkit.core.given_names's list rebuilt from its sources, `python -m kgkit.extractors.offline
place-surnames NAMES_DIR` kgkit.extractors.offline.surnames's (see those modules)."""

from __future__ import annotations


def given_names_main(argv: list[str]) -> None:
    """`given-names NAMES_DIR LEXEME_PROB`: print kgkit.core.given_names's list, rebuilt from the census files in
    NAMES_DIR (dist.male.first, dist.female.first) and spaCy's `en_lexeme_prob` table (JSON, gzipped or not)."""
    import gzip
    import json
    import textwrap
    from pathlib import Path

    from kgkit.core.given_names import census_names, select_given_names
    from kgkit.extractors.offline.gazetteer import load_places

    folder, table = Path(argv[0]), Path(argv[1])
    candidates = [name for file, top in (("dist.male.first", 1000), ("dist.female.first", 1500))
                  for name in census_names((folder / file).read_text(encoding="utf-8").splitlines(), top)]
    opener = gzip.open if table.suffix == ".gz" else open
    with opener(table, "rt", encoding="utf-8") as f:
        prob = json.load(f)
    places = load_places()
    names = select_given_names(candidates, prob, lambda name: places.kind(name) is not None)
    print(f"{len(names)} names")
    print("\n".join(textwrap.wrap(" ".join(names), 120)))


def place_surnames_main(argv: list[str]) -> None:
    """`place-surnames NAMES_DIR`: print kgkit.extractors.offline.surnames's list, rebuilt from the census file
    NAMES_DIR/dist.all.last and the gazetteer."""
    import textwrap
    from pathlib import Path

    from kgkit.extractors.offline.gazetteer import load_places
    from kgkit.extractors.offline.surnames import TOP, select_place_surnames

    places = load_places()
    lines = (Path(argv[0]) / "dist.all.last").read_text(encoding="utf-8").splitlines()
    names = select_place_surnames(lines, TOP, lambda name: name in places.cities or name in places.regions)
    print(f"{len(names)} names")
    print("\n".join(textwrap.wrap(" ".join(names), 120)))


if __name__ == "__main__":
    import sys

    if sys.argv[1:2] == ["given-names"] and len(sys.argv) == 4:
        given_names_main(sys.argv[2:])
    elif sys.argv[1:2] == ["place-surnames"] and len(sys.argv) == 3:
        place_surnames_main(sys.argv[2:])
    else:
        sys.exit("usage: python -m kgkit.extractors.offline given-names NAMES_DIR LEXEME_PROB\n"
                 "       python -m kgkit.extractors.offline place-surnames NAMES_DIR")
