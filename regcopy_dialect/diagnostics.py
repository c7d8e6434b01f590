"""One-line diagnostics that name an op and show its printed form (SPEC §6)."""

from __future__ import annotations

from io import StringIO

from xdsl.ir import Operation
from xdsl.printer import Printer


def op_text(op: Operation) -> str:
    """The op's custom printed form, cut to its first line (region bodies elided)."""
    out = StringIO()
    Printer(stream=out).print_op(op)
    first = out.getvalue().strip().splitlines()[0]
    return first + (" ... }" if first.endswith("{") else "")


def op_error(op: Operation, message: str) -> str:
    """``'<op name>' op <message>`` followed by the op as printed."""
    return f"'{op.name}' op {message}\n  at: {op_text(op)}"


def first_invalid_op(root: Operation) -> tuple[Operation, Exception] | None:
    """The first op (pre-order) whose own verifier fails, with the failure."""
    for op in root.walk():
        try:
            op.verify(verify_nested_ops=False)
        except Exception as e:  # noqa: BLE001 - every verifier failure becomes a diagnostic
            return op, e
    return None
