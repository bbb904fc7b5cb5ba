"""`python -m prefixlint` runs the command-line interface."""

from prefixlint.cli import main

if __name__ == "__main__":
    main()
