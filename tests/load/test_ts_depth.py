"""A tagged `dedent` template reached through more bindings than the TS reader follows is read as
no text (found by mypy: `dedent_pieces(None)` was an internal error, a TypeError)."""

from __future__ import annotations

import pytest

from prefixlint.load.registry import NotATemplate, load_templates

TEXT = "You are a helpful support assistant for the store."


def chain(length: int) -> str:
    """`const a0 = dedent`...`` and `length` names bound each to the one before."""
    return f"const a0 = dedent`{TEXT}`;\n" + "".join(f"const a{i} = a{i - 1};\n" for i in range(1, length + 1))


#: The names the reader follows from a declaration to a text (`_DEPTH` in load/ts_values.py is 8:
#: the declaration's value, 7 names, then the tagged call whose template is one step further).
FOLLOWED = 6


@pytest.mark.parametrize("length", range(FOLLOWED + 1))
def test_a_dedent_template_within_the_bound_is_read(length):
    source = chain(length) + f"export const SYSTEM_PROMPT = a{length};\n"
    (template,) = load_templates("p.ts", source)
    (message,) = template.messages
    assert (message.role, message.content) == ("system", TEXT)
    assert message.offsets[0] == source.index(TEXT)  # the text points at where it is written


@pytest.mark.parametrize("length", range(FOLLOWED + 1, FOLLOWED + 4))
def test_a_dedent_template_past_the_bound_is_no_prompt_not_an_internal_error(length):
    source = chain(length) + f"export const SYSTEM_PROMPT = a{length};\n"
    with pytest.raises(NotATemplate, match="no prompt found"):
        load_templates("p.ts", source)
