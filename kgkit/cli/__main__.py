"""`python -m kgkit.cli` runs the CLI."""

from kgkit.cli import main

main()
