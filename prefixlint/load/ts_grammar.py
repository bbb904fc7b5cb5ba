"""The tree-sitter grammar of a TypeScript/JavaScript file, by its extension.

tree-sitter and its grammars are imported only when such a file is parsed (start-up stays light).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import PurePath

#: The extensions read as TypeScript or JavaScript.
SUFFIXES = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")


def source_kind(path: str) -> tuple[str, str]:
    """(format name, grammar) of a file by its extension."""
    suffix = PurePath(path).suffix.lower()
    if suffix in (".ts", ".mts", ".cts"):
        return "typescript", "typescript"
    if suffix == ".tsx":
        return "typescript", "tsx"
    return "javascript", "javascript"


@lru_cache(maxsize=None)
def parser(grammar: str):
    import tree_sitter

    if grammar == "javascript":
        import tree_sitter_javascript

        language = tree_sitter_javascript.language()
    else:
        import tree_sitter_typescript

        language = tree_sitter_typescript.language_tsx() if grammar == "tsx" else \
            tree_sitter_typescript.language_typescript()
    return tree_sitter.Parser(tree_sitter.Language(language))


#: Levels of a syntax tree past which a file is refused as soon as it is parsed, before anything
#: walks it: prefixlint's own walks recurse (Python's limit is about 1,000 frames) and tree-sitter
#: finds a node's parent by descending from the root, so each step up costs the depth (objects
#: nested 50,000 deep took minutes). Real code nests a few dozen levels.
MAX_TREE_DEPTH = 1000


def parse(path: str, text: str):
    """The root node of `text` read with the grammar of `path`; a tree deeper than MAX_TREE_DEPTH
    is a PrefixlintError at the line where it passes the limit."""
    from prefixlint.limits import too_deep

    root = parser(source_kind(path)[1]).parse(text.encode("utf-8")).root_node
    deep = deeper_than(root, MAX_TREE_DEPTH)
    if deep is not None:
        raise too_deep(path, line=deep.start_point[0] + 1)
    return root


def deeper_than(root, limit: int):
    """The first node more than `limit` levels below `root`, or None. A subtree with fewer nodes
    than the levels left cannot pass the limit and is not entered, so a file of many small
    statements costs about its statements, and a deep one about `limit` steps. A chain of `+`
    (`"line 1" + "line 2" + ...`, a text spelled over thousands of lines) is one level: it is
    read without recursion."""
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return node
        if depth + node.descendant_count > limit:
            chain = node.type == "binary_expression"
            stack.extend((child, depth + (0 if chain and child.type == "binary_expression" else 1))
                         for child in reversed(node.children))
    return None


def walk(root):
    """Every node of a tree-sitter tree under `root` (itself first), in source order, without recursion."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children))
