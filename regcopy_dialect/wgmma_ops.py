"""``regcopy.wgmma`` (C += A * B, warpgroup scope, sm_90a ``wgmma.mma_async``), its wait
``regcopy.wgmma_wait`` and its lowered form ``regcopy.wgmma_async``.

::

    regcopy.wgmma warpgroup %A, %Bs[offs] [sizes], %C : TA, TB, TC          // A in registers
    regcopy.wgmma warpgroup %As[offs] [sizes], %Bs[offs] [sizes], %C : ...  // A in shared
    ... {transpose_b}     // the B region is N x K (C += A * B^T), else K x N
    ... {async}           // no wait: a later regcopy.wgmma_wait {pending = N : i64} waits

C is a ``64 x N`` f32 register tile (``N`` in 8..256, a multiple of 8) in the accumulator
fragment layout, A ``64 x K`` (a register tile in the A fragment layout, or a region of a
shared buffer), B a shared region (``K x N``, or ``N x K`` under ``transpose_b``); A and B are
f16 or bf16 (the same; m64nNk16) or f8E4M3FN|f8E5M2 (m64nNk32, K-major only), ``K`` a
multiple of the instruction's. A shared region's layout decides whether it is
K- or MN-major and gives the descriptor (``wgmma_layouts.derive_descriptor``). Regions of rank
above 2 have size 1 in every leading dim (a stage of a ring).

``regcopy.wgmma_async`` is the lowered op: flat storages, the element offset of each shared
region's first element, the descriptors' constant fields, each k16 step's start (bytes from
that element) and register words, and whether to fence the generic proxy and to wait.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import cast

from xdsl.dialects.builtin import (
    DenseArrayBase,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    UnitAttr,
    i64,
)
from xdsl.ir import SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    traits_def,
    var_operand_def,
)
from xdsl.irdl.operations import ParsePropInAttrDict
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

from regcopy_dialect.attrs import ExecScope, ExecScopeAttr, LayoutAttr, MemSpace
from regcopy_dialect.buffers import buffer_layout, memory_space, verify_buffer
from regcopy_dialect.element_types import element_info
from regcopy_dialect.layout import Layout, LayoutError, slice_region
from regcopy_dialect.wgmma_layouts import (
    N_VALUES,
    Descriptor,
    M,
    WgmmaMismatch,
    WgmmaSwizzle,
    a_cell,
    a_fragment_text,
    accumulator_cell,
    derive_descriptor,
    fragment_text,
    k_step,
    match_warpgroup,
    mode_of,
    suggested_layout,
)

DYNAMIC = -(2**63)
Region = tuple[list[int | SSAValue], list[int]]


@dataclass(frozen=True)
class SharedOperand:
    """A shared operand: its descriptor, each k16 step's start (bytes from the region's first
    element) and the region's first element as ``(constant, ((symbol, coefficient), ...))``."""

    descriptor: Descriptor
    starts: tuple[int, ...]
    base: tuple[int, tuple[tuple[SSAValue, int], ...]]


@dataclass(frozen=True)
class WgmmaPlan:
    """A checked ``regcopy.wgmma``."""

    n: int
    k: int
    c_words: tuple[int, ...]
    a_words: tuple[tuple[int, ...], ...] | None  # per k16 step, A in registers
    a: SharedOperand | None
    b: SharedOperand
    a_type: str
    b_type: str
    k_step: int

    @property
    def shape(self) -> str:
        return f"m64n{self.n}k{self.k_step}"


@lru_cache(maxsize=256)
def _descriptor(plain: Layout, cols: int, k_rows: bool, mn: int, k: int, mode: WgmmaSwizzle,
                nbytes: int) -> tuple[Descriptor, tuple[int, ...]] | str:
    """``derive_descriptor`` of the region whose unswizzled layout is ``plain`` (``cols``
    columns; ``k_rows``: K runs down its rows), once per distinct region: the kernels of a
    module (f16 and bf16, one wgmma per accumulator) read regions of the same layouts."""
    def offset(i: int, j: int) -> int:
        r, c = (j, i) if k_rows else (i, j)
        return plain.apply(r * cols + c)[1]

    return derive_descriptor(offset, mn, k, mode, nbytes)


def _shared_operand(name: str, t: MemRefType, region: Region, mn: int, k: int,
                    k_rows: bool) -> SharedOperand:
    verify_buffer(t)
    if memory_space(t) not in (MemSpace.SHARED, MemSpace.SHARED_DYN):
        raise VerifyException(f"operand {name} must be a region of a shared buffer, got {t}")
    offsets, sizes = region
    if len(sizes) < 2 or any(s != 1 for s in sizes[:-2]):
        raise VerifyException(f"the region of {name} must be 2-D (leading sizes 1), got "
                              f"sizes {sizes}")
    layout = buffer_layout(t)
    try:
        sliced = slice_region(layout, t.get_shape(), offsets, sizes)
    except LayoutError as e:
        raise VerifyException(f"operand {name}: {e}") from None
    if sliced.layout.thread_iters:
        raise VerifyException(f"operand {name} is a shared region, not a register tile")
    cols = sizes[-1]
    plain = sliced.layout.without_swizzle()
    nbytes = element_info(t.element_type).bits // 8  # type: ignore[union-attr]
    mode = mode_of(layout.swizzle, nbytes)
    want = suggested_layout(mn, k, nbytes)
    if mode is None:
        raise VerifyException(f"operand {name}: the swizzle {layout.swizzle} is none of "
                              f"wgmma's (32B swizzle<3,1,3>, 64B swizzle<3,2,3>, 128B "
                              f"swizzle<3,3,3> on 16-bit elements); e.g. {want} on {mn}x{k}")
    got = _descriptor(plain, cols, k_rows, mn, k, mode, nbytes)
    if isinstance(got, str):
        raise VerifyException(f"operand {name}: {got}; e.g. {want} on {mn}x{k} (K-major)")
    desc, starts = got
    const = plain.apply(0)[1] + sliced.base.const  # region's first element
    terms = tuple((cast(SSAValue, s), c) for s, c in sliced.base.terms)
    period = desc.swizzle.period // nbytes
    if desc.swizzle.period > 128 and (const % period >= int(desc.swizzle) // nbytes
                                      or any(c % period for _, c in terms)):
        raise VerifyException(f"operand {name}: the region must start in the first row of a "
                              f"{desc.swizzle} swizzle atom ({desc.swizzle.period} bytes)")
    return SharedOperand(desc, starts, (const, terms))


def _is_auto(t: MemRefType) -> bool:
    return isinstance(t.layout, LayoutAttr) and t.layout.is_auto


def plan_wgmma(a: MemRefType, a_region: Region | None, b: MemRefType, b_region: Region,
               c: MemRefType, transpose_b: bool, allow_auto: bool = False) -> WgmmaPlan | None:
    """Check the operands of a wgmma (``VerifyException`` with one line otherwise). With
    ``allow_auto``, shared operands whose layout is still ``auto`` are not checked (their
    layout is chosen by ``lower-reg-copy``) and the result is None when there is one."""
    verify_buffer(c)
    if memory_space(c) != MemSpace.LOCAL or not isinstance(c.layout, LayoutAttr):
        raise VerifyException(f"operand C must be a local register tile, got {c}")
    names = [str(element_info(t.element_type).name)  # type: ignore[union-attr]
             for t in (a, b, c)]
    fp8 = ("f8E4M3FN", "f8E5M2")
    if names[2] != "f32" or not ((names[0] == names[1] and names[0] in ("f16", "bf16"))
                                 or (names[0] in fp8 and names[1] in fp8)):
        raise VerifyException(f"no wgmma for {names[0]}, {names[1]} -> {names[2]}; supported: "
                              "f16,f16->f32 and bf16,bf16->f32 (m64nNk16), f8E4M3FN|f8E5M2 "
                              "-> f32 (m64nNk32)")
    bits = 8 if names[0] in fp8 else 16
    ks = k_step(bits)
    cm, n = c.get_shape() if len(c.get_shape()) == 2 else (0, 0)
    if cm != M or n not in N_VALUES:
        raise VerifyException(f"C must be 64 x N with N a multiple of 8 in 8..256, got "
                              f"{c.get_shape()}")
    try:
        c_tiles = match_warpgroup(buffer_layout(c), (M, n), (M, n), accumulator_cell,
                                  n // 2, 32)
    except WgmmaMismatch as e:
        raise VerifyException(f"operand C is not a m64n{n}k16 accumulator: {e}; expected "
                              f"{fragment_text(n)}, in any register order") from None
    bsizes = b_region[1][-2:]
    kb, nb = (bsizes[1], bsizes[0]) if transpose_b else (bsizes[0], bsizes[1])
    if a_region is None:
        verify_buffer(a)
        if memory_space(a) != MemSpace.LOCAL or not isinstance(a.layout, LayoutAttr):
            raise VerifyException(f"operand A must be a register tile or a shared region, "
                                  f"got {a}")
        am, k = a.get_shape() if len(a.get_shape()) == 2 else (0, 0)
    else:
        am, k = (a_region[1][-2:] + [0, 0])[:2]
    if (am, nb) != (M, n) or k != kb or k % ks or k == 0:
        raise VerifyException(f"shapes do not multiply: A {am}x{k}, B "
                              f"({'N x K' if transpose_b else 'K x N'}) "
                              f"{'x'.join(map(str, bsizes))}, C 64x{n} (K a multiple of {ks})")
    a_words = None
    a_shared = None
    if a_region is None:
        try:
            a_words = match_warpgroup(buffer_layout(a), (M, k), (M, ks),
                                      lambda t, i: a_cell(t, i, bits), 8 * 16 // bits, bits)
        except WgmmaMismatch as e:
            raise VerifyException(f"operand A is not a tile of m64k{ks} A fragments: {e}; "
                                  f"expected {a_fragment_text(bits)}, repeated along K") from None
    elif not (allow_auto and _is_auto(a)):
        a_shared = _shared_operand("A", a, a_region, M, k, False)
    if allow_auto and _is_auto(b):
        return None
    b_shared = _shared_operand("B", b, b_region, n, k, not transpose_b)
    if allow_auto and a_region is not None and _is_auto(a):
        return None
    for op in (a_shared, b_shared):
        if op is not None and not op.descriptor.k_major and bits != 16:
            raise VerifyException("MN-major shared operands need 16-bit elements; 8-bit "
                                  "ones are read K-major only")
    return WgmmaPlan(n, k, c_tiles[0], a_words, a_shared, b_shared, names[0], names[1], ks)


def _region_props(side: str, region: Region | None) -> dict[str, DenseArrayBase]:
    if region is None:
        return {}
    offsets, sizes = region
    return {f"{side}_static_offsets": DenseArrayBase.from_list(
                i64, [o if isinstance(o, int) else DYNAMIC for o in offsets]),
            f"{side}_sizes": DenseArrayBase.from_list(i64, list(sizes))}


@irdl_op_definition
class WgmmaOp(IRDLOperation):
    """``regcopy.wgmma warpgroup %A[region], %B[region], %C [{transpose_b, async}]`` (module
    doc)."""

    name = "regcopy.wgmma"

    a = operand_def(MemRefType)
    b = operand_def(MemRefType)
    c = operand_def(MemRefType)
    a_offsets = var_operand_def(IndexType)
    b_offsets = var_operand_def(IndexType)
    scope = prop_def(ExecScopeAttr)
    a_static_offsets = opt_prop_def(DenseArrayBase.constr(i64))
    a_sizes = opt_prop_def(DenseArrayBase.constr(i64))
    b_static_offsets = opt_prop_def(DenseArrayBase.constr(i64))
    b_sizes = opt_prop_def(DenseArrayBase.constr(i64))
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, a: SSAValue, a_region: Region | None, b: SSAValue, b_region: Region,
                 c: SSAValue, scope: ExecScope = ExecScope.WARPGROUP):
        dyn = [[v for v in r[0] if isinstance(v, SSAValue)] if r else [] for r in
               (a_region, b_region)]
        super().__init__(operands=[a, b, c, dyn[0], dyn[1]], properties={
            "scope": ExecScopeAttr(scope), **_region_props("a", a_region),
            **_region_props("b", b_region)})

    def region(self, side: str) -> Region | None:
        statics = cast(DenseArrayBase | None, getattr(self, f"{side}_static_offsets"))
        sizes = cast(DenseArrayBase | None, getattr(self, f"{side}_sizes"))
        if statics is None or sizes is None:
            return None
        dyn = iter(getattr(self, f"{side}_offsets"))
        offsets: list[int | SSAValue] = [next(dyn) if v == DYNAMIC else v
                                         for v in statics.get_values()]  # type: ignore[misc]
        return offsets, list(sizes.get_values())  # type: ignore[misc]

    @property
    def transpose_b(self) -> bool:
        return "transpose_b" in self.attributes

    @property
    def is_async(self) -> bool:
        return "async" in self.attributes

    def plan(self, allow_auto: bool = False) -> WgmmaPlan:
        """The checked plan (``lower-reg-copy`` has given ``auto`` operands their layout)."""
        plan = self._plan(allow_auto)
        assert plan is not None, "auto shared operands: run lower-reg-copy"
        return plan

    def _plan(self, allow_auto: bool) -> WgmmaPlan | None:
        b_region = self.region("b")
        if b_region is None:
            raise VerifyException("operand B must be a shared region %B[offsets] [sizes]")
        return plan_wgmma(cast(MemRefType, self.a.type), self.region("a"),
                          cast(MemRefType, self.b.type), b_region,
                          cast(MemRefType, self.c.type), self.transpose_b, allow_auto)

    @classmethod
    def parse(cls, parser: Parser) -> WgmmaOp:
        from regcopy_dialect.region_copy import _parse_region

        scope = parser.parse_str_enum(ExecScope)
        names, regions = [], []
        for k in range(3):
            if k:
                parser.parse_punctuation(",")
            names.append(parser.parse_unresolved_operand())
            regions.append(_parse_region(parser) if k < 2 else None)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = [parser.parse_type()]
        for _ in range(2):
            parser.parse_punctuation(",")
            types.append(parser.parse_type())
        a, b, c = (parser.resolve_operand(n, t) for n, t in zip(names, types, strict=True))
        if regions[1] is None:
            parser.raise_error("operand B of regcopy.wgmma is a shared region: "
                               "%B[offsets] [sizes]")
        op = cls(a, regions[0], b, cast(Region, regions[1]), c, scope)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        from regcopy_dialect.region_copy import _print_region

        printer.print_string(f" {self.scope.data} ")
        printer.print_ssa_value(self.a)
        _print_region(printer, self.a_static_offsets, self.a_sizes, self.a_offsets)
        printer.print_string(", ")
        printer.print_ssa_value(self.b)
        _print_region(printer, self.b_static_offsets, self.b_sizes, self.b_offsets)
        printer.print_string(", ")
        printer.print_ssa_value(self.c)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_list((self.a.type, self.b.type, self.c.type), printer.print_attribute)

    def verify_(self) -> None:
        if self.scope.data != ExecScope.WARPGROUP:
            raise VerifyException(f"wgmma is a warpgroup op: scope must be warpgroup, got "
                                  f"{self.scope.data}")
        extra = set(self.attributes) - {"transpose_b", "async"}
        if extra:
            raise VerifyException(f"unknown attribute(s) {', '.join(sorted(extra))}; "
                                  "expected {transpose_b} and {async}")
        self._verify_block()
        self._plan(allow_auto=True)

    def _verify_block(self) -> None:
        """The kernel's threads must be whole warpgroups (``regcopy.launch``'s block)."""
        fn = self.parent_op()
        while fn is not None and "regcopy.launch" not in fn.attributes:
            fn = fn.parent_op()
        launch = fn.attributes.get("regcopy.launch") if fn is not None else None
        block = getattr(launch, "block", None)
        if isinstance(block, IntAttr) and block.data % 128:
            raise VerifyException(f"wgmma runs on whole warpgroups: the kernel's block of "
                                  f"{block.data} threads is not a multiple of 128")


@irdl_op_definition
class WgmmaWaitOp(IRDLOperation):
    """``regcopy.wgmma_wait {pending = N : i64}``: ``wgmma.wait_group.sync.aligned N``."""

    name = "regcopy.wgmma_wait"
    pending = prop_def(IntegerAttr[IntegerType])
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict"
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, pending: int):
        super().__init__(properties={"pending": IntegerAttr(pending, i64)})

    def verify_(self) -> None:
        if not 0 <= self.pending.value.data <= 7:
            raise VerifyException(f"pending must be in 0..7, got {self.pending.value.data}")


@irdl_op_definition
class WgmmaAsyncOp(IRDLOperation):
    """The lowered ``regcopy.wgmma`` (module doc). ``a_desc``/``b_desc`` are the descriptors'
    constant fields (address 0; ``a_desc`` absent when A is in registers), ``a_starts``/
    ``b_starts`` each k16 step's start in bytes, ``a_regs`` A's words (4 a step), ``c_regs``
    C's slots (N / 2)."""

    name = "regcopy.wgmma_async"

    a = operand_def(MemRefType)
    b = operand_def(MemRefType)
    c = operand_def(MemRefType)
    a_base = opt_operand_def(IndexType)
    b_base = operand_def(IndexType)
    n = prop_def(IntegerAttr[IntegerType])
    b_desc = prop_def(IntegerAttr[IntegerType])
    b_starts = prop_def(DenseArrayBase.constr(i64))
    c_regs = prop_def(DenseArrayBase.constr(i64))
    a_desc = opt_prop_def(IntegerAttr[IntegerType])
    a_starts = opt_prop_def(DenseArrayBase.constr(i64))
    a_regs = opt_prop_def(DenseArrayBase.constr(i64))
    irdl_options = (ParsePropInAttrDict(), AttrSizedOperandSegments(as_property=True))
    assembly_format = ("$a (`[` $a_base^ `]`)? `,` $b `[` $b_base `]` `,` $c attr-dict `:` "
                       "type($a) `,` type($b) `,` type($c)")
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, a: SSAValue, a_base: SSAValue | None, b: SSAValue, b_base: SSAValue,
                 c: SSAValue, plan: WgmmaPlan, fence: bool):
        props: dict[str, object] = {
            "n": IntegerAttr(plan.n, i64),
            "b_desc": IntegerAttr(_signed(plan.b.descriptor.fields()), i64),
            "b_starts": DenseArrayBase.from_list(i64, list(plan.b.starts)),
            "c_regs": DenseArrayBase.from_list(i64, list(plan.c_words))}
        if plan.a is not None:
            props["a_desc"] = IntegerAttr(_signed(plan.a.descriptor.fields()), i64)
            props["a_starts"] = DenseArrayBase.from_list(i64, list(plan.a.starts))
        else:
            assert plan.a_words is not None
            props["a_regs"] = DenseArrayBase.from_list(i64, [w for s in plan.a_words for w in s])
        super().__init__(operands=[a, b, c, [a_base] if a_base else [], b_base],
                         properties=props)  # type: ignore[arg-type]
        if fence:
            self.attributes["fence_proxy"] = UnitAttr()
        for side, shared in (("a", plan.a), ("b", plan.b)):
            if shared is not None and not shared.descriptor.k_major:
                self.attributes[f"{side}_mn_major"] = UnitAttr()

    def steps(self) -> int:
        return len(cast(Sequence[int], self.b_starts.get_values()))

    def verify_(self) -> None:
        for name, v in (("A", self.a), ("B", self.b), ("C", self.c)):
            if len(cast(MemRefType, v.type).get_shape()) != 1:
                raise VerifyException(f"operand {name} must be a flat storage")
        if (self.a_desc is None) == (self.a_regs is None):
            raise VerifyException("A is either shared (a_desc, a_starts) or registers (a_regs)")
        if len(cast(Sequence[int], self.c_regs.get_values())) != self.n.value.data // 2:
            raise VerifyException("c_regs must list N / 2 registers")


def _signed(v: int) -> int:
    """A 64-bit pattern as the signed value an i64 attribute holds."""
    return v - (1 << 64) if v >= 1 << 63 else v


WGMMA_OPS = (WgmmaOp, WgmmaWaitOp, WgmmaAsyncOp)
