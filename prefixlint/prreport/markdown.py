"""Markdown of `prefixlint report`: reuse before and after a change, for a pull-request comment.

A header naming both sides (`main` (`1a3060b`) → `add-clock` (this branch)) and what was
measured with; one table row per changed template (tokens, the exact shared prefix and what
the engine reuses of it after its rounding, at the base and now, and the change); a bar
picture of the reused share per changed template; the findings the change introduced, with
links to file and line, and the ones it fixed; the unchanged templates folded away. Starts
with a hidden marker so the one comment is found and updated.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence
from urllib.parse import quote

from prefixlint.numbers import percent
from prefixlint.results import Finding

MARKER = "<!-- prefixlint-report -->"
TITLE = "### prefixlint: prompt-cache reuse"
HEADER = "| Template | Tokens | Exact shared prefix | {rounding} |"
ALIGN = "|:--|--:|--:|--:|"
#: Unchanged templates listed at most; a GitHub comment holds at most 65,536 characters.
MAX_UNCHANGED = 100


@dataclass(frozen=True)
class Measured:
    """One template measured on one side: its tokens, exact shared prefix and engine reuse."""

    tokens: int = 0
    shared_prefix_tokens: int = 0
    reusable_tokens: int = 0
    findings: tuple[Finding, ...] = ()
    error: str | None = None  # the diagnostic when it could not be measured
    #: `report --suggest`: the unified diff of the template's safe fixes ("" when none).
    suggestion: str = ""

    def before_rounding(self) -> str:
        return "error" if self.error else percent(self.shared_prefix_tokens, self.tokens)

    def after_rounding(self) -> str:
        return "error" if self.error else percent(self.reusable_tokens, self.tokens)

    def reusable_share(self) -> float:
        return 100 * self.reusable_tokens / self.tokens if self.tokens else 0.0


@dataclass(frozen=True)
class TemplateChange:
    path: str  # repository-relative; the base path for a removed template
    status: str  # added | removed | modified | renamed | unchanged
    base: Measured | None
    now: Measured | None
    old_path: str | None = None  # renamed from
    new_findings: tuple[Finding, ...] = ()
    #: Findings of the base version that this version no longer has.
    fixed_findings: tuple[Finding, ...] = ()

    def drop(self) -> float:
        """Percentage points of reusable share (after rounding) lost; negative when gained."""
        if not self.base or not self.now or self.base.error or self.now.error:
            return 0.0
        return self.base.reusable_share() - self.now.reusable_share()


@dataclass(frozen=True)
class Setup:
    tokenizer: str
    engine: str
    block_size: int | str
    base_ref: str
    base_commit: str
    #: path, line -> URL of that line, or None to print plain `path:line`.
    link: Callable[[str, int], str | None] = field(default=lambda path, line: None)
    #: The base branch's name when the base was given as a commit (a pull request's base).
    base_name: str | None = None
    #: This branch's name and commit when known (a pull request's head); else the working tree.
    head_ref: str | None = None
    head_commit: str | None = None
    #: What the engine's rounding is called in the table: "Reused by vllm (16-token blocks)".
    rounding: str = "Reused after the engine's rounding"
    #: `--price` / the configuration's `price`: dollars per million input tokens computed, and
    #: per million reused from the cache; None: no cost column.
    price: tuple[float, float] | None = None

    @property
    def base_label(self) -> str:
        return self.base_name or self.base_ref

    @property
    def head_label(self) -> str:
        """The one name of the compared revision, in the header, the table and the bars."""
        return self.head_ref or "working tree"

    def sides(self) -> str:
        """`main` (`1a3060b`) → `add-clock` (`9f8e7d6`), or → the working tree"""
        if self.head_ref:
            commit = f" (`{self.head_commit[:7]}`)" if self.head_commit else ""
            head = f"`{escape(self.head_ref)}`{commit}"
        else:
            head = "the working tree"
        return f"`{escape(self.base_label)}` (`{self.base_commit[:7]}`) → {head}"

    def cost(self, side: "Measured") -> float:
        """Dollars per 1,000 requests of `side`: computed tokens at the input price, reused at the cached."""
        computed, cached = self.price or (0.0, 0.0)
        return 1000 * ((side.tokens - side.reusable_tokens) * computed + side.reusable_tokens * cached) / 1e6


def blob_link(server: str | None, repository: str | None, ref: str | None) -> Callable[[str, int], str | None]:
    """Links like https://github.com/OWNER/NAME/blob/REF/path#L3 when all three are known."""
    if not (server and repository and ref):
        return lambda path, line: None
    prefix = f"{server.rstrip('/')}/{repository}/blob/{quote(ref, safe='/')}/"
    return lambda path, line: f"{prefix}{quote(path)}#L{line}"


def escape(text: str) -> str:
    """Text safe inside a Markdown table cell or list item: no stray HTML, no cell breaks."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")


def _pair(base: str | None, now: str | None) -> str:
    if base is None:
        return f"— → {now}"
    if now is None:
        return f"{base} → —"
    return f"{base} → {now}"


def change_cell(row: TemplateChange) -> str:
    if row.status in ("added", "removed"):
        return row.status
    if row.base and row.base.error or row.now and row.now.error:
        return "error"
    drop = round(row.drop(), 1)
    if drop > 0:
        return f"▼ {drop:.1f} pts"
    if drop < 0:
        return f"▲ {-drop:.1f} pts"
    return "= 0.0 pts"


def template_cell(row: TemplateChange) -> str:
    name = f"`{escape(row.path)}`"
    if row.status == "renamed" and row.old_path:
        return f"`{escape(row.old_path)}` → {name}"
    if row.status in ("added", "removed"):
        return f"{name} ({row.status})"
    return name


def _side_cell(side: Measured | None, shown: Callable[[Measured], str]) -> str | None:
    return None if side is None else ("error" if side.error else shown(side))


def saved_cell(row: TemplateChange) -> str:
    """Reused tokens per request at the base and now, and the difference (tokens saved)."""
    cell = _pair(_side_cell(row.base, lambda s: f"{s.reusable_tokens:,}"),
                 _side_cell(row.now, lambda s: f"{s.reusable_tokens:,}"))
    if row.base and row.now and not row.base.error and not row.now.error:
        cell += f" ({row.now.reusable_tokens - row.base.reusable_tokens:+,})"
    return cell


def cost_cell(row: TemplateChange, setup: Setup) -> str:
    cell = _pair(_side_cell(row.base, lambda s: f"${setup.cost(s):,.2f}"),
                 _side_cell(row.now, lambda s: f"${setup.cost(s):,.2f}"))
    if row.base and row.now and not row.base.error and not row.now.error:
        delta = setup.cost(row.now) - setup.cost(row.base)
        cell += f" ({'+' if delta >= 0 else '-'}${abs(delta):,.2f})"
    return cell


def changed_row(row: TemplateChange, setup: Setup | None = None) -> str:
    base, now = row.base, row.now
    tokens = _pair(f"{base.tokens:,}" if base and not base.error else ("error" if base else None),
                   f"{now.tokens:,}" if now and not now.error else ("error" if now else None))
    before = _pair(base.before_rounding() if base else None, now.before_rounding() if now else None)
    after = _pair(base.after_rounding() if base else None, now.after_rounding() if now else None)
    cells = [template_cell(row), tokens, before, after, change_cell(row), saved_cell(row)]
    if setup is not None and setup.price:
        cells.append(cost_cell(row, setup))
    return "| " + " | ".join(cells) + " |"


def unchanged_row(row: TemplateChange) -> str:
    now = row.now or Measured(error="not measured")
    tokens = "error" if now.error else f"{now.tokens:,}"
    return f"| {template_cell(row)} | {tokens} | {now.before_rounding()} | {now.after_rounding()} |"


def finding_item(item: Finding, setup: Setup) -> str:
    where = f"{item.path}:{item.line}:{item.column}"
    url = setup.link(item.path, item.line)
    place = f"[`{escape(where)}`]({url})" if url else f"`{escape(where)}`"
    return f"- {place} **{item.code}** {item.name}: {escape(item.message)}"


def fixed_item(item: Finding, setup: Setup) -> str:
    what = item.extra.get("placeholder") or item.variable
    shown = f": `{escape(what)}`" if what else ""
    return (f"- Fixed: **{item.code}** {item.name}{shown} in `{escape(item.path)}`"
            f" (line {item.line} at `{escape(setup.base_label)}`)")


def suggestions(changed: Sequence[TemplateChange]) -> list[str]:
    """`report --suggest`: the fix of each template whose reuse fell, as a diff to apply."""
    fell = [row for row in changed if row.now and row.now.suggestion and (row.drop() > 0 or row.status == "added")]
    lines: list[str] = []
    for row in fell:
        assert row.now is not None  # `fell` holds rows measured now, with a suggestion
        lines += ["", f"**Suggested fix for `{escape(row.path)}`** (`prefixlint check --fix {escape(row.path)}`):", "",
                  "```diff", row.now.suggestion.rstrip("\n"), "```"]
    return lines


def to_markdown(rows: Sequence[TemplateChange], setup: Setup) -> str:
    from prefixlint.prreport.bars import picture

    changed = [row for row in rows if row.status != "unchanged"]
    unchanged = [row for row in rows if row.status == "unchanged"]
    header = HEADER.format(rounding=escape(setup.rounding))
    lines = [MARKER, TITLE, "", setup.sides(), "",
             f"Tokenizer `{setup.tokenizer}` · engine `{setup.engine}`, {setup.block_size}-token blocks", ""]
    if changed:
        priced = " Cost per 1,000 requests |" if setup.price else ""
        lines += [header[:-1] + "| Change | Reused tokens per request |" + priced,
                  ALIGN + ":--|--:|" + ("--:|" if setup.price else "")]
        lines += [changed_row(row, setup) for row in changed]
        lines += ["", *picture(changed, setup.base_label, setup.rounding, setup.head_label)]
        if setup.price:
            computed, cached = setup.price
            lines += ["", f"Cost at ${computed:g} per million input tokens computed and ${cached:g} per million"
                          " reused from the cache."]
    else:
        lines.append("No template changed.")
    new = sorted((f for row in changed for f in row.new_findings), key=Finding.sort_key)
    lines.append("")
    if new:
        lines.append(f"**{len(new)} new finding{'s' if len(new) != 1 else ''}**")
        lines.append("")
        lines += [finding_item(item, setup) for item in new]
    elif changed:
        lines.append("No new findings.")
    fixed = sorted((f for row in changed for f in row.fixed_findings), key=Finding.sort_key)
    if fixed:
        lines += ["", f"**{len(fixed)} fixed finding{'s' if len(fixed) != 1 else ''}**", ""]
        lines += [fixed_item(item, setup) for item in fixed]
    lines += suggestions(changed)
    errors = [(row.path, side.error) for row in changed for side in (row.now,) if side and side.error]
    if errors:
        lines += ["", "**Could not be measured**", ""]
        lines += [f"- `{escape(path)}`: {escape(message)}" for path, message in errors]
    if unchanged:
        count = len(unchanged)
        lines += ["", f"<details><summary>{count} unchanged template{'s' if count != 1 else ''}</summary>", ""]
        lines += [header, ALIGN] + [unchanged_row(row) for row in unchanged[:MAX_UNCHANGED]]
        if count > MAX_UNCHANGED:
            lines += ["", f"… and {count - MAX_UNCHANGED:,} more."]
        lines += ["", "</details>"]
    return "\n".join(lines) + "\n"
