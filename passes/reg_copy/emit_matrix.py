"""ld/stmatrix in IR: a ``MatrixTransfer`` (``matrix_plan``) as ``regcopy.ldmatrix`` /
``regcopy.stmatrix`` ops.

Each thread computes its row address ``x = s_base + A(t)`` once per address table (normally
one), ``A(t) = sum(((t >> lo) & (2^w - 1)) * c)``; each instruction then supplies
``swizzle(x + delta)``, the row start (a row stays inside one swizzle chunk, so its 16 bytes
need no further swizzling). No guard surrounds the ops: every lane of the warp must execute a
``.sync.aligned`` instruction.

The swizzle is hoisted where it provably can be, by ``swizzle_address``'s proof
(``carry_free``) with the known bits of the address table instead of a divisor: split ``delta = lo + hi`` at the swizzle's read end ``T``; then
``swizzle(x + delta) = (swizzle(x) ^ swizzle(lo)) + hi`` when no bit ``lo`` sets can be set in
``x`` (the addition is then an XOR, and the swizzle is linear over GF(2)). ``x``'s possible
bits come from the table's fields and the slice base's divisor (``possible_bits``).
"""

from __future__ import annotations

from collections.abc import Callable

from regcopy_passes.core.index_builder import IndexBuilder, Value
from regcopy_passes.reg_copy.matrix_plan import BitField, MatrixTransfer
from regcopy_passes.core.swizzle_address import carry_free, emit_swizzle, read_end
from regcopy_passes.reg_copy.transfer import LoweringPlan
from xdsl.ir import Operation, SSAValue

from regcopy_dialect.address import place_digit
from regcopy_dialect.layout import Swizzle
from regcopy_dialect.matrix_ops import LdMatrixOp, StMatrixOp
from regcopy_dialect.regcopy import CopyOp, StorageOp


def _bit_range(lo: int, hi: int) -> int:
    """The mask of bits ``[lo, hi)``."""
    return ((1 << hi) - 1) & ~((1 << lo) - 1)


def _trailing_zeros(x: int) -> int:
    return (x & -x).bit_length() - 1


def possible_bits(fields: tuple[BitField, ...], s_base_divisibility: int) -> int:
    """A mask of the bits that ``s_base + A(t)`` may set (``-1 << k``: every bit from ``k``
    up). Terms whose bit ranges are disjoint add without carries (their sum is their OR);
    otherwise the sum may set any bit from the lowest term's up to its maximum's length."""
    bits = 0
    low = None
    top = 0
    overlap = False
    for f in fields:
        if f.coeff <= 0:
            return -1
        top += ((1 << f.width) - 1) * f.coeff
        k = _trailing_zeros(f.coeff)
        low = k if low is None else min(low, k)
        term = ((1 << f.width) - 1) << k if f.coeff == 1 << k else \
            _bit_range(k, (((1 << f.width) - 1) * f.coeff).bit_length())
        overlap = overlap or bool(bits & term)
        bits |= term
    if overlap:
        assert low is not None
        bits = _bit_range(low, top.bit_length())
    if s_base_divisibility:
        base = -1 << _trailing_zeros(s_base_divisibility)
        if bits & base:
            return -1 << min(_trailing_zeros(s_base_divisibility), _trailing_zeros(bits))
        bits |= base
    return bits


def emit_table(b: IndexBuilder, t: Value, fields: tuple[BitField, ...],
               thread_bits: int) -> Value:
    """``sum(((t >> lo) & (2^w - 1)) * c)``: each field is a digit of ``t`` of place ``2^lo``
    and extent ``2^w`` (``address.place_digit``: a shift and a mask), without the mask for a
    field that reaches the top of ``t``'s ``thread_bits`` bits."""
    out: Value = 0
    for f in fields:
        x = place_digit(b, t, 1 << f.lo, 1 << f.width, f.lo + f.width >= thread_bits)
        out = b.add(out, b.mul(x, f.coeff))
    return out


def emit_address(b: IndexBuilder, base: Value, delta: int, swizzle: Swizzle | None,
                 may_set: int, swizzled_base: Callable[[], Value]) -> Value:
    """``swizzle(base + delta)``: hoisted, ``(swizzled_base() ^ swizzle(lo)) + hi``, when
    ``delta``'s low part avoids the bits ``may_set`` of ``base`` (module doc), else in full."""
    if swizzle is None:
        return b.add(base, delta)
    mask = (1 << read_end(swizzle)) - 1
    lo, hi = delta & mask, delta & ~mask
    if not carry_free(lo, may_set):
        return emit_swizzle(b, b.add(base, delta), swizzle)
    return b.add(b.xor(swizzled_base(), swizzle.apply(lo)), hi)


def emit_matrix(b: IndexBuilder, t: Value, s_base: Value, src: SSAValue, dst: SSAValue,
                transfer: MatrixTransfer, swizzle: Swizzle | None) -> None:
    """Append the transfer's ops to ``b``: ``t`` is the scope-local thread index
    (``emit_thread.thread_index``), ``s_base`` the S slice base (elements, a multiple of
    ``transfer.s_base_divisibility``), ``src``/``dst`` the flat storages (shared -> local for
    ldmatrix, local -> shared for stmatrix)."""
    thread_bits = (transfer.threads - 1).bit_length()
    bases: dict[tuple[BitField, ...], Value] = {}
    swizzled: dict[tuple[BitField, ...], Value] = {}
    cls = LdMatrixOp if transfer.kind == "ldmatrix" else StMatrixOp
    for op in transfer.ops:
        table = op.fields
        if table not in bases:
            bases[table] = b.add(s_base, emit_table(b, t, table, thread_bits))

        def swizzled_base(table: tuple[BitField, ...] = table) -> Value:
            if table not in swizzled:
                assert swizzle is not None
                swizzled[table] = emit_swizzle(b, bases[table], swizzle)
            return swizzled[table]

        may_set = possible_bits(table, transfer.s_base_divisibility)
        address = emit_address(b, bases[table], op.delta, swizzle, may_set, swizzled_base)
        b.ops.append(cls(src, dst, b.value(address), op.registers, transfer.trans))


def emit_matrix_copy(b: IndexBuilder, op: CopyOp, lp: LoweringPlan, t: Value,
                     storages: tuple[StorageOp, StorageOp]) -> list[Operation]:
    """The emitter of ``MatrixTransfer`` (``emit_copy.EMITTERS``): the storages and the
    instructions into ``b``, unguarded (every lane executes them); nothing follows."""
    transfer = lp.transfer
    assert isinstance(transfer, MatrixTransfer)
    b.ops += storages
    emit_matrix(b, t, b.affine(lp.copy.s_base), storages[0].result, storages[1].result,
                transfer, lp.copy.swizzle)
    return []
