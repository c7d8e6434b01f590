"""Smaller edges of the async and runtime-shape lowerings: a column copied into shared memory
with one-element ``cp.async`` chunks, the remark of an ``{in_bounds}`` copy that is still
versioned, and remark clauses whose parenthesised asides contain ``"; "``."""

from __future__ import annotations

import numpy as np
import pytest
from regcopy_backend.runtime.cpu_run import run_on_cpu
from regcopy_tools.regcopy_run import parse_and_lower

from regcopy_dialect.diagnostics import capture_diagnostics, split_clauses

COLUMN = """
func.func @column(%G: memref<64x64xT, #regcopy.mem<global>>, %O: memref<64xT, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 64, grid = [1]>} {
  %c2 = arith.constant 2 : index
  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %S = memref.alloca() : memref<64x8xT, #regcopy.mem<shared>>
  %t = regcopy.copy_async cta %G[0, 3] [64, 1] -> %S[0, 2] [64, 1] : memref<64x64xT, #regcopy.mem<global>> -> memref<64x8xT, #regcopy.mem<shared>>
  %g = regcopy.async_group %t
  regcopy.async_wait %g {pending = 0 : i64}
  "gpu.barrier"() : () -> ()
  %v = memref.load %S[%tid, %c2] : memref<64x8xT, #regcopy.mem<shared>>
  memref.store %v, %O[%tid] : memref<64xT, #regcopy.mem<global>>
  func.return
}
"""


@pytest.mark.parametrize("elem, dtype", [("f32", np.float32), ("i64", np.int64)])
def test_column_copy_into_shared_uses_one_element_chunks(elem: str, dtype: type) -> None:
    """One element of 4 or 8 bytes is a cp.async chunk at any stride (it was refused: "the
    innermost region dim has stride 64, not 1"); the column lands exactly."""
    text = COLUMN.replace("xT", f"x{elem}")
    with capture_diagnostics() as diags:
        module = parse_and_lower(text, "column.mlir", "lower-reg-copy{remarks}")
    assert diags[0].message.startswith(f"cp.async.ca {np.dtype(dtype).itemsize} bytes (1 × {elem})")
    g: np.ndarray = np.arange(64 * 64).astype(dtype).reshape(64, 64)
    out = run_on_cpu(module, "column", [g, np.zeros(64, dtype)])[1]
    np.testing.assert_array_equal(out, g[:, 3])


def test_a_column_of_two_byte_elements_is_still_refused() -> None:
    """A 2-byte element is no cp.async width: refused with the reason."""
    with capture_diagnostics() as diags:
        parse_and_lower(COLUMN.replace("xT", "xf16"), "column.mlir", "lower-reg-copy{remarks}")
    assert diags[0].message.startswith("not lowered: no cp.async width fits")


IN_BOUNDS = """
func.func @promised(%A: memref<?x?xf32, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %A[0, 8] [32, 8] -> %R {in_bounds} : memref<?x?xf32, #regcopy.mem<global>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  func.return
}
"""


def test_in_bounds_remark_names_the_versioning() -> None:
    with capture_diagnostics() as diags:
        module = parse_and_lower(IN_BOUNDS, "in_bounds.mlir", "lower-reg-copy{remarks}")
    assert "%aligned" in str(module)
    notes = diags[0].notes
    assert notes[:2] == (
        "in bounds: {in_bounds} (no checks)",
        ("versioned on %A extent 1 % 4 == 0: vec 4 × f32 else vec 1 × f32, each under its own "
         "predicate, 8 rounds (extent divisors [1, 1] prove 1)"))
    # the misaligned-loads cost model (ragged) says why the predicated form was taken
    assert len(notes) == 3 and notes[2].startswith("misaligned loads predicated by the cost model")


def test_clauses_split_outside_brackets() -> None:
    assert split_clauses("a (b; c) d; e [4, 7); f") == ["a (b; c) d", "e [4, 7)", "f"]


DENSE = """
func.func @k(%G: memref<64x64xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 64, grid = [1]>} {
  %S = memref.alloca() : memref<64x64xf32, #regcopy.mem<shared>>
  %t = regcopy.copy_async cta %G[0, 0] [8, 32] -> %S[0, 0] [8, 32] : memref<64x64xf32, #regcopy.mem<global>> -> memref<64x64xf32, #regcopy.mem<shared>>
  %g = regcopy.async_group %t
  %t2 = regcopy.copy_async cta %G[8, 0] [8, 64] -> %S[8, 0] [8, 64] : memref<64x64xf32, #regcopy.mem<global>> -> memref<64x64xf32, #regcopy.mem<shared>>
  %g2 = regcopy.async_group %t2
  regcopy.async_wait %g {pending = 0 : i64}
  func.return
}
"""


def test_tma_fallback_remarks_close_their_parentheses() -> None:
    with capture_diagnostics() as diags:
        parse_and_lower(DENSE, "dense.mlir", "lower-reg-copy{transfer=tma remarks}")
    tma = [d for d in diags if d.message.startswith("transfer=tma")]
    assert len(tma) == 2
    for d in tma:
        assert d.message.count("(") == d.message.count(")"), d.message
        assert d.notes == ("lowered with cp.async instead",)
    assert tma[1].message.endswith("give the destination a row-major layout over the region))")
