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
    # notes for coding agents about the repository, not the application's prompts; an Agent
    # Skill's SKILL.md is loaded verbatim (its braces are literal text, nothing fills them)
    "claude.md", "agents.md", "gemini.md", "copilot-instructions.md", "skill.md",
)
#: Directory names never walked into (hidden directories are skipped as well; `discover`).
SKIPPED_DIRECTORIES = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", "site-packages"})
#: Directory names of installed or generated code, which the repository-wide indexes (what fills,
#: sends or reads a prompt: `python_index`, `ts_callers`, `reach`) do not read either.
GENERATED_DIRECTORIES = SKIPPED_DIRECTORIES | {"env", "build", "dist", ".next", "coverage"}
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
                "conf.py", "hugo.toml", "book.toml", "astro.config.mjs", "vitepress.config.ts", "_quarto.yml",
                ".gitbook.yaml", ".gitbook")
#: Walked files that are prompts only on evidence (see `prompt_evidence`): Markdown, text, and
#: text templates (`.tpl`, `.hbs` ...), which web frameworks use for pages as often as teams for prompts.
EVIDENCE_SUFFIXES = (".md", ".txt", ".markdown", ".mdx", ".tpl", ".tmpl", ".ptmpl", ".template", ".hbs",
                     ".handlebars", ".mustache")
#: Extensions that say a file is a prompt template: Markdown and text beside one are prompts too
#: (a folder of prompts), as `samples/` keeps its `.md` beside its `.prompty` and `.j2` files.
TEMPLATE_SUFFIXES = (".prompty", ".prompt", ".j2", ".jinja", ".jinja2")
#: A folder or file named like a prompt's (`prompts/`, `system_prompt.md`, `instructions/`).
PROMPT_PATH = re.compile(r"prompt|instruction|persona(?!l(?!it))|^system(?:[_.-]|$)", re.IGNORECASE)
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
        if (directory / marker).exists():  # `.gitbook/` (GitBook's assets) is a folder
            return f"a documentation site ({marker}), not prompts"
    if (directory / "SKILL.md").is_file():
        return ("an Agent Skill (SKILL.md): instructions and resources a coding agent reads as they are"
                " (its templates are scaffolds it copies), not prompts the code fills")
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
    if _PROMPT_FRONT_MATTER.search(front_matter(head)):
        return "a prompt format's front matter"
    return None


def front_matter(head: str) -> str:
    """The front matter a text opens with (between `---` lines), or ""."""
    end = head.find("\n---", 3) if head.startswith("---") else -1
    return head[3:end] if end > 0 else ""


#: Evidence a walk takes a Markdown page on only when its own text does not say documentation.
_WEAK_EVIDENCE = ("a prompt folder or name", "in a folder of prompt templates")


def walk_left_out(relative: Path, path: Path, references: set[str], configured: bool,
                  top_name: str = "", beside_templates: bool = False) -> str | None:
    """Why a walk leaves a Markdown or text file out, or None when it is taken (`prompt_evidence`).
    A Markdown page taken only by its name or folder is documentation when its placeholders all
    sit in code examples (`placeholders_only_in_code`) or it opens with a site generator's front
    matter (`layout:`, `permalink:`, GitBook's `hidden:`)."""
    reason = prompt_evidence(relative, path, references, configured, top_name, beside_templates)
    if reason is None:
        return ("Markdown or text with no evidence that it is a prompt (not named in code, not in a prompt"
                " folder; the `prompts` setting takes it)")
    if reason in _WEAK_EVIDENCE and path.name.lower().endswith(MARKDOWN_SUFFIXES):
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                text = handle.read(_PAGE_READ)
        except OSError:
            return None  # the check says why it cannot be read
        if placeholders_only_in_code(text):
            return DOCUMENTATION_PAGE
        if _SITE_FRONT_MATTER.search(front_matter(text[:4096])):
            return "a page with a site generator's front matter (GitBook, Jekyll, Docusaurus ...), not a prompt"
    return None


#: Front matter keys of a documentation site's page (Jekyll, Just the Docs, Docusaurus, Hugo, GitBook).
_SITE_FRONT_MATTER = re.compile(r"^(?:layout|permalink|nav_order|nav_exclude|has_children|sidebar_position|"
                                r"sidebar_label|slug|hidden|cover|coverY|weight)\s*:", re.M)


#: How much of a walked page is read to tell documentation (a prompt longer than this is rare).
_PAGE_READ = 1 << 20
#: Markdown code: fenced blocks (```lang ... ```, ~~~) and inline code spans (`...`).
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n(.*?)^[ \t]*\1[ \t]*$", re.M | re.S)
_INLINE_CODE = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
#: A placeholder of any syntax a prompt file uses: `{{x}}`, `{% tag %}`, `${x}`, `{x}`.
_PLACEHOLDER = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\$\{[A-Za-z_][\w.]*\}|(?<![{$])\{[A-Za-z_]\w*\}(?!\})")
#: A placeholder that only names a value (`{{ diff }}`, `{code}`, `${text}`): a fence of such is a slot.
_SLOT = re.compile(r"\{\{\s*[A-Za-z_][\w.]*\s*\}\}|\$\{[A-Za-z_][\w.]*\}|\{[A-Za-z_]\w*\}")
MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx")


def documentation_page(path: str, text: str) -> str | None:
    """Why a Markdown file is documentation, not a template, or None.

    A page that shows template syntax only inside code (a fenced example, an inline code span
    such as `{{ user_name }}`) documents templates; nothing fills those placeholders. A fence
    holding only placeholders (```` ```\\n{diff}\\n``` ````) is a slot for content, not an
    example. What the page's text shows outweighs its name or folder (a `PROMPTS_SUMMARY.md`
    quoting each prompt of the code in a fence); only a prompt format's front matter or code
    that reads the file makes such a page a prompt."""
    if not path.lower().endswith(MARKDOWN_SUFFIXES) or not placeholders_only_in_code(text):
        return None
    where = Path(path).resolve()
    if _front_matter(where) or read_by_code(where):
        return None
    return DOCUMENTATION_PAGE


DOCUMENTATION_PAGE = ("Markdown whose placeholders are all inside code examples: documentation, not a template "
                      "(the `prompts` setting takes it)")


def placeholders_only_in_code(text: str) -> bool:
    """Whether `text` has placeholders and every one sits in a code example (a fence that is not
    a slot, an inline code span)."""
    found = list(_PLACEHOLDER.finditer(text))
    if not found:
        return False
    code: list[tuple[int, int]] = []
    for fence in _FENCE.finditer(text):
        if _SLOT.sub("", fence.group(2)).strip():  # an example, not a slot
            code.append(fence.span())
    for span in _INLINE_CODE.finditer(text):
        if not any(start <= span.start() < end for start, end in code):
            code.append(span.span())
    return all(any(start <= m.start() < end for start, end in code) for m in found)


def documentation_by_name(name: str) -> bool:
    """A file named as projects name their documentation and project files (README, CHANGELOG,
    CONTRIBUTING, LICENSE ...: `NOT_TEMPLATES`)."""
    return any(fnmatchcase(name.lower(), glob) for glob in NOT_TEMPLATES)


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
