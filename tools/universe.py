"""The ``xdsl.universe`` entry point: makes the dialect, the passes and the CUDA, PTX and SASS
targets visible to stock ``xdsl-opt`` and any other ``xDSLOptMain``. Factories import lazily."""

from __future__ import annotations

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


REGCOPY_UNIVERSE = Universe(
    all_dialects={"regcopy": get_regcopy_dialect},
    all_passes={"lower-reg-copy": get_lower_reg_copy,
                "lower-layout-access": get_lower_layout_access},
    all_targets={"cuda": get_cuda_target, "ptx": get_ptx_target, "sass": get_sass_target},
)
