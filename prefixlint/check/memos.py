"""What the measurers of one file's check share, each keyed by content (issue 19 item 9).

A module of many prompts is measured by a measurer per prompt and one per fixed text
(`check/measure.py`), and they tokenize much the same: the prompts share most of their lines (a
module's rules, its boilerplate), and a fixed text's renders are its original's fixed variants.
So the file's measurers share one `Memos` (`check/runner.py` makes it for the prompts of a file,
a fixed text's measurer takes its original's): the ids of every text and every run of lines a
tokenizer encoded (`encode_lines`), and the engine's reuse of one request after another
(`engines/serve.py:ReuseMemo`). It lives as long as the file's check (its results keep it for
their fixes), never across files, and holds nothing but the file's own texts and their ids.
"""

from __future__ import annotations

from typing import Any

from prefixlint.engines.serve import ReuseMemo


class Memos:
    """The memos of one file's measurers: per tokenizer, text -> ids and line run -> ids; and the
    engine's reuse of a pair of requests."""

    def __init__(self) -> None:
        self.reuse = ReuseMemo()
        self._encodings: dict[Any, tuple[dict[str, list[int]], dict[str, list[int]]]] = {}

    def encodings(self, tokenizer) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
        """(text -> ids, line run -> ids) of `tokenizer` (the same object for the same tokenizer:
        `tokenize.load_tokenizer` keeps one per name)."""
        return self._encodings.setdefault(tokenizer, ({}, {}))
