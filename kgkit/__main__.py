"""`python -m kgkit` runs the CLI."""

from kgkit.cli import main

if __name__ == "__main__":
    main()
