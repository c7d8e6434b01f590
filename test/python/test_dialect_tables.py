"""One source of truth per fact in regcopy_dialect: the element-type table, the divisibility
promise reader, the region messages of regcopy.copy."""

from __future__ import annotations

import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    Signedness,
    f32,
    i64,
)
from xdsl.ir import Attribute

from regcopy_dialect import builders, parse_module
from regcopy_dialect.element_types import BY_NAME, ELEMENT_TABLE, element_bits, element_info
from regcopy_dialect.promises import DIVISIBILITY, MultipleOfOp, divisibility_of
from regcopy_dialect.regcopy import ELEMENT_TYPES, region_problem


def test_element_table_is_what_the_dialect_reads() -> None:
    assert ELEMENT_TYPES.split() == [e.name for e in ELEMENT_TABLE]
    assert builders.ELEMENT_TYPES == {e.name: e.ir for e in ELEMENT_TABLE}
    for e in ELEMENT_TABLE:
        assert element_info(e.ir) is e
        assert element_bits(e.ir) == e.bits == 8 * e.bytes
        assert str(e.ir) == e.name  # the IR spelling prints back
    assert element_bits(IntegerType(8, Signedness.SIGNED)) is None
    assert element_bits(IntegerType(1)) is None
    assert BY_NAME["bf16"].numpy == "uint16" and BY_NAME["f16"].c_name == "rc_f16"


def test_divisibility_of_reads_both_promises() -> None:
    m = parse_module("""
    func.func @k(%n: index {regcopy.divisibility = 16 : i64}, %x: index, %y: i32) {
      %a = regcopy.multiple_of %x, 8 : index
      func.return
    }""")
    kernel = next(op for op in m.walk() if isinstance(op, func.FuncOp))
    n, x, y = kernel.body.block.args
    mult = next(op for op in m.walk() if isinstance(op, MultipleOfOp))
    assert divisibility_of(n) == 16
    assert divisibility_of(x) is None and divisibility_of(y) is None
    assert divisibility_of(mult.result) == 8


@pytest.mark.parametrize("arg_type, promise", [(IndexType(), 0), (f32, 4), (IndexType(), -8)])
def test_divisibility_of_ignores_an_invalid_promise(arg_type: Attribute, promise: int) -> None:
    attrs = ArrayAttr([DictionaryAttr({DIVISIBILITY: IntegerAttr(promise, i64)})])
    op = func.FuncOp("k", ([arg_type], []), arg_attrs=attrs)
    assert divisibility_of(op.body.block.args[0]) is None


@pytest.mark.parametrize("offset, size, n, want", [
    (0, 8, 8, None),
    ("dyn", 8, 8, None),
    (0, 0, 8, "size 0 of dim {d} must be >= 1 (and at most 8, the dim's size)"),
    (0, 9, 8, "size 9 is outside dim {d} of size 8; a region of this dim has size 1..8"),
    (-2, 4, 8, "[-2, 2) is outside dim {d} of size 8; use offsets >= 0 (size 4 fits at an "
               "offset in [0, 4])"),
    (6, 4, 8, "[6, 10) is outside dim {d} of size 8; size 4 fits at an offset in [0, 4]"),
    (1, 8, 8, "[1, 9) is outside dim {d} of size 8; size 8 fits at offset 0"),
])
def test_region_problem_says_what_fits(offset: object, size: int, n: int, want: str | None
                                       ) -> None:
    off = offset if isinstance(offset, int) else object()
    assert region_problem(off, size, n) == want  # type: ignore[arg-type]
