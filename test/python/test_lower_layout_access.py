"""``lower-layout-access`` on the CPU interpreter: a module and its lowered form (every access by
logical indices rewritten to flat storage) give the same memory, and the expected one; the
lowered form has only 1-D accesses left, and the CUDA target prints it unchanged."""

from __future__ import annotations

from io import StringIO
from pathlib import Path
from typing import cast

import numpy as np
import pytest
from xdsl.dialects import memref, vector
from xdsl.dialects.builtin import MemRefType, ModuleOp, NoneAttr
from xdsl.ir import Operation

from regcopy_backend.runtime.cpu_run import run_on_cpu
from regcopy_backend.cuda.printer import CudaEmitError, CudaPrinter, print_cuda
from regcopy_dialect.regcopy import StorageOp
from regcopy_passes.lower_layout_access import LowerLayoutAccessPass
from regcopy_tools.regcopy_run import parse_and_lower

from regcopy_dialect.context import regcopy_context

REPO = Path(__file__).resolve().parents[2]

# A warp moves a 16 x 16 tile: global (row-major 2-D) -> the m16n8k16 A fragment layout
# (local) by memref.load/store, each lane its own elements; out[1] reads the fragment back.
# A regcopy.copy (lowered by lower-reg-copy, with its own address math) moves the fragment to
# a swizzled shared tile; after a barrier every lane reads one half row of the shared tile by
# memref.load into out[0]. So the layout algebra's register slots and swizzle must agree with
# the copy lowering's. Then 128-bit vector copies (row-major 2-D -> 3-D) fill out[2].
KERNEL = """
func.func @tile(%in: memref<16x16xf32, #regcopy.mem<global>>,
                %out: memref<3x16x16xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<16x16xf32, #regcopy.layout<(16,16):(16,1), swizzle<2,2,2>>, #regcopy.mem<shared>>
  %F = memref.alloca() : memref<16x16xf32, #regcopy.layout<(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
  %lane = "gpu.lane_id"() : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %g = arith.divui %lane, %c4 : index
  %c = arith.remui %lane, %c4 : index
  %c2x = arith.muli %c, %c2 : index
  scf.for %h = %c0 to %c2 step %c1 {
    scf.for %q = %c0 to %c2 step %c1 {
      scf.for %p = %c0 to %c2 step %c1 {
        %h8 = arith.muli %h, %c8 : index
        %row = arith.addi %g, %h8 : index
        %q8 = arith.muli %q, %c8 : index
        %col0 = arith.addi %c2x, %q8 : index
        %col = arith.addi %col0, %p : index
        %x = memref.load %in[%row, %col] : memref<16x16xf32, #regcopy.mem<global>>
        memref.store %x, %F[%row, %col] : memref<16x16xf32, #regcopy.layout<(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
      }
    }
  }
  scf.for %h = %c0 to %c2 step %c1 {
    scf.for %q = %c0 to %c2 step %c1 {
      scf.for %p = %c0 to %c2 step %c1 {
        %h8 = arith.muli %h, %c8 : index
        %row = arith.addi %g, %h8 : index
        %q8 = arith.muli %q, %c8 : index
        %col0 = arith.addi %c2x, %q8 : index
        %col = arith.addi %col0, %p : index
        %y = memref.load %F[%row, %col] : memref<16x16xf32, #regcopy.layout<(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>
        memref.store %y, %out[%c1, %row, %col] : memref<3x16x16xf32, #regcopy.mem<global>>
      }
    }
  }
  regcopy.copy warp %F -> %S : memref<16x16xf32, #regcopy.layout<(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>> -> memref<16x16xf32, #regcopy.layout<(16,16):(16,1), swizzle<2,2,2>>, #regcopy.mem<shared>>
  "gpu.barrier"() : () -> ()
  %r = arith.divui %lane, %c2 : index
  %half = arith.remui %lane, %c2 : index
  %j0 = arith.muli %half, %c8 : index
  scf.for %j = %c0 to %c8 step %c1 {
    %col = arith.addi %j0, %j : index
    %v = memref.load %S[%r, %col] : memref<16x16xf32, #regcopy.layout<(16,16):(16,1), swizzle<2,2,2>>, #regcopy.mem<shared>>
    memref.store %v, %out[%c0, %r, %col] : memref<3x16x16xf32, #regcopy.mem<global>>
  }
  scf.for %j = %c0 to %c8 step %c4 {
    %col = arith.addi %j0, %j : index
    %w = vector.load %in[%r, %col] : memref<16x16xf32, #regcopy.mem<global>>, vector<4xf32>
    vector.store %w, %out[%c2, %r, %col] : memref<3x16x16xf32, #regcopy.mem<global>>, vector<4xf32>
  }
  func.return
}
"""


def lowered(module: ModuleOp) -> ModuleOp:
    out = module.clone()
    LowerLayoutAccessPass().apply(regcopy_context(), out)
    out.verify()
    return out


def accesses(module: ModuleOp) -> list[tuple[Operation, MemRefType]]:
    """Every load/store with the type of the buffer it addresses."""
    out: list[tuple[Operation, MemRefType]] = []
    for op in module.walk():
        if isinstance(op, memref.LoadOp | memref.StoreOp):
            out.append((op, cast(MemRefType, op.memref.type)))
        elif isinstance(op, vector.LoadOp | vector.StoreOp):
            out.append((op, cast(MemRefType, op.base.type)))
    return out


def test_lowered_tile_gives_the_same_memory() -> None:
    module = parse_and_lower(KERNEL, "tile.mlir", passes="")
    flat = lowered(module)
    data = np.arange(256, dtype=np.float32).reshape(16, 16) + 0.5
    before = run_on_cpu(module, "tile", [data, np.zeros((3, 16, 16), np.float32)])
    after = run_on_cpu(flat, "tile", [data, np.zeros((3, 16, 16), np.float32)])
    for got in (before[1], after[1]):
        assert np.array_equal(got, np.stack([data, data, data]))
    storages = [op for op in flat.walk() if isinstance(op, StorageOp)]
    assert {str(op.buffer.name_hint) for op in storages} == {"F", "S", "in", "out"}


def test_only_flat_accesses_are_left() -> None:
    module = parse_and_lower(KERNEL, "tile.mlir", passes="")
    assert any(len(t.get_shape()) != 1 for _, t in accesses(module))
    for op, t in accesses(lowered(module)):
        assert len(t.get_shape()) == 1 and isinstance(t.layout, NoneAttr), op


def test_the_cuda_target_lowers_before_printing() -> None:
    """``print_cuda`` prints the module as lowered (its input is left as it is), so printing
    the lowered module gives the same text."""
    module = parse_and_lower(KERNEL, "tile.mlir", passes="")
    text = str(module)
    assert print_cuda(module) == print_cuda(lowered(module))
    assert str(module) == text


@pytest.mark.parametrize("name,dtype", [("seed_demo", np.float32), ("seed_f16_k8", np.float16)])
def test_examples_run_the_same_lowered(name: str, dtype: type) -> None:
    """An example after lower-reg-copy, with and without lower-layout-access, on the CPU: the
    seed demo's global -> shared -> registers -> shared -> global round trip is the identity."""
    path = REPO / "examples" / f"{name}.mlir"
    module = parse_and_lower(path.read_text(), str(path))
    data = (np.arange(32 * 8) * 3 % 251).astype(dtype).reshape(32, 8)
    before = run_on_cpu(module, name, [data, np.zeros_like(data)])
    after = run_on_cpu(lowered(module), name, [data, np.zeros_like(data)])
    assert np.array_equal(before[1], data)
    assert np.array_equal(after[1], data)


LOCAL_LOAD = """
func.func @k(%o: memref<32xf32, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %F = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  %lane = "gpu.lane_id"() : () -> index
  %c3 = arith.constant 3 : index
  %x = memref.load %F[%lane, %c3] : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  memref.store %x, %o[%lane] : memref<32xf32, #regcopy.mem<global>>
  func.return
}
"""


def test_the_printer_never_addresses_a_layout() -> None:
    """Without the pass, the printer refuses an access by logical indices (the target runs
    the pass first, so this is an internal error path); through ``print_cuda`` it is slot 3."""
    module = parse_and_lower(LOCAL_LOAD, "k.mlir", passes="")
    out = StringIO()
    with pytest.raises(CudaEmitError, match=r"accesses memref<32x8xf32, .*by logical indices.*"
                       "internal error: lower-layout-access left it"):
        CudaPrinter(stream=out).print_module(module)
    assert "const float x = F[3];" in print_cuda(module)


def test_gemm_example_fragment_stores_go_to_flat_storage() -> None:
    """The example's 128-bit fragment write-out (vector.store on a 5-D row-major global
    buffer) becomes a store to its flat storage at the row-major offset."""
    path = REPO / "examples" / "gemm_tiles.mlir"
    module = lowered(parse_and_lower(path.read_text(), str(path)))
    stores = [op for op in module.walk() if isinstance(op, vector.StoreOp)
              and isinstance(op.base.owner, StorageOp)
              and str(op.base.owner.buffer.name_hint).startswith("frag")]
    assert len(stores) == 2
    for op, t in accesses(module):
        assert len(t.get_shape()) == 1 and isinstance(t.layout, NoneAttr), op
