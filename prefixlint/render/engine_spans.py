"""Render Mustache (pystache) and Handlebars (dotpromptz-handlebars) templates with spans.

Both engines render the template as the format's own tools do. To know which characters each
`{{ ... }}` produced, every output tag is wrapped in the source between the private-use
markers of `prefixlint.render.jinja_spans` (`\\ue000<index>\\ue001{{x}}\\ue002`); the engine
copies the markers as text, and `unmark` turns them into spans after rendering. Block tags
(`{{#each}}`, `{{/if}}`, `{{^x}}`), comments and partials are left as they are, so standalone
block lines are still removed as the engines remove them. HTML escaping is off: the text goes
to a model, not a browser. Path steps starting with `_` are refused before rendering.

Why these libraries: pystache is maintained (0.6.x, 2025) and passes the Mustache spec;
dotpromptz-handlebars is the pure-Python Handlebars of the Genkit team, the engine Dotprompt's
own Python SDK renders with, conformance-tested against Handlebars.js, with no dependencies,
and it refuses functions in the input and unknown helpers (a template can only call code
prefixlint chose). Partials are the ones the loader found (Dotprompt's `_name.prompt` files);
Mustache partials are never loaded. Text a partial writes is rendered, but has no spans. Both are
imported only when a Mustache or Handlebars template is rendered.

So that every placeholder is checked (issue 11): a Handlebars `{{#if x}}` / `{{#unless x}}` whose
condition reads no declared sample is rendered with the condition true (its body, not its
`{{else}}`), and placeholders inside such blocks are variables like those outside; helpers the
template's own code registers (`{{#list items}}`, `{{escapeXml name}}`) are stood in for by
neutral ones (a block renders its body once per item, an inline helper prints its arguments);
a dotted path (`{{customer.firstName}}`) reads the value of its first name, so it differs
between the two renders as that name's value does.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable, Mapping

from prefixlint.errors import PrefixlintError
from prefixlint.load.template import Message, Template
from prefixlint.render.jinja_spans import CLOSE, OPEN, SEP, unmark
from prefixlint.render.spans import Placeholder, RenderedMessage
from prefixlint.sandbox import time_limit

#: One tag: a comment, a triple-stash, or any double-brace tag (blocks, closers, outputs).
TAG = re.compile(r"\{\{!--.*?--\}\}|\{\{![^}]*\}\}|\{\{\{~?\s*(?P<raw>[^}]*?)\s*~?\}\}\}|\{\{(?P<body>[^}]*)\}\}", re.S)
_PATH = re.compile(r"(?:\.\./)*@?[A-Za-z_][\w-]*(?:[./][\w-]+|\.\[[^\]]*\])*")
_LITERAL = re.compile(r"^(?:\"[^\"]*\"|'[^']*'|-?\d+(?:\.\d+)?|true|false|null|undefined)$")
_SUBEXPRESSION = re.compile(r"\(\s*([A-Za-z_]\w*)")
#: Handlebars names that are helpers or keywords, not variables.
HELPERS = frozenset({"if", "unless", "each", "with", "lookup", "log", "else", "this", "json", "media", "section",
                     "role", "history", "ifEquals", "unlessEquals", "as"})
SCOPING = frozenset({"each", "with"})  # Handlebars blocks that change the context
BUILTIN = frozenset({"if", "unless", "each", "with", "lookup", "log"})
#: `{{#if x}}` / `{{#unless x}}` rewritten so that the body renders
_CONDITION = re.compile(r"\{\{(~?)\s*#(if|unless)\s+[^}]*?(~?)\}\}")


#: The largest `{{json x indent=N}}` a Handlebars template may ask for.
MAX_JSON_INDENT = 16


class EngineTemplate:
    functions: tuple[str, ...] = ()

    def __init__(self, template: Template) -> None:
        self.template = template
        self.handlebars = template.syntax == "handlebars"
        placeholders: list[Placeholder] = []
        variables: dict[str, None] = {}
        self._sources: list[str] = []
        for number, message in enumerate(template.messages):
            self._sources.append(self._mark(number, message, placeholders, variables))
        self.placeholders = tuple(placeholders)
        self.variables = tuple(variables)
        self._helpers: set[str] = set()  # names the template calls as helpers that no engine defines
        self._paths: dict[str, set[tuple[str, ...]]] = {}  # first name -> the dotted paths read from it
        for source in self._sources:
            self._scan(source)
        self._compiled = [self._compile(message, source) for message, source in zip(template.messages, self._sources)]

    def _error(self, message: Message, index: int, text: str, hint: str | None = None) -> PrefixlintError:
        line, column = self.template.position(message.file_offset(index))
        return PrefixlintError(text, path=self.template.path, line=line, column=column, hint=hint)

    def _mark(self, number: int, message: Message, placeholders: list, variables: dict) -> str:
        source = message.content
        if OPEN in source or CLOSE in source:
            raise self._error(message, 0, "template contains private-use characters U+E000/U+E002")
        out: list[str] = []
        blocks: list[tuple[str, int]] = []  # open block name and where it opened
        last = 0
        for match in TAG.finditer(source):
            body = match.group("raw") if match.group("raw") is not None else match.group("body")
            if body is None:  # a comment
                continue
            body = body.strip().strip("~").strip()
            out.append(source[last : match.start()])
            last = match.end()
            head = body[:1]
            is_block = bool(head) and head in "#^/!>=*"  # blocks, closers, partials, delimiters
            if is_block or body == "else" or body.startswith(("else ", "{")):
                self._block(message, body, match.start(), blocks, variables)
                out.append(self._condition(match.group(0)))
                continue
            names = self._names(message, body.lstrip("&").strip(), match.start())  # `{{&x}}`: unescaped
            if not self._scoped(blocks):
                variables.update(dict.fromkeys(names))
            offset = message.file_offset(match.start())
            line, column = self.template.position(offset)
            index = len(placeholders)
            placeholders.append(Placeholder(index, number, match.group(0), offset, line, column, tuple(names)))
            out.append(f"{OPEN}{index}{SEP}{match.group(0)}{CLOSE}")
        out.append(source[last:])
        if blocks:
            name, at = blocks[-1]
            raise self._error(message, at, f"unclosed block {{{{#{name}}}}}", hint=f"close it with {{{{/{name}}}}}")
        return "".join(out)

    def _block(self, message: Message, body: str, at: int, blocks: list, variables: dict) -> None:
        head = body[:1]
        if head in "#^":
            words = body[1:].split()
            name = words[0] if words else ""
            if not name:
                raise self._error(message, at, "block tag without a name")
            args = words[1:] if self.handlebars else [name]
            if not self._scoped(blocks):
                variables.update(dict.fromkeys(n for w in args for n in self._names(message, w, at, False)))
            blocks.append((name, at))
        elif head == "/":
            name = body[1:].strip()
            if not blocks or blocks[-1][0] != name:
                expected = f"{{{{/{blocks[-1][0]}}}}}" if blocks else "no closing tag"
                raise self._error(message, at, f"{{{{/{name}}}}} does not close an open block (expected {expected})")
            blocks.pop()

    def _scoped(self, blocks: list) -> bool:
        """Inside a block that changes the context (names there may be fields of an item)."""
        if not self.handlebars:
            return bool(blocks)
        return any(n in SCOPING or (n not in BUILTIN and n != "else") for n, _ in blocks)

    def _condition(self, tag: str) -> str:
        """`{{#if x}}` -> `{{#if true}}` (`unless`: false) when x has no declared sample."""
        match = _CONDITION.fullmatch(tag) if self.handlebars else None
        if match is None:
            return tag
        words = re.findall(r"[A-Za-z_][\w]*", tag[tag.index(match.group(2)) + len(match.group(2)):])
        if any(self.template.variables.get(w) is not None and self.template.variables[w].samples for w in words):
            return tag
        return f"{{{{{match.group(1)}#{match.group(2)} {'true' if match.group(2) == 'if' else 'false'}{match.group(3)}}}}}"

    def _scan(self, source: str) -> None:
        """Helpers the template calls that are not defined, and the dotted paths it reads."""
        for match in TAG.finditer(source):
            body = (match.group("raw") if match.group("raw") is not None else match.group("body")) or ""
            body = body.strip().strip("~&").strip()
            words = [w for w in re.split(r"\s+", body.replace("(", " ").replace(")", " ")) if w]
            if not words:
                continue
            head = words[0].lstrip("#")
            if self.handlebars and head not in BUILTIN and _PATH.fullmatch(head) and (
                    words[0].startswith("#") or len(words) > 1) and head not in ("else", "json", "media", "section"):
                self._helpers.add(head)
            if self.handlebars:  # a subexpression's head is a helper too: `{{#unless (includes tools "git")}}`
                self._helpers.update(h for h in _SUBEXPRESSION.findall(body) if h not in BUILTIN)
            for word in words[1:] if self.handlebars and (words[0].startswith("#") or len(words) > 1) else words[:1]:
                word = word.lstrip("#^/").split("=", 1)[-1]
                if _PATH.fullmatch(word) and "." in word and not word.startswith(("@", "../", "this")):
                    steps = tuple(re.split(r"[./]", word))
                    self._paths.setdefault(steps[0], set()).add(steps[1:])

    def _names(self, message: Message, body: str, at: int, helper_first: bool = True) -> list[str]:
        words = [w for w in re.split(r"\s+", body.replace("(", " ").replace(")", " ")) if w]
        if self.handlebars and helper_first and len(words) > 1:
            words = words[1:]  # `{{json x}}`: the first word is the helper
        called = set(_SUBEXPRESSION.findall(body)) if self.handlebars else set()  # `(includes tools "git")`
        names = []
        for word in (w for w in words if w not in called):
            word = word.split("=", 1)[-1]
            if _LITERAL.match(word) or not _PATH.fullmatch(word) or word.startswith(("@", "../", "this")):
                continue
            steps = re.split(r"[./]", word)
            if any(step.startswith("_") for step in steps):
                raise self._error(message, at, f"placeholder {{{{{body}}}}} reaches a private attribute")
            if steps[0] not in HELPERS or not self.handlebars or not helper_first:  # `{{#each history}}`: data
                names.append(steps[0])
        return names

    def _compile(self, message: Message, source: str) -> Callable[[dict], str]:
        if not self.handlebars:
            import pystache
            from pystache.parser import ParsingError

            # no partials: `{{> name}}` must not read files from disk
            renderer = pystache.Renderer(escape=lambda text: text, missing_tags="ignore", partials={})
            try:
                parsed = pystache.parse(source)
            except ParsingError as exc:
                raise self._error(message, 0, f"Mustache syntax error: {exc}") from None
            return lambda context: renderer.render(parsed, context)
        from dotpromptz_handlebars import Handlebars

        engine = Handlebars(escape_html=False)
        engine.register_helper("json", _json_helper)
        for name in ("media", "section"):
            engine.register_helper(name, lambda args, options: "")
        for name in self._helpers - set(self.template.partials):
            engine.register_helper(name, _neutral_helper)
        for name, partial in self.template.partials.items():
            engine.register_partial(name, partial)
        try:
            return engine.compile(source)
        except ValueError as exc:
            raise self._error(message, 0, f"Handlebars syntax error: {exc}") from None

    def render(self, values: Mapping[str, Any], functions: Mapping[str, Callable]) -> tuple[RenderedMessage, ...]:
        rendered = []
        for message, compiled in zip(self.template.messages, self._compiled):
            try:
                with time_limit():
                    raw = compiled(self._with_paths(values))
            except PrefixlintError:
                raise
            except Exception as exc:  # the engines' own errors: report them at the message
                raise self._error(message, 0, f"cannot render: {type(exc).__name__}: {exc}") from None
            rendered.append(unmark(message.role, raw))
        return tuple(rendered)

    def _with_paths(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The values, where a name read through dotted paths and given as text (no declared
        structure) becomes a mapping of those paths, each reading that text."""
        context = dict(values)
        if not self.handlebars:
            return context  # pystache reads a path's steps as attributes of the text (sandbox.standin.Sample)
        for name, paths in self._paths.items():
            value = context.get(name)
            if not isinstance(value, str):
                continue
            tree: dict[str, Any] = {}
            for path in sorted(paths, key=len):
                node = tree
                for step in path[:-1]:
                    child = node.get(step)
                    node = node.setdefault(step, {}) if not isinstance(child, dict) else child
                node.setdefault(path[-1], value)
            context[name] = tree
        return context


def _neutral_helper(args: list, options) -> str:
    """A helper the template's own code defines: a block renders its body for each item of its
    first argument (once when it is not a list), an inline call prints its arguments."""
    if options.is_block:
        first = args[0] if args else options.context
        items = first if isinstance(first, (list, tuple)) else [first]
        join = options.hash.get("join", "")
        return str(join).join(str(options.hash.get("prefix", "")) + options.fn(item) for item in items)
    return " ".join(str(a) for a in args if a is not None and not isinstance(a, dict))


def _json_helper(args, options) -> str:
    """Dotprompt's `{{json value indent=N}}`, with the indent bounded (`indent=10**8` on a list
    would pad every item with that many spaces)."""
    indent = options.hash.get("indent")
    if indent is not None and not (isinstance(indent, int) and 0 <= indent <= MAX_JSON_INDENT):
        raise ValueError(f"json indent must be a number from 0 to {MAX_JSON_INDENT}, not {indent!r}")
    return json.dumps(args[0] if args else None, default=str, indent=indent)
