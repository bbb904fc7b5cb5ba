"""Read YAML safely for the loaders: node positions, limits against alias bombs, clear errors.

Shared by every YAML-based adapter (native, Prompty and dotprompt front matter, LangChain,
Semantic Kernel, promptfoo): `compose(text, path)` returns PyYAML's node tree (SafeLoader),
whose scalar nodes carry start/end marks into the file; `to_python(node)` builds plain Python
values from it after checking that aliases do not expand it beyond `MAX_NODES`.

It is the one way prefixlint reads YAML: templates, transcripts, `.prefixlint.yaml`, volatility
signal files and the shipped rule catalog all go through `compose` (or `load_yaml`), so every
input gets the same size and alias limits and the same located diagnostics.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from prefixlint.errors import PrefixlintError

#: A YAML file may hold at most this many nodes once its aliases are expanded; a "billion
#: laughs" document (nested aliases) expands to far more and is refused without expanding it.
MAX_NODES = 100_000
#: Aliases are rare in prompt files; more than this many is refused outright.
MAX_ALIASES = 1_000
#: YAML files larger than this are refused (prompt templates are a few kilobytes).
MAX_YAML_CHARS = 2 * 1024 * 1024
#: Collections may nest this deep. libyaml 0.2.6 stops at 1,000 levels itself, but 0.2.5 (the one
#: PyYAML 6.0.3's wheels carry) has no limit, and PyYAML's C composer recurses once a level:
#: `[` * 50,000 overflows the C stack (SIGSEGV). `_check_events` refuses it from the events first.
MAX_DEPTH = 1_000


def safe_loader():
    """libyaml's SafeLoader when PyYAML was built with it (about ten times faster), else PyYAML's."""
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@lru_cache(maxsize=2)
def bounded_loader(base=None):
    """`base` (default `safe_loader()`) whose integers and timestamps that Python refuses (5,000 digits,
    `2024-13-45`) are YAML errors at their node instead of a ValueError from deep inside."""
    import yaml

    from prefixlint.limits import bounded_int

    base = base or safe_loader()

    def guarded(construct):
        def constructor(loader, node):
            try:
                if node.tag.endswith(":int"):
                    bounded_int(node.value.replace("_", "").lstrip("+-").removeprefix("0x").removeprefix("0o"))
                return construct(loader, node)
            except (ValueError, OverflowError, PrefixlintError) as exc:
                message = getattr(exc, "message", None) or str(exc)
                raise yaml.constructor.ConstructorError(
                    None, None, f"{node.value[:40]!r} is not a valid {node.tag.rsplit(':', 1)[-1]}: {message}"
                    " (quote it to keep it as text)", node.start_mark) from None
        return constructor

    class BoundedLoader(base):  # type: ignore[misc, valid-type]
        yaml_constructors = dict(base.yaml_constructors)

    for tag in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:float"):
        BoundedLoader.yaml_constructors[tag] = guarded(base.yaml_constructors[tag])
    return BoundedLoader


def load_yaml(text: str, path: str, what: str = "malformed YAML") -> Any:
    """The plain Python values of the single YAML document in `text`, within the limits."""
    node = compose(text, path, what)
    return None if node is None else to_python(node, path, what)


def compose(text: str, path: str, what: str = "malformed YAML", kind: str = "YAML file"):
    """The root node of the single YAML document in `text` (None for an empty document).
    `what` begins the message of a syntax error (`malformed YAML: ...`); `kind` names the file
    in the other refusals (`a NUL byte is not allowed in a configuration file`)."""
    import yaml

    if len(text) > MAX_YAML_CHARS:
        raise PrefixlintError(
            f"{kind} is too large ({len(text):,} characters; the limit is {MAX_YAML_CHARS:,})", path=path
        )
    if "\x00" in text:  # PyYAML refuses it with a reader error of no line
        raise PrefixlintError(f"a NUL byte is not allowed in a {kind}", path=path,
                              line=text[: text.index("\x00")].count("\n") + 1)
    loader = safe_loader()(text)
    try:
        _check_events(yaml, text, path)
        node = loader.get_single_node()
    except yaml.YAMLError as exc:
        raise yaml_error(exc, path, what) from None
    finally:
        loader.dispose()
    if node is not None:
        _check_expansion(node, path)
    return node


def yaml_error(exc, path: str, what: str = "malformed YAML") -> PrefixlintError:
    """A PyYAML error as one located diagnostic: the problem, at its line and column."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    if mark is None:
        return PrefixlintError(f"{what}: {exc}", path=path)
    problem = getattr(exc, "problem", None) or getattr(exc, "context", None) or what
    return PrefixlintError(f"{what}: {problem}", path=path, line=mark.line + 1, column=mark.column + 1)


def _check_events(yaml, text: str, path: str) -> None:
    """Refuse, from the parser's events (libyaml's parser keeps its own stack: it does not
    recurse), collections nested deeper than MAX_DEPTH and more than MAX_ALIASES aliases, before
    anything recursive sees the document.

    Each level needs an opener: `[` or `{` (flow), or `- `/`? ` (a block entry, which may share
    its line with the next one); any other block level needs more indentation than the one it is
    in, and MAX_YAML_CHARS leaves room for about 2,000 of those, which compose without trouble.
    An alias needs a `*`. So only a text with more of either than its limit is walked."""
    openers = text.count("[") + text.count("{") + text.count("- ") + text.count("? ") + text.count("-\t")
    if openers <= MAX_DEPTH and text.count("*") <= MAX_ALIASES:
        return
    depth = aliases = 0
    starts, ends = (yaml.SequenceStartEvent, yaml.MappingStartEvent), (yaml.SequenceEndEvent, yaml.MappingEndEvent)
    for event in yaml.parse(text, Loader=safe_loader()):
        if isinstance(event, starts):
            depth += 1
            if depth > MAX_DEPTH:
                from prefixlint.limits import too_deep

                raise too_deep(path, line=event.start_mark.line + 1)
        elif isinstance(event, ends):
            depth -= 1
        elif isinstance(event, yaml.AliasEvent):
            aliases += 1
            if aliases > MAX_ALIASES:
                raise PrefixlintError(f"YAML file uses more than {MAX_ALIASES:,} aliases; refused", path=path, line=1)


def _check_expansion(root, path: str) -> None:
    """Refuse a node graph that expands (through aliases) to more than MAX_NODES nodes.

    Sizes are memoised per node object, so this costs one visit per distinct node even for
    a document whose expansion would be astronomically large.
    """
    sizes: dict[int, int] = {}
    in_progress: set[int] = set()

    def size(node) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in in_progress:  # a recursive structure (an alias to an enclosing node)
            raise PrefixlintError("YAML file contains a recursive alias; refused", path=path,
                                  line=node.start_mark.line + 1)
        in_progress.add(key)
        total = 1
        if isinstance(node.value, list):
            for item in node.value:
                if isinstance(item, tuple):
                    total += size(item[0]) + size(item[1])
                else:
                    total += size(item)
                if total > MAX_NODES:
                    break
        in_progress.discard(key)
        sizes[key] = total
        return total

    if size(root) > MAX_NODES:
        raise PrefixlintError(
            f"YAML file expands to more than {MAX_NODES:,} nodes through its aliases (an alias bomb?); refused",
            path=path, line=root.start_mark.line + 1,
            hint="prompt files do not need anchors and aliases; write the values out",
        )


def to_python(node, path: str, what: str = "malformed YAML") -> Any:
    """Plain Python values (dicts, lists, str, int...) for a node checked by `compose`."""
    import yaml

    loader = bounded_loader()("")
    try:
        return loader.construct_object(node, deep=True)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        raise PrefixlintError(f"{what}: {exc.problem}", path=path,
                              line=mark.line + 1 if mark else None) from None
    finally:
        loader.dispose()


def mapping_get(node, key: str):
    """The value node under `key` in a mapping node, or None (also for any other node)."""
    if type(node).__name__ != "MappingNode":
        return None
    for key_node, value_node in node.value:
        if getattr(key_node, "value", None) == key:
            return value_node
    return None


def line_of(node) -> int:
    return node.start_mark.line + 1
