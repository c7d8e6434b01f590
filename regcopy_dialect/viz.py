"""Pictures of layouts: a labelled, coloured grid as text (terminal) or SVG (pure Python).

A ``Tile`` is a grid of cells, each with a short label and a colour key; ``layout_tile`` fills
one from a layout over a buffer shape:

* a register layout (one with thread axes, or ``space="local"``): each logical element is
  labelled ``thread:slot`` and coloured by its owner thread (the scope-local thread index:
  lane for ``laneid``, ``threadIdx.x`` for ``tx``, ...); a replicated layout lists every
  owner, replica 0 first (``0,16:3``), and is coloured by replica 0;
* a memory layout: each element is labelled with its physical offset (swizzle applied) and
  coloured by the shared-memory bank of its first byte (``(offset * bytes / 4) mod 32``).

An N-D shape is drawn as ``prod(shape[:-1])`` rows by ``shape[-1]`` columns (row-major, as the
logical index runs). Big tiles are cut: the first rows/columns, an ellipsis, the last one.
"""

from __future__ import annotations

import colorsys
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from math import prod

from regcopy_dialect.layout import (
    THREAD_AXES,
    Layout,
    Scope,
    fuse_thread_axes,
    replica_shifts,
)


@dataclass(frozen=True)
class Tile:
    """A grid picture: ``labels[r][c]`` and colour ``keys[r][c]`` (None: no colour), row and
    column headers, a title and a one-line legend. ``marked`` cells get a bold frame."""

    title: str
    legend: str
    labels: tuple[tuple[str, ...], ...]
    keys: tuple[tuple[int | None, ...], ...]
    row_names: tuple[str, ...]
    col_names: tuple[str, ...]
    marked: frozenset[tuple[int, int]] = frozenset()

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.labels), len(self.labels[0]) if self.labels else 0


# --------------------------------------------------------------------------------------------
# Filling tiles
# --------------------------------------------------------------------------------------------


def grid_shape(shape: Sequence[int]) -> tuple[int, int]:
    """Rows and columns an N-D shape is drawn as: ``(prod(shape[:-1]), shape[-1])``."""
    if not shape:
        return 1, 1
    return prod(shape[:-1]), shape[-1]


def owner_scope(layout: Layout) -> Scope:
    """The widest scope among the layout's thread axes (THREAD when it has none)."""
    return max((THREAD_AXES[i.axis].scope for i in layout.owner_iters if i.axis),
               default=Scope.THREAD)


def owners(layout: Layout) -> list[tuple[int, int]]:
    """``(owner thread, register slot)`` of each logical element of a register layout, the
    thread being the scope-local index on the widest axis scope of the layout."""
    scope = owner_scope(layout)
    fused = fuse_thread_axes(layout, scope)
    axis = scope.fused_axis
    out = []
    for index in range(layout.size):
        axes, slot = fused.apply(index)
        out.append((axes.get(axis, 0) if axis else 0, slot))
    return out


def replica_owners(layout: Layout) -> list[tuple[tuple[int, ...], int]]:
    """``(owner threads, register slot)`` of each logical element: ``owners``' thread plus
    each replica's shift on the fused axis (``replica_shifts``), replica 0 first."""
    scope = owner_scope(layout)
    axis = scope.fused_axis
    shifts = [s.get(axis, 0) if axis else 0
              for s in replica_shifts(fuse_thread_axes(layout, scope))]
    return [(tuple(t + d for d in shifts), slot) for t, slot in owners(layout)]


def _row_col_names(shape: Sequence[int]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    rows, cols = grid_shape(shape)
    outer = shape[:-1]
    names = []
    for r in range(rows):
        digits, rest = [], r
        for e in reversed(outer):
            digits.append(rest % e)
            rest //= e
        names.append(",".join(map(str, reversed(digits))) if len(outer) > 1 else str(r))
    return tuple(names), tuple(str(c) for c in range(cols))


def layout_tile(layout: Layout, shape: Sequence[int], element_bits: int = 32,
                space: str | None = None, title: str | None = None) -> Tile:
    """The picture of ``layout`` over a buffer of ``shape`` (see the module docstring)."""
    if layout.size != prod(shape):
        raise ValueError(f"layout {layout} has {layout.size} elements, shape {list(shape)} has "
                         f"{prod(shape)}")
    local = space == "local" or (space is None and bool(layout.owner_iters))
    rows, cols = grid_shape(shape)
    row_names, col_names = _row_col_names(shape)
    if local:
        cells = replica_owners(layout)
        labels = [f"{','.join(map(str, ts))}:{s}" for ts, s in cells]
        keys: list[int | None] = [ts[0] for ts, _ in cells]
        legend = "cell = owner thread:register slot; colour = owner thread"
        if layout.replicas:
            legend = ("cell = owner threads (replica 0 first):register slot; colour = "
                      "replica 0")
    else:
        offsets = [layout.apply(i)[1] for i in range(layout.size)]
        labels = [str(o) for o in offsets]
        keys = [(o * element_bits // 8 // 4) % 32 for o in offsets]
        legend = f"cell = physical offset (elements); colour = bank of a {element_bits}-bit element"
    grid = tuple(tuple(labels[r * cols:(r + 1) * cols]) for r in range(rows))
    kgrid = tuple(tuple(keys[r * cols:(r + 1) * cols]) for r in range(rows))
    shape_text = "x".join(map(str, shape))
    return Tile(title or f"{layout} over {shape_text}", legend, grid, kgrid, row_names,
                col_names)


# --------------------------------------------------------------------------------------------
# Cutting big tiles
# --------------------------------------------------------------------------------------------


def _kept(n: int, limit: int) -> list[int | None]:
    """Indices shown out of ``n`` with at most ``limit`` slots: all, or head, None, last."""
    if n <= limit:
        return list(range(n))
    return [*range(max(limit - 2, 1)), None, n - 1]


# --------------------------------------------------------------------------------------------
# Text
# --------------------------------------------------------------------------------------------


def _ansi(key: int | None) -> tuple[str, str]:
    if key is None:
        return "", ""
    palette = (153, 222, 194, 218, 187, 152, 223, 189, 157, 217, 229, 195, 225, 158, 230, 183)
    return f"\x1b[30;48;5;{palette[key % len(palette)]}m", "\x1b[0m"


def render_text(tile: Tile, width: int = 100, max_rows: int = 40, color: bool = False) -> str:
    """The tile as a text table at most ``width`` columns wide (``color``: ANSI backgrounds)."""
    rows, cols = tile.shape
    cell = max([len(x) + ((r, c) in tile.marked) for r, row in enumerate(tile.labels)
                for c, x in enumerate(row)] + [len(c) for c in tile.col_names])
    head = max(len(r) for r in tile.row_names) if tile.row_names else 1
    fit = max((width - head - 2) // (cell + 1), 3)
    col_idx, row_idx = _kept(cols, fit), _kept(rows, max_rows)
    out = [tile.title, tile.legend]

    def line(name: str, items: list[str]) -> str:
        return f"{name:>{head}} |" + "".join(items)

    out.append(line("", [" " + ("…".rjust(cell) if c is None else tile.col_names[c].rjust(cell))
                         for c in col_idx]))
    out.append("-" * (head + 2 + len(col_idx) * (cell + 1)))
    for r in row_idx:
        if r is None:
            out.append(line("⋮", [" " + " " * cell for _ in col_idx]))
            continue
        items = []
        for c in col_idx:
            if c is None:
                items.append(" " + "…".rjust(cell))
                continue
            text = ("*" * ((r, c) in tile.marked) + tile.labels[r][c]).rjust(cell)
            on, off = _ansi(tile.keys[r][c]) if color else ("", "")
            items.append(" " + on + text + off)
        out.append(line(tile.row_names[r], items))
    if len(col_idx) < cols or len(row_idx) < rows:
        out.append(f"(showing {sum(i is not None for i in row_idx)} of {rows} rows, "
                   f"{sum(i is not None for i in col_idx)} of {cols} columns)")
    return "\n".join(out) + "\n"


def layout_text(layout: Layout, shape: Sequence[int], element_bits: int = 32,
                space: str | None = None, width: int = 100) -> str:
    """``layout`` over ``shape`` as a text table (``layout_tile`` + ``render_text``)."""
    return render_text(layout_tile(layout, shape, element_bits, space), width)


# --------------------------------------------------------------------------------------------
# SVG
# --------------------------------------------------------------------------------------------


def fill_color(key: int | None) -> str:
    """A light colour for a key: hues spread by the golden angle, lightness alternating."""
    if key is None:
        return "#ffffff"
    hue = (key * 0.381966) % 1.0
    light = (0.78, 0.86, 0.70)[key % 3]
    r, g, b = colorsys.hls_to_rgb(hue, light, 0.65)
    return f"#{int(r * 255):02x}{int(g * 255):02x}{int(b * 255):02x}"


def _svg_tile(tile: Tile, y0: int, max_rows: int, max_cols: int) -> tuple[list[str], int, int]:
    rows, cols = tile.shape
    col_idx, row_idx = _kept(cols, max_cols), _kept(rows, max_rows)
    cell_w = max(30, 7 * max(len(x) for row in tile.labels for x in row) + 8)
    cell_h, head_w = 20, max(24, 7 * max(len(n) for n in tile.row_names) + 10)
    parts = [f'<text x="4" y="{y0 + 14}" font-size="13" font-weight="bold">'
             f'{escape(tile.title)}</text>',
             f'<text x="4" y="{y0 + 30}" font-size="11" fill="#444">{escape(tile.legend)}</text>']
    top = y0 + 40 + cell_h
    for j, c in enumerate(col_idx):
        x = head_w + j * cell_w + cell_w // 2
        name = "…" if c is None else tile.col_names[c]
        parts.append(f'<text x="{x}" y="{top - 6}" font-size="10" text-anchor="middle" '
                     f'fill="#666">{escape(name)}</text>')
    for i, r in enumerate(row_idx):
        y = top + i * cell_h
        name = "⋮" if r is None else tile.row_names[r]
        parts.append(f'<text x="{head_w - 4}" y="{y + 14}" font-size="10" text-anchor="end" '
                     f'fill="#666">{escape(name)}</text>')
        for j, c in enumerate(col_idx):
            x = head_w + j * cell_w
            if r is None or c is None:
                parts.append(f'<text x="{x + cell_w // 2}" y="{y + 14}" font-size="11" '
                             f'text-anchor="middle">{"⋮" if r is None else "…"}</text>')
                continue
            stroke = ('stroke="#000" stroke-width="2.5"' if (r, c) in tile.marked
                      else 'stroke="#888" stroke-width="0.5"')
            parts.append(f'<rect x="{x}" y="{y}" width="{cell_w}" height="{cell_h}" '
                         f'fill="{fill_color(tile.keys[r][c])}" {stroke}/>')
            parts.append(f'<text x="{x + cell_w // 2}" y="{y + 14}" font-size="11" '
                         f'text-anchor="middle">{escape(tile.labels[r][c])}</text>')
    width = head_w + len(col_idx) * cell_w + 8
    height = top + len(row_idx) * cell_h + 12 - y0
    return parts, width, height


def render_svg(items: Sequence[Tile | str], max_rows: int = 64, max_cols: int = 32) -> str:
    """One SVG document: the tiles stacked vertically, a string being a line of text."""
    body: list[str] = []
    y, width = 4, 200
    for item in items:
        if isinstance(item, str):
            body.append(f'<text x="4" y="{y + 12}" font-size="11" font-family="monospace" '
                        f'xml:space="preserve">{escape(item)}</text>')
            y += 15
            width = max(width, 7 * len(item) + 8)
            continue
        y += 6
        parts, w, h = _svg_tile(item, y, max_rows, max_cols)
        body += parts
        y += h + 10
        width = max(width, w)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{y + 4}" '
            f'viewBox="0 0 {width} {y + 4}" font-family="DejaVu Sans, Arial, sans-serif">\n'
            f'<rect width="100%" height="100%" fill="#fff"/>\n' + "\n".join(body) + "\n</svg>\n")


def layout_svg(layout: Layout, shape: Sequence[int], element_bits: int = 32,
               space: str | None = None) -> str:
    """``layout`` over ``shape`` as an SVG document (``layout_tile`` + ``render_svg``)."""
    return render_svg([layout_tile(layout, shape, element_bits, space)])
