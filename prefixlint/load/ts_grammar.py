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


def parse(path: str, text: str):
    """The root node of `text` read with the grammar of `path`."""
    return parser(source_kind(path)[1]).parse(text.encode("utf-8")).root_node


def walk(root):
    """Every node of a tree-sitter tree under `root` (itself first), in source order, without recursion."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children))
