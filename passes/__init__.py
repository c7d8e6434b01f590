"""regcopy's passes: ``lower-reg-copy`` (the register-copy dispatch) and
``lower-layout-access`` (accesses by logical indices -> accesses to flat storage).

``lower(module, ...)`` runs ``lower-reg-copy`` on a module in place; ``LowerRegCopyPass`` (in
``regcopy_passes.lower_reg_copy``) and ``LowerLayoutAccessPass`` (in
``regcopy_passes.lower_layout_access``) are the xDSL ``ModulePass``es for pipelines.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from xdsl.context import Context
    from xdsl.dialects.builtin import ModuleOp

__all__ = ["LowerLayoutAccessPass", "LowerRegCopyPass", "lower"]


def lower(module: ModuleOp, max_vector_bits: int = 128, strict: bool = False,
          remarks: bool = False, ctx: Context | None = None, **options: Any) -> ModuleOp:
    """Run ``lower-reg-copy`` on ``module`` in place and return it.

    ``max_vector_bits``, ``strict`` and ``remarks`` are the pass options of the same names;
    further options (``bank_rotation="off"``, ``transfer="vector"``...) pass through as
    keywords. A rejected copy stays in the module (or, with ``strict``, raises xDSL's
    ``PassFailedException`` carrying the reason)."""
    from regcopy_passes.lower_reg_copy import LowerRegCopyPass

    from regcopy_dialect.context import regcopy_context

    LowerRegCopyPass(max_vector_bits=max_vector_bits, strict=strict, remarks=remarks,
                     **options).apply(ctx or regcopy_context(), module)
    return module


def __getattr__(name: str) -> Any:
    if name == "LowerRegCopyPass":
        from regcopy_passes.lower_reg_copy import LowerRegCopyPass

        return LowerRegCopyPass
    if name == "LowerLayoutAccessPass":
        from regcopy_passes.lower_layout_access import LowerLayoutAccessPass

        return LowerLayoutAccessPass
    raise AttributeError(f"module 'regcopy_passes' has no attribute {name!r}")
