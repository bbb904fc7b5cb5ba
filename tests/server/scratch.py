"""The scratch repository the server tests open files of, and what a client does with edits."""

from __future__ import annotations

from pathlib import Path

INSTRUCTIONS = 30


def chat_yaml(instructions: int = INSTRUCTIONS) -> str:
    """A YAML chat file: a timestamp ahead of `instructions` lines of stable instructions."""
    lines = ["messages:", "  - role: system", "    content: |", "      Current time: {{ now }}", ""]
    lines += [f"      {n}. Answer the customer's question about order {n} politely, precisely and briefly."
              for n in range(1, instructions + 1)]
    lines += ["  - role: user", '    content: "{{ question }}"', ""]
    return "\n".join(lines)


def make_repository(root: Path) -> Path:
    """A git repository (its root stops the configuration search) with a pyproject.toml."""
    (root / ".git").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[tool.prefixlint]\nengine = "vllm"\n', encoding="utf-8")
    (root / "prompts").mkdir()
    (root / "prompts" / "chat.yaml").write_text(chat_yaml(), encoding="utf-8")
    return root


def utf16_offset(text: str, line: int, character: int) -> int:
    """The string offset of an LSP position (UTF-16 units) in `text`."""
    lines = text.split("\n")
    offset = sum(len(item) + 1 for item in lines[:line])
    units = 0
    for index, char in enumerate(lines[line] if line < len(lines) else ""):
        if units >= character:
            return offset + index
        units += 2 if ord(char) > 0xFFFF else 1
    return offset + (len(lines[line]) if line < len(lines) else 0)


def apply_text_edits(text: str, edits: list[tuple[int, int, int, int, str]]) -> str:
    """Apply LSP text edits ((start line, char, end line, char, new text), all against the
    original text) as an editor does: from the last to the first."""
    spans = sorted(((utf16_offset(text, a, b), utf16_offset(text, c, d), new) for a, b, c, d, new in edits),
                   key=lambda item: (item[0], item[1]), reverse=True)
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text
