"""Filters a template file uses that Jinja does not define: the application registers them on its
own environment (`env.filters["xml_text"] = _xml_text`), which prefixlint never runs. The template
is measured with each such filter taken out (`{{ file.content | xml_text }}` renders the value),
so that the text around the values is measured, not refused: the value stands where the code
puts it, in its own text rather than the application's filtered one."""

from __future__ import annotations

from typing import Any


def drop_unknown_filters(env: Any, tree: Any) -> None:
    """Replace, in the parsed template `tree`, each filter that `env` does not define by the value
    it filters (a `{% filter name %}` block by its body)."""
    from jinja2.visitor import NodeTransformer

    class Dropper(NodeTransformer):
        def visit_Filter(self, node):  # noqa: N802  (jinja2's visitor names)
            node = self.generic_visit(node)
            return node if node.name in env.filters or node.node is None else node.node

        def visit_FilterBlock(self, node):  # noqa: N802
            node = self.generic_visit(node)
            return node if node.filter.name in env.filters else node.body

    Dropper().visit(tree)
