"""One-line diagnostics that name an op and show its printed form (SPEC §6)."""

from __future__ import annotations

from io import StringIO
from typing import cast

from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from regcopy_dialect.regcopy import is_regcopy_buffer, verify_buffer


def op_text(op: Operation) -> str:
    """The op's printed form (generic when its custom printer fails on a broken op), cut to
    its first line (region bodies elided)."""
    out = StringIO()
    try:
        Printer(stream=out).print_op(op)
    except Exception:  # noqa: BLE001 - an op that does not verify may not print either
        out = StringIO()
        Printer(stream=out, print_generic_format=True).print_op(op)
    first = out.getvalue().strip().splitlines()[0]
    return first + (" ... }" if first.endswith("{") else "")


def op_error(op: Operation, message: str) -> str:
    """``'<op name>' op <message>`` followed by the op as printed."""
    return f"'{op.name}' op {message}\n  at: {op_text(op)}"


def _verify_buffers(op: Operation) -> None:
    """SPEC §2.2's buffer rules on every regcopy memref the op defines (results and block
    arguments): a memref type cannot check its own layout against its shape."""
    values = [*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)]
    for v in values:
        if is_regcopy_buffer(v.type):
            try:
                verify_buffer(cast(MemRefType, v.type))
            except VerifyException as e:
                raise VerifyException(f"buffer {v.type}: {e}") from None


def first_invalid_op(root: Operation) -> tuple[Operation, Exception] | None:
    """The first op (pre-order) whose own verifier, or whose regcopy buffers, fail."""
    for op in root.walk():
        try:
            op.verify(verify_nested_ops=False)
            _verify_buffers(op)
        except Exception as e:  # noqa: BLE001 - every verifier failure becomes a diagnostic
            return op, e
    return None
