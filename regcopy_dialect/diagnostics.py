"""Diagnostics in clang's layout: one line ``file:line:col: error: message``, then the source
line and a caret under the column::

    f.mlir:5:3: error: 'regcopy.copy' op does not verify: src and dst element types differ
      regcopy.copy warp %A -> %R : memref<32x8xf16, ...> -> memref<32x8xf32, ...>
      ^

The same for parse errors, pass errors, warnings and remarks (these add a short copy label and
indented notes). Where the op has no location the line is ``'<op>' op message`` and the op's
printed form follows as ``  at: ...``; a driver prefixes such a line with ``<tool>: error:``
(``format_error``).

Warnings and remarks go to stderr unless a ``capture_diagnostics()`` block collects them
(for pipelines that embed the pass and report, or silence, on their own).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from io import StringIO
from typing import Literal, TypeVar, cast

from xdsl.dialects import func
from xdsl.dialects.builtin import FileLineColLoc, MemRefType
from xdsl.ir import Operation
from xdsl.printer import Printer
from xdsl.utils.exceptions import MultipleSpansParseError, ParseError, VerifyException
from xdsl.utils.lexer import Span

from regcopy_dialect.regcopy import (
    CopyOp,
    is_regcopy_buffer,
    verify_buffer,
    verify_divisibility_attrs,
)
from regcopy_dialect.source import quote_location

Severity = Literal["error", "warning", "remark"]


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


def op_location(op: Operation) -> str | None:
    """``file:line:col`` of ``op`` when it was parsed from a file (or spelled ``loc(...)``)."""
    loc = op.location
    if not isinstance(loc, FileLineColLoc):
        return None
    return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"


def inherit_location(ops: Iterable[Operation], source: Operation) -> None:
    """Give every op in ``ops`` (nested ops included) that has no source location the
    location of ``source``, the op it was generated from: an error about generated code
    then points at the line the user wrote."""
    if not isinstance(source.location, FileLineColLoc):
        return
    for top in ops:
        for op in top.walk():
            if not isinstance(op.location, FileLineColLoc):
                op.location = source.location


OpT = TypeVar("OpT", bound=Operation)


def with_location(new: OpT, source: Operation) -> OpT:
    """``new``, given ``source``'s location (``inherit_location``)."""
    inherit_location([new], source)
    return new


@contextmanager
def locate_inserted(source: Operation, anchor: Operation | None = None) -> Iterator[None]:
    """Inside the block, ops inserted right before ``anchor`` (``source`` by default;
    between its previous op and it) are generated from ``source``: afterwards they get its
    location (``inherit_location``)."""
    anchor = anchor or source
    block, prev = anchor.parent_block(), anchor.prev_op
    yield
    if block is None:
        return
    new: list[Operation] = []
    cur = prev.next_op if prev is not None else block.first_op
    while cur is not None and cur is not anchor:
        new.append(cur)
        cur = cur.next_op
    inherit_location(new, source)


def _nearest_location(op: Operation) -> tuple[str, Operation] | None:
    """The location of ``op``'s nearest ancestor that has one, and that ancestor."""
    parent = op.parent_op()
    while parent is not None:
        if (where := op_location(parent)) is not None:
            return where, parent
        parent = parent.parent_op()
    return None


LOCATED = re.compile(r"[^\n]*:\d+:\d+: (?:error|warning|remark): ")
"""The start of a diagnostic that already says where (``file:line:col: error: ``)."""


def split_clauses(message: str) -> list[str]:
    """``message`` cut at each ``"; "`` outside brackets (a remark's line and its notes): a
    parenthesised aside that contains ``"; "`` stays whole. ``(`` and ``[`` open, ``)`` and
    ``]`` close (so a half-open ``[4, 7)`` is balanced)."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(message):
        depth = max(0, depth + (c in "([") - (c in ")]"))
        if depth == 0 and message.startswith("; ", i):
            parts.append(message[start:i])
            start = i + 2
    return [*parts, message[start:]]


def located(where: str, severity: str, message: str, context: Sequence[str]) -> str:
    """``where: severity: message`` and the ``context`` lines (source line and caret)."""
    return "\n".join([f"{where}: {severity}: {message}", *context])


def op_error(op: Operation, message: str) -> str:
    """``file:line:col: error: '<op name>' op <message>``, then the op's source line and a caret
    under its first token. Where the source line is not known, ``  at: <the op as printed>``
    follows instead; where the location is not known either, the first line is just
    ``'<op name>' op <message>`` (a driver prefixes it with ``<tool>: error:``)."""
    head = f"'{op.name}' op {message}"
    where = op_location(op)
    context = (quote_location(where) if where is not None else []) or [f"  at: {op_text(op)}"]
    if where is None and (near := _nearest_location(op)) is not None:
        # generated code that no pass located: the enclosing op the user wrote
        where, parent = near
        context = [*quote_location(where), f"  at: {op_text(op)}",
                   f"  (generated inside this '{parent.name}')"]
    if where is None:
        return "\n".join([head, *context])
    return located(where, "error", head, context)


def parse_error(e: ParseError) -> str:
    """xDSL's parse error as ``file:line:col: error: message``, the source line and carets
    under the span (each span of a multi-span error adds a ``note:`` in the same layout)."""

    def one(span: Span[str] | Span[bytes], severity: str, msg: str) -> list[str]:
        return [located(str(span.get_location()), severity, msg, _span_line(span))]

    lines = one(e.span, "error", e.msg)
    if isinstance(e, MultipleSpansParseError):
        lines += [x for span, msg in e.refs for x in one(span, "note", msg or e.ref_text or "")]
    return "\n".join(lines)


def _span_line(span: Span[str] | Span[bytes]) -> list[str]:
    """The span's first line, read from the span's own input, and carets under the span (at
    least one, at most to the end of that line)."""
    start, end = span.input.get_start_of_line(span.start), span.input.get_end_of_line(span.start)

    def text(a: int, b: int) -> str:
        raw = span.input.content[a:b]
        return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw

    line, pre = text(start, end), text(start, span.start)
    width = max(1, len(text(span.start, min(span.end, end))))
    return [line, "".join(c if c == "\t" else " " for c in pre) + "^" * width]


def format_error(tool: str, message: str) -> str:
    """What a driver prints for an error: ``message`` itself when it starts with a location
    (``file:line:col: error: ...``), else ``<tool>: error: <message>``."""
    return message if LOCATED.match(message) else f"{tool}: error: {message}"


def _enclosing_func(op: Operation) -> func.FuncOp | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp):
        parent = parent.parent_op()
    return parent


def _names(op: CopyOp) -> str | None:
    src, dst = op.src.name_hint, op.dst.name_hint
    return f"%{src} -> %{dst}" if src is not None and dst is not None else None


def copy_labels(root: Operation) -> dict[CopyOp, str]:
    """A short, distinct name for each copy under ``root``: ``copy %A -> %R in @k`` when its
    buffers have names that no other copy of ``@k`` shares, else ``copy #2 in @k`` (its 1-based
    ordinal among the copies of ``@k``, names appended when known: ``copy #2 %A -> %R in @k``).
    Compute them before rewriting, so that lowering one copy does not rename another."""
    by_scope: dict[Operation | None, list[CopyOp]] = {}
    for op in root.walk():
        if isinstance(op, CopyOp):
            by_scope.setdefault(_enclosing_func(op), []).append(op)
    labels: dict[CopyOp, str] = {}
    for scope, copies in by_scope.items():
        where = f" in @{scope.sym_name.data}" if isinstance(scope, func.FuncOp) else ""
        names = [_names(c) for c in copies]
        for ordinal, (op, name) in enumerate(zip(copies, names, strict=True), 1):
            if name is not None and names.count(name) == 1:
                labels[op] = f"copy {name}{where}"
            else:
                labels[op] = f"copy #{ordinal}{f' {name}' if name else ''}{where}"
    return labels


def copy_label(op: CopyOp) -> str:
    """``op``'s label among the copies of its top-level op (see ``copy_labels``)."""
    return copy_labels(op.get_toplevel_object())[op]  # type: ignore[arg-type]


@dataclass(frozen=True)
class Diagnostic:
    """A warning or remark about one op: ``<where>: <severity>: <message> [<label>]``, the
    source line at ``where`` with a caret under the column (when the text is known), and
    indented ``notes`` on the following lines."""

    severity: Severity
    message: str
    label: str
    location: str | None = None
    notes: tuple[str, ...] = ()

    def __str__(self) -> str:
        head = f"{self.severity}: {self.message} [{self.label}]"
        context: list[str] = []
        if self.location is not None:
            head = f"{self.location}: {head}"
            context = quote_location(self.location)
        return "\n".join([head, *context, *(f"  {n}" for n in self.notes)])


_sink: ContextVar[list[Diagnostic] | None] = ContextVar("regcopy_diagnostics", default=None)


@contextmanager
def capture_diagnostics() -> Iterator[list[Diagnostic]]:
    """Collect the warnings and remarks emitted inside the block instead of printing them::

        with capture_diagnostics() as diags:
            PassPipeline((LowerRegCopyPass(),)).apply(ctx, module)
        left = [d for d in diags if d.severity == "warning"]
    """
    collected: list[Diagnostic] = []
    token = _sink.set(collected)
    try:
        yield collected
    finally:
        _sink.reset(token)


def emit(diag: Diagnostic) -> None:
    """Print ``diag`` to stderr, or hand it to the innermost ``capture_diagnostics()``."""
    if (sink := _sink.get()) is not None:
        sink.append(diag)
        return
    print(diag, file=sys.stderr)


def _verify_buffers(op: Operation) -> None:
    """``verify_buffer`` (element type, sizes, memory space, layout against shape) on every
    regcopy memref the op defines (results and block arguments): a memref type cannot check
    its own layout against its shape."""
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
            verify_divisibility_attrs(op)
        except Exception as e:  # noqa: BLE001 - every verifier failure becomes a diagnostic
            return op, e
    return None
