"""The lines whose statements the Python prompt finder walks: `hint_offsets` finds the lines of
`_CALL_HINT`'s matches without trying the whole pattern at every character."""

from __future__ import annotations

import ast
import glob
import sysconfig
from bisect import bisect_right

from hypothesis import given, settings
from hypothesis import strategies as st

from prefixlint.load.python_walk import _CALL_HINT, hint_offsets
from prefixlint.load.template import line_starts


def _lines(text: str, offsets) -> list[int]:
    starts = line_starts(text)
    return sorted({bisect_right(starts, at) for at in offsets})


def test_each_part_of_the_hint_at_its_offset():
    text = ('x = 1\nmsgs = [{"role": "user"}]\nsystem_prompt =\\\n  "a"\nprompt.format(a=1)\n'
            "y = my_prompt = 2\nsystem == 3\n")
    # `"role"` at its opening quote, `system_prompt =` at its first letter, `.format(` at its dot;
    # `my_prompt =` (no word boundary before `prompt`) and `system ==` ... `==` is `=` then `=`
    assert sorted(hint_offsets(text)) == [text.index('"role"'), text.index("system_prompt"), text.index(".format("),
                                          text.index("system ==")]
    assert _lines(text, hint_offsets(text)) == [2, 3, 5, 7]
    assert _lines(text, hint_offsets(text)) == _lines(text, [m.start() for m in _CALL_HINT.finditer(text)])


ATOMS = ["system", "prompt", "_", "system_prompt", "messages", "input", "content", "backstory", "role", "Message",
         "PromptTemplate", "Template(", "from_template", ".format(", ".render(", " ", "\t", "\n", "=", "'", '"', "x",
         "\u00e9", "1"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(ATOMS), max_size=16).map("".join))
def test_the_same_lines_as_the_whole_pattern(text):
    assert _lines(text, hint_offsets(text)) == _lines(text, [m.start() for m in _CALL_HINT.finditer(text)])


def test_the_same_lines_on_the_standard_library():
    root = sysconfig.get_paths()["stdlib"]
    paths = sorted(p for p in glob.glob(f"{root}/**/*.py", recursive=True) if "site-packages" not in p)[::10]
    assert len(paths) > 50
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
        assert _lines(text, hint_offsets(text)) == _lines(text, [m.start() for m in _CALL_HINT.finditer(text)]), path


def test_a_module_s_indexes_go_with_its_tree():
    """The walk and the turn index are kept on the tree, not in a table that would keep every
    module parsed in a long run (a repository walk, the language server) alive."""
    import gc
    import weakref

    from prefixlint.load import python_turns
    from prefixlint.load.python_walk import walked

    tree = ast.parse("def build():\n    return ask(SYSTEM)\n\nask(build())\n")
    nodes, parents = walked(tree)
    assert nodes[0] is tree and [type(n).__name__ for n in nodes[:3]] == ["Module", "FunctionDef", "Expr"]
    assert walked(tree)[0] is nodes and parents[id(tree.body[0])] is tree
    python_turns._index(tree)
    alive = weakref.ref(tree)
    del tree, nodes, parents
    gc.collect()
    assert alive() is None
