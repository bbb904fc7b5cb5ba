"""Discover: turn the paths given on the command line into the sorted list of files to check.

A file named on the command line is checked as given, whatever its extension, and even when
`.gitignore` or `exclude` would skip it (as ruff and flake8 do). A directory is walked
recursively and yields the files that match `DEFAULT_PATTERNS`, except:
- hidden files and directories (`.git`, `.venv`, `.github`, ...) and `SKIPPED_DIRECTORIES`;
- paths ignored by `.gitignore` files (git's rules, via pathspec): every `.gitignore` from the
  git root down applies below its own directory, a deeper file can re-include with `!`, and
  `.git/info/exclude` applies to the whole repository;
- paths matched by `exclude` (gitignore-style patterns relative to `exclude_root`);
- files that match the patterns but are never prompts (`NOT_TEMPLATES`: README.md, LICENSE.txt,
  requirements.txt, docker-compose.yml, ...);
- symbolic links to directories (no cycles); symbolic links to files are followed.
"""

from __future__ import annotations

import fnmatch
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator

from prefixlint.errors import PrefixlintError
from prefixlint.limits import directory_root, inside_root

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
#: Directory names never walked into (hidden directories are skipped as well).
SKIPPED_DIRECTORIES = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", "site-packages"})
#: File names (case-insensitive globs) that match DEFAULT_PATTERNS but are project files, not
#: prompts: linting them costs time, and a README that shows Jinja syntax would fail the run.
NOT_TEMPLATES: tuple[str, ...] = (
    "readme", "readme.*", "changelog", "changelog.*", "license", "license.*", "licence", "licence.*",
    "copying", "copying.*", "notice", "notice.*", "authors", "authors.*", "contributors",
    "contributors.*", "contributing", "contributing.*", "code_of_conduct.*", "security.md",
    "requirements.txt", "requirements-*.txt", "constraints.txt", "constraints-*.txt", "cmakelists.txt", "robots.txt",
    "docker-compose*.y*ml", "compose.y*ml", "mkdocs.y*ml", "pnpm-lock.yaml", "pnpm-workspace.yaml",
    "codecov.y*ml", "pubspec.yaml", "environment.y*ml", "chart.yaml", "action.y*ml",
)
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
) -> list[Path]:
    """The files to check under `paths`, sorted, each once.

    A path that does not exist, or a directory without any template file, is a PrefixlintError;
    with an `errors` list it is appended there and discovery goes on with the other paths.
    `exclude_root` is the directory `exclude` patterns are relative to (default: the working
    directory; pass `Config.exclude_root` for patterns from a configuration file).
    `force_exclude` applies `exclude` to files named on the command line too (ruff's
    `--force-exclude`): a pre-commit hook names every changed file, excluded or not.
    """
    import pathspec

    exclude_spec = pathspec.GitIgnoreSpec.from_lines(exclude) if exclude else None
    root = Path(os.path.abspath(exclude_root or os.getcwd()))
    walk = _Walk(patterns, sniffed, exclude_spec, root, respect_gitignore, force_exclude)
    found: dict[str, Path] = {}
    for raw in paths:
        try:
            for path in _expand(raw, walk):
                found.setdefault(os.path.abspath(path) if raw != STDIN else STDIN, path)
        except PrefixlintError as exc:
            if errors is None:
                raise
            errors.append(exc)
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
    if not files:
        hint = "name a file on the command line to check it whatever its name"
        if skipped:
            hint = (f"{skipped} matching file{'s' if skipped != 1 else ''} skipped by .gitignore,"
                    f" exclude or as non-templates (README, LICENSE...); {hint}")
        raise PrefixlintError(
            f"no template files found under {raw} (patterns: {' '.join(walk.patterns)})", hint=hint
        )
    yield from files


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

    def files(self, top: Path) -> tuple[list[Path], int]:
        """The template files under `top` (spelled from `top` as given), and how many were skipped."""
        absolute = Path(os.path.abspath(top))
        self.root = directory_root(str(absolute))  # symlinks may not lead out of it
        specs = self._ancestor_specs(absolute) if self.gitignore else []
        found: list[Path] = []
        skipped = self._walk(top, absolute, specs, found)
        return found, skipped

    def _walk(self, shown: Path, absolute: Path, specs: list[tuple[Path, Any]], found: list[Path]) -> int:
        if self.gitignore:
            spec = _read_ignore_file(absolute / ".gitignore")
            if spec is not None:
                specs = [*specs, (absolute, spec)]
        skipped = 0
        try:
            entries = sorted(os.scandir(absolute), key=lambda entry: entry.name)
        except OSError as exc:
            raise PrefixlintError(f"cannot read directory: {exc.strerror}", path=str(shown)) from None
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            if entry.is_dir(follow_symlinks=False):
                if name in SKIPPED_DIRECTORIES or self._ignored(absolute / name, True, specs):
                    continue
                skipped += self._walk(shown / name, absolute / name, specs, found)
            elif not _is_file(entry):  # a symlink loop or a dangling link is no file to check
                continue
            elif entry.is_symlink() and not inside_root(absolute / name, self.root):
                skipped += 1  # a link out of the repository (/etc/passwd): --allow-outside-paths
                continue
            elif not self._is_template_name(name) and self._is_sniffed(name):
                if not self._ignored(absolute / name, False, specs) and _recognised(absolute / name):
                    found.append(shown / name)
            elif self._is_template_name(name):
                if _name_matcher(NOT_TEMPLATES)(name.lower()) or self._ignored(
                    absolute / name, False, specs
                ):
                    skipped += 1
                else:
                    found.append(shown / name)
        return skipped

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

    @staticmethod
    def _ancestor_specs(top: Path) -> list[tuple[Path, Any]]:
        """The ignore files above `top` that apply to it: from the git root down to top's parent."""
        chain = []
        for directory in [top, *top.parents]:
            chain.append(directory)
            if (directory / ".git").exists():
                break
        else:
            return []  # not in a git repository: only the .gitignore files inside `top` apply
        root = chain[-1]
        specs = []
        info_exclude = _read_ignore_file(root / ".git" / "info" / "exclude")
        if info_exclude is not None:
            specs.append((root, info_exclude))
        for directory in reversed(chain[1:]):
            spec = _read_ignore_file(directory / ".gitignore")
            if spec is not None:
                specs.append((directory, spec))
        return specs


def _is_file(entry: os.DirEntry) -> bool:
    try:
        return entry.is_file()
    except OSError:  # ELOOP
        return False


@lru_cache(maxsize=None)
def _name_matcher(patterns: tuple[str, ...]):
    """`match` of one regular expression that accepts what any of the globs accepts (as
    `fnmatch.fnmatchcase` does), compiled once instead of once per glob."""
    if not patterns:
        return lambda name: None
    return re.compile("|".join(fnmatch.translate(pattern) for pattern in patterns)).match


def _recognised(path: Path) -> bool:
    """Whether a sniffed file (JSON, program source) is a template a loader reads when walking."""
    from prefixlint.load.registry import recognises

    from prefixlint.limits import read_bytes

    try:
        text = read_bytes(str(path), SNIFF_MAX_BYTES).decode("utf-8")
    except (PrefixlintError, UnicodeDecodeError):
        return False
    return recognises(str(path), text, walking=True)


def _read_ignore_file(path: Path) -> Any:
    import pathspec

    from prefixlint.limits import read_bytes

    try:
        text = read_bytes(str(path)).decode("utf-8", errors="replace")
    except PrefixlintError:  # absent, or not a regular file (a FIFO would block the walk)
        return None
    try:
        return pathspec.GitIgnoreSpec.from_lines(text.splitlines())
    except (ValueError, TypeError, re.error):  # git skips a line it cannot read (`!` alone, `[z-a]`): so do we
        return pathspec.GitIgnoreSpec.from_lines([line for line in text.splitlines() if _valid_line(line)])


def _valid_line(line: str) -> bool:
    import pathspec

    try:
        pathspec.GitIgnoreSpec.from_lines([line])
    except (ValueError, TypeError, re.error):
        return False
    return True
