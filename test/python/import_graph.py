"""The import graph of regcopy's packages, read from the source (``ast``): which module imports
which, every import counted (module level, inside functions, under ``TYPE_CHECKING``), so that
a dependency hidden in a function still counts. Used by test_imports.py and, by hand,
``python3 test/python/import_graph.py`` prints the floors and any circle."""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {"regcopy_dialect": "regcopy_dialect", "regcopy_passes": "passes",
            "regcopy_backend": "backend", "regcopy_tools": "tools", "regcopy_bench": "bench"}
"""Installed name -> folder."""


def modules() -> dict[str, Path]:
    """Every module of the packages by its installed dotted name."""
    out: dict[str, Path] = {}
    for name, folder in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT / folder).with_suffix("").parts
            parts = rel[:-1] if rel[-1] == "__init__" else rel
            out[".".join((name, *parts))] = path
    return out


def _imported(tree: ast.AST, here: str, is_package: bool) -> Iterator[str]:
    base = here.split(".") if is_package else here.split(".")[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                stem = base[:len(base) - node.level + 1]
                mod = ".".join(stem + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            yield mod
            for alias in node.names:  # ``from pkg import module``
                yield f"{mod}.{alias.name}"


def graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports (a package's ``__init__`` counts as a module;
    ``import a.b.c`` depends on ``a.b.c``)."""
    mods = modules()
    out: dict[str, set[str]] = {}
    for name, path in mods.items():
        tree = ast.parse(path.read_text(), str(path))
        deps = {m for m in _imported(tree, name, path.name == "__init__.py") if m in mods}
        out[name] = deps - {name}
    return out


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    sys.setrecursionlimit(10000)

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(g[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def floors(g: dict[str, set[str]]) -> dict[str, int]:
    """Each module's floor: 0 imports no package module, else 1 + the highest floor it
    imports (modules of a circle share the circle's floor)."""
    memo: dict[str, int] = {}

    def floor(v: str, seen: frozenset[str]) -> int:
        if v in memo:
            return memo[v]
        deps = [w for w in g[v] if w not in seen]
        f = 1 + max((floor(w, seen | {v}) for w in deps), default=-1)
        memo[v] = f
        return f

    return {v: floor(v, frozenset()) for v in g}


if __name__ == "__main__":
    g = graph()
    prefix = sys.argv[1] if len(sys.argv) > 1 else ""
    sub = {v: {w for w in ds if w.startswith(prefix)} for v, ds in g.items() if v.startswith(prefix)}
    fl = floors(sub)
    print(f"{len(sub)} modules, {sum(map(len, sub.values()))} arrows, "
          f"{max(fl.values(), default=-1) + 1} floors")
    for c in cycles(sub):
        print("circle:", " <-> ".join(c))
