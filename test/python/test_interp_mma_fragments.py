"""ldmatrix/stmatrix on the CPU interpreter against the m16n8k16 mma fragment layouts of
examples/gemm_tiles.mlir (PTX ISA): ``.x4`` moves the A fragment of a row-major 16 x 16 tile,
``.x2 .trans`` the B fragment of a K-major tile; a ``regcopy.copy`` of the fragment (reference
semantics: each lane moves the elements its layout gives it) closes the loop."""

from __future__ import annotations

from typing import Any

import pytest
from copy_harness import parse
from xdsl.dialects.builtin import MemRefType, ModuleOp

from regcopy_backend.interpreter.driver import Buffer, launch, make_interpreter


def arg_types(module: ModuleOp) -> list[MemRefType]:
    fn = next(iter(module.ops))
    return list(fn.function_type.inputs.data)  # type: ignore[attr-defined]


# --------------------------------------------------------------------------------------------
# The mma.m16n8k16 fragments: ldmatrix/stmatrix against the fragment layouts of the GEMM example
# --------------------------------------------------------------------------------------------

A_FRAG = "#regcopy.layout<(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)>"
"""The m16n8k16 A fragment (16 x 16, row-major; examples/gemm_tiles.mlir, from the PTX ISA)."""
B_FRAG = "#regcopy.layout<(8,2,4,2):(4@laneid,2,1@laneid,1)>"
"""The m16n8k16 B fragment on the 8 x 16 (N x K) tile (examples/gemm_tiles.mlir)."""

FRAGMENT = """
func.func @kernel(%in: memref<{n}x{t}, #regcopy.mem<global>>,
                  %offs: memref<32xindex, #regcopy.mem<global>>, %out: {out})
    attributes {{regcopy.launch = #regcopy.launch<block = 32, grid = [1]>}} {{
  %S = memref.alloca() : memref<{n}x{t}, #regcopy.mem<shared>>
  %R = memref.alloca() : {frag}
  %t = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %cN = arith.constant {n} : index
  %RS = regcopy.storage %R : {frag} -> memref<{k}x{t}, #regcopy.mem<local>>
  %off = memref.load %offs[%t] : memref<32xindex, #regcopy.mem<global>>
  {body}
  func.return
}}
"""


def fragment_kernel(frag: str, shape: tuple[int, int], op: str, regs: str, k: int,
                    loads: bool) -> str:
    """ldmatrix: S = in; ldmatrix S -> R; regcopy.copy R -> out (the reference copy: each
    lane writes the fragment elements it owns). stmatrix: regcopy.copy out -> R;
    stmatrix R -> S; in = S."""
    t, n = "f16", shape[0] * shape[1]
    frag_t = f"memref<{shape[0]}x{shape[1]}x{t}, {frag}, #regcopy.mem<local>>"
    out = f"memref<{shape[0]}x{shape[1]}x{t}, #regcopy.mem<global>>"
    s = f"memref<{n}x{t}, #regcopy.mem<shared>>"
    g = f"memref<{n}x{t}, #regcopy.mem<global>>"
    r = f"memref<{k}x{t}, #regcopy.mem<local>>"
    region = f"[0, 0] [{shape[0]}, {shape[1]}]"
    loop = """scf.for %i = %t to %cN step %c32 {{
    %v = memref.load %{a}[%i] : {at}
    memref.store %v, %{b}[%i] : {bt}
  }}"""
    if loads:
        body = f"""{loop.format(a="in", at=g, b="S", bt=s)}
  {op} %S[%off] -> %RS[{regs}] : {s} -> {r}
  regcopy.copy warp %R{region} -> %out{region} : {frag_t} -> {out}"""
    else:
        body = f"""regcopy.copy warp %out{region} -> %R{region} : {out} -> {frag_t}
  {op} %RS[{regs}] -> %S[%off] : {r} -> {s}
  {loop.format(a="S", at=s, b="in", bt=g)}"""
    return FRAGMENT.format(n=n, t=t, out=out, frag=frag_t, k=k, body=body)


def run_fragment(text: str, offsets: list[int], loads: bool, data: list[int]) -> list[Any]:
    """Run with ``data`` in ``in`` (ldmatrix) or ``out`` (stmatrix); the other buffer after."""
    module = parse(text)
    in_t, offs_t, out_t = arg_types(module)
    a = Buffer(in_t, data if loads else [None] * len(data))
    out = Buffer(out_t, [None] * len(data) if loads else data)
    launch(make_interpreter(module), "kernel", (a, Buffer(offs_t, offsets), out))
    return out.storage if loads else a.storage


@pytest.mark.parametrize("loads", [True, False], ids=["ldmatrix", "stmatrix"])
def test_x4_moves_the_mma_a_fragment_of_a_row_major_16x16_tile(loads: bool) -> None:
    """Matrix m of the A fragment's registers (m = 2 * column half + row half) is the 8 x 8
    block at rows 8 (m % 2).., columns 8 (m / 2)..: lane 8m + r gives the start of its row r.
    ldmatrix.x4 + the fragment's own copy to global reproduce the tile; stmatrix the same."""
    offsets = [16 * (l % 8 + 8 * (l // 8 % 2)) + 8 * (l // 16) for l in range(32)]
    kind = "regcopy.ldmatrix" if loads else "regcopy.stmatrix"
    text = fragment_kernel(A_FRAG, (16, 16), kind, "0, 2, 4, 6", 8, loads)
    tile = [1000 + i for i in range(256)]
    assert run_fragment(text, offsets, loads, tile) == tile


@pytest.mark.parametrize("loads", [True, False], ids=["ldmatrix", "stmatrix"])
def test_x2_trans_moves_the_mma_b_fragment_of_a_k_major_tile(loads: bool) -> None:
    """B stored K x N (16 x 8, row-major: each k row is 16 bytes); .trans gives lane 4g + c
    B[n=g][k=2c+h] (matrix 0: k < 8, matrix 1: k >= 8): the fragment's copy to the N x K
    global tile is the transpose of shared memory."""
    offsets = [8 * l if l < 16 else 0 for l in range(32)]
    kind = "regcopy.ldmatrix trans" if loads else "regcopy.stmatrix trans"
    text = fragment_kernel(B_FRAG, (8, 16), kind, "0, 2", 4, loads)
    kn = [1000 + i for i in range(128)]  # shared: [k][n]
    nk = [kn[8 * kk + nn] for nn in range(8) for kk in range(16)]  # global: [n][k]
    assert run_fragment(text, offsets, loads, kn if loads else nk) == (nk if loads else kn)
