"""``regcopy-viz``: draw the layouts and copy plans of an MLIR file.

    regcopy-viz in.mlir [-o out.svg] [--text] [--thread T] [--warp W] [--round F]

For each distinct buffer type with a ``#regcopy.layout``: the logical tile, each element
labelled ``thread:slot`` and coloured by owner (register tiles) or labelled with its physical
offset, swizzle applied, and coloured by bank (shared/global). For each ``regcopy.copy``: the
pass's plan (vector width, rounds), which round moves each element, thread T's transfers, and
for a shared side the bank groups of warp W's transfer in round F. With ``-o`` it writes one
SVG; otherwise (or with ``--text``) it prints text. Exit 0; 1 with one diagnostic on bad input.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from regcopy_tools.cli import run_main
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.utils.exceptions import ParseError

from regcopy_dialect.diagnostics import first_invalid_op, op_error, parse_error
from regcopy_dialect.regcopy import CopyOp, LayoutAttr, element_bits, memory_space
from regcopy_dialect.source import parse_located
from regcopy_dialect.viz import Tile, layout_tile, render_svg, render_text


class VizError(Exception):
    """Bad input, phrased as one diagnostic."""


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


def pictures(module: ModuleOp, args: argparse.Namespace) -> list[Tile | str]:
    """Everything drawn for the file: layout tiles, then per copy its text lines and tiles."""
    from regcopy_tools.viz_plan import copy_picture

    copies = [op for op in module.walk() if isinstance(op, CopyOp)]
    if args.copy is not None:
        if not 0 <= args.copy < len(copies):
            raise VizError(f"{args.input}: --copy {args.copy}: the file has {len(copies)} "
                           "regcopy.copy op(s), numbered from 0")
        chosen = copies[args.copy]
        types = [t for t in layout_types(module) if t in (chosen.src_type, chosen.dst_type)]
        numbered = [(args.copy, chosen)]
    else:
        types, numbered = layout_types(module), list(enumerate(copies))
    items: list[Tile | str] = [buffer_tile(t) for t in types]
    if not items and not numbered:
        raise VizError(f"{args.input}: nothing to draw: no buffer with a #regcopy.layout and "
                       "no regcopy.copy")
    for k, op in numbered:
        pic = copy_picture(op, k, args.thread, args.warp, args.round, args.max_vector_bits)
        items += [*pic.lines, *pic.tiles]
    return items


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="regcopy-viz", description=__doc__.split("\n\n")[0])
    ap.add_argument("input", help="input .mlir file")
    ap.add_argument("-o", "--output", help="write an SVG picture here")
    ap.add_argument("--text", action="store_true", help="print text (also with -o)")
    ap.add_argument("--copy", type=int, help="draw only the K-th regcopy.copy (from 0) and "
                    "its buffers")
    ap.add_argument("--thread", type=int, default=0, help="thread whose transfers are listed")
    ap.add_argument("--warp", type=int, default=0, help="warp whose bank groups are drawn")
    ap.add_argument("--round", type=int, default=0, help="round whose bank groups are drawn")
    ap.add_argument("--max-vector-bits", type=int, default=128, choices=(8, 16, 32, 64, 128),
                    help="as the pass option of that name")
    ap.add_argument("--width", type=int, default=0, help="text width (default: the terminal's)")
    return ap.parse_args(argv)


def run(args: argparse.Namespace) -> int:
    module = load(args.input)
    items = pictures(module, args)
    if args.output:
        try:
            Path(args.output).write_text(render_svg(items))
        except OSError as e:
            raise VizError(f"cannot write {args.output}: {e.strerror}") from None
    if args.text or not args.output:
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
