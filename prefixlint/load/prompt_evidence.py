"""What tells a walked file is a prompt, or that it is not (issue 19 item 1).

Markdown and text are the most common way teams keep prompts, and the most common way they
write documentation: a walk takes them only on evidence (`prompt_evidence`). Whole trees of
documentation, websites, blogs and test fixtures are not prompts (`not_prompt_tree`).
"""

from __future__ import annotations

import re
from fnmatch import fnmatchcase
from pathlib import Path

#: File names (case-insensitive globs) that match DEFAULT_PATTERNS but are project files, not
#: prompts: linting them costs time, and a README that shows Jinja syntax would fail the run.
NOT_TEMPLATES: tuple[str, ...] = (
    "readme", "readme.*", "changelog", "changelog.*", "license", "license.*", "licence", "licence.*",
    "copying", "copying.*", "notice", "notice.*", "authors", "authors.*", "contributors",
    "contributors.*", "contributing", "contributing.*", "code_of_conduct.*", "security.md",
    "requirements.txt", "requirements-*.txt", "constraints.txt", "constraints-*.txt", "cmakelists.txt", "robots.txt",
    "docker-compose*.y*ml", "compose.y*ml", "mkdocs.y*ml", "pnpm-lock.yaml", "pnpm-workspace.yaml",
    "codecov.y*ml", "pubspec.yaml", "environment.y*ml", "chart.yaml", "action.y*ml",
    # notes for coding agents about the repository, not the application's prompts
    "claude.md", "agents.md", "gemini.md", "copilot-instructions.md",
)
#: Directory names whose files are documentation pages: a website, a blog.
DOCUMENTATION_TREES = frozenset({
    "docs", "doc", "documentation", "website", "site", "www", "blog", "_posts", "posts", "_site",
})
#: Directory names whose files are tests: the prompts in them are inputs the tests make up
#: (a date, a user name in a mock request), checked where the application writes its own.
TEST_TREES = frozenset({"tests", "test", "__tests__", "spec", "specs", "e2e"})
#: Directory names whose files are documentation, tests or test fixtures, not prompts.
NOT_PROMPT_TREES = DOCUMENTATION_TREES | TEST_TREES | {
    "fixtures", "__fixtures__", "testdata", "test_data", "__snapshots__", "snapshots", "cassettes",
}
#: Files that make their directory a documentation site (MkDocs, Jekyll, Docusaurus, Sphinx, Hugo ...).
SITE_MARKERS = ("mkdocs.yml", "mkdocs.yaml", "_config.yml", "docusaurus.config.js", "docusaurus.config.ts",
                "conf.py", "hugo.toml", "book.toml", "astro.config.mjs", "vitepress.config.ts", "_quarto.yml")
#: Walked files that are prompts only on evidence (see `prompt_evidence`): Markdown, text, and
#: text templates (`.tpl`, `.hbs` ...), which web frameworks use for pages as often as teams for prompts.
EVIDENCE_SUFFIXES = (".md", ".txt", ".markdown", ".mdx", ".tpl", ".tmpl", ".ptmpl", ".template", ".hbs",
                     ".handlebars", ".mustache")
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
    if directory.name.lower() in TEST_TREES:
        return f"a test tree ({directory.name}/): its prompts are the tests' inputs"
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


#: Markdown code: fenced blocks (```lang ... ```, ~~~) and inline code spans (`...`).
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n(.*?)^[ \t]*\1[ \t]*$", re.M | re.S)
_INLINE_CODE = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
#: A placeholder of any syntax a prompt file uses: `{{x}}`, `{% tag %}`, `${x}`, `{x}`.
_PLACEHOLDER = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\$\{[A-Za-z_][\w.]*\}|(?<![{$])\{[A-Za-z_]\w*\}(?!\})")
#: A placeholder that only names a value (`{{ diff }}`, `{code}`, `${text}`): a fence of such is a slot.
_SLOT = re.compile(r"\{\{\s*[A-Za-z_][\w.]*\s*\}\}|\$\{[A-Za-z_][\w.]*\}|\{[A-Za-z_]\w*\}")
MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx")


def documentation_page(path: str, text: str) -> str | None:
    """Why a Markdown file named on the command line is documentation, not a template, or None.

    A page that shows template syntax only inside code (a fenced example, an inline code span
    such as `{{ user_name }}`) documents templates; nothing fills those placeholders. A fence
    holding only placeholders (```` ```\\n{diff}\\n``` ````) is a slot for content, not an
    example, and a file with a prompt's folder, name or front matter is a prompt whatever its
    code shows."""
    if not path.lower().endswith(MARKDOWN_SUFFIXES):
        return None
    found = list(_PLACEHOLDER.finditer(text))
    if not found:
        return None
    code: list[tuple[int, int]] = []
    for fence in _FENCE.finditer(text):
        if _SLOT.sub("", fence.group(2)).strip():  # an example, not a slot
            code.append(fence.span())
    for span in _INLINE_CODE.finditer(text):
        if not any(start <= span.start() < end for start, end in code):
            code.append(span.span())
    if any(not any(start <= m.start() < end for start, end in code) for m in found):
        return None
    if _named_like_prompt(Path(path)):
        return None
    return ("Markdown whose placeholders are all inside code examples: documentation, not a template "
            "(the `prompts` setting takes it)")


def documentation_by_name(name: str) -> bool:
    """A file named as projects name their documentation and project files (README, CHANGELOG,
    CONTRIBUTING, LICENSE ...: `NOT_TEMPLATES`)."""
    return any(fnmatchcase(name.lower(), glob) for glob in NOT_TEMPLATES)


def _named_like_prompt(path: Path) -> bool:
    """A prompt's folder or name, prompt template files beside it, or a prompt format's front
    matter. A README (or any file named as documentation by convention) in a prompts folder
    documents the prompts beside it: the folder and its neighbours speak for them, not for it,
    so only its own front matter or code that reads it makes it a prompt; so for a page in a
    documentation tree (`docs/prompts.md`), whatever its name."""
    try:
        where = path.resolve()
        siblings = [entry.name.lower() for entry in where.parent.iterdir()]
    except OSError:
        return False
    if documentation_by_name(where.name) or _in_documentation_tree(where):
        return _front_matter(where) or read_by_code(where)
    if any(PROMPT_PATH.search(part) for part in (*where.parent.parts[-2:], where.stem)):
        return True
    if any(name.endswith(TEMPLATE_SUFFIXES) for name in siblings):
        return True
    return _front_matter(where)


def _in_documentation_tree(where: Path) -> bool:
    """Whether a folder above the file, inside its repository, holds documentation (`docs/`,
    `website/`, `blog/`): a page there named like a prompt (`docs/prompts.md`) documents prompts."""
    for folder in list(where.parents)[:8]:
        if folder.name.lower() in DOCUMENTATION_TREES:
            return True
        if (folder / ".git").exists():
            return False
    return False


def _front_matter(where: Path) -> bool:
    return prompt_evidence(Path(where.name), where, set(), False) == "a prompt format's front matter"


def read_by_code(target: Path) -> bool:
    """Whether a Python module of the repository that fills templates reads `target` itself: it
    names the file in a string, from the file's own folder or with the folder in the name
    (`"prompts/README.md"`; a bare `"README.md"` elsewhere is another folder's README)."""
    from prefixlint.load.python_modules import naming_modules

    for module, _root in naming_modules(target):
        if module.parent == target.parent:
            return True
        text = module.read_text(encoding="utf-8", errors="replace")
        for match in re.finditer(r"[\"']([^\"'\s]{0,200}?)" + re.escape(target.name) + r"[\"']", text):
            if match.group(1) and (module.parent / match.group(1) / target.name).resolve() == target \
                    or match.group(1).rstrip("/").endswith(target.parent.name):
                return True
    return False
