"""What checking a file gives: its findings and its measured numbers, for every output format.

`Finding` and `FileResult` are public, stable interfaces: the rules make findings, the check
pipeline makes one `FileResult` per file, and the formatters (text, json, github, sarif) and
`prefixlint report` read them. `error` is set (and `findings` empty) when the file could not
be read, rendered or measured; the other files are still checked.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from prefixlint.errors import PrefixlintError


@dataclass(frozen=True)
class Finding:
    """One problem at one place in one file, with the measured numbers behind it."""

    path: str
    line: int  # 1-based, in the file as written
    column: int  # 1-based
    code: str  # PFX001
    name: str  # timestamp-before-stable
    severity: str  # error | warning | info
    message: str
    variable: str | None = None
    #: Measured: the request's tokens, its exact shared prefix between two renders, what the
    #: engine reuses of it, and what it would reuse with the suggested fix.
    tokens: int | None = None
    shared_prefix_tokens: int | None = None
    reusable_tokens: int | None = None
    fixed_reusable_tokens: int | None = None
    end_line: int | None = None
    end_column: int | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def sort_key(self) -> tuple:
        return (self.path, self.line, self.column, self.code)


def _fact(default: Any = None) -> Any:
    """A measured fact about the file: in the JSON output when it is set (not None)."""
    return field(default=default, compare=False, hash=False, metadata={"fact": True})


@dataclass(frozen=True)
class FileResult:
    path: str
    #: Tokens of a request rendered from the file (every variable at its first sample value).
    tokens: int = 0
    #: Tokens the engine reuses for a second request whose volatile values all differ from it.
    reusable_tokens: int = 0
    #: The same after every suggested fix (the flagged values moved after the stable content).
    fixed_reusable_tokens: int = 0
    findings: tuple[Finding, ...] = ()
    error: PrefixlintError | None = None
    # The facts below are set for a file that was measured; None: not known or not relevant.
    format: str | None = _fact()  # the loader's name: plain-text, jinja, hf-chat-template ...
    model: str | None = _fact()  # the model the file names, if any
    tokenizer: str | None = _fact()
    engine: str | None = _fact()
    #: How a chat file's messages were framed (chat files only), and the chat template's origin.
    chat_format: str | None = _fact()
    chat_template: str | None = _fact()
    block_size: int | None = _fact()
    #: Exact shared prefix of the two renders, and the tokens and shared prefix after the fixes.
    shared_prefix_tokens: int | None = _fact()
    fixed_tokens: int | None = _fact()
    fixed_shared_prefix_tokens: int | None = _fact()
    #: Volatile value -> {"class", "frequency", "stable_tokens_after"}.
    volatile: dict[str, dict[str, Any]] | None = _fact()
    #: How many prompts were summed into this result (a file holding several).
    prompts: int | None = _fact()
    #: The config (promptfoo) whose prompts were measured here, when the file is referenced by one.
    config: str | None = _fact()
    #: The tokens behind the numbers (`check --format html` only; `prefixlint.check.token_view`).
    token_view: dict[str, Any] | None = field(default=None, compare=False, hash=False, repr=False)
    #: What `check --fix`/`--diff` need to write this file's fixes (`prefixlint.fix.attach.FixSource`).
    fix_sources: tuple[Any, ...] = field(default=(), compare=False, hash=False, repr=False)
    #: Tokens of the conversation history in the request (a system prompt is served followed by it).
    history_tokens: int | None = _fact()
    #: Where the code sends a system prompt on its own as the whole request (`"agent.py:42"`:
    #: one user message and no conversation after it), so it is measured with no history.
    sent_alone: str | None = _fact()
    #: Values whose text is not in the file (a name defined elsewhere): name -> why; measured as
    #: stand-ins, stable, never reported.
    unknown: dict[str, str] | None = _fact()
    #: Why a file found by a directory walk was left out (not a prompt, or not readable as one):
    #: set only on such a result, which has no numbers, findings or error.
    skipped: str | None = None
    #: What `fix_sources` hold, written out as plain data for a result that crossed from a worker
    #: process (`prefixlint.fix.write.planned`): unsafe (False/True) -> (text before, text after,
    #: findings fixed), or None for nothing to fix; only the variants the run asked for.
    fixed_texts: dict[bool, tuple[str, str, int] | None] | None = field(default=None, compare=False, hash=False,
                                                                         repr=False)

    def facts(self) -> dict[str, Any]:
        """The facts that are set, in the order of the JSON output."""
        return {f.name: getattr(self, f.name) for f in fields(self)
                if f.metadata.get("fact") and getattr(self, f.name) is not None}
