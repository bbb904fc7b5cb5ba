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
    # Read-only members (properties), so that a frozen dataclass such as `Loader` provides them.
    @property
    def name(self) -> str:
        """A short name, shown in output (`prompty`, `native-yaml`)."""

    @property
    def hint(self) -> str | None:
        """What a file of this format looks like, for the error when no format reads a file."""

    # Traits (see `Loader`): program source, assembled from fields, a chat template, declared.
    @property
    def program_source(self) -> bool: ...
    @property
    def assembled(self) -> bool: ...
    @property
    def chat_template(self) -> bool: ...
    @property
    def declared(self) -> bool: ...
    @property
    def whole_request(self) -> bool: ...
    @property
    def lenient_attributes(self) -> bool: ...

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
    # Traits: what the rest of the pipeline asks of a format (`registry.loader_for(name)`), never
    # a set of format names kept elsewhere.
    #: Other names its templates carry as `Template.format` (`javascript` beside `typescript`).
    also: tuple[str, ...] = ()
    #: Prompts found in program source: texts the code assembles, fixed by edits in place, and
    #: measured as the code writes them (not as a system prompt unless the code says so).
    program_source: bool = False
    #: A prompt assembled from several fields of a file (CrewAI's role, goal and backstory):
    #: no edit of one field moves a value past the others, so no fix is offered.
    assembled: bool = False
    #: A chat template (how a server frames messages), checked by its own probes.
    chat_template: bool = False
    #: A format with a declared structure (Prompty, Dotprompt, promptfoo ...): a walked file it
    #: cannot read is an error. Without one (plain text, program source), such a file is skipped
    #: with its reason: a walk never fails on what is not a prompt.
    declared: bool = True
    #: The file's messages are the whole request (Prompty: the runtime sends what the template
    #: renders, its history only through a loop of its own): no conversation is appended after
    #: a lone system section, so a value closing it is the request's own content.
    whole_request: bool = False
    #: Its runtime renders a missing attribute as nothing (Prompty's jinja2 is not strict): a
    #: template reading `customer.firstName` of a sample written as text renders, not fails.
    lenient_attributes: bool = False

    def sniff_walked(self, text: str) -> bool:
        return (self.walked or self.sniff)(text)

    def load_all(self, path: str, text: str) -> list[Template]:
        return self.many(path, text) if self.many else [self.load(path, text)]
