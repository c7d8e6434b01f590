"""``regcopy-run``'s launch grid: ``--grid`` as sizes or as expressions of the runtime
extents, and the check that a grid visits every tile (``unvisited``).

A grid expression is 1 to 3 comma-separated integer expressions over the kernel's parameters:
``X[0]`` is extent 0 of the dynamic buffer ``%X``, ``K`` the value of the scalar ``%K``;
``+ - * // %``, parentheses, integers and ``cdiv(a, b)`` (a / b rounded up), ``min``, ``max``.
E.g. ``--grid 'cdiv(X[1], 8), cdiv(X[0], 32)'``.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from regcopy_tools.run_report import ArgumentSpecError
from xdsl.dialects import func, gpu

GridArg = tuple[int, ...] | Callable[[Mapping[str, Any]], tuple[int, ...]] | None

_BINARY: dict[type, Callable[[int, int], int]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}
_CALLS: dict[str, Callable[..., int]] = {"cdiv": lambda a, b: -(-a // b), "min": min,
                                         "max": max}


def _evaluate(node: ast.AST, facts: Mapping[str, Any], text: str) -> int:
    """The value of one grid expression node (``ArgumentSpecError`` for anything else)."""
    def sub(n: ast.AST) -> int:
        return _evaluate(n, facts, text)

    match node:
        case ast.Constant(value=int() as v) if not isinstance(v, bool):
            return v
        case ast.BinOp(left=left, op=op, right=right) if type(op) in _BINARY:
            b = sub(right)
            if isinstance(op, ast.FloorDiv | ast.Mod) and b == 0:
                raise ArgumentSpecError(f"--grid {text}: division by zero")
            return _BINARY[type(op)](sub(left), b)
        case ast.UnaryOp(op=ast.USub(), operand=operand):
            return -sub(operand)
        case ast.Call(func=ast.Name(id=name), args=args, keywords=[]) if name in _CALLS:
            values = [sub(a) for a in args]
            if name == "cdiv" and (len(values) != 2 or values[1] == 0):
                raise ArgumentSpecError(f"--grid {text}: cdiv takes (a, b) with b != 0")
            return int(_CALLS[name](*values))
        case ast.Name(id=name) if isinstance(facts.get(name), int | np.integer):
            return int(facts[name])
        case ast.Subscript(value=ast.Name(id=name), slice=ast.Constant(value=int() as d)) \
                if isinstance(facts.get(name), tuple) and 0 <= d < len(facts[name]):
            return int(facts[name][d])
    known = ", ".join(f"{n}[0..{len(v) - 1}]" if isinstance(v, tuple) else n
                      for n, v in facts.items() if isinstance(v, tuple | int | np.integer))
    raise ArgumentSpecError(f"--grid {text}: cannot evaluate '{ast.unparse(node)}'; use "
                            f"integers, + - * // %, cdiv/min/max and {known or 'no names'}")


def parse_grid(text: str | None) -> tuple[int, ...] | None:
    """``X[,Y[,Z]]``: 1 to 3 sizes >= 1 (``ArgumentSpecError`` otherwise, expressions
    included: ``parse_grid_spec`` takes those)."""
    grid = parse_grid_spec(text)
    if callable(grid):
        raise ArgumentSpecError(f"--grid {text}: expected X[,Y[,Z]], 1 to 3 sizes >= 1, e.g. "
                                "--grid 64,8")
    return grid


def parse_grid_spec(text: str | None) -> GridArg:
    """``--grid``: 1 to 3 sizes >= 1 (``X[,Y[,Z]]``), or 1 to 3 expressions of the runtime
    extents and scalars (a function of the launch facts, evaluated per kernel);
    ``ArgumentSpecError`` otherwise."""
    if text is None:
        return None
    usage = (f"--grid {text}: expected X[,Y[,Z]], 1 to 3 sizes >= 1 or expressions of the "
             "extents, e.g. --grid 64,8 or --grid 'cdiv(X[1], 8), cdiv(X[0], 32)'")
    try:
        tree = ast.parse(f"({text},)", mode="eval").body
    except SyntaxError:
        raise ArgumentSpecError(usage) from None
    if not isinstance(tree, ast.Tuple) or not 1 <= len(tree.elts) <= 3:
        raise ArgumentSpecError(usage)
    if all(isinstance(e, ast.Constant) or (isinstance(e, ast.UnaryOp)
                                           and isinstance(e.operand, ast.Constant))
           for e in tree.elts):
        grid = tuple(_evaluate(e, {}, text) for e in tree.elts)
        if any(g < 1 or g > 2**31 - 1 for g in grid):
            raise ArgumentSpecError(usage)
        return grid
    elts = tree.elts

    def grid_of(facts: Mapping[str, Any]) -> tuple[int, ...]:
        grid = tuple(_evaluate(e, facts, text) for e in elts)
        if any(g < 1 or g > 2**31 - 1 for g in grid):
            raise ArgumentSpecError(f"--grid {text}: gives {list(grid)}; every size must be "
                                    ">= 1")
        return grid

    return grid_of


def block_dims(fn: func.FuncOp) -> set[int]:
    """The grid dimensions (0, 1, 2) whose block index ``fn`` reads."""
    out: set[int] = set()
    for op in fn.walk():
        if isinstance(op, gpu.BlockIdOp | gpu.GlobalIdOp):
            out.add("xyz".index(str(op.dimension.data)))
    return out


Probe = Callable[[tuple[int, int, int], tuple[int, int, int], bool], list[np.ndarray]]
"""``run(grid, block, whole)``: the buffers after running ``block`` of ``grid`` on the state
the launch left (its first warp only, or the whole block when ``whole``)."""


def unvisited(run: Probe, grid: tuple[int, int, int], dims: set[int],
              after: Sequence[np.ndarray]) -> tuple[str, dict[int, np.ndarray]] | None:
    """Whether ``grid`` leaves tiles unvisited: per grid dimension the kernel reads, the one
    block just past the grid (``run(grid one larger there, that block)``, on the buffers as
    the launch left them) is run; if it changes a buffer, that block has work that the launch
    never did. The probe runs the block's first warp (a warp's share of the cost); a change
    it finds is confirmed by the whole block before it is reported, since a lone warp may
    write a tile the launch did visit with values it could not finish alone (a kernel whose
    CTAs walk the tiles in an order that depends on the grid size, whose warps share their
    results through shared memory). Returns ``(what, buffer indices it changed)``, None when
    no probe changes anything (a probe that fails — it indexes past the buffers — has no
    tile to visit)."""
    for d in sorted(dims):
        bigger = list(grid)
        bigger[d] += 1
        block = [0, 0, 0]
        block[d] = grid[d]
        g = (bigger[0], bigger[1], bigger[2])
        b = (block[0], block[1], block[2])
        changed = _changed(run, g, b, False, after)
        if changed:
            changed = _changed(run, g, b, True, after)
        if changed:
            what = (f"block {tuple(block)} of a grid one larger in {'xyz'[d]} writes "
                    f"elements the launch left untouched: the grid {tuple(grid)} is too small")
            return what, changed
    return None


def _changed(run: Probe, grid: tuple[int, int, int], block: tuple[int, int, int], whole: bool,
             after: Sequence[np.ndarray]) -> dict[int, np.ndarray]:
    """The buffers (by index) that the probe of ``block`` leaves different from ``after``;
    none when the probe fails (it indexes past the buffers: no tile there)."""
    try:
        probe = run(grid, block, whole)
    except Exception:  # noqa: BLE001 - out of bounds past the grid: no tile there
        return {}
    return {k: p for k, (p, a) in enumerate(zip(probe, after, strict=True))
            if p.tobytes() != np.ascontiguousarray(a).tobytes()}
