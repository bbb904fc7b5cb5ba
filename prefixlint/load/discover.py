"""Discover: turn the paths given on the command line into the sorted list of files to check.

A file named on the command line is checked as given, whatever its extension, and even when
`.gitignore` or `exclude` would skip it (as ruff and flake8 do). A directory is walked
recursively and yields the files that match `DEFAULT_PATTERNS`, except:
- hidden files and directories (`.git`, `.venv`, `.github`, ...) and `SKIPPED_DIRECTORIES` (`prompt_evidence`);
- paths ignored by `.gitignore` files (git's rules, via pathspec): every `.gitignore` from the
  git root down applies below its own directory, a deeper file can re-include with `!`, and
  `.git/info/exclude` applies to the whole repository; paths matched by `exclude`;
- files of the patterns that are never prompts (`NOT_TEMPLATES`: README.md, LICENSE.txt, ...);
- symbolic links to directories (no cycles); symbolic links to files are followed;
- documentation, website, blog, test and fixture trees (`NOT_PROMPT_TREES`, or a directory with
  a site generator's configuration, `SITE_MARKERS`), unless the `prompts` patterns name files in them;
- Markdown and text files without evidence that they are prompts (`prompt_evidence`): referenced
  from the code of the walk (a string naming the file: `open("x.md")`, `read_text`, a `?raw`
  import), in a folder or under a name like a prompt's, with a prompt format's front matter, or
  named by the configuration's `prompts` / `system-prompts` patterns.
Every file a walk leaves out for what it is (not for .gitignore or `exclude`) is given to the
`skipped` list with its reason, for `check --show-files` and the JSON output; a directory whose
files are all left out so is nothing to check, not an error.
"""

from __future__ import annotations

import errno
import fnmatch
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator

from prefixlint.errors import PrefixlintError
from prefixlint.limits import directory_root, inside_root
from prefixlint.load.gitignore import ancestor_specs, read_ignore_file
from prefixlint.load.prompt_evidence import (
    EVIDENCE_SUFFIXES,
    FILE_REFERENCE,
    NOT_TEMPLATES,
    SKIPPED_DIRECTORIES,
    TEMPLATE_SUFFIXES,
    not_prompt_tree,
    walk_left_out,
)

#: File patterns a directory walk picks up. The choice, for a linter run on every commit:
#: YAML (the native format), the template extensions (`.j2`, `.jinja`, `.jinja2`, Prompty's
#: `.prompty`, Dotprompt's `.prompt`) and `.md`/`.txt`, because plain Markdown and text are the
#: most common way teams keep prompts. `.json` is not among them: in a repository it is mostly
#: package manifests, lock files, fixtures and data, rarely a template (see SNIFFED_PATTERNS).
DEFAULT_PATTERNS: tuple[str, ...] = (
    "*.yaml", "*.yml", "*.md", "*.txt", "*.j2", "*.jinja", "*.jinja2", "*.prompty", "*.prompt",
)
#: Files a walk takes only when their content is a template a loader recognises (a LangChain
#: prompt, a `tokenizer_config.json` with a `chat_template`); any other JSON found by walking
#: is skipped silently. A JSON file named on the command line is always checked, and is an
#: error when it is not a template. Bare message lists (promptfoo's prompt.json) are read when
#: named or referenced from a promptfoo config, not by walking: they look like any data file.
#: Program source (Python, TypeScript, JavaScript) is sniffed the same way: a module that names
#: no prompt-like word is not opened further, and one without a prompt is skipped by the check.
SNIFFED_PATTERNS: tuple[str, ...] = (
    "*.json", "*.py", "*.ts", "*.tsx", "*.mts", "*.cts", "*.js", "*.jsx", "*.mjs", "*.cjs",
)
#: Files larger than this are not opened to sniff them (templates are a few kilobytes).
SNIFF_MAX_BYTES = 1024 * 1024
STDIN = "-"
def discover(
    paths: list[str],
    *,
    exclude: tuple[str, ...] = (),
    respect_gitignore: bool = True,
    patterns: tuple[str, ...] = DEFAULT_PATTERNS,
    sniffed: tuple[str, ...] = SNIFFED_PATTERNS,
    exclude_root: Path | None = None,
    errors: list[PrefixlintError] | None = None,
    force_exclude: bool = False,
    prompts: tuple[str, ...] = (),
    skipped: dict[str, str] | None = None,
) -> list[Path]:
    """The files to check under `paths`, sorted, each once.

    A path that does not exist, or a directory without any template file, is a PrefixlintError;
    with an `errors` list it is appended there and discovery goes on with the other paths.
    `exclude_root` is the directory `exclude` patterns are relative to (default: the working
    directory; pass `Config.exclude_root` for patterns from a configuration file).
    `force_exclude` applies `exclude` to files named on the command line too (ruff's
    `--force-exclude`): a pre-commit hook names every changed file, excluded or not.
    `prompts`: gitignore-style patterns (relative as `exclude`) of files that are prompts
    whatever the evidence; `skipped` receives path -> reason for each file a walk left out.
    """
    import pathspec

    exclude_spec = pathspec.GitIgnoreSpec.from_lines(exclude) if exclude else None
    root = Path(os.path.abspath(exclude_root or os.getcwd()))
    walk = _Walk(patterns, sniffed, exclude_spec, root, respect_gitignore, force_exclude)
    walk.prompts = pathspec.GitIgnoreSpec.from_lines(prompts) if prompts else None
    found: dict[str, Path] = {}
    for raw in paths:
        try:
            for path in _expand(raw, walk):
                found.setdefault(os.path.abspath(path) if raw != STDIN else STDIN, path)
        except PrefixlintError as exc:
            if errors is None:
                raise
            errors.append(exc)
    if skipped is not None:
        skipped.update(walk.reasons)
    return sorted(found.values())


def _expand(raw: str, walk: "_Walk") -> Iterator[Path]:
    if raw == STDIN:
        yield Path(STDIN)
        return
    path = Path(raw)
    if not os.path.lexists(path):
        raise PrefixlintError("no such file or directory", path=raw)
    if not path.is_dir():
        if not (walk.force_exclude and walk.excluded(Path(os.path.abspath(path)), False)):
            yield path
        return
    files, skipped = walk.files(path)
    if not files and _noted_under(walk.reasons, path):
        return  # every file is what it is (documentation, tests, no prompt): nothing to check, no error
    if not files:
        hint = "name a file on the command line to check it whatever its name"
        if skipped:
            hint = (f"{skipped} matching file{'s' if skipped != 1 else ''} skipped by .gitignore,"
                    f" exclude or as a link out of the repository; {hint}")
        raise PrefixlintError(
            f"no template files found under {raw} (patterns: {' '.join(walk.patterns)})", hint=hint
        )
    yield from files


def _noted_under(reasons: dict[str, str], top: Path) -> bool:
    """Whether the walk left out something under `top` for what it is (paths spelled from `top`)."""
    base = top.as_posix().rstrip("/")
    return any(base in ("", ".") or key.rstrip("/") == base or key.startswith(base + "/") for key in reasons)


class _Walk:
    """One directory walk: patterns, exclusions and the .gitignore files in force."""

    def __init__(
        self, patterns: tuple[str, ...], sniffed: tuple[str, ...], exclude: Any, exclude_root: Path, gitignore: bool,
        force_exclude: bool,
    ):
        self.patterns = patterns
        self.template_name = _name_matcher(tuple(pattern.lower() for pattern in patterns))
        self.sniffed_name = _name_matcher(tuple(pattern.lower() for pattern in sniffed))
        self.exclude = exclude
        self.exclude_root = exclude_root
        self.gitignore = gitignore
        self.force_exclude = force_exclude
        self.prompts: Any = None
        self.reasons: dict[str, str] = {}  # shown path -> why the walk left it out

    def files(self, top: Path) -> tuple[list[Path], int]:
        """The template files under `top` (spelled from `top` as given), and how many were skipped."""
        absolute = Path(os.path.abspath(top))
        self.root = directory_root(str(absolute))  # symlinks may not lead out of it
        specs = ancestor_specs(absolute) if self.gitignore else []
        found: list[Path] = []
        self.references: set[str] = set()  # file names that the walk's code names in a string
        self.candidates: list[tuple[Path, Path, bool]] = []  # Markdown and text, kept on evidence (beside templates?)
        skipped = self._walk(top, absolute, specs, found)
        for shown, path, beside in self.candidates:
            left_out = walk_left_out(shown.relative_to(top), path, self.references, self.configured(path),
                                     top_name=absolute.name, beside_templates=beside)
            if left_out is not None:
                self.reasons[str(shown)] = left_out
                skipped += 1
            else:
                found.append(shown)
        found.sort()
        return found, skipped

    def _walk(self, shown: Path, absolute: Path, specs: list[tuple[Path, Any]], found: list[Path]) -> int:
        if self.gitignore:
            spec = read_ignore_file(absolute / ".gitignore")
            if spec is not None:
                specs = [*specs, (absolute, spec)]
        skipped = 0
        try:
            entries = sorted(os.scandir(absolute), key=lambda entry: entry.name)
        except OSError as exc:
            raise PrefixlintError(f"cannot read directory: {exc.strerror}", path=str(shown)) from None
        beside = any(entry.name.lower().endswith(TEMPLATE_SUFFIXES) for entry in entries)
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            if entry.is_dir(follow_symlinks=False):
                if name in SKIPPED_DIRECTORIES or self._ignored(absolute / name, True, specs):
                    continue
                tree = not_prompt_tree(absolute / name)
                if tree is not None and self.prompts is None:
                    self.reasons[f"{shown / name}/"] = tree
                    continue
                self.in_tree = getattr(self, "in_tree", None)
                outer, self.in_tree = self.in_tree, self.in_tree or tree
                skipped += self._walk(shown / name, absolute / name, specs, found)
                self.in_tree = outer
            elif (why := _not_a_file(entry)) is not None:  # a link loop, a FIFO, a socket, a device
                self.reasons.update({str(shown / name): why} if self._is_sniffed(name) or self._is_template_name(name) else {})
                continue
            elif entry.is_symlink() and not inside_root(absolute / name, self.root):
                skipped += 1  # a link out of the repository (/etc/passwd): --allow-outside-paths
                continue
            elif getattr(self, "in_tree", None) and not self.configured(absolute / name):
                continue  # inside a documentation or fixture tree that `prompts` reaches into
            elif not self._is_template_name(name) and self._is_sniffed(name):
                if self._ignored(absolute / name, False, specs):
                    continue
                reason = self._recognised(absolute / name)
                if reason is None:
                    found.append(shown / name)
                else:
                    self.reasons[str(shown / name)] = reason
            elif self._is_template_name(name):
                if self._ignored(absolute / name, False, specs):
                    skipped += 1
                elif _name_matcher(NOT_TEMPLATES)(name.lower()):
                    skipped += 1
                    self.reasons[str(shown / name)] = "a project file (README, LICENSE, a manifest), not a prompt"
                elif name.lower().endswith(EVIDENCE_SUFFIXES):
                    self.candidates.append((shown / name, absolute / name, beside))
                else:
                    found.append(shown / name)
        return skipped

    def configured(self, path: Path) -> bool:
        """Whether the configuration's `prompts` patterns name `path`."""
        if self.prompts is None:
            return False
        base = self.exclude_root if path.is_relative_to(self.exclude_root) else path.parent
        return bool(self.prompts.match_file(path.relative_to(base).as_posix()))

    def _recognised(self, path: Path) -> str | None:
        """None when a sniffed file (JSON, program source) is a template a loader reads when
        walking, else why not. The file names a program's strings mention are noted on the way."""
        from prefixlint.limits import read_bytes
        from prefixlint.load.registry import recognises

        try:
            text = read_bytes(str(path), SNIFF_MAX_BYTES).decode("utf-8")
        except UnicodeDecodeError:
            return "not UTF-8 text"
        except PrefixlintError as exc:
            return exc.message
        if path.suffix.lower() != ".json":
            self.references.update(m.group(1) for m in FILE_REFERENCE.finditer(text))
        if recognises(str(path), text, walking=True):
            return None
        if path.suffix.lower() == ".json":
            return "JSON that is no prompt format (a manifest, data)"
        return "program source that names no prompt-like word"

    def _is_template_name(self, name: str) -> bool:
        return self.template_name(name.lower()) is not None

    def _is_sniffed(self, name: str) -> bool:
        return self.sniffed_name(name.lower()) is not None

    def excluded(self, path: Path, is_dir: bool) -> bool:
        """Whether `exclude` matches the absolute `path` (relative to exclude_root when inside it)."""
        if self.exclude is None:
            return False
        base = self.exclude_root if path.is_relative_to(self.exclude_root) else path.parent
        return self.exclude.match_file(path.relative_to(base).as_posix() + ("/" if is_dir else ""))

    def _ignored(self, path: Path, is_dir: bool, specs: list[tuple[Path, Any]]) -> bool:
        if self.excluded(path, is_dir):
            return True
        suffix = "/" if is_dir else ""
        # The deepest .gitignore with a matching pattern decides (so `!name` can re-include).
        for base, spec in reversed(specs):
            result = spec.check_file(path.relative_to(base).as_posix() + suffix)
            if result.include is not None:
                return bool(result.include)
        return False


def _not_a_file(entry: os.DirEntry) -> str | None:
    try:  # None for a regular file; os.stat raises for a link loop or a dangling link; else a FIFO, socket, device
        return None if entry.is_file() else "not a regular file (a device, FIFO or socket)" if os.stat(entry.path) else None
    except OSError as exc:
        return "a symlink loop" if exc.errno == errno.ELOOP else f"cannot read: {exc.strerror}"


@lru_cache(maxsize=None)
def _name_matcher(patterns: tuple[str, ...]):
    """`match` of one regular expression that accepts what any of the globs accepts (as
    `fnmatch.fnmatchcase` does), compiled once instead of once per glob."""
    if not patterns:
        return lambda name: None
    return re.compile("|".join(fnmatch.translate(pattern) for pattern in patterns)).match
