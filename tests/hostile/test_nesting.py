"""Deep nesting, in every format prefixlint reads (issue 20): refused or read well within the budget,
never walked for minutes. A syntax tree of TypeScript/JavaScript is measured as soon as it is
parsed (`ts_grammar.deeper_than`), since tree-sitter finds a node's parent from the root (a step
up costs the depth: objects nested 50,000 deep took 50 s); the other readers stop at Python's
recursion limit or their parser's own."""

from __future__ import annotations

import time

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from prefixlint.errors import PrefixlintError
from prefixlint.load.registry import load_templates
from prefixlint.load.ts_grammar import deeper_than, parse
from tests.hostile.test_bounded import check_class

DEEP = 50_000


def _depth(node) -> int:
    """The depth of a tree, the plain way (iterative), counting every level."""
    deepest, stack = 0, [(node, 0)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack += [(child, depth + 1) for child in node.children]
    return deepest


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(["{a: ", "[", "f(", "(", "() => ", "`${"]), max_size=40),
       st.integers(min_value=0, max_value=60))
@example(["{a: "] * 20, 39)  # the limit inside the tree: 20 objects are 40 levels
def test_deeper_than_agrees_with_the_depth_of_the_tree(openers, limit):
    closers = {"{a: ": "}", "[": "]", "f(": ")", "(": ")", "() => ": "", "`${": "}`"}
    text = "const prompt = " + "".join(openers) + "1" + "".join(closers[o] for o in reversed(openers)) + ";\n"
    root = parse("p.js", text)  # 40 openers are far within MAX_TREE_DEPTH
    found = deeper_than(root, limit)
    assert (found is not None) == (_depth(root) > limit), (text, limit)


def test_objects_nested_50000_deep_are_refused_at_once_with_the_line():
    source = "// a prompt\nconst prompt = " + "{a: " * DEEP + "1" + "}" * DEEP + ";\n"
    started = time.monotonic()
    with pytest.raises(PrefixlintError) as info:
        load_templates("nested.js", source)
    assert time.monotonic() - started < 5  # it was 50 s
    assert (info.value.path, info.value.line) == ("nested.js", 2)
    assert info.value.message.startswith("nested too deeply")


def test_a_file_just_within_the_limit_is_still_read():
    # 300 objects are 600 levels of the tree (object, pair): within MAX_TREE_DEPTH
    source = "export const SYSTEM_PROMPT = 'You are a helpful assistant.';\nconst x = " + \
        "{a: " * 300 + "1" + "}" * 300 + ";\n"
    (template,) = load_templates("p.js", source)
    assert template.messages[0].content == "You are a helpful assistant."


def test_a_long_chain_of_plus_is_one_level_and_is_read():
    # a text spelled over 5,000 lines with `+` is a 5,000-deep binary tree, but real code: read,
    # not refused (the reader follows the last parts of a long chain; the rest is a placeholder)
    lines = [f'"line {i} of the instructions. "' for i in range(5000)]
    source = "export const SYSTEM_PROMPT = " + " +\n  ".join(lines) + ";\n"
    (template,) = load_templates("p.ts", source)
    assert template.messages[0].content.endswith("line 4998 of the instructions. line 4999 of the instructions. ")


def test_deep_nesting_in_every_format_is_one_bounded_diagnostic(tmp_path):
    files = {
        "objects.js": "const prompt = " + "{a: " * DEEP + "1" + "}" * DEEP + ";\n",
        "roles.ts": "const messages = [" + "{role: 'system', content: " * DEEP + "'x'" + "}" * DEEP + "];\n",
        "arrays.ts": "export const SYSTEM_PROMPT = " + "[" * DEEP + "'x'" + "]" * DEEP + ";\n",
        "dicts.py": "SYSTEM_PROMPT = " + "{'a': " * DEEP + "'x'" + "}" * DEEP + "\n",
        "lists.json": "[" * DEEP + '"Hello {{ user_name }}"' + "]" * DEEP + "\n",
        "flow.yaml": "prompt: " + "[" * DEEP + "x" + "]" * DEEP + "\n",
        "block.yaml": "".join("  " * i + f"k{i}:\n" for i in range(1200)) + "  " * 1200 + "x\n",
        "parens.j2": "{{ " + "(" * DEEP + "1" + ")" * DEEP + " }}\n",
        "lists.j2": "{{ " + "[" * DEEP + "1" + "]" * DEEP + " }}\n",
    }
    started = time.monotonic()
    errors = check_class(tmp_path, files)
    assert time.monotonic() - started < 40  # one run, nine files: seconds each, never a budget
    # 1,200 levels of block mappings load (the YAML reader does not recurse): not a template
    assert errors.pop("block.yaml").startswith("not a recognised template"), errors
    for name, message in errors.items():
        assert "budget" not in message, (name, message)
        assert any(word in message for word in ("nest", "nesting", "too many nested")), (name, message)


@pytest.mark.parametrize("text", ["prompt: " + "[" * DEEP + "x" + "]" * DEEP + "\n", "- " * DEEP + "x\n",
                                  "? " * DEEP + "x\n", "a: " + "{b: " * DEEP + "c" + "}" * DEEP + "\n"])
def test_deep_yaml_is_refused_before_the_composer_recurses(text):
    # libyaml 0.2.5 (PyYAML 6.0.3's wheels) has no depth limit of its own and PyYAML's C composer
    # recurses once a level: these overflowed the C stack (SIGSEGV) instead of being one diagnostic
    from prefixlint.load.yaml_source import compose

    with pytest.raises(PrefixlintError) as info:
        compose(text, "deep.yaml")
    assert (info.value.path, info.value.line) == ("deep.yaml", 1)
    assert "nest" in info.value.message


def test_a_long_yaml_list_is_not_deep():
    # 3,000 entries are 3,000 openers but one level: read (the events are walked, nothing refused)
    from prefixlint.load.yaml_source import load_yaml

    text = "".join(f"- item {i} [{i}]\n" for i in range(3000))
    assert load_yaml(text, "list.yaml")[2999] == "item 2999 [2999]"


def test_more_than_a_thousand_aliases_are_refused_from_the_events():
    from prefixlint.load.yaml_source import MAX_ALIASES, compose, load_yaml

    def document(count: int) -> str:
        return "a: &x word\nb: [" + ", ".join(["*x"] * count) + "]\n"

    assert len(load_yaml(document(MAX_ALIASES), "ok.yaml")["b"]) == 1000
    with pytest.raises(PrefixlintError) as info:
        compose(document(MAX_ALIASES + 1), "many.yaml")
    assert info.value.message == "YAML file uses more than 1,000 aliases; refused"
    assert (info.value.path, info.value.line) == ("many.yaml", 1)
