"""The package's shape: no import cycle between its packages, and no module over 300 lines.

Every import counts, those inside functions too (a lazy import is the same dependency, only
later). A node is a subpackage of prefixlint (`prefixlint.check`) or a top-level module
(`prefixlint.config`); an import of `prefixlint.check.runner` from `prefixlint.commands.check`
is the edge commands -> check.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "prefixlint"
MAX_LINES = 300


def modules() -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imported(module: str, path: Path) -> set[str]:
    """Every prefixlint module or name `module` imports, anywhere in its body."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            names.add(target)
            names.update(f"{target}.{alias.name}" for alias in node.names)  # `from pkg import module`
    return {name for name in names if name == "prefixlint" or name.startswith("prefixlint.")}


def node_of(name: str, known: set[str]) -> str | None:
    """prefixlint.check.runner -> check; prefixlint.config -> config; None for the package root."""
    parts = name.split(".")
    if len(parts) < 2 or f"prefixlint.{parts[1]}" not in known:
        return None
    return parts[1]


def package_graph() -> dict[str, dict[str, set[str]]]:
    """node -> {node it imports -> the `module -> import` lines behind that edge}."""
    found = modules()
    known = set(found)
    graph: dict[str, dict[str, set[str]]] = {}
    for module, path in found.items():
        source = node_of(module, known)
        for name in imported(module, path):
            target = node_of(name, known)
            if source and target and target != source:
                graph.setdefault(source, {}).setdefault(target, set()).add(f"{module} -> {name}")
    return graph


def find_cycle(graph: dict[str, dict[str, set[str]]]) -> list[str] | None:
    """One cycle of the graph as a path [a, b, ..., a], or None (depth-first search)."""
    state: dict[str, str] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = "open"
        stack.append(node)
        for target in sorted(graph.get(node, {})):
            if state.get(target) == "open":
                return stack[stack.index(target):] + [target]
            if target not in state and (cycle := visit(target)):
                return cycle
        state[node] = "done"
        stack.pop()
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_find_cycle_finds_one_and_only_one_that_exists():
    assert find_cycle({"a": {"b": set()}, "b": {"c": set()}}) is None
    assert find_cycle({"a": {"b": set()}, "b": {"c": set()}, "c": {"a": set()}}) == ["a", "b", "c", "a"]


def test_imported_counts_imports_inside_functions_and_relative_ones(tmp_path):
    path = tmp_path / "mod.py"
    path.write_text("from prefixlint.match import prefix\ndef f():\n    from ..render.chat import x\n    import os\n")
    assert imported("prefixlint.rules.mod", path) == {
        "prefixlint.match", "prefixlint.match.prefix", "prefixlint.render.chat", "prefixlint.render.chat.x"}


def test_the_packages_import_each_other_without_a_cycle():
    graph = package_graph()
    cycle = find_cycle(graph)
    if cycle:
        edges = [sorted(graph[a][b])[0] for a, b in zip(cycle, cycle[1:])]
        raise AssertionError(f"import cycle {' -> '.join(cycle)}: " + "; ".join(edges))
    assert "check" in graph["commands"] and "rules" in graph["check"]  # the graph is not empty


def test_no_module_over_300_lines():
    long = {module: n for module, path in modules().items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_every_package_is_installed():
    """pyproject.toml lists the packages: a new one missing there works from the checkout only."""
    listed = set(tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    packages = {module for module, path in modules().items() if path.name == "__init__.py"}
    assert packages - listed == set()
