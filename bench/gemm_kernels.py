"""The regcopy IR of the GEMM kernels that ``bench_gemm`` times and ``examples/gemm.mlir`` holds.

``D[M,N] = A[M,K] * B[N,K]^T`` (both operands K-major), f32 accumulation in registers, D
rounded to the input type. One CTA of 256 threads (8 warps as 2 (M) x 4 (N)) computes a
128 x 256 tile of D, each warp 64 x 64 (``regcopy.mma`` on 4 x 8 m16n8k16 accumulator
fragments), K walked BK at a time; each K tile is BK / 16 k16 steps of ldmatrix.x4 (4 for
A, 4 for B) and 32 mma.sync. Two ways to bring the tiles into shared memory:

* ``kernel_text(name, t)`` (``async``): a ``cp.async`` ring (``regcopy.copy_async``, 16-byte
  chunks, zero-fill past the edges; BK 64 x 3 stages by default, its slot carried from one
  iteration to the next, the next stage's copies issued after the first k16 step); needs K
  a multiple of 8 (16-byte rows), which the kernel promises (``regcopy.divisibility``);
* ``kernel_text(name, t, staged=True)``: for any K. Each 32-wide K tile goes global -> registers
  (bounds-checked ``regcopy.copy``, issued one tile ahead, so the loads fly while the warps
  compute) -> shared (two slots). The global copy is versioned on the runtime K: 128-bit loads
  where K % 8 == 0, else the loads the row alignment proves (16-bit for f16/bf16 rows of odd
  length: cp.async has no width for them at all).

The epilogue rounds the accumulators (``arith.truncf``, into the same fragment layout),
writes them to shared memory (stmatrix) and copies the CTA's tile out in 128-bit rows
(bounds-checked; where N % 8 != 0 each vector is stored realigned as its aligned pieces).
"""

from __future__ import annotations

CTA_M, CTA_N, THREADS = 128, 256, 256
BK, STAGES = 64, 3
"""The cp.async ring of the example: 64-wide K tiles, 3 stages (measured on the H200 faster
than 32 x 4 and 32 x 3 at 4096^3 and 8192^3)."""
ISSUE_AT = 1
"""k16 steps of a K tile computed before the next stage's copies are issued: the cp.async
issue (address math and bounds checks, a branch ptxas does not schedule across) then
overlaps the mma.sync of the steps before it instead of delaying them all."""
CANDIDATES: dict[str, dict[str, int | bool]] = {
    "example": {},
    "32x4 copies first in a branch (the previous shape)": {
        "bk": 32, "stages": 4, "issue_at": 0, "branchless": False},
    "64x3 copies first in a branch": {"issue_at": 0, "branchless": False},
    "64x3 copies in a branch": {"branchless": False},
    "64x3 issue after 2 k16": {"issue_at": 2},
    "64x3 fragments x2": {"dbuf": True},
    "128x128 32x4": {"wn": 32, "bk": 32, "stages": 4},
    "128x128 32x4 copies first in a branch": {
        "wn": 32, "bk": 32, "stages": 4, "issue_at": 0, "branchless": False},
    "128x128 64x2": {"wn": 32, "bk": 64, "stages": 2},
}
"""``kernel_text`` arguments of the cp.async kernels ``bench_gemm`` compares (f16, aligned
sizes), beside the example's defaults: the ring shape (BK x stages), where the next stage's
copies issue, fragment double-buffering, and the 128 x 128 CTA tile (warps 64 x 32, two CTAs
an SM: its rings fit 96 KiB of shared memory)."""
NARROW = CANDIDATES["128x128 32x4"]
"""The 128 x 128 CTA tile of the main table."""
BRANCHLESS = True
"""The next stage's copies are issued in every iteration, with no branch around them (past
the end of K they read nothing and zero-fill a free slot): ptxas interleaves them with the
HMMAs."""
STAGED_BK = 32
"""The register-staged kernel's K tile (two shared slots)."""

_G = "memref<?x?x{t}, #regcopy.mem<global>>"
_FA = ("memref<64x16x{t}, #regcopy.layout<(4,2,8,2,4,2):(8,2,4@laneid,4,1@laneid,1)>, "
       "#regcopy.mem<local>>")
WARP_N = 64
"""N of a warp's tile (64 x WARP_N); the CTA's N is 4 x that."""


def _fb(t: str, wn: int = WARP_N) -> str:
    """The warp's ``wn x 16`` (N x K) B fragments: ``wn / 8`` n8 tiles, register
    ``4 ni + i``."""
    return (f"memref<{wn}x16x{t}, #regcopy.layout<({wn // 8},8,2,4,2):"
            "(4,4@laneid,2,1@laneid,1)>, #regcopy.mem<local>>")


def _c(t: str, wn: int = WARP_N) -> str:
    """The warp's ``64 x wn`` accumulator: 4 x ``wn / 8`` C fragments, register
    ``(wn / 2) mi + 4 ni + i``."""
    return (f"memref<64x{wn}x{t}, #regcopy.layout<(4,2,8,{wn // 8},4,2):"
            f"({wn // 2},2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>")


def _rc(t: str, wn: int = WARP_N) -> str:
    """The CTA's ``128 x 4 wn`` output tile over 256 threads, 8 consecutive elements a
    thread and row (128-bit transfers)."""
    chunks = wn // 2  # 8-element chunks a row
    return (f"memref<128x{4 * wn}x{t}, #regcopy.layout<({wn // 4},{256 // chunks},"
            f"{chunks},8):(8,{chunks}@tx,1@tx,1)>, #regcopy.mem<local>>")


STAGED_LAYOUTS = {
    "rows": ("(2,64,4,8):(8,4@tx,1@tx,1)", "(4,64,4,8):(8,4@tx,1@tx,1)"),
    "columns": ("(16,8,32):(1,32@tx,1@tx)", "(32,8,32):(1,32@tx,1@tx)"),
}
"""The register layouts of the staged A (128 x 32) and B (256 x 32) tiles: ``rows``, 8
consecutive elements a thread (128-bit loads where K % 8 == 0, else 16-bit ones, a warp
touching 8 rows); ``columns``, a warp reads 32 consecutive elements of one row an
instruction (16-bit loads, fully coalesced, and 16-bit shared stores)."""
_RA = "memref<128x32x{t}, #regcopy.layout<{a}>, #regcopy.mem<local>>"
_RB = "memref<256x32x{t}, #regcopy.layout<{b}>, #regcopy.mem<local>>"


def _shared(rows: int, t: str, slots: int, bk: int = BK) -> str:
    return (f"memref<{slots}x{rows}x{bk}x{t}, #regcopy.layout<auto>, "
            "#regcopy.mem<shared.dyn>>")


def grid(m: int, n: int, wn: int = WARP_N) -> tuple[int, int, int]:
    """The launch grid for an M x N output: ``ceil(N / (4 wn)) x ceil(M / 128)``."""
    return -(-n // (4 * wn)), -(-m // CTA_M), 1


def _mma_steps(t: str, sa: str, sb: str, indent: str, bk: int = BK, wn: int = WARP_N,
               dbuf: bool = False) -> list[str]:
    """The ``bk / 16`` k16 steps on shared slot ``%stage``, one text each: fragments, then
    the mma. With ``dbuf`` the fragments alternate between two register sets (``%FA``/``%FB``
    and ``%FA1``/``%FB1``) and step ``s + 1``'s ldmatrix is issued before step ``s``'s mma."""
    fa, fb, c = _FA.format(t=t), _fb(t, wn), _c("f32", wn)
    sets = ("", "1") if dbuf else ("",)

    def load(kk: int) -> str:
        r = sets[(kk // 16) % len(sets)]
        return (f"{indent}regcopy.copy warp %SA[%stage, %am, {kk}] [1, 64, 16] -> %FA{r} : "
                f"{sa} -> {fa}\n"
                f"{indent}regcopy.copy warp %SB[%stage, %bn, {kk}] [1, {wn}, 16] -> %FB{r} : "
                f"{sb} -> {fb}\n")

    def mma(kk: int) -> str:
        r = sets[(kk // 16) % len(sets)]
        return (f"{indent}regcopy.mma warp %FA{r}, %FB{r}, %C {{transpose_b}} : "
                f"{fa}, {fb}, {c}\n")

    steps = range(0, bk, 16)
    if not dbuf:
        return [load(kk) + mma(kk) for kk in steps]
    return [(load(0) if kk == 0 else "") + (load(kk + 16) if kk + 16 < bk else "") + mma(kk)
            for kk in steps]


def _async_loop(t: str, sa: str, sb: str, bk: int, stages: int, wn: int = WARP_N,
                dbuf: bool = False, issue_at: int = 0, branchless: bool = False) -> str:
    g = _G.format(t=t)
    ahead = stages - 1

    def start(k: str, slot: str, a: str, b: str, indent: str) -> str:
        return (f"{indent}{a} = regcopy.copy_async cta %A[%m0, {k}] [128, {bk}] -> "
                f"%SA[{slot}, 0, 0] [1, 128, {bk}] : {g} -> {sa}\n"
                f"{indent}{b} = regcopy.copy_async cta %B[%n0, {k}] [{4 * wn}, {bk}] -> "
                f"%SB[{slot}, 0, 0] [1, {4 * wn}, {bk}] : {g} -> {sb}\n")

    text = f"  // prologue: stages 0 .. {ahead - 1} in flight\n"
    for s in range(ahead):
        text += start(f"%c{s * bk}", f"%c{s}", f"%ta{s}", f"%tb{s}", "  ")
        text += f"  %g{s} = regcopy.async_group %ta{s}, %tb{s}\n"
    tokens = ", ".join(["!regcopy.token"] * ahead)
    carried = ", ".join(f"%gk{s} = %g{s}" for s in range(ahead))
    shifted = ", ".join([f"%gk{s}" for s in range(1, ahead)] + ["%gn"])
    issue = f"""    // start stage k+{ahead} into stage k-1's slot (an empty group past the end){{where}}
    %kn = arith.addi %k, %c{ahead * bk} : index
    %more = arith.cmpi ult, %kn, %K : index
    %gn = scf.if %more -> (!regcopy.token) {{
      %atzero = arith.cmpi eq, %stage, %c0 : index
      %prev = arith.subi %stage, %c1 : index
      %sn = arith.select %atzero, %c{ahead}, %prev : index
{start("%kn", "%sn", "%ta", "%tb", "      ")}      %g = regcopy.async_group %ta, %tb
      scf.yield %g : !regcopy.token
    }} else {{
      %g = regcopy.async_group
      scf.yield %g : !regcopy.token
    }}
"""
    steps = _mma_steps(t, sa, sb, "    ", bk, wn, dbuf)
    if branchless:  # past the end the copies read nothing and fill a free slot with zeros
        issue = f"""    // start stage k+{ahead} into stage k-1's slot (past the end: zero-filled, unused){{where}}
    %kn = arith.addi %k, %c{ahead * bk} : index
    %atzero = arith.cmpi eq, %stage, %c0 : index
    %prev = arith.subi %stage, %c1 : index
    %sn = arith.select %atzero, %c{ahead}, %prev : index
{start("%kn", "%sn", "%ta", "%tb", "    ")}    %gn = regcopy.async_group %ta, %tb
"""
    issue = issue.replace("{where}", f",\n    // after {issue_at} k16 step(s): their mma.sync run while these issue"
                          if issue_at else "")
    body = "".join(steps[:issue_at]) + issue + "".join(steps[issue_at:])
    return text + f"""  %done:{ahead + 1} = scf.for %k = %c0 to %K step %c{bk} iter_args({carried}, %stage = %c0) -> ({tokens}, index) {{
    // 1. stage k (slot %stage = k / {bk} mod {stages}) has landed (this thread's copies, then
    //    everyone's); stage k-1 is free
    regcopy.async_wait %gk0 {{pending = {ahead - 1} : i64}}
    "gpu.barrier"() : () -> ()
    // 2. {bk // 16} k16 steps: ldmatrix.x4 fragments of stage k, then the warp tile's mma.sync
{body}    %s1 = arith.addi %stage, %c1 : index
    %wrap = arith.cmpi eq, %s1, %c{stages} : index
    %snext = arith.select %wrap, %c0, %s1 : index
    scf.yield {shifted}, %snext : {tokens}, index
  }}
  // every copy has landed before the kernel goes on (past K they only zero-filled free slots)
  regcopy.async_wait %done#{ahead - 1} {{pending = 0 : i64}}
"""


def _staged_loop(t: str, sa: str, sb: str, layouts: str) -> str:
    a, b = STAGED_LAYOUTS[layouts]
    g, ra, rb = _G.format(t=t), _RA.format(t=t, a=a), _RB.format(t=t, b=b)

    def load(k: str, indent: str) -> str:
        return (f"{indent}regcopy.copy cta %A[%m0, {k}] [128, 32] -> %RA : {g} -> {ra}\n"
                f"{indent}regcopy.copy cta %B[%n0, {k}] [256, 32] -> %RB : {g} -> {rb}\n")

    return f"""  %RA = memref.alloca() : {ra}
  %RB = memref.alloca() : {rb}
  // prologue: K tile 0 in registers
{load("%c0", "  ")}  scf.for %k = %c0 to %K step %c32 {{
    %kt = arith.divui %k, %c32 : index
    %stage = arith.remui %kt, %c2 : index
    // 1. K tile k: registers -> shared slot k % 2 (every warp is done with tile k-2: it
    //    passed the barrier of iteration k-1 after computing on it)
    regcopy.copy cta %RA -> %SA[%stage, 0, 0] [1, 128, 32] : {ra} -> {sa}
    regcopy.copy cta %RB -> %SB[%stage, 0, 0] [1, 256, 32] : {rb} -> {sb}
    "gpu.barrier"() : () -> ()
    // 2. K tile k+1: global -> registers (zeros past K), in flight during step 3
    %k1 = arith.addi %k, %c32 : index
{load("%k1", "    ")}    // 3. two k16 steps: ldmatrix.x4 fragments of slot k % 2, then 32 mma.sync a warp
{"".join(_mma_steps(t, sa, sb, "    ", STAGED_BK))}  }}
"""


def kernel_text(name: str, t: str, staged: bool = False, layouts: str = "rows",
                bk: int = BK, stages: int = STAGES, wn: int = WARP_N,
                dbuf: bool = False, issue_at: int | None = None,
                branchless: bool | None = None) -> str:
    """The GEMM kernel ``@name`` for element type ``t`` (``f16`` or ``bf16``; module doc);
    ``layouts`` picks the staged kernel's register layouts (``STAGED_LAYOUTS``); ``bk`` (a
    multiple of 16) and ``stages`` (>= 2) shape the cp.async ring (the staged kernel has
    ``bk = 32`` and 2 slots); ``wn`` (64 or 32) is the N of a warp's tile, so the CTA's is
    ``4 wn`` (the staged kernel has ``wn = 64``); ``dbuf`` double-buffers the fragments in
    registers (``_mma_steps``); ``issue_at`` is the number of k16 steps computed before the
    next stage's cp.async are issued (default ``ISSUE_AT``, at most ``bk / 16``);
    ``branchless`` (default ``BRANCHLESS``) issues them in every iteration, with no branch for the last ones (their
    chunks lie past K: cp.async reads nothing and zero-fills a slot no step reads), so
    ptxas may interleave them with the HMMAs."""
    issue_at = min(ISSUE_AT if issue_at is None else issue_at, bk // 16)
    branchless = BRANCHLESS if branchless is None else branchless
    if staged:
        bk, stages, wn, dbuf = STAGED_BK, 2, WARP_N, False
    cn = 4 * wn
    sa, sb = _shared(CTA_M, t, stages, bk), _shared(cn, t, stages, bk)
    sc = f"memref<128x{cn}x{t}, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>"
    g, c, co, rc = _G.format(t=t), _c("f32", wn), _c(t, wn), _rc(t, wn)
    fa, fb = _FA.format(t=t), _fb(t, wn)
    spare = (f"  %FA1 = memref.alloca() : {fa}\n  %FB1 = memref.alloca() : {fb}\n"
             if dbuf else "")
    regs = 2 * wn  # accumulator registers a lane
    ctas = 1 if wn == WARP_N else 2  # the narrow tile fits two CTAs an SM (<= 128 registers)
    promise = "" if staged else " {regcopy.divisibility = array<i64: 1, 8>}"
    loop = (_staged_loop(t, sa, sb, layouts) if staged
            else _async_loop(t, sa, sb, bk, stages, wn, dbuf, issue_at, branchless))
    used = {0, 1, 2, 4, 8, 32, 64, 128, 256, wn, cn, regs, bk, stages, stages - 1,
            (stages - 1) * bk,
            *(s * bk for s in range(stages)), *range(stages)}
    consts = "".join(f"  %c{v} = arith.constant {v} : index\n" for v in sorted(used))
    return f"""func.func @{name}(%A: {g}{promise},
    %B: {g}{promise},
    %D: {g})
    attributes {{regcopy.launch = #regcopy.launch<block = 256, grid = [1, 1], min_blocks = {ctas}>}} {{
  %SA = memref.alloca() : {sa}
  %SB = memref.alloca() : {sb}
  %SC = memref.alloca() : {sc}
  %FA = memref.alloca() : {fa}
  %FB = memref.alloca() : {fb}
{spare}  %C = memref.alloca() : {c}
  %CO = memref.alloca() : {co}
  %RC = memref.alloca() : {rc}
{consts}  %zero = arith.constant dense<0.0> : vector<4xf32>
  %K = memref.dim %A, %c1 : {g}
  %tid = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %bx = "gpu.block_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %by = "gpu.block_id"() <{{dimension = #gpu<dim y>}}> : () -> index
  // the CTA's tile (pm, pn), in groups of 8 M tiles that walk N together (their B tiles
  // and A row bands stay in L2): the linear block id p = by * gx + bx runs down a group's
  // 8 M tiles first, then across its N tiles
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
  // the CTA's first rows of A (M) and B (N); the warp's 64 x {wn} tile inside the CTA's
  %m0 = arith.muli %pm, %c128 : index
  %n0 = arith.muli %pn, %c{cn} : index
  %warp = arith.divui %tid, %c32 : index
  %wm = arith.divui %warp, %c4 : index
  %wn = arith.remui %warp, %c4 : index
  %am = arith.muli %wm, %c64 : index
  %bn = arith.muli %wn, %c{wn} : index
  // the accumulators start at zero
  %acc = regcopy.storage %C : {c} -> memref<{regs}xf32, #regcopy.mem<local>>
  scf.for %i = %c0 to %c{regs} step %c4 {{
    vector.store %zero, %acc[%i] : memref<{regs}xf32, #regcopy.mem<local>>, vector<4xf32>
  }}
{loop}  // epilogue: round to {t} (same fragment layout), stmatrix to shared, 128-bit rows out
  %out = regcopy.storage %CO : {co} -> memref<{regs}x{t}, #regcopy.mem<local>>
  scf.for %i = %c0 to %c{regs} step %c4 {{
    %v = vector.load %acc[%i] : memref<{regs}xf32, #regcopy.mem<local>>, vector<4xf32>
    %h = arith.truncf %v : vector<4xf32> to vector<4x{t}>
    vector.store %h, %out[%i] : memref<{regs}x{t}, #regcopy.mem<local>>, vector<4x{t}>
  }}
  regcopy.copy warp %CO -> %SC[%am, %bn] [64, {wn}] : {co} -> {sc}
  "gpu.barrier"() : () -> ()
  regcopy.copy cta %SC -> %RC : {sc} -> {rc}
  regcopy.copy cta %RC -> %D[%m0, %n0] [128, {cn}] : {rc} -> {g}
  func.return
}}
"""


def peak_kernel_text(t: str = "f16") -> str:
    """``@mma_peak``: the GEMM's warp tile without memory: each of 8 warps a CTA runs ``%n``
    times the 32 ``mma.sync.m16n8k16`` of one k16 step (``regcopy.mma`` on fragments loaded
    once from ``%X``/``%Y``), then writes its accumulators to ``%D`` (64 rows a warp), so
    nothing is elided. ``2 * 64 * 64 * 16 * n`` flop a warp: mma.sync's own rate."""
    fa, fb, c = _FA.format(t=t), _fb(t), _c("f32")
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


def pad_kernel_text(name: str, t: str) -> str:
    """``@name``: ``Y[r, c] = X[r, c]`` for ``c < K``, 0 for ``K <= c < K8``: the rows of an
    ``R x K`` matrix copied into an ``R x K8`` one whose rows are 16-byte aligned (``K8`` =
    K rounded up to 8, promised). With it, a GEMM of any K runs the cp.async kernel on
    zero-padded copies of A and B (the zeros add nothing to the products).

    256 threads copy a 32 x 256 tile, 8 consecutive elements a thread and row, global ->
    registers -> global: the read is bounds-checked against the runtime K (zeros past it)
    and versioned on K % 8 (128-bit loads when rows are aligned, else the narrow loads the
    alignment proves, which a warp's L1 line requests merge); the write is 128-bit (K8 is
    promised a multiple of 8). Grid: ``ceil(K8 / 256) x ceil(R / 32)``."""
    g = f"memref<?x?x{t}, #regcopy.mem<global>>"
    r = (f"memref<32x256x{t}, #regcopy.layout<(4,8,32,8):(8,32@tx,1@tx,1)>, "
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
