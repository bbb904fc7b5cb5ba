"""Work bounded by the input's size: a file's measurement is refused up front when it would cost
more than the caps of `prefixlint.limits` (values per prompt, tokens per render, tokens in all).

Each volatile value costs two renders of the whole prompt, and each render its tokens: a file
of 3,000 placeholders, or 400 of them in 3 MB of text, would otherwise be rendered and
tokenized thousands of times (and every render kept) before anything is reported.
"""

from __future__ import annotations

import re

from prefixlint import limits
from prefixlint.errors import PrefixlintError

#: Renders of a file besides two per value: the base render and the fixed variants.
EXTRA_RENDERS = 3


#: Names (variables and calls) classified in one prompt, per volatile value measured: classifying
#: is cheap, but 3,000 names of a generated file cost seconds before any value is measured.
NAMES_PER_VALUE = 10


def refuse_too_many_names(compiled) -> None:
    """Before the names of a prompt are classified: at most NAMES_PER_VALUE x MAX_VALUES."""
    names = len(compiled.variables) + len(compiled.functions)
    limit = NAMES_PER_VALUE * limits.MAX_VALUES
    if names > limit:
        raise PrefixlintError(f"too many variables to measure: {names:,} in one prompt (the limit is {limit:,})",
                              hint="set PREFIXLINT_MAX_VALUES to allow more (ten names per value)")


def refuse_too_many_values(values: int) -> None:
    """Once the names are classified, before any work per value (where each value's text moves
    in the fix is worked out on the whole text: that too grows with the values)."""
    if values > limits.MAX_VALUES:
        raise PrefixlintError(
            f"too many volatile values to measure: {values:,} in one prompt (the limit is {limits.MAX_VALUES:,})",
            hint="set PREFIXLINT_MAX_VALUES to allow more")


def refuse_too_much_work(measurer) -> None:
    """A PrefixlintError naming the cap the file's measurement would pass, else nothing."""
    values = len(measurer.volatiles)
    refuse_too_many_values(values)
    tokens = len(measurer.render().ids) if values else 0  # rendered once anyway, and kept
    if tokens > limits.MAX_RENDER_TOKENS:
        raise PrefixlintError(
            f"the prompt renders to {tokens:,} tokens (the limit is {limits.MAX_RENDER_TOKENS:,} per render)",
            hint="set PREFIXLINT_MAX_RENDER_TOKENS to allow more")
    total = tokens * (2 * values + EXTRA_RENDERS)
    if total > limits.MAX_FILE_TOKENS:
        raise PrefixlintError(
            f"measuring it would tokenize about {total:,} tokens ({values:,} volatile values, two renders of"
            f" {tokens:,} tokens each); the limit is {limits.MAX_FILE_TOKENS:,} per file",
            hint="set PREFIXLINT_MAX_FILE_TOKENS to allow more")


def refuse_long_words(text: str) -> str:
    """Before a text is tokenized: no run of more than MAX_WORD_CHARS characters without a space
    or line break. A tokenizer splits text into words first and merges within each, and the merge
    of one enormous word grows faster than the word (9,000,000 letters: half a minute); no
    prompt holds a word of 100,000 characters. A text within the limit costs nothing to check."""
    limit = limits.MAX_WORD_CHARS
    if len(text) <= limit:
        return text
    # anchored at a word's start, so the search is linear (never retried inside a long run)
    found = re.search(rf"(?<!\S)\S{{{limit + 1}}}", text)
    if found is not None:
        length = len(text) - found.start() if (end := re.compile(r"\s").search(text, found.end())) is None \
            else end.start() - found.start()
        raise PrefixlintError(
            f"a word of {length:,} characters without a space or line break (the limit is {limit:,}):"
            " not text a tokenizer reads in bounded time", hint="set PREFIXLINT_MAX_WORD_CHARS to allow more")
    return text
