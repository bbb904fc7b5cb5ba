"""What tells a walked file is a prompt, or that it is not (issue 19 item 1).

Markdown and text are the most common way teams keep prompts, and the most common way they
write documentation: a walk takes them only on evidence (`prompt_evidence`). Whole trees of
documentation, websites, blogs and test fixtures are not prompts (`not_prompt_tree`).
"""

from __future__ import annotations

import re
from pathlib import Path

#: Directory names whose files are documentation, a website, a blog or test fixtures, not prompts.
NOT_PROMPT_TREES = frozenset({
    "docs", "doc", "documentation", "website", "site", "www", "blog", "_posts", "posts", "_site",
    "fixtures", "__fixtures__", "testdata", "test_data", "__snapshots__", "snapshots", "cassettes",
})
#: Files that make their directory a documentation site (MkDocs, Jekyll, Docusaurus, Sphinx, Hugo ...).
SITE_MARKERS = ("mkdocs.yml", "mkdocs.yaml", "_config.yml", "docusaurus.config.js", "docusaurus.config.ts",
                "conf.py", "hugo.toml", "book.toml", "astro.config.mjs", "vitepress.config.ts", "_quarto.yml")
#: Walked files that are prompts only on evidence (see `prompt_evidence`).
EVIDENCE_SUFFIXES = (".md", ".txt", ".markdown", ".mdx")
#: Extensions that say a file is a prompt template: Markdown and text beside one are prompts too
#: (a folder of prompts), as `samples/` keeps its `.md` beside its `.prompty` and `.j2` files.
TEMPLATE_SUFFIXES = (".prompty", ".prompt", ".j2", ".jinja", ".jinja2")
#: A folder or file named like a prompt's (`prompts/`, `system_prompt.md`, `instructions/`).
PROMPT_PATH = re.compile(r"prompt|instruction|persona|^system(?:[_.-]|$)", re.IGNORECASE)
#: A string in code that names a template file: `"prompts/x.md"`, `'./p.md?raw'`, `` `a.txt` ``.
FILE_REFERENCE = re.compile(r"[\w./-]*?([\w-]+\.(?:md|txt|markdown|mdx|j2|jinja2?|prompt|prompty))(?:\?raw)?[\"'`]")
#: Front matter keys of prompt formats (Prompty, Dotprompt, promptfoo), not of a site generator.
_PROMPT_FRONT_MATTER = re.compile(r"^(?:model|inputs?|sample|template_format|input_variables|output)\s*:", re.M)


def not_prompt_tree(directory: Path) -> str | None:
    """Why the files under `directory` are not prompts (documentation, a site, fixtures), or None."""
    if directory.name.lower() in NOT_PROMPT_TREES:
        return f"a documentation, website or fixture tree ({directory.name}/), not prompts"
    for marker in SITE_MARKERS:
        if (directory / marker).is_file():
            return f"a documentation site ({marker}), not prompts"
    return None


def prompt_evidence(relative: Path, path: Path, references: set[str], configured: bool,
                    top_name: str = "", beside_templates: bool = False) -> str | None:
    """What says a walked Markdown or text file is a prompt, or None: the configuration names it,
    the walk's code names it in a string, its folder or its own name is a prompt's, it sits
    beside prompt template files, or it starts with a prompt format's front matter."""
    if configured:
        return "configured"
    if path.name in references:
        return "named in code"
    if any(PROMPT_PATH.search(part) for part in (top_name, *relative.parts[:-1], path.stem)):
        return "a prompt folder or name"
    if beside_templates:
        return "in a folder of prompt templates"
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            head = handle.read(4096)
    except OSError:
        return None
    if head.startswith("---"):
        end = head.find("\n---", 3)
        if end > 0 and _PROMPT_FRONT_MATTER.search(head[3:end]):
            return "a prompt format's front matter"
    return None
