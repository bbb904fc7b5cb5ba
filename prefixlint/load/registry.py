"""Which loader reads which file: a table keyed by extension, adapters imported by name.

Adding a format is one module plus one line here. An adapter module (e.g.
`prefixlint/load/prompty.py`) defines:

    FORMAT = "prompty"                          # a short name, shown in output
    def sniff(text: str) -> bool: ...           # does this text look like my format?
    def load(path: str, text: str) -> Template: # parse it (prefixlint.load.template.Template)
    LOADER = Loader(FORMAT, sniff, load, hint=HINT)   # its `Format` (prefixlint.load.base)

and is listed under each extension it reads in `LOADERS`. A file that holds several prompts
(a promptfoo config) also gives `many=load_all` (`load_all(path, text) -> list[Template]`), each
template with the path and text of the file its prompt is written in. Where several formats share an
extension (`.yaml`: native, LangChain, Semantic Kernel, promptfoo; `.prompt`: Dotprompt,
Humanloop), the candidates are tried in order and the first whose `sniff` accepts the text
loads it; put the most specific first and a catch-all last. Adapters raise PrefixlintError
with a path and line for anything they cannot read.

What a Template needs (see `prefixlint.load.template`), and the helpers that build it:
- `messages`: each message's `content` and, for every character of it, its offset in the file.
  Text copied verbatim from the file (a body after front matter):
  `identity_message(role, text, start)`. A YAML scalar: `compose(text, path)` and `mapping_get`
  from `prefixlint.load.yaml_source` give the node, `align(node.value, text, start, end,
  node.style)` its offsets (as `native_yaml._scalar_message` does).
- `syntax`: "jinja" (also Handlebars/Mustache `{{x}}`), "format" (`{x}`) or "dollar" (`${x}`).
- `variables` (name -> Variable(kind, samples)) and `declares_variables` when the format lists
  its inputs (Prompty `inputs`/`sample`, Dotprompt `input.default`, LangChain `input_variables`).
- `is_chat` for a conversation; `role_markers` when one text holds it with role lines
  (`prefixlint.load.template.ROLE_LINE`, `# system:` as Prompt flow writes it; Prompty's
  `system:` lines need that pattern widened).
- `tokenizer` / `engine` when the file names them.
"""

from __future__ import annotations

import importlib
from functools import lru_cache
from pathlib import PurePath

from prefixlint.errors import PrefixlintError
from prefixlint.load.base import Format
from prefixlint.load.template import Template


class NotATemplate(PrefixlintError):
    """The file is not in any format a loader reads (a directory walk skips such files)."""


# extension -> adapter modules under prefixlint.load, tried in order
LOADERS: dict[str, tuple[str, ...]] = {
    ".yaml": ("promptfoo", "langchain", "semantic_kernel", "crewai", "agent_yaml", "native_yaml", "prompt_strings"),
    ".yml": ("promptfoo", "langchain", "semantic_kernel", "crewai", "agent_yaml", "native_yaml", "prompt_strings"),
    ".json": ("langchain", "chat_template", "promptfoo", "semantic_kernel_json", "prompt_strings"),
    ".md": ("plain_text",),
    ".txt": ("plain_text",),
    # extensions that name a text template (walked only on evidence, as Markdown and text are)
    ".tpl": ("plain_text",), ".tmpl": ("plain_text",), ".ptmpl": ("plain_text",), ".template": ("plain_text",),
    ".hbs": ("plain_text",), ".handlebars": ("plain_text",), ".mustache": ("plain_text",),
    ".j2": ("chat_template", "plain_text"),
    ".jinja": ("chat_template", "plain_text"),
    ".jinja2": ("chat_template", "plain_text"),
    ".prompty": ("prompty",),
    ".prompt": ("dotprompt", "humanloop"),
    # prompts in program source: strings and template literals where a prompt goes
    ".py": ("python_source",),
    ".ts": ("ts_source",), ".tsx": ("ts_source",), ".mts": ("ts_source",), ".cts": ("ts_source",),
    ".js": ("ts_source",), ".jsx": ("ts_source",), ".mjs": ("ts_source",), ".cjs": ("ts_source",),
}


def template_extensions() -> tuple[str, ...]:
    """File name endings that directory walking picks up."""
    return tuple(LOADERS)


def adapter(name: str) -> Format:
    """The format of the adapter module `prefixlint.load.<name>`, imported when first needed."""
    return importlib.import_module(f"prefixlint.load.{name}").LOADER


def load_template(path: str, text: str | None = None) -> Template:
    """Read `path` (through `prefixlint.load.files.read_text`) and load it with its adapter."""
    return _load(path, text, many=False)[0]


def load_templates(path: str, text: str | None = None) -> list[Template]:
    """Every template in `path`: one for most formats, one per prompt for a promptfoo config."""
    return _load(path, text, many=True)


def recognises(path: str, text: str, walking: bool = False) -> bool:
    """Whether some adapter for `path`'s extension accepts `text`. Directory walks sniff `.json`
    files with `walking=True`: an adapter's `sniff_walked` (when it has one) decides then."""
    for name in LOADERS.get(PurePath(path).suffix.lower(), ()):
        loader = adapter(name)
        if (loader.sniff_walked if walking else loader.sniff)(text):
            return True
    return False


@lru_cache(maxsize=None)
def loader_for(format_name: str) -> Format:
    """The loader whose templates carry `format_name` (`Template.format`), to ask its traits; a
    format no loader reads (a template built in memory) gets a loader with every trait off."""
    for name in dict.fromkeys(module for modules in LOADERS.values() for module in modules):
        loader = adapter(name)
        if format_name == loader.name or format_name in getattr(loader, "also", ()):
            return loader
    from prefixlint.load.base import Loader

    return Loader(format_name, lambda text: False, _unreadable, declared=False)


def _unreadable(path: str, text: str) -> Template:
    raise NotATemplate("not a template file this version reads", path=path)


def reading_loader(path: str, text: str) -> Format | None:
    """The loader that reads `path` with content `text` (the first whose sniff accepts it)."""
    for name in LOADERS.get(PurePath(path).suffix.lower(), ()):
        loader = adapter(name)
        if loader.sniff(text):
            return loader
    return None


def _load(path: str, text: str | None, many: bool) -> list[Template]:
    from prefixlint.load.files import read_text

    candidates = LOADERS.get(PurePath(path).suffix.lower())
    if candidates is None:
        raise NotATemplate(
            "not a template file this version reads",
            path=path, hint=f"prefixlint check reads: {', '.join(sorted(LOADERS))}",
        )
    if text is None:
        text = read_text(path)
    for name in candidates:
        loader = adapter(name)
        if loader.sniff(text):
            return loader.load_all(path, text) if many else [loader.load(path, text)]
    raise unrecognised(path)


def unrecognised(path: str) -> NotATemplate:
    """The error for a file that no loader of its extension reads, with every loader's hint."""
    loaders = [adapter(name) for name in LOADERS.get(PurePath(path).suffix.lower(), ())]
    names = " or ".join(loader.name for loader in loaders)
    hints = [loader.hint for loader in loaders]
    return NotATemplate(f"not a recognised template ({names})", path=path, line=1,
                        hint="; ".join(h for h in hints if h)
                        or "a native prefixlint YAML file has a top-level `messages` or `prompt`")
