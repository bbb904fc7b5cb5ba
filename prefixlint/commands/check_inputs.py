"""What `prefixlint check` reads (the files named or walked, or standard input), when it fails
(`--fail-level`), and its progress bar."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from prefixlint.errors import PrefixlintError


@dataclass
class Inputs:
    """The command line's paths, walked: files in order, and what went wrong on the way."""

    files: dict[str, None] = field(default_factory=dict)
    named: set[str] = field(default_factory=set)
    #: Directory named on the command line -> the files found in it.
    walks: dict[str, list[str]] = field(default_factory=dict)
    problems: list[PrefixlintError] = field(default_factory=list)
    #: Path -> why a walk left it out (not a prompt): for --show-files and the JSON output.
    skipped: dict[str, str] = field(default_factory=dict)


def gather(paths, *, config_file: Path | None, isolated: bool, force_exclude: bool) -> Inputs:
    from prefixlint.config import load_config
    from prefixlint.load.discover import discover

    found_all = Inputs()
    for raw in paths:
        try:
            walk = load_config(Path(raw), config_file=config_file, isolated=isolated)
            found = discover([raw], exclude=walk.exclude, exclude_root=walk.exclude_root, force_exclude=force_exclude,
                             prompts=walk.prompts + walk.system_prompts, skipped=found_all.skipped)
            if Path(raw).is_dir() or force_exclude:
                # A walked file's own (closer) configuration may exclude it too.
                configs = {f: load_config(f, config_file=config_file, isolated=isolated) for f in found}
                found = [f for f in found if not configs[f].is_excluded(f)]
                # A file the configuration names as a prompt is checked as if named: its errors count.
                found_all.named.update(str(f) for f in found if configs[f].is_configured_prompt(f))
        except PrefixlintError as exc:
            found_all.problems.append(exc.located(raw))
            continue
        found_all.files.update(dict.fromkeys(map(str, found)))
        if Path(raw).is_dir():
            found_all.walks[raw] = [str(f) for f in found]
        else:
            found_all.named.update(map(str, found))
    return found_all


def read_stdin(stdin_filename: str | None) -> str:
    import sys

    import click

    if not stdin_filename:
        raise click.UsageError("`check -` reads standard input: name it with --stdin-filename PATH"
                               " (its extension chooses the format, its folder the configuration)")
    from prefixlint.limits import MAX_FILE_BYTES

    data = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)  # `cat /dev/zero |` must not fill memory
    if len(data) > MAX_FILE_BYTES:
        raise PrefixlintError(f"standard input is too large (more than {MAX_FILE_BYTES:,} bytes, the limit)",
                              path=stdin_filename)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PrefixlintError(f"not valid UTF-8 at byte offset {exc.start}", path=stdin_filename) from None


#: Severity -> rank, for --fail-level.
SEVERITY_RANK = {"info": 0, "warning": 1, "error": 2}


def fails(results, fail_level: str) -> bool:
    """Whether a finding at or above `fail_level` was reported."""
    floor = SEVERITY_RANK[fail_level]
    return any(SEVERITY_RANK.get(f.severity, 2) >= floor for result in results for f in result.findings)


def progress(total: int):
    """A progress bar on stderr for many files on a terminal (as `replay` shows), else None."""
    import sys

    import click

    if total < PROGRESS_FILES or not sys.stderr.isatty():
        return None
    return click.progressbar(length=total, label="checking", file=sys.stderr, show_pos=True, show_eta=True)


#: From this many files on, `check` shows a progress bar on a terminal.
PROGRESS_FILES = 20


def show_files(results, problems) -> None:
    """`check --show-files`: on standard output the files the run checked (each file a result
    or an error is reported for, and the configuration a promptfoo prompt is measured through),
    as ruff lists only what it checks; on stderr each file it skipped with the reason, and the
    problems with the paths."""
    import click

    checked: dict[str, None] = {}
    for result in results:
        if result.skipped is None:
            checked.update(dict.fromkeys(p for p in (result.config, result.path) if p))
    for path in checked:
        click.echo(path)
    for result in results:
        if result.skipped is not None and result.path not in checked:
            click.echo(f"skipped: {result.path} ({result.skipped})", err=True)
    for problem in problems:
        click.echo(f"prefixlint: error: {problem}", err=True)
