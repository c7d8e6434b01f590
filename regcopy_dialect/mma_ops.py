"""``regcopy.mma`` (C += A * B on register tiles, warp scope, ``mma.sync.aligned``) and its
lowered form ``regcopy.mma_sync``.

::

    regcopy.mma warp %A, %B, %C : TA, TB, TC
    regcopy.mma warp %A, %B, %C {transpose_b} : TA, TB, TC      // B is N x K: C += A * B^T
    regcopy.mma warp %A, %B, %C {precision = tf32} : TA, TB, TC // f32 operands as tf32

A is ``M x K``, B ``K x N`` (``N x K`` with ``transpose_b``), C ``M x N``, all ``local``
buffers whose layouts hold whole instruction fragments (``mma_fragments``) in any register
order. Element types and the instruction shape (``MMA_KINDS``): f16,f16 -> f32|f16 and
bf16,bf16 -> f32 (m16n8k16); f32,f32 -> f32 under ``{precision = tf32}`` (m16n8k8); i8|ui8 ->
i32 (m16n8k32); f8E4M3FN|f8E5M2 -> f32 (m16n8k32).

``regcopy.mma_sync`` is one warp's sequence of instructions on the flat register storages
(``regcopy.storage``): instruction ``j`` reads the A words at element offsets
``a_regs[j*wa : (j+1)*wa]`` of each lane's A registers (``wa`` words an instruction), the B
words likewise, and accumulates into the C words ``c_regs[j*wc : ...]`` in place.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import cast

from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatTF32Type,
    MemRefType,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    traits_def,
)
from xdsl.irdl.operations import ParsePropInAttrDict
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

from regcopy_dialect.attrs import ExecScope, ExecScopeAttr, LayoutAttr, MemSpace
from regcopy_dialect.buffers import buffer_layout, memory_space, verify_buffer
from regcopy_dialect.element_types import element_info
from regcopy_dialect.layout import Layout
from regcopy_dialect.mma_fragments import (
    M16N8K8,
    M16N8K16,
    M16N8K32,
    FragmentMismatch,
    FragmentTiles,
    MmaShape,
    Operand,
    expected_text,
    fragment_elements,
    match_fragments,
)

MMA_KINDS: dict[tuple[str, str, str], MmaShape] = {
    ("f16", "f16", "f32"): M16N8K16, ("f16", "f16", "f16"): M16N8K16,
    ("bf16", "bf16", "f32"): M16N8K16, ("f32", "f32", "f32"): M16N8K8,
    **{(a, b, "i32"): M16N8K32 for a in ("i8", "ui8") for b in ("i8", "ui8")},
    **{(a, b, "f32"): M16N8K32 for a in ("f8E4M3FN", "f8E5M2") for b in ("f8E4M3FN", "f8E5M2")},
}
"""``(A, B, C element types) -> instruction shape``."""

KINDS_TEXT = ("f16,f16->f32|f16, bf16,bf16->f32 (m16n8k16), f32,f32->f32 with "
              "{precision = tf32} (m16n8k8), i8|ui8->i32, f8E4M3FN|f8E5M2->f32 (m16n8k32)")


def type_name(t: Attribute) -> str:
    info = element_info(t)
    return info.name if info is not None else str(t)


def mma_shape(a: Attribute, b: Attribute, c: Attribute) -> MmaShape | None:
    """The instruction shape for element types ``a``, ``b``, ``c``; None if none."""
    return MMA_KINDS.get((type_name(a), type_name(b), type_name(c)))


@dataclass(frozen=True)
class MmaPlan:
    """A checked ``regcopy.mma``: the shape and each operand's fragment tiles."""

    shape: MmaShape
    a: FragmentTiles
    b: FragmentTiles
    c: FragmentTiles
    transpose_b: bool

    def instructions(self) -> tuple[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]], ...]:
        """``(A words, B words, C words)`` of every instruction, in issue order: K steps
        outermost (so each accumulator sums its K steps in ascending k), then M tiles, then N
        tiles in a serpentine (the B fragment of a row's last instruction starts the next)."""
        out = []
        for kk in range(self.a.cols):
            for mi in range(self.c.rows):
                cols = range(self.c.cols) if mi % 2 == 0 else range(self.c.cols - 1, -1, -1)
                for ni in cols:
                    b = self.b.tiles[ni][kk] if self.transpose_b else self.b.tiles[kk][ni]
                    out.append((self.a.tiles[mi][kk], b, self.c.tiles[mi][ni]))
        return tuple(out)


@lru_cache(maxsize=1024)
def _match(layout: Layout, tile: tuple[int, int], shape: MmaShape, operand: Operand,
           bits: int, transpose_b: bool) -> FragmentTiles:
    return match_fragments(layout, tile, shape, operand, bits, transpose_b)


def plan_mma(a: MemRefType, b: MemRefType, c: MemRefType, transpose_b: bool,
             tf32: bool) -> MmaPlan:
    """Check the operand types of an mma and match their layouts (``VerifyException`` with
    one line otherwise)."""
    for name, t in (("A", a), ("B", b), ("C", c)):
        verify_buffer(t)
        if memory_space(t) != MemSpace.LOCAL or not isinstance(t.layout, LayoutAttr):
            raise VerifyException(f"operand {name} must be a local register tile (a local "
                                  f"buffer with a #regcopy.layout), got {t}")
        if len(t.get_shape()) != 2:
            raise VerifyException(f"operand {name} must be 2-D, got {t}")
    shape = mma_shape(a.element_type, b.element_type, c.element_type)
    kinds = (f"{type_name(a.element_type)}, {type_name(b.element_type)} -> "
             f"{type_name(c.element_type)}")
    if shape is None:
        raise VerifyException(f"no mma.sync for {kinds}; supported: {KINDS_TEXT}")
    if shape == M16N8K8 and not tf32:
        raise VerifyException(f"{kinds} runs as tf32 (m16n8k8): say so with "
                              "{precision = tf32}")
    if tf32 and shape != M16N8K8:
        raise VerifyException(f"{{precision = tf32}} needs f32 operands, got {kinds}")
    (m, k), (rb, cb), (mc, n) = a.get_shape(), b.get_shape(), c.get_shape()
    kb, nb = (cb, rb) if transpose_b else (rb, cb)
    form = "N x K" if transpose_b else "K x N"
    if (k, m, n) != (kb, mc, nb):
        raise VerifyException(f"shapes do not multiply: A {m}x{k}, B ({form}) {rb}x{cb}, "
                              f"C {mc}x{n}")
    tiles = []
    for name, t, operand in (("A", a, Operand.A), ("B", b, Operand.B), ("C", c, Operand.C)):
        bits = element_info(t.element_type).bits  # type: ignore[union-attr]
        rows, cols = t.get_shape()
        try:
            tiles.append(_match(buffer_layout(t), (rows, cols), shape, operand, bits,
                                transpose_b))
        except FragmentMismatch as e:
            raise VerifyException(
                f"operand {name} is not a {shape.name} fragment tile: {e}; expected "
                f"{expected_text(shape, operand, transpose_b)}, repeated over the tile in "
                "any register order") from None
    return MmaPlan(shape, tiles[0], tiles[1], tiles[2], transpose_b)


@irdl_op_definition
class MmaOp(IRDLOperation):
    """``regcopy.mma warp %A, %B, %C [{transpose_b}] [{precision = tf32}] : TA, TB, TC``."""

    name = "regcopy.mma"

    a = operand_def(MemRefType)
    b = operand_def(MemRefType)
    c = operand_def(MemRefType)
    scope = prop_def(ExecScopeAttr)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, a: SSAValue, b: SSAValue, c: SSAValue, transpose_b: bool = False,
                 tf32: bool = False, scope: ExecScope = ExecScope.WARP):
        super().__init__(operands=[a, b, c], properties={"scope": ExecScopeAttr(scope)})
        if transpose_b:
            self.attributes["transpose_b"] = UnitAttr()
        if tf32:
            self.attributes["precision"] = FloatTF32Type()

    @property
    def transpose_b(self) -> bool:
        return "transpose_b" in self.attributes

    @property
    def tf32(self) -> bool:
        return isinstance(self.attributes.get("precision"), FloatTF32Type)

    def types(self) -> tuple[MemRefType, MemRefType, MemRefType]:
        return (cast(MemRefType, self.a.type), cast(MemRefType, self.b.type),
                cast(MemRefType, self.c.type))

    def plan(self) -> MmaPlan:
        return plan_mma(*self.types(), self.transpose_b, self.tf32)

    @classmethod
    def parse(cls, parser: Parser) -> MmaOp:
        scope = parser.parse_str_enum(ExecScope)
        names = [parser.parse_unresolved_operand()]
        for _ in range(2):
            parser.parse_punctuation(",")
            names.append(parser.parse_unresolved_operand())
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = [parser.parse_type()]
        for _ in range(2):
            parser.parse_punctuation(",")
            types.append(parser.parse_type())
        a, b, c = (parser.resolve_operand(n, t) for n, t in zip(names, types, strict=True))
        op = cls(a, b, c, scope=scope)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.scope.data} ")
        printer.print_list((self.a, self.b, self.c), printer.print_ssa_value)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_list((self.a.type, self.b.type, self.c.type), printer.print_attribute)

    def verify_(self) -> None:
        if self.scope.data != ExecScope.WARP:
            raise VerifyException(f"mma.sync is a warp op: scope must be warp, got "
                                  f"{self.scope.data}")
        extra = set(self.attributes) - {"transpose_b", "precision"}
        if extra:
            raise VerifyException(f"unknown attribute(s) {', '.join(sorted(extra))}; "
                                  "expected {transpose_b} and {precision = tf32}")
        if "precision" in self.attributes and not self.tf32:
            raise VerifyException(f"precision must be tf32, got "
                                  f"{self.attributes['precision']}")
        self.plan()


@irdl_op_definition
class MmaSyncOp(IRDLOperation):
    """The lowered ``regcopy.mma``: a warp's ``mma.sync`` instructions on flat register
    storages (module doc)."""

    name = "regcopy.mma_sync"

    a = operand_def(MemRefType)
    b = operand_def(MemRefType)
    c = operand_def(MemRefType)
    a_regs = prop_def(DenseArrayBase)
    b_regs = prop_def(DenseArrayBase)
    c_regs = prop_def(DenseArrayBase)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$a `,` $b `,` $c attr-dict `:` type($a) `,` type($b) `,` type($c)"
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, a: SSAValue, b: SSAValue, c: SSAValue,
                 instructions: tuple[tuple[tuple[int, ...], ...], ...]):
        regs = [[w for ins in instructions for w in ins[k]] for k in range(3)]
        super().__init__(operands=[a, b, c], properties={
            f"{n}_regs": DenseArrayBase.from_list(i64, r) for n, r in zip("abc", regs,
                                                                           strict=True)})

    def element_types(self) -> tuple[Attribute, Attribute, Attribute]:
        return tuple(cast(MemRefType, v.type).element_type  # type: ignore[return-value]
                     for v in (self.a, self.b, self.c))

    @property
    def shape(self) -> MmaShape:
        shape = mma_shape(*self.element_types())
        assert shape is not None, "verified"
        return shape

    def words(self, operand: Operand) -> int:
        """Operand words of one instruction."""
        t = self.element_types()["ABC".index(operand.value)]
        bits = element_info(t).bits  # type: ignore[union-attr]
        return fragment_elements(self.shape, operand) * bits // 32

    def instructions(self) -> tuple[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]],
                                    ...]:
        """``(A words, B words, C words)`` (element offsets) of every instruction."""
        lists = [cast(tuple[int, ...], r.get_values())
                 for r in (self.a_regs, self.b_regs, self.c_regs)]
        sizes = [self.words(o) for o in (Operand.A, Operand.B, Operand.C)]
        count = len(lists[2]) // sizes[2]
        return tuple(tuple(lists[k][j * sizes[k]:(j + 1) * sizes[k]]  # type: ignore[misc]
                           for k in range(3)) for j in range(count))

    def verify_(self) -> None:
        types = [cast(MemRefType, v.type) for v in (self.a, self.b, self.c)]
        for name, t in zip("ABC", types, strict=True):
            if memory_space(t) != MemSpace.LOCAL or len(t.get_shape()) != 1:
                raise VerifyException(f"operand {name} must be a 1-D local storage, got {t}")
        if mma_shape(*self.element_types()) is None:
            raise VerifyException(f"no mma.sync for these element types; supported: "
                                  f"{KINDS_TEXT}")
        lists = [cast(tuple[int, ...], r.get_values())
                 for r in (self.a_regs, self.b_regs, self.c_regs)]
        counts = [len(lst) // self.words(o) for lst, o in
                  zip(lists, (Operand.A, Operand.B, Operand.C), strict=True)]
        if len(set(counts)) != 1 or any(len(lst) % self.words(o) for lst, o in
                                        zip(lists, (Operand.A, Operand.B, Operand.C),
                                            strict=True)):
            raise VerifyException("the register lists do not describe the same number of "
                                  "instructions")
        for name, t, lst in zip("abc", types, lists, strict=True):
            per_word = max(1, 32 // element_info(t.element_type).bits)  # type: ignore[union-attr]
            size = t.get_shape()[0]
            for r in lst:
                if r < 0 or r % per_word or r + per_word > size:
                    raise VerifyException(f"{name}_regs: {r} is not a whole 32-bit word inside "
                                          f"the {size} registers")


MMA_OPS = (MmaOp, MmaSyncOp)
