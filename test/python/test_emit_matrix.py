"""``passes/emit_matrix``: the IR of a ``MatrixTransfer`` verifies, has one unguarded
ld/stmatrix op per instruction with the planned registers, and its index arithmetic, run for
every thread of the scope, gives each lane ``swizzle(s_base + A(t) + delta)``."""

from __future__ import annotations

import pytest
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Operation, SSAValue

from copy_harness import CopyCase, parse
from matrix_cases import A_64x64, A_WG, B_KN, C_16x8, frag, planned
from regcopy_dialect.layout import Swizzle
from regcopy_dialect.matrix_ops import LdMatrixOp, MatrixOpBase, StMatrixOp
from regcopy_passes.reg_copy.emit_matrix import emit_matrix, possible_bits
from regcopy_passes.core.index_builder import IndexBuilder
from regcopy_passes.reg_copy.matrix_plan import BitField, MatrixTransfer

BINARY = {arith.AddiOp: lambda a, b: a + b, arith.MuliOp: lambda a, b: a * b,
          arith.AndIOp: lambda a, b: a & b, arith.OrIOp: lambda a, b: a | b,
          arith.XOrIOp: lambda a, b: a ^ b, arith.ShRSIOp: lambda a, b: a >> b,
          arith.ShLIOp: lambda a, b: a << b, arith.DivSIOp: lambda a, b: a // b,
          arith.RemSIOp: lambda a, b: a % b}


def evaluate(ops: list[Operation], env: dict[SSAValue, int]) -> list[int]:
    """The shared offsets of the matrix ops in ``ops``, with the arguments bound by ``env``
    (all values here are non-negative, so the signed ops are Python's floor ops)."""
    offsets: list[int] = []
    for op in ops:
        if isinstance(op, arith.ConstantOp):
            assert isinstance(op.value, IntegerAttr)
            env[op.result] = op.value.value.data
        elif type(op) in BINARY:
            env[op.results[0]] = BINARY[type(op)](env[op.operands[0]], env[op.operands[1]])
        elif isinstance(op, MatrixOpBase):
            offsets.append(env[op.offset])
        else:
            raise AssertionError(f"unexpected op {op.name}")
    return offsets


def emitted(case: CopyCase, r_to_s: bool, s_base: int | None
            ) -> tuple[MatrixTransfer, Swizzle | None, ModuleOp, list[Operation], SSAValue,
                       SSAValue]:
    """Emit ``case``'s transfer into a function of ``(%t, %base)`` over flat storages; the
    base is the constant ``s_base``, or the argument ``%base`` when None."""
    _, plan, transfer = planned(case, r_to_s)
    assert isinstance(transfer, MatrixTransfer), transfer
    regs = 128
    sh = f"memref<8192x{case.dtype}, #regcopy.mem<shared>>"
    lo = f"memref<{regs}x{case.dtype}, #regcopy.mem<local>>"
    module = parse(f"func.func @f(%S: {sh}, %R: {lo}, %t: index, %base: index) {{\n"
                   "  func.return\n}\n")
    f = next(o for o in module.walk() if isinstance(o, func.FuncOp))
    s_arg, r_arg, t, base = f.args
    b = IndexBuilder()
    src, dst = (r_arg, s_arg) if r_to_s else (s_arg, r_arg)
    emit_matrix(b, t, base if s_base is None else s_base, src, dst, transfer, plan.swizzle)
    ret = f.body.block.last_op
    assert ret is not None
    f.body.block.insert_ops_before(b.ops, ret)
    module.verify()
    return transfer, plan.swizzle, module, b.ops, t, base


CASES = {
    "A 64x64": frag((64, 64), A_64x64),
    "B trans": frag((16, 8), B_KN),
    "C f16": frag((16, 8), C_16x8),
    "warpgroup": frag((64, 16), A_WG, scope="warpgroup", block=128),
    "swizzled": frag((64, 64), A_64x64, s_layout="(64,64):(64,1), swizzle<3,3,3>"),
}


@pytest.mark.parametrize("r_to_s", [False, True], ids=["ld", "st"])
@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("s_base", [None, 1024])
def test_emitted_addresses(name: str, r_to_s: bool, s_base: int | None) -> None:
    case = CASES[name]
    transfer, sw, module, ops, t, base = emitted(case, r_to_s, s_base)
    matrix_ops = [op for op in ops if isinstance(op, MatrixOpBase)]
    assert all(isinstance(op, StMatrixOp if r_to_s else LdMatrixOp) for op in matrix_ops)
    assert [op.register_offsets for op in matrix_ops] == [op.registers for op in transfer.ops]
    assert all(op.transposed == transfer.trans for op in matrix_ops)
    assert not any(isinstance(op, scf.IfOp) for op in module.walk())
    # a dynamic base is any multiple of its provable divisor (here: of the whole tile)
    for bound in (0, 4096, 8192) if s_base is None else (s_base,):
        for lane_t in range(transfer.threads):
            got = evaluate(ops, {t: lane_t, base: bound})
            want = [bound + op.address(lane_t) for op in transfer.ops]
            if sw is not None:
                want = [sw.apply(a) for a in want]
            assert got == want, (lane_t, bound)


def test_address_hoisted_once() -> None:
    """16 instructions of one table: the table is computed once, then one add (and, when
    swizzled, the swizzle) per instruction."""
    _, _, _, ops, _, _ = emitted(CASES["A 64x64"], False, None)
    shifts = [op for op in ops if isinstance(op, arith.ShRSIOp)]
    assert len(shifts) == 1  # (t >> 4) & 1; t & 15 needs no shift
    adds = [op for op in ops if isinstance(op, arith.AddiOp)]
    assert len(adds) == 2 + 15  # A(t) = f0 + f1, base + A(t), then + delta for 15 of 16


def test_swizzle_hoisted_for_disjoint_bits() -> None:
    """A warp's A fragments of a swizzled 64 x 64 tile: the deltas' low parts (16, 32, 48;
    the rest are multiples of 512, past the swizzle's bits) touch bits 4-5, which no lane's
    row address sets (bit 3 and bits 6 up): one swizzle, one XOR per distinct low part, and
    an add for the high part."""
    _, _, _, ops, _, _ = emitted(CASES["swizzled"], False, 0)
    xors = [op for op in ops if isinstance(op, arith.XOrIOp)]
    assert len(xors) == 1 + 3  # the swizzle's own, then one per low part 16, 32, 48
    assert len([op for op in ops if isinstance(op, arith.ShRSIOp)]) == 2  # t >> 4, 1 in sw


@pytest.mark.parametrize("fields,divisor", [
    ((BitField(0, 4, 64), BitField(4, 1, 8)), 0),
    ((BitField(0, 4, 64), BitField(4, 1, 8)), 512),
    ((BitField(0, 4, 64), BitField(4, 1, 8)), 8),
    ((BitField(0, 3, 24), BitField(3, 2, 8)), 16),  # overlapping terms: carries
    ((BitField(0, 2, 40),), 1024),  # a coefficient that is no power of two
    ((BitField(0, 5, 8), BitField(5, 2, 1024)), 4096),
])
def test_possible_bits_is_sound(fields: tuple[BitField, ...], divisor: int) -> None:
    """Every value ``base + A(t)`` (base a multiple of the divisor) sets only bits of the
    mask, and the hoisted swizzle equals the full one for every delta it is allowed for."""
    may = possible_bits(fields, divisor)
    sw = Swizzle(3, 3, 3)
    bases = [0] if divisor == 0 else [divisor * k for k in range(0, 9)]
    width = max(f.lo + f.width for f in fields)
    for base in bases:
        for t in range(1 << width):
            x = base + sum(f.value(t) for f in fields)
            assert x & ~may == 0, (base, t)
            for delta in range(0, 1024, 8):
                lo, hi = delta & 511, delta & ~511
                if lo & may == 0:
                    assert sw.apply(x + delta) == (sw.apply(x) ^ sw.apply(lo)) + hi


def test_one_carry_free_proof_for_both_transfer_kinds() -> None:
    """``carry_free`` over a divisor's possible bits is the per-thread path's old divisor test
    (``d`` a multiple of ``2^bitlen(lo)``), and ``x + lo == x ^ lo`` on every such ``x``."""
    from regcopy_passes.core.swizzle_address import carry_free, divisor_bits

    for d in range(0, 65):
        for lo in range(0, 64):
            proof = carry_free(lo, divisor_bits(d))
            assert proof == (d == 0 or d % (1 << lo.bit_length()) == 0), (d, lo)
            if proof:
                assert all((x + lo) == (x ^ lo) for x in range(0, 4096, d or 4096))
