"""The one exception type that reaches users: a readable diagnostic with file and line."""

from __future__ import annotations


class PrefixlintError(Exception):
    """A problem with the user's input, configuration or environment (exit code 2).

    `path` and `line` (1-based) say where it sits when it sits in a file; `hint` says how to fix it.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        column: int | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line
        self.column = column
        self.hint = hint

    def located(self, path: str | None = None, line: int | None = None) -> "PrefixlintError":
        """The same error with a location filled in where it had none."""
        if self.path is None and path is not None:
            self.path = path
        if self.line is None and line is not None:
            self.line = line
        return self

    def __str__(self) -> str:
        where = ""
        if self.path:
            where = self.path
            if self.line:
                where += f":{self.line}"
                if self.column:
                    where += f":{self.column}"
            where += ": "
        text = f"{where}{self.message}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


class TemplateRenderError(PrefixlintError):
    """The template itself failed (it does not compile, or raised while rendering): not a missing
    package or an unreadable file. `template_line` is the line of the template's own source
    where it failed, when known (a tokenizer_config.json holds its template on one file line)."""

    def __init__(self, message: str, *, template_line: int | None = None, **where) -> None:
        super().__init__(message, **where)
        self.template_line = template_line


class ChatTemplateFailure(PrefixlintError):
    """The model's chat template cannot render a chat file's messages: `check` reports it at the
    file's first message."""
