"""The regcopy IR of the Hopper GEMM (``examples/gemm_hopper.mlir``): TMA ring -> wgmma.

``D[M,N] = A[M,K] * B[N,K]^T`` (both K-major), f32 accumulation, D in the input type (f16 or
bf16); M, N, K runtime extents (K a multiple of 8: TMA needs 16-byte row strides), ragged
in all three (TMA fills zeros past the edges; the epilogue's stores are bounds-checked).

One CTA of 256 threads, two consumer warpgroups, computes a 128 x 256 tile of D; warpgroup
``wg`` owns rows ``64 wg ..`` (a 64 x 256 f32 accumulator, 128 registers a thread, in the
m64n256k16 fragment layout). K goes 64 at a time through a ``STAGES``-slot ring in dynamic
shared memory: per slot, A as two 64 x 64 tiles and B as one 256 x 64 tile, each loaded by
one ``regcopy.copy_async`` lowered with ``transfer=tma`` (``cp.async.bulk.tensor``, one
elected thread, an mbarrier a slot). The shared tiles are ``auto``: the compiler gives them
the 128-byte swizzle, which is both TMA's ``128B`` mode and wgmma's (K-major, SBO 1024).

Iteration ``k``: (1) wait for K tile ``k`` and meet at a CTA barrier: tile ``k`` has landed
for everyone, and both warpgroups are past their wait for K tile ``k - 2``'s wgmmas;
(2) refill that slot with K tile ``k + STAGES - 2``; (3) issue the four m64n256k16 wgmmas of
the 64-wide K tile, ``{async}``; (4) ``wgmma_wait {pending = 1}``: tile ``k - 1``'s are done. After the loop, wait for
the last wgmmas, round to the input type and store 64 x 256 a warpgroup, bounds-checked.
CTAs walk the output in groups of 8 M tiles (L2 reuse), as the mma.sync kernel does.
"""

from __future__ import annotations

CTA_M, CTA_N, BK, THREADS = 128, 256, 64, 256
STAGES = 4

_G = "memref<?x?x{t}, #regcopy.mem<global>>"


def _c(t: str) -> str:
    """A warpgroup's 64 x 256 accumulator in the m64n256k16 fragment layout."""
    return (f"memref<64x256x{t}, #regcopy.layout<(4,2,8,32,4,2):(1@wid_in_wg,2,4@laneid,4,"
            "1@laneid,1)>, #regcopy.mem<local>>")


def grid(m: int, n: int) -> tuple[int, int, int]:
    """The launch grid for an M x N output: ``ceil(N / 256) x ceil(M / 128)``."""
    return -(-n // CTA_N), -(-m // CTA_M), 1


def kernel_text(name: str, t: str, stages: int = STAGES) -> str:
    """The kernel ``@name`` for element type ``t`` (module doc)."""
    g, c, co = _G.format(t=t), _c("f32"), _c(t)
    sa = f"memref<{stages}x2x64x{BK}x{t}, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>"
    sb = f"memref<{stages}x{CTA_N}x{BK}x{t}, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>"
    ahead = stages - 2  # slot k-1 may still be read by the wgmmas in flight

    def start(k: str, slot: str, out: str, indent: str) -> str:
        return (f"{indent}%{out}a0 = regcopy.copy_async cta %A[%m0, {k}] [64, {BK}] -> "
                f"%SA[{slot}, 0, 0, 0] [1, 1, 64, {BK}] : {g} -> {sa}\n"
                f"{indent}%{out}a1 = regcopy.copy_async cta %A[%m1, {k}] [64, {BK}] -> "
                f"%SA[{slot}, 1, 0, 0] [1, 1, 64, {BK}] : {g} -> {sa}\n"
                f"{indent}%{out}b = regcopy.copy_async cta %B[%n0, {k}] [{CTA_N}, {BK}] -> "
                f"%SB[{slot}, 0, 0] [1, {CTA_N}, {BK}] : {g} -> {sb}\n"
                f"{indent}%{out} = regcopy.async_group %{out}a0, %{out}a1, %{out}b\n")

    prologue = "".join(start(f"%c{s * BK}", f"%c{s}", f"g{s}", "  ") for s in range(ahead))
    tokens = ", ".join(["!regcopy.token"] * ahead)
    carried = ", ".join(f"%gk{s} = %g{s}" for s in range(ahead))
    shifted = ", ".join([f"%gk{s}" for s in range(1, ahead)] + ["%gn"])
    used = sorted({0, 1, 2, 4, 8, 64, 128, 256, BK, stages, ahead, ahead * BK,
                   *(s * BK for s in range(stages)), *range(stages)})
    consts = "".join(f"  %c{v} = arith.constant {v} : index\n" for v in used)
    return f"""func.func @{name}(%A: {g} {{regcopy.divisibility = array<i64: 1, 8>}},
    %B: {g} {{regcopy.divisibility = array<i64: 1, 8>}},
    %D: {g})
    attributes {{regcopy.launch = #regcopy.launch<block = {THREADS}, grid = [1, 1]>}} {{
  %SA = memref.alloca() : {sa}
  %SB = memref.alloca() : {sb}
  %C = memref.alloca() : {c}
  %CO = memref.alloca() : {co}
{consts}  %zero = arith.constant dense<0.0> : vector<4xf32>
  %K = memref.dim %A, %c1 : {g}
  %tid = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %bx = "gpu.block_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %by = "gpu.block_id"() <{{dimension = #gpu<dim y>}}> : () -> index
  // the CTA's tile (pm, pn), in groups of 8 M tiles that walk N together (L2 reuse)
  %gx = "gpu.grid_dim"() <{{dimension = #gpu<dim x>}}> : () -> index
  %gy = "gpu.grid_dim"() <{{dimension = #gpu<dim y>}}> : () -> index
  %byx = arith.muli %by, %gx : index
  %pid = arith.addi %byx, %bx : index
  %width = arith.muli %gx, %c8 : index
  %group = arith.divui %pid, %width : index
  %first = arith.muli %group, %c8 : index
  %left = arith.subi %gy, %first : index
  %size = arith.minui %left, %c8 : index
  %inside = arith.remui %pid, %width : index
  %pmo = arith.remui %inside, %size : index
  %pm = arith.addi %first, %pmo : index
  %pn = arith.divui %inside, %size : index
  %m0 = arith.muli %pm, %c128 : index
  %m1 = arith.addi %m0, %c64 : index
  %n0 = arith.muli %pn, %c256 : index
  // this thread's warpgroup: rows 64 wg .. of the CTA's tile
  %wg = arith.divui %tid, %c128 : index
  %wm = arith.muli %wg, %c64 : index
  %mw = arith.addi %m0, %wm : index
  // the accumulators start at zero
  %acc = regcopy.storage %C : {c} -> memref<128xf32, #regcopy.mem<local>>
  scf.for %i = %c0 to %c128 step %c4 {{
    vector.store %zero, %acc[%i] : memref<128xf32, #regcopy.mem<local>>, vector<4xf32>
  }}
  // prologue: K tiles 0 .. {ahead - 1} in flight
{prologue}  %done:{ahead} = scf.for %k = %c0 to %K step %c{BK} iter_args({carried}) -> ({tokens}) {{
    %kt = arith.divui %k, %c{BK} : index
    %stage = arith.remui %kt, %c{stages} : index
    // 1. K tile k has landed, for every thread (its own copies, then everyone's), and both
    //    warpgroups are done with K tile k-2 (their wgmma_wait of iteration k-1)
    regcopy.async_wait %gk0 {{pending = {ahead - 1} : i64}}
    "gpu.barrier"() : () -> ()
    // 2. refill slot k-2 with K tile k+{ahead} (an empty group past the end)
    %kn = arith.addi %k, %c{ahead * BK} : index
    %more = arith.cmpi ult, %kn, %K : index
    %gn = scf.if %more -> (!regcopy.token) {{
      %ktn = arith.addi %kt, %c{ahead} : index
      %sn = arith.remui %ktn, %c{stages} : index
{start("%kn", "%sn", "g", "      ")}      scf.yield %g : !regcopy.token
    }} else {{
      %g = regcopy.async_group
      scf.yield %g : !regcopy.token
    }}
    // 3. four m64n256k16 wgmmas on slot k, not waited for
    regcopy.wgmma warpgroup %SA[%stage, %wg, 0, 0] [1, 1, 64, {BK}], %SB[%stage, 0, 0] [1, {CTA_N}, {BK}], %C {{transpose_b, async}} : {sa}, {sb}, {c}
    // 4. K tile k-1's wgmmas are done (k's may still run)
    regcopy.wgmma_wait {{pending = 1 : i64}}
    scf.yield {shifted} : {tokens}
  }}
  regcopy.wgmma_wait {{pending = 0 : i64}}
  // epilogue: round to {t} in the fragment layout, store 64 x 256 a warpgroup (bounds-checked)
  %out = regcopy.storage %CO : {co} -> memref<128x{t}, #regcopy.mem<local>>
  scf.for %i = %c0 to %c128 step %c4 {{
    %v = vector.load %acc[%i] : memref<128xf32, #regcopy.mem<local>>, vector<4xf32>
    %h = arith.truncf %v : vector<4xf32> to vector<4x{t}>
    vector.store %h, %out[%i] : memref<128x{t}, #regcopy.mem<local>>, vector<4x{t}>
  }}
  regcopy.copy warpgroup %CO -> %D[%mw, %n0] [64, 256] : {co} -> {g}
  func.return
}}
"""
