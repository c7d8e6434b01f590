"""``regcopy-viz``: draw the layouts and copy plans of an MLIR file.

    regcopy-viz in.mlir [-o out.svg] [--text] [--copy K|@LINE|all] [--thread T] [--warp W]
                [--round F]

For each distinct buffer type with a ``#regcopy.layout``: the logical tile, each element
labelled ``thread:slot`` and coloured by owner (register tiles) or labelled with its physical
offset, swizzle applied, and coloured by bank (shared/global). For each ``regcopy.copy``: the
pass's plan (vector width, rounds), which round moves each element, thread T's transfers, and
for a shared side the bank groups of warp W's transfer in round F. For each
``regcopy.copy_async``: its ``cp.async`` plan (chunk width, chunks per thread), which thread
and round moves each element, thread T's chunks and the bank groups of warp W's chunks in
round F. With ``-o`` it writes one
SVG; otherwise (or with ``--text``) it prints text. Exit 0; 1 with one diagnostic on bad input.

An SVG of a file with more than ``SVG_MAX_COPIES`` copies would be tens of thousands of pixels
tall (a copy's plan is a few thousand), so without ``--copy`` the SVG shows the first copy and
its buffers, and a one-line note on stderr says how many there are and how to pick others.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from regcopy_tools.cli import run_main
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.utils.exceptions import ParseError

from regcopy_dialect.async_ops import CopyAsyncOp
from regcopy_dialect.diagnostics import (
    first_invalid_op,
    op_error,
    op_location,
    parse_error,
)
from regcopy_dialect.regcopy import CopyOp, LayoutAttr, element_bits, memory_space
from regcopy_dialect.source import parse_located
from regcopy_dialect.viz import Tile, layout_tile, render_svg, render_text

SVG_MAX_COPIES = 2
"""Past this many copies, an SVG drawn without ``--copy`` shows the first copy only."""

CopyChoice = int | tuple[Literal["line"], int] | Literal["all"]
"""``--copy``: the K-th copy (from 0), the copy on a line (``@LINE``), or all of them."""


class VizError(Exception):
    """Bad input, phrased as one diagnostic."""


def copy_choice(text: str) -> CopyChoice:
    """``--copy``'s value: ``K`` (from 0), ``@LINE`` (the copy written on that line) or ``all``."""
    if text == "all":
        return "all"
    digits = text.removeprefix("@")
    if not digits.isdigit():
        raise argparse.ArgumentTypeError(
            f"expected K (the K-th copy, from 0), @LINE (the copy on that line) or all, "
            f"got {text!r}")
    return ("line", int(digits)) if text.startswith("@") else int(digits)


AnyCopy = CopyOp | CopyAsyncOp
"""What regcopy-viz draws a plan of: register copies and asynchronous global -> shared copies."""


def copies_of(module: ModuleOp) -> list[AnyCopy]:
    """The module's copies (``regcopy.copy`` and ``regcopy.copy_async``), in order."""
    return [op for op in module.walk() if isinstance(op, AnyCopy)]


def _line(op: AnyCopy) -> int | None:
    where = op_location(op)
    return int(where.rsplit(":", 2)[1]) if where is not None else None


def chosen_copies(copies: list[AnyCopy], choice: CopyChoice | None, path: str
                  ) -> list[tuple[int, AnyCopy]]:
    """The numbered copies that ``--copy`` picks (all of them for ``all`` or no choice)."""
    if choice is None or choice == "all":
        return list(enumerate(copies))
    if isinstance(choice, tuple):
        found = [(k, c) for k, c in enumerate(copies) if _line(c) == choice[1]]
        if not found:
            lines = ", ".join(str(n) for c in copies if (n := _line(c)) is not None)
            raise VizError(f"{path}: --copy @{choice[1]}: no regcopy.copy starts on line "
                           f"{choice[1]}; copies start on lines {lines or '(none)'}")
        return found
    if not 0 <= choice < len(copies):
        raise VizError(f"{path}: --copy {choice}: the file has {len(copies)} "
                       "regcopy.copy op(s), numbered from 0 (copy_async ops included)")
    return [(choice, copies[choice])]


def default_copy_note(path: str, copies: list[AnyCopy]) -> str:
    """The note printed when a big SVG shows only copy 0."""
    where = f" (line {n})" if (n := _line(copies[0])) is not None else ""
    return (f"regcopy-viz: note: {path} has {len(copies)} copies; the SVG shows copy 0{where} "
            f"only; pick another with --copy K (0-{len(copies) - 1}) or --copy @LINE, or all "
            "with --copy all")


def load(path: str) -> ModuleOp:
    """Parse and verify ``path`` (``VizError`` with one diagnostic otherwise)."""
    from regcopy_tools.regcopy_run import build_context

    try:
        text = Path(path).read_text()
    except OSError as e:
        raise VizError(f"cannot read {path}: {e.strerror}") from None
    try:
        module = parse_located(build_context(), text, path)
    except ParseError as e:
        raise VizError(parse_error(e)) from None
    if (bad := first_invalid_op(module)) is None:
        from regcopy_passes.shared_layouts.choose import choose_layouts
        choose_layouts(module)  # #regcopy.layout<auto> buffers: draw the layout chosen
    if (bad := first_invalid_op(module)) is not None:
        op, err = bad
        raise VizError(op_error(op, f"does not verify: {err}"))
    return module


def layout_types(module: ModuleOp) -> list[MemRefType]:
    """Distinct memref types with a ``#regcopy.layout``, in order of first appearance."""
    seen: dict[MemRefType, None] = {}
    for op in module.walk():
        values = [*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)]
        for v in values:
            if isinstance(v.type, MemRefType) and isinstance(v.type.layout, LayoutAttr):
                seen.setdefault(v.type)
    return list(seen)


def buffer_tile(t: MemRefType) -> Tile:
    assert isinstance(t.layout, LayoutAttr)
    space = memory_space(t)
    bits = element_bits(t.element_type) or 8
    title = f"{space} {'x'.join(map(str, t.get_shape()))}x{t.element_type}: {t.layout.layout}"
    return layout_tile(t.layout.layout, t.get_shape(), bits, str(space), title)


def pictures(module: ModuleOp, args: argparse.Namespace, choice: CopyChoice | None
             ) -> list[Tile | str]:
    """Everything drawn for the file: layout tiles, then per copy its text lines and tiles
    (the copies ``choice`` picks, and then only their buffers)."""
    from regcopy_tools.viz_async import async_copy_picture
    from regcopy_tools.viz_plan import copy_picture

    copies = copies_of(module)
    numbered = chosen_copies(copies, choice, args.input)
    types = layout_types(module)
    if choice not in (None, "all"):
        types = [t for t in types if any(t in (c.src_type, c.dst_type) for _, c in numbered)]
    items: list[Tile | str] = [buffer_tile(t) for t in types]
    if not items and not numbered:
        raise VizError(f"{args.input}: nothing to draw: no buffer with a #regcopy.layout and "
                       "no regcopy.copy")
    for k, op in numbered:
        pic = (copy_picture(op, k, args.thread, args.warp, args.round, args.max_vector_bits)
               if isinstance(op, CopyOp) else
               async_copy_picture(op, k, args.thread, args.warp, args.round))
        items += [*pic.lines, *pic.tiles]
    return items


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="regcopy-viz", description=__doc__.split("\n\n")[0])
    ap.add_argument("input", help="input .mlir file")
    ap.add_argument("-o", "--output", help="write an SVG picture here")
    ap.add_argument("--text", action="store_true", help="print text (also with -o)")
    ap.add_argument("--copy", type=copy_choice, metavar="K|@LINE|all",
                    help="draw only the K-th regcopy.copy (from 0), or the one on line LINE, "
                    f"and its buffers; or all copies (an SVG of more than {SVG_MAX_COPIES} "
                    "copies shows copy 0 unless --copy says otherwise)")
    ap.add_argument("--thread", type=int, default=0, help="thread whose transfers are listed")
    ap.add_argument("--warp", type=int, default=0, help="warp whose bank groups are drawn")
    ap.add_argument("--round", type=int, default=0, help="round whose bank groups are drawn")
    ap.add_argument("--max-vector-bits", type=int, default=128, choices=(8, 16, 32, 64, 128),
                    help="as the pass option of that name")
    ap.add_argument("--width", type=int, default=0, help="text width (default: the terminal's)")
    return ap.parse_args(argv)


def run(args: argparse.Namespace) -> int:
    module = load(args.input)
    copies = copies_of(module)
    svg_choice = args.copy
    if args.output and args.copy is None and len(copies) > SVG_MAX_COPIES:
        svg_choice = 0
        print(default_copy_note(args.input, copies), file=sys.stderr)
    text = args.text or not args.output
    items = pictures(module, args, args.copy) if text else []
    if args.output:
        svg_items = items if text and svg_choice == args.copy else pictures(module, args,
                                                                             svg_choice)
        try:
            Path(args.output).write_text(render_svg(svg_items))
        except OSError as e:
            raise VizError(f"cannot write {args.output}: {e.strerror}") from None
    if text:
        width = args.width or min(max(shutil.get_terminal_size((120, 24)).columns, 60), 160)
        color = sys.stdout.isatty() and "NO_COLOR" not in os.environ
        print("\n".join(x if isinstance(x, str) else "\n" + render_text(x, width, color=color)
                        for x in items))
    return 0


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    run_main("regcopy-viz", lambda: run(args), (VizError,))


if __name__ == "__main__":
    main()
