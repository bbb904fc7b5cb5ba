"""promptfoo: the `prompts:` of `promptfooconfig.yaml`, and JSON message lists (`prompt.json`).

    prompts:
      - "Summarize in {{ language }}: {{ article }}"         # an inline prompt
      - file://prompts/support_chat.json                     # a JSON list of {role, content}
      - id: file://prompts/system.txt                        # prompts in a text file, split at `---` lines
        label: system
    tests:
      - vars: {language: French, article: ...}               # each test's vars are sample values

Each prompt is a template of its own: `load_all` returns one per prompt, each with the path
and text of the file it is written in (a `file://` reference is resolved relative to the
config, globs included), so findings point into that file. Prompts are Nunjucks, rendered as
Jinja2. Inline text that is a JSON list of messages is a chat. Test `vars` (and
`defaultTest.vars`) give samples; `file://` values and prompt functions (`.py`, `.js`) are
not read. `_conversation` (promptfoo's multi-turn history) is the conversation slot. A `.json`
file that is a list of `{role, content}` objects is read on its own too, and so is a JSON prompt
file that is JSON only once rendered (Nunjucks `{% for %}` between the messages, as promptfoo's
multi-turn examples write it): it is rendered whole, then read as the list of messages.
"""

from __future__ import annotations

import glob
import json
import re
from dataclasses import replace
from pathlib import Path

from prefixlint.errors import PrefixlintError
from prefixlint.load.base import Loader
from prefixlint.load.json_source import compose_json, node_offsets
from prefixlint.load.template import Message, Template, Variable, align
from prefixlint.load.yaml_source import compose, line_of, mapping_get, to_python

FORMAT = "promptfoo"
SLOT = "_conversation"
_CONFIG = re.compile(r"^prompts\s*:", re.MULTILINE)
_SIGNS = re.compile(r"^(providers|tests|defaultTest|scenarios)\s*:", re.MULTILINE)
_SPLIT = re.compile(r"^---[ \t]*\r?\n", re.MULTILINE)
CODE_SUFFIXES = (".py", ".js", ".ts", ".mjs", ".cjs")
HINT = "a promptfoo config has top-level `prompts:` and `providers:` or `tests:`; a prompt.json is a list of {role, content}"


_NUNJUCKS_JSON = re.compile(r'^\s*\[[\s\S]*"role"[\s\S]*(\{%|\{\{)')


def sniff(text: str) -> bool:
    return bool(_CONFIG.search(text) and _SIGNS.search(text)) or _is_message_list(text) or _is_nunjucks_json(text)


def _is_nunjucks_json(text: str) -> bool:
    """A JSON message list with Nunjucks tags between its items: not JSON until rendered."""
    if _NUNJUCKS_JSON.match(text[:200_000]) is None:
        return False
    try:
        json.loads(text)
    except json.JSONDecodeError:
        return True  # not JSON until rendered
    except (ValueError, RecursionError):
        return False  # JSON that Python refuses (a 5,000-digit number): the JSON loaders say so
    return False


def _rendered_json(path: str, text: str, variables) -> Template:
    template = _template(path, text, (Message(None, text, tuple(range(len(text))), 0),), variables, True)
    return replace(template, json_messages=True)


def sniff_walked(text: str) -> bool:
    """A directory walk takes promptfoo configs, not bare message lists (they look like data)."""
    return bool(_CONFIG.search(text) and _SIGNS.search(text))


def _is_message_list(text: str) -> bool:
    if not text.lstrip().startswith("["):
        return False
    try:
        data = json.loads(text)
    except ValueError:  # (a RecursionError goes on: the file is one "nests too deeply" error)
        return False
    return bool(data) and isinstance(data, list) and all(isinstance(m, dict) and "role" in m and "content" in m
                                                          for m in data)


def load(path: str, text: str) -> Template:
    return load_all(path, text)[0]


def load_all(path: str, text: str) -> list[Template]:
    if _is_message_list(text):
        return [_chat(path, text, compose_json(text, path), lambda index: index, {})]
    if _is_nunjucks_json(text):
        return [_rendered_json(path, text, {})]
    root = compose(text, path)
    if root is None or root.id != "mapping":
        raise PrefixlintError("a promptfoo config is a YAML mapping", path=path, line=1)
    prompts = mapping_get(root, "prompts")
    variables = _variables(root, path)
    entries = prompts.value if prompts is not None and prompts.id == "sequence" else \
        [key for key, _ in prompts.value] if prompts is not None and prompts.id == "mapping" else None
    if not entries:
        raise PrefixlintError("`prompts` must be a non-empty list", path=path, line=line_of(prompts or root))
    templates: list[Template] = []
    for entry in entries:
        if entry.id == "mapping":
            found = mapping_get(entry, "raw") or mapping_get(entry, "id")
            if found is None:
                raise PrefixlintError("a prompt entry needs `raw` or `id`", path=path, line=line_of(entry))
            entry = found
        if entry.id != "scalar" or not entry.tag.endswith(":str"):
            raise PrefixlintError("a prompt is text or a `file://` path", path=path, line=line_of(entry))
        value = str(entry.value)
        if value.startswith("file://"):
            templates += _referenced(path, entry, value[len("file://"):], variables)
            continue
        offsets = align(value, text, entry.start_mark.index, entry.end_mark.index)
        templates.append(_inline(path, text, value, offsets, variables, entry))
    return templates


def _inline(path, text, value, offsets, variables, entry) -> Template:
    if _is_message_list(value):  # a JSON chat written inline: positions through the YAML scalar
        def to_file(index: int) -> int:
            return offsets[min(index, len(offsets) - 1)]
        return _chat(path, text, compose_json(value, path), to_file, variables, inner=value)
    message = Message(None, value, offsets, entry.start_mark.index)
    return _template(path, text, (message,), variables, False)


def _referenced(config: str, entry, reference: str, variables) -> list[Template]:
    from prefixlint.limits import confined
    from prefixlint.load.files import read_text

    reference = re.sub(r":[A-Za-z_]\w*$", "", reference) if Path(reference).suffix not in CODE_SUFFIXES else reference
    if Path(reference.split(":")[0]).suffix in CODE_SUFFIXES:
        raise PrefixlintError(f"prompt functions are not read: {reference}", path=config, line=line_of(entry),
                              hint="lint the prompt text the function returns as a template file of its own")
    base = Path(config).parent
    if any(c in reference for c in "*?["):  # glob.glob takes absolute patterns too, Path.glob does not
        paths = sorted(glob.glob(str(base / reference)))
    else:
        paths = [str(base / reference)]
    if not paths:
        raise PrefixlintError(f"no file matches {reference}", path=config, line=line_of(entry))
    templates = []
    for target in paths:
        try:
            text = read_text(confined(config, target, reference))
        except PrefixlintError as exc:
            raise PrefixlintError(f"cannot read {reference}: {exc.message}", path=config, line=line_of(entry),
                                  hint=exc.hint) from None
        if target.endswith(".json"):
            if _is_nunjucks_json(text):
                templates.append(_rendered_json(target, text, variables))
                continue
            if not _is_message_list(text):
                raise PrefixlintError("a JSON prompt must be a list of {role, content}", path=target, line=1)
            templates.append(_chat(target, text, compose_json(text, target), lambda index: index, variables))
        elif target.endswith((".yaml", ".yml")):
            templates.append(_chat(target, text, compose(text, target), lambda index: index, variables))
        else:  # text prompts, several in one file separated by `---` lines
            cursor = 0
            pieces = []
            for match in _SPLIT.finditer(text):
                pieces.append((cursor, match.start()))
                cursor = match.end()
            pieces.append((cursor, len(text)))
            for start, end in pieces:
                content = text[start:end]
                if content.strip():
                    message = Message(None, content, tuple(range(start, end)), start)
                    templates.append(_template(target, text, (message,), variables, False))
    return templates


def _chat(path, text, root, to_file, variables, inner: str | None = None) -> Template:
    """A list of {role, content} nodes; `to_file` maps an index of the parsed text to the file."""
    raw = inner if inner is not None else text
    if root is None or root.id != "sequence" or not root.value:
        raise PrefixlintError("a chat prompt is a non-empty list of {role, content}", path=path,
                              line=line_of(root) if root is not None else 1)
    messages = []
    for item in root.value:
        role, content = mapping_get(item, "role"), mapping_get(item, "content")
        if role is None or content is None or content.id != "scalar" or not content.tag.endswith(":str"):
            where = to_file(item.start_mark.index) if inner is not None else item.start_mark.index
            line = text.count("\n", 0, where) + 1
            raise PrefixlintError("each message needs a `role` and a text `content`", path=path, line=line)
        offsets = node_offsets(content, raw) if raw.lstrip().startswith("[") else \
            align(content.value, raw, content.start_mark.index, content.end_mark.index)
        messages.append(Message(str(role.value), content.value, tuple(to_file(o) for o in offsets),
                                to_file(content.start_mark.index)))
    return _template(path, text, tuple(messages), variables, True)


def _template(path, text, messages, variables, is_chat) -> Template:
    variables = dict(variables)
    used = " ".join(m.content for m in messages)
    slot = SLOT if SLOT in used else None
    if slot:
        variables[SLOT] = Variable(SLOT, "conversation")
    return Template(path=path, format=FORMAT, source=text, messages=messages, syntax="jinja",
                    variables=variables, is_chat=is_chat, slot=slot)


def _variables(root, path: str) -> dict[str, Variable]:
    """Sample values from `defaultTest.vars` and each test's `vars` (up to two distinct per name)."""
    found: dict[str, list] = {}
    default = mapping_get(root, "defaultTest")
    tests = mapping_get(root, "tests")
    nodes = [mapping_get(default, "vars")] if default is not None and default.id == "mapping" else []
    if tests is not None and tests.id == "sequence":
        nodes += [mapping_get(test, "vars") for test in tests.value if test.id == "mapping"]
    for node in nodes:
        values = to_python(node, path) if node is not None else None
        if not isinstance(values, dict):
            continue
        for name, value in values.items():
            for sample in value if isinstance(value, list) else [value]:
                if isinstance(sample, str) and sample.startswith("file://"):
                    continue
                seen = found.setdefault(str(name), [])
                if sample not in seen and len(seen) < 2:
                    seen.append(sample)
    return {name: Variable(name, None, tuple(samples)) for name, samples in found.items()}


LOADER = Loader(FORMAT, sniff, load, hint=HINT, walked=sniff_walked, many=load_all)
