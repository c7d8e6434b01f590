"""The ``xdsl.universe`` entry point: makes the dialect, the passes and the CUDA, PTX and SASS
targets visible to stock ``xdsl-opt`` and any other ``xDSLOptMain``. Factories import lazily.

Loading it also gives the ops that such a driver parses their ``file:line:col``
(``locate_parsed_ops``), so the pass's warnings and remarks say where the copy is, as under
``regcopy-opt``. xDSL's own parser records a location only where the text spells ``loc(...)``,
and a ``Universe`` cannot register a frontend.
"""

from __future__ import annotations

import sys
from typing import IO, Any

from xdsl.ir import Dialect
from xdsl.passes import ModulePass
from xdsl.universe import Universe
from xdsl.utils.target import Target


def get_regcopy_dialect() -> Dialect:
    from regcopy_dialect.regcopy import Regcopy

    return Regcopy


def get_lower_reg_copy() -> type[ModulePass]:
    from regcopy_passes.lower_reg_copy import LowerRegCopyPass

    return LowerRegCopyPass


def get_choose_shared_layouts() -> type[ModulePass]:
    from regcopy_passes.shared_layouts.choose import ChooseSharedLayoutsPass
    return ChooseSharedLayoutsPass


def get_lower_layout_access() -> type[ModulePass]:
    from regcopy_passes.lower_layout_access import LowerLayoutAccessPass

    return LowerLayoutAccessPass


def get_cuda_target() -> type[Target]:
    from regcopy_backend.cuda.printer import CudaTarget

    return CudaTarget


def get_ptx_target() -> type[Target]:
    from regcopy_backend.cuda.targets import PtxTarget

    return PtxTarget


def get_sass_target() -> type[Target]:
    from regcopy_backend.cuda.targets import SassTarget

    return SassTarget


def get_gpu_dialect() -> Dialect:
    from regcopy_dialect.gpu_shuffle import GPU_WITH_SHUFFLE

    return GPU_WITH_SHUFFLE


DIALECT_OVERRIDES = {"gpu": get_gpu_dialect}
"""Dialects that regcopy's own drivers (``regcopy-opt``, ``regcopy-run``) load in place of
xDSL's: ``gpu`` with ``gpu.shuffle``. A ``Universe`` cannot replace a dialect of another
universe (duplicate names are an error): under stock ``xdsl-opt`` the parse hook below adds
``gpu.shuffle`` to its context instead (``gpu_shuffle.add_shuffle``)."""


REGCOPY_UNIVERSE = Universe(
    all_dialects={"regcopy": get_regcopy_dialect},
    all_passes={"lower-reg-copy": get_lower_reg_copy,
                "lower-layout-access": get_lower_layout_access,
                "choose-shared-layouts": get_choose_shared_layouts},
    all_targets={"cuda": get_cuda_target, "ptx": get_ptx_target, "sass": get_sass_target},
)


_STOCK_FRONTEND = "CommandLineTool.register_all_frontends.<locals>.parse_mlir"
"""The qualified name of xDSL's own ``.mlir`` frontend (the one ``locate_parsed_ops`` stands in
for; any other frontend is left alone)."""


def locate_parsed_ops() -> None:
    """Make ``xDSLOptMain.parse_chunk`` parse ``.mlir`` text with ``LocatingParser`` (the same
    parse, plus each op's ``file:line:col``; line numbers count from the top of the file under
    ``--split-input-file``), with ``gpu.shuffle`` known, where the driver uses xDSL's stock
    MLIR frontend. Runs when this
    module is loaded, which ``xDSLOptMain`` does while it registers dialects, before it parses;
    a no-op when no ``xDSLOptMain`` is loaded or the hook is already in place."""
    opt_main = sys.modules.get("xdsl.xdsl_opt_main")
    if opt_main is None:
        return
    cls = opt_main.xDSLOptMain
    stock = cls.parse_chunk
    if getattr(stock, "regcopy_locating", False):
        return

    def parse_chunk(self: Any, chunk: IO[bytes], file_extension: str,
                    start_offset: int = 0) -> Any:
        frontend = self.available_frontends.get(file_extension)
        if getattr(frontend, "__qualname__", None) != _STOCK_FRONTEND:
            return stock(self, chunk, file_extension, start_offset)
        from regcopy_dialect.gpu_shuffle import add_shuffle
        from regcopy_dialect.source import parse_located

        add_shuffle(self.ctx)
        return parse_located(self.ctx, chunk.read(), self.get_input_name(), start_offset,
                             not self.args.no_implicit_module)

    parse_chunk.regcopy_locating = True  # type: ignore[attr-defined]
    parse_chunk.__doc__ = stock.__doc__
    cls.parse_chunk = parse_chunk


locate_parsed_ops()
