"""The side kernels of ``bench_gemm``: mma.sync's own rate (``peak_kernel_text``) and the row
padding that lets the cp.async GEMM run on operands of any K (``pad_kernel_text``, also
``examples/pad_rows.mlir``)."""

from __future__ import annotations

from regcopy_bench.gemm_kernels import FA, accumulator, fragment_b


def peak_kernel_text(t: str = "f16") -> str:
    """``@mma_peak``: the GEMM's warp tile without memory: each of 8 warps a CTA runs ``%n``
    times the 32 ``mma.sync.m16n8k16`` of one k16 step (``regcopy.mma`` on fragments loaded
    once from ``%X``/``%Y``), then writes its accumulators to ``%D`` (64 rows a warp), so
    nothing is elided. ``2 * 64 * 64 * 16 * n`` flop a warp: mma.sync's own rate."""
    fa, fb, c = FA.format(t=t), fragment_b(t), accumulator("f32")
    g = f"memref<64x16x{t}, #regcopy.mem<global>>"
    d = "memref<?x64xf32, #regcopy.mem<global>>"
    return f"""func.func @mma_peak(%X: {g}, %Y: {g}, %D: {d}, %n: index)
    attributes {{regcopy.launch = #regcopy.launch<block = 256, grid = [132], min_blocks = 1>}} {{
  %FA = memref.alloca() : {fa}
  %FB = memref.alloca() : {fb}
  %C = memref.alloca() : {c}
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  %acc = regcopy.storage %C : {c} -> memref<128xf32, #regcopy.mem<local>>
  scf.for %i = %c0 to %c128 step %c4 {{
    vector.store %zero, %acc[%i] : memref<128xf32, #regcopy.mem<local>>, vector<4xf32>
  }}
  regcopy.copy warp %X -> %FA : {g} -> {fa}
  regcopy.copy warp %Y -> %FB : {g} -> {fb}
  scf.for %i = %c0 to %n step %c1 {{
    regcopy.mma warp %FA, %FB, %C {{transpose_b}} : {fa}, {fb}, {c}
  }}
  %tid = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %bx = "gpu.block_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %warp = arith.divui %tid, %c32 : index
  %b8 = arith.muli %bx, %c4 : index
  %b8w = arith.addi %b8, %b8 : index
  %w = arith.addi %b8w, %warp : index
  %row = arith.muli %w, %c64 : index
  regcopy.copy warp %C -> %D[%row, 0] [64, 64] : {c} -> {d}
  func.return
}}
"""


PAD_ROWS, PAD_COLS = 32, 256
"""The tile of ``pad_kernel_text``'s CTAs."""
PAD_LAYOUTS = {
    "rows": "(4,8,32,8):(8,32@tx,1@tx,1)",
    "columns": "(4,8,8,32):(8,32@tx,1,1@tx)",
}
"""The register layouts of the padding copy's 32 x 256 tile (warp ``j`` takes rows ``8 i +
j``): ``rows``, 8 consecutive elements a thread (128-bit loads where K % 8 == 0, else 16-bit
ones 16 bytes apart, 8 per chunk, which the L1 merges; 128-bit stores); ``columns``, lane
``l`` takes columns ``32 c + l`` (16-bit loads and stores, each warp instruction 64 contiguous
bytes: a quarter of the L1 line requests of ``rows`` for odd K, twice its store
instructions)."""
PAD_LAYOUT = "rows"
"""The layout of ``examples/pad_rows.mlir`` and of bench_gemm's padded route (the H200, at
4095 x 4093: columns 0.0213 ms, rows 0.0229 ms a matrix; the example keeps the rows, whose
128-bit stores (and loads where K % 8 == 0) every example shows)."""


def pad_kernel_text(name: str, t: str, layout: str = PAD_LAYOUT) -> str:
    """``@name``: ``Y[r, c] = X[r, c]`` for ``c < K``, 0 for ``K <= c < K8``: the rows of an
    ``R x K`` matrix copied into an ``R x K8`` one whose rows are 16-byte aligned (``K8`` =
    K rounded up to 8, promised). With it, a GEMM of any K runs the cp.async kernel on
    zero-padded copies of A and B (the zeros add nothing to the products).

    256 threads copy a 32 x 256 tile, global -> registers -> global, in the register layout
    ``layout`` (``PAD_LAYOUTS``): the read is bounds-checked against the runtime K (zeros
    past it); ``rows`` versions it on K % 8 (128-bit loads when rows are aligned, else the
    narrow loads the alignment proves) and writes 128 bits (K8 is promised a multiple of 8),
    ``columns`` moves 16-bit elements, a warp instruction 64 contiguous bytes each way.
    Grid: ``ceil(K8 / 256) x ceil(R / 32)``."""
    g = f"memref<?x?x{t}, #regcopy.mem<global>>"
    r = (f"memref<32x256x{t}, #regcopy.layout<{PAD_LAYOUTS[layout]}>, "
         "#regcopy.mem<local>>")
    return f"""func.func @{name}(%X: {g},
    %Y: {g} {{regcopy.divisibility = array<i64: 1, 8>}})
    attributes {{regcopy.launch = #regcopy.launch<block = 256, grid = [1, 1]>}} {{
  %R = memref.alloca() : {r}
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %bx = "gpu.block_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %by = "gpu.block_id"() <{{dimension = #gpu<dim y>}}> : () -> index
  %r0 = arith.muli %by, %c32 : index
  %k0 = arith.muli %bx, %c256 : index
  regcopy.copy cta %X[%r0, %k0] [32, 256] -> %R : {g} -> {r}
  regcopy.copy cta %R -> %Y[%r0, %k0] [32, 256] : {r} -> {g}
  func.return
}}
"""


def pad_grid(rows: int, k8: int) -> tuple[int, int, int]:
    """The launch grid of ``pad_kernel_text`` for an ``rows x k8`` output."""
    return -(-k8 // PAD_COLS), -(-rows // PAD_ROWS), 1
