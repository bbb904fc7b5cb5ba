"""Plain template text (.md, .txt, .j2, .jinja, .jinja2): the whole file is one prompt.

The placeholder syntax is decided from the text, in this order:
1. `.j2`, `.jinja`, `.jinja2` files are Jinja2.
2. Without a Jinja tag (`{%`, `{#`): Handlebars when a block helper (`{{#if x}}`, `{{#each x}}`,
   `{{#unless x}}`, `{{#with x}}`, any `{{#helper arg}}`) or `{{else}}` is used; Mustache when
   only sections (`{{#name}}`, `{{^name}}`, `{{/name}}`) are; Semantic Kernel's own syntax when
   a variable is written `{{$name}}` (`skprompt.txt`).
3. A file with a Jinja tag (`{%`, `{#`) or an expression that starts with a name (`{{ x`,
   `{{x}}`, `{{- x`) is Jinja2; Handlebars/Mustache `{{x}}` reads the same way.
3. A file containing `${name}` is the JavaScript/shell style.
4. A file containing `{name}` (a Python identifier in single braces) is str.format; there
   `{{` and `}}` are literal braces (LangChain f-string templates write JSON that way).
5. Otherwise Jinja2 (a file without placeholders renders to itself either way).
A file written in Go's text/template (`{{ .Field }}`, `{{ define "name" }}`) is no template
prefixlint reads: named, it is refused with that reason; walked, it is skipped with it.
Plain files declare no variables: every free name in a placeholder is a variable, classified
by what the code that reads the file fills it with (`prefixlint.load.file_fills`), else from
its name by the catalog. A file with role lines (`# system:`, `# user:`, `# assistant:`
on a line of their own, as Prompt flow writes them) is a conversation: it is rendered as one
text and split into messages at those lines. A conversation name the template loops over
(`{{#each history}}<message role="{{role}}">`, `{% for m in history %}`; see
`prefixlint.load.template.loop_slots`) is the conversation slot: it renders as earlier turns
(`prefixlint.render.history`), neither dropped nor taken as per-request text.
"""

from __future__ import annotations

import re
from pathlib import PurePath

from prefixlint.load.base import Loader
from prefixlint.load.template import ROLE_LINE, Message, Template, Variable, identity_message, loop_slots

FORMAT = "plain-text"
JINJA_EXTENSIONS = (".j2", ".jinja", ".jinja2")
_JINJA = re.compile(r"\{[%#]|\{\{-?\s*[A-Za-z_]")
_JINJA_TAG = re.compile(r"(?<!\{)\{[%#]")
_HANDLEBARS = re.compile(r"\{\{~?\s*(?:#[A-Za-z_][\w-]*\s+[^}\s]|else\s*~?\}\}|#\*inline|>\s*[\w\"'])")
_MUSTACHE = re.compile(r"\{\{\s*[#^/][A-Za-z_][\w.-]*\s*\}\}")
_SK = re.compile(r"\{\{\s*\$[A-Za-z_]")
#: Go's text/template (Helm, Hugo, Go services): `{{ .Field }}`, `{{ if .X }}`, `{{ define "n" }}`.
#: No syntax prefixlint reads writes an action that way (Mustache's `{{.}}` has no name after it).
_GO_ACTION = re.compile(r"\{\{-?\s*(?:\.[A-Za-z_]|(?:define|template|block)\s+\"|(?:if|range|with)\s+\.[A-Za-z_])")
_DOLLAR = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_.]*\}")
_FORMAT_FIELD = re.compile(r"(?<!\{)\{[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_]\w*|\[\w+\])*(?:![rsa])?(?::[^{}]*)?\}(?!\})")


def sniff(text: str) -> bool:
    return True


def placeholder_syntax(path: str, text: str) -> str:
    if PurePath(path).suffix.lower() in JINJA_EXTENSIONS:
        return "jinja"
    if not _JINJA_TAG.search(text):
        if _HANDLEBARS.search(text):
            return "handlebars"
        if _SK.search(text):
            return "sk"
        if _MUSTACHE.search(text):
            return "mustache"
    if _JINJA.search(text):
        return "jinja"
    if _DOLLAR.search(text):
        return "dollar"
    if _FORMAT_FIELD.search(text):
        return "format"
    return "jinja"


def load(path: str, text: str) -> Template:
    from prefixlint.load.compose import compose_origins, composes, through_child
    from prefixlint.load.file_fills import file_variables
    from prefixlint.load.file_sends import file_sent

    if PurePath(path).suffix.lower() not in JINJA_EXTENSIONS and (go := _GO_ACTION.search(text)):
        from prefixlint.load.registry import NotATemplate

        raise NotATemplate(f"a Go text/template (`{go.group(0)}`...): a template syntax prefixlint does not read",
                           path=path, line=text.count("\n", 0, go.start()) + 1,
                           hint="Go templates are not measured; a walk skips this file")
    message = identity_message(None, text, 0)
    if composes(text):  # `{% include %}`, `{% extends %}`, `{{> partial}}`: the prompt as sent
        composed, offsets, origins = compose_origins(path, text)
        message = Message(None, composed, offsets, 0, origins)
    elif (extended := through_child(path, text)) is not None:  # a base template, as a child renders it
        message = Message(None, extended[0], extended[1], 0)
    has_roles = ROLE_LINE.search(message.content) is not None
    syntax = placeholder_syntax(path, message.content)
    # `{{#each history}}<message role="{{role}}">`, `{% for m in history %}`: the earlier turns,
    # neither dropped nor taken as per-request text
    slots = {name: Variable(name, "conversation") for name in sorted(loop_slots(message.content))}
    # what the code that reads this file fills its placeholders with (`file_fills`)
    fields = _JINJA.search(text) or _DOLLAR.search(text) or _FORMAT_FIELD.search(text)
    filled = file_variables(path, message.content) if fields else {}
    # how the code sends the text (`file_sends`): alone, no conversation follows a value in it
    sent = file_sent(path, message.content) if fields and not has_roles and not slots else None
    return Template(
        path=path, format=FORMAT, source=text, messages=(message,),
        syntax=syntax, is_chat=has_roles, role_markers=has_roles, variables={**filled, **slots},
        sent_alone=sent[1] if sent else None, sent_as=sent[0] if sent else None,
    )


LOADER = Loader(FORMAT, sniff, load, declared=False)
