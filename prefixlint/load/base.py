"""The loader contract: the `Format` Protocol every template format implements, and `Loader`,
which builds one from an adapter module's functions with defaults for the optional members.

Each adapter module (`prefixlint/load/prompty.py` ...) ends with

    LOADER = Loader(FORMAT, sniff, load, hint=HINT)

and `prefixlint.load.registry` lists it under the extensions it reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol

from prefixlint.load.template import Template


class Format(Protocol):
    #: A short name, shown in output (`prompty`, `native-yaml`).
    name: str
    #: What a file of this format looks like, for the error when no format reads a file.
    hint: str | None

    def sniff(self, text: str) -> bool:
        """Does this text look like this format?"""

    def sniff_walked(self, text: str) -> bool:
        """The same for a file found by a directory walk (stricter where an extension is shared
        with files that are no templates: a package.json is no promptfoo prompt)."""

    def load(self, path: str, text: str) -> Template:
        """Parse it; raise PrefixlintError with a path and line for anything it cannot read."""

    def load_all(self, path: str, text: str) -> list[Template]:
        """Every template the file holds (a promptfoo config's prompts), each with the path and
        text of the file its prompt is written in."""


@dataclass(frozen=True)
class Loader:
    """A `Format` from an adapter's functions: `walked` and `many` when it has them."""

    name: str
    sniff: Callable[[str], bool]
    load: Callable[[str, str], Template]
    hint: str | None = None
    walked: Callable[[str], bool] | None = None
    many: Callable[[str, str], list[Template]] | None = None

    def sniff_walked(self, text: str) -> bool:
        return (self.walked or self.sniff)(text)

    def load_all(self, path: str, text: str) -> list[Template]:
        return self.many(path, text) if self.many else [self.load(path, text)]
