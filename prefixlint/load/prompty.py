"""Microsoft Prompty (`.prompty`): YAML front matter, then a body split into messages by role lines.

    ---
    name: Support agent
    model: {api: chat, configuration: {type: azure_openai, azure_deployment: gpt-4o}}
    inputs:
      customer: {type: string, sample: Jane Doe}
      chat_history: {type: list}           # (Prompty 2: `kind: thread`) the conversation slot
    sample: {question: Where is my order?} # sample values (a mapping; a file reference is ignored)
    template: jinja2                       # or mustache (also `template: {format: mustache}`)
    ---
    system:
    You are ... {{customer}} ...
    {% for item in chat_history %}
    {{item.role}}:
    {{item.content}}
    {% endfor %}
    user:
    {{question}}

A file that does not start with `---` has no front matter: the whole file is the body, as in
Prompty's own loader. The body is rendered first, then split into messages at lines holding only a role
(`system:`, `user:`, `assistant:`, also `developer`, `tool`, `function`, optionally
`# system:` or `system[name="x"]:`), as Prompty's own parser does; text before the first role
line is a system message. Variables come from `inputs`
(their `sample` or `default`) and `sample`, either of which may be a `${file:NAME}` reference
to a JSON, YAML or text file beside the `.prompty` file (`prefixlint.load.file_refs`); an input whose kind/type is `thread` or
`chat_history`, or whose name is a conversation name (history, chat_history, messages...), is
the conversation slot. `model.api: completion` makes the body one prompt.
"""

from __future__ import annotations

import re

from prefixlint.errors import PrefixlintError
from prefixlint.load.base import Loader
from prefixlint.load.file_refs import resolve
from prefixlint.load.files import EmptyBody
from prefixlint.load.front_matter import python, split, trimmed, variable
from prefixlint.load.template import SLOT_NAMES, Template, Variable
from prefixlint.load.yaml_source import line_of, mapping_get

FORMAT = "prompty"
ROLE_LINE = re.compile(r"^[ \t]*#?[ \t]*(?P<role>system|user|assistant|developer|tool|function)"
                       r"(?:\[[^\]\n]*\])?[ \t]*:[ \t]*\r?$", re.IGNORECASE | re.MULTILINE)
SLOT_KINDS = ("thread", "chat_history", "history")
HINT = "a .prompty file is YAML front matter between `---` lines, then `system:` / `user:` sections"


def sniff(text: str) -> bool:
    """Every `.prompty` file is Prompty's: without front matter, as Prompty reads it, the whole
    file is the body (with no inputs and the chat API)."""
    return True


def load(path: str, text: str) -> Template:
    root, body = split(text, path, "Prompty") if text.startswith("---") else (None, 0)
    front = python(root, path) or {}
    variables: dict[str, Variable] = {}
    slot = None
    inputs = front.get("inputs") or {}
    if isinstance(inputs, list):  # Prompty 2: a list of {name, kind, default, sample}
        inputs = {item.get("name"): item for item in inputs if isinstance(item, dict) and item.get("name")}
    if not isinstance(inputs, dict):
        raise PrefixlintError("`inputs` must be a mapping of name -> {type, sample, default}", path=path,
                              line=line_of(mapping_get(root, "inputs")))
    sample_node = mapping_get(root, "sample") if root is not None else None
    sample_line = line_of(sample_node) if sample_node is not None else 1
    samples = resolve(front.get("sample"), path, sample_line)
    samples = samples if isinstance(samples, dict) else {}
    for name in [*inputs, *(n for n in samples if n not in inputs)]:
        spec = inputs.get(name)
        kind = ""
        values = []
        if isinstance(spec, dict):
            kind = str(spec.get("kind") or spec.get("type") or "").lower()
            values += [v for v in (resolve(spec[key], path, line_of(root) if root is not None else 1)
                                   for key in ("sample", "default") if spec.get(key) not in (None, "")) if v is not None]
        elif spec is not None:
            values.append(spec)
        if name in samples:
            values.insert(0, samples[name])
        if not values and kind in ("integer", "number", "int", "float"):
            values = [3, 4]  # a number the template may count or compare with, not a text stand-in
        is_slot = kind in SLOT_KINDS or str(name) in SLOT_NAMES
        slot = str(name) if is_slot and slot is None else slot
        variables[str(name)] = variable(str(name), values[:2], line_of(root), slot=is_slot)
    engine = front.get("template") or "jinja2"
    if isinstance(engine, dict):
        engine = engine.get("format") or engine.get("type") or "jinja2"
    syntax = {"jinja2": "jinja", "jinja": "jinja", "mustache": "mustache"}.get(str(engine).lower())
    if syntax is None:
        raise PrefixlintError(f"unknown Prompty template engine {engine!r}", path=path,
                              line=line_of(mapping_get(root, "template")), hint="use jinja2 or mustache")
    model = found if isinstance(found := front.get("model"), dict) else {}
    is_chat = str(model.get("api", "chat")).lower() != "completion"
    configuration = found if isinstance(found := model.get("configuration"), dict) else {}
    model_name = model.get("id") or configuration.get("azure_deployment") or configuration.get("model") \
        or configuration.get("name") or (front.get("model") if isinstance(front.get("model"), str) else None)
    single = trimmed(None, text, body, len(text))
    if single is None:
        raise EmptyBody("the Prompty body is empty", path=path, line=text.count("\n", 0, body) + 1)
    # As Prompty does: render the body, then split the result into messages at role lines
    # (so a loop that writes `{{item.role}}:` lines for the history makes messages too).
    return Template(path=path, format=FORMAT, source=text, messages=(single,), syntax=syntax,
                    variables=variables, is_chat=is_chat, slot=slot, role_markers=is_chat,
                    model=str(model_name) if model_name else None,
                    role_line=ROLE_LINE.pattern if is_chat else None)


LOADER = Loader(FORMAT, sniff, load, hint=HINT, whole_request=True, lenient_attributes=True)
