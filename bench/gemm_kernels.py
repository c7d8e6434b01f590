"""The regcopy IR of the GEMM kernels that ``bench_gemm`` times and ``examples/gemm.mlir`` holds.

``D[M,N] = A[M,K] * B[N,K]^T`` (both operands K-major), f32 accumulation in registers, D
rounded to the input type. One CTA of 256 threads (8 warps as 2 (M) x 4 (N)) computes a
128 x 256 tile of D, each warp 64 x 64 (``regcopy.mma`` on 4 x 8 m16n8k16 accumulator
fragments), K walked BK at a time; each K tile is BK / 16 k16 steps of ldmatrix.x4 (4 for
A, 4 for B) and 32 mma.sync. Two ways to bring the tiles into shared memory:

* ``kernel_text(name, t)`` (``async``): a ``cp.async`` ring (``regcopy.copy_async``, 16-byte
  chunks, zero-fill past the edges; BK 64 x 3 stages by default, its slot carried from one
  iteration to the next, the next stage's copies issued first in each iteration, in a
  branch taken while stages remain) and prefetching fragments: each k16 step loads the next
  step's fragments into the other of two register sets before its mma, and the last step
  waits for the next stage and meets the CTA at the barrier before its own mma; needs K a
  multiple of 8 (16-byte rows), which the kernel promises (``regcopy.divisibility``);
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
WARPS = THREADS // 32
BK, STAGES = 64, 3
"""The cp.async ring of the example: 64-wide K tiles, 3 stages (measured on the H200 faster
than 32 x 4 and 32 x 3 at 4096^3 and 8192^3)."""
ISSUE_AT = 0
"""k16 steps of a K tile computed before the next stage's copies are issued (0: first, so
their global loads have the whole tile's HMMAs to land in; the H200 measured that 3 % faster
than after the first step)."""
CANDIDATES: dict[str, dict[str, int | bool | str]] = {
    "example": {},
    "convert epilogue": {"epilogue": "convert"},
    "convert epilogue, 64x4": {"epilogue": "convert", "stages": 4},
    "256x128": {"cm": 256},
    "128x128 of 4 warps, convert epilogue": {"warps": 4, "epilogue": "convert"},
    "convert epilogue, copies before the last k16 step, no branch": {
        "epilogue": "convert", "issue_at": 3, "branchless": True},
    "edge prefetch, convert epilogue, copies after the first k16 step, no branch": {
        "edge": True, "epilogue": "convert", "issue_at": 1, "branchless": True},
    "groups of 16 M tiles": {"group": 16},
    "groups of 4 M tiles": {"group": 4},
    "no prefetch (the previous example)": {"prefetch": False},
    "no prefetch, convert epilogue": {"prefetch": False, "epilogue": "convert"},
    "no prefetch, copies after the first k16 step, no branch": {
        "prefetch": False, "issue_at": 1, "branchless": True},
}
"""The cp.async kernels ``bench_gemm`` compares (f16, aligned sizes), as ``kernel_text``
arguments that differ from the example's (the prefetching loop, copies issued first in a
branch, the ``shared`` epilogue): the ``convert`` epilogue (3 or 4 stages; copies issued
before the last k16 step with no branch), the 256 x 128 CTA tile, 128 x 128 CTAs of 4 warps
(two an SM), the edge-only prefetch, the CTAs' walk in groups of 16 or 4 M tiles (``GROUP``:
8), and the loop without prefetching (the previous example, with either epilogue, and the one
before it). The H200 runs of 15:46 and of the evening
(lab/results/h200_2026-12-03/mmagemm, final_c) compared them; docs/mma.md has the tables."""


def candidate_text(name: str, t: str, kw: dict[str, int | bool | str]) -> str:
    """``kernel_text(name, t, **kw)`` for a ``CANDIDATES`` entry."""
    return kernel_text(name, t, **kw)  # type: ignore[arg-type]


NARROW: dict[str, int | bool | str] = {"wn": 32, "bk": 32, "stages": 4, "prefetch": False}
"""The 128 x 128 CTA tile of 8 warps (64 x 32 each, two CTAs an SM) of the main table,
without the prefetching loop (two CTAs an SM leave 128 registers a thread, which a second
fragment set overflows in the 64-bit index form: 14 local-memory accesses)."""
BRANCHLESS = False
"""Whether the next stage's copies are issued in every iteration, with no branch around them
(past the end of K they read nothing and zero-fill a free slot, and ptxas interleaves them
with the HMMAs); the example issues them first, in a branch taken while stages remain."""
GROUP = 8
"""The CTAs walk the output in groups of ``GROUP`` M tiles (the linear block id runs down a
group's M tiles first, then across its N tiles): the A row bands and B tiles a wave touches
stay in L2."""
STAGED_BK = 32
"""The register-staged kernel's K tile (two shared slots)."""

_G = "memref<?x?x{t}, #regcopy.mem<global>>"
FA = ("memref<64x16x{t}, #regcopy.layout<(4,2,8,2,4,2):(8,2,4@laneid,4,1@laneid,1)>, "
      "#regcopy.mem<local>>")
"""The warp's ``64 x 16`` A fragments (``.format(t=...)``): 4 m16 tiles, register ``8 mi + i``."""
WARP_N = 64
"""N of a warp's tile (64 x WARP_N); the CTA's N is 4 x that."""


def fragment_b(t: str, wn: int = WARP_N) -> str:
    """The warp's ``wn x 16`` (N x K) B fragments: ``wn / 8`` n8 tiles, register
    ``4 ni + i``."""
    return (f"memref<{wn}x16x{t}, #regcopy.layout<({wn // 8},8,2,4,2):"
            "(4,4@laneid,2,1@laneid,1)>, #regcopy.mem<local>>")


def accumulator(t: str, wn: int = WARP_N) -> str:
    """The warp's ``64 x wn`` accumulator: 4 x ``wn / 8`` C fragments, register
    ``(wn / 2) mi + 4 ni + i``."""
    return (f"memref<64x{wn}x{t}, #regcopy.layout<(4,2,8,{wn // 8},4,2):"
            f"({wn // 2},2,4@laneid,4,1@laneid,1)>, #regcopy.mem<local>>")


def _rc(t: str, rows: int, cols: int, threads: int = THREADS) -> str:
    """The CTA's ``rows x cols`` output tile over ``threads`` threads, 8 consecutive elements
    a thread and row (128-bit transfers)."""
    chunks = cols // 8  # 8-element chunks a row
    return (f"memref<{rows}x{cols}x{t}, #regcopy.layout<({rows * chunks // threads},"
            f"{threads // chunks},"
            f"{chunks},8):(8,{chunks}@tx,1@tx,1)>, #regcopy.mem<local>>")


def rows_layout(t: str, wn: int = WARP_N) -> str:
    """The warp's ``64 x wn`` output tile as rows of 128-bit chunks, for the ``convert``
    epilogue: element ``(16 mi + 8 h + g, 32 j + 8 q + e)`` in lane ``4 g + q``, register
    ``8 (2 (wn / 32) mi + (wn / 32) h + j) + e``. Lane ``4 g + q`` of the accumulator holds
    columns ``2q, 2q + 1`` of each n8 tile of row ``g``; here it holds the whole n8 tile ``4 j
    + q`` of that row, so words move only within each quad of lanes (a 4 x 4 transpose of
    32-bit words) and a warp's store instruction writes 8 rows of 64 contiguous bytes."""
    nj = wn // 32
    if nj == 1:
        return (f"memref<64x{wn}x{t}, #regcopy.layout<(4,2,8,4,8):(16,8,4@laneid,1@laneid,1)>, "
                "#regcopy.mem<local>>")
    return (f"memref<64x{wn}x{t}, #regcopy.layout<(4,2,8,{nj},4,8):"
            f"({16 * nj},{8 * nj},4@laneid,8,1@laneid,1)>, #regcopy.mem<local>>")


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


def cta_n(wn: int = WARP_N, cm: int = CTA_M, warps: int = WARPS) -> int:
    """N of the CTA's tile: its warps are ``cm / 64`` (M) x ``warps / (cm / 64)`` (N), each
    ``64 x wn``."""
    return warps // (cm // 64) * wn


def grid(m: int, n: int, wn: int = WARP_N, cm: int = CTA_M, warps: int = WARPS
         ) -> tuple[int, int, int]:
    """The launch grid for an M x N output: ``ceil(N / cta_n) x ceil(M / cm)``."""
    return -(-n // cta_n(wn, cm, warps)), -(-m // cm), 1


def candidate_grid(m: int, n: int, kw: dict[str, int | bool | str]) -> tuple[int, int, int]:
    """The grid of the kernel ``kernel_text(**kw)`` (a ``CANDIDATES`` entry)."""
    return grid(m, n, int(kw.get("wn", WARP_N)), int(kw.get("cm", CTA_M)),
                int(kw.get("warps", WARPS)))


def candidate_block(kw: dict[str, int | bool | str]) -> int:
    """The threads of a CTA of the kernel ``kernel_text(**kw)``."""
    return 32 * int(kw.get("warps", WARPS))


def _mma_steps(t: str, sa: str, sb: str, indent: str, bk: int = BK, wn: int = WARP_N,
               dbuf: bool = False, x: str = "") -> list[str]:
    """The ``bk / 16`` k16 steps on shared slot ``%stage``, one text each: fragments, then
    the mma. With ``dbuf`` the fragments alternate between two register sets (``%FA``/``%FB``
    and ``%FA1``/``%FB1``) and step ``s + 1``'s ldmatrix is issued before step ``s``'s mma.
    ``x``: the suffix of the B fragment and accumulator tiles (``%FB{x}``, ``%C{x}``)."""
    fa, fb, c = FA.format(t=t), fragment_b(t, wn), accumulator("f32", wn)
    sets = ("", "1") if dbuf else ("",)

    def load(kk: int) -> str:
        r = sets[(kk // 16) % len(sets)]
        return (f"{indent}regcopy.copy warp %SA[%stage, %am, {kk}] [1, 64, 16] -> %FA{r} : "
                f"{sa} -> {fa}\n"
                f"{indent}regcopy.copy warp %SB[%stage, %bn, {kk}] [1, {wn}, 16] -> %FB{x}{r} : "
                f"{sb} -> {fb}\n")

    def mma(kk: int) -> str:
        r = sets[(kk // 16) % len(sets)]
        return (f"{indent}regcopy.mma warp %FA{r}, %FB{x}{r}, %C{x} {{transpose_b}} : "
                f"{fa}, {fb}, {c}\n")

    steps = range(0, bk, 16)
    if not dbuf:
        return [load(kk) + mma(kk) for kk in steps]
    return [(load(0) if kk == 0 else "") + (load(kk + 16) if kk + 16 < bk else "") + mma(kk)
            for kk in steps]


def _load(t: str, sa: str, sb: str, indent: str, slot: str, kk: int, r: str,
          wn: int) -> str:
    """ldmatrix of the k16 step at column ``kk`` of shared slot ``slot`` into ``%FA{r}``,
    ``%FB{r}``."""
    fa, fb = FA.format(t=t), fragment_b(t, wn)
    return (f"{indent}regcopy.copy warp %SA[{slot}, %am, {kk}] [1, 64, 16] -> %FA{r} : "
            f"{sa} -> {fa}\n"
            f"{indent}regcopy.copy warp %SB[{slot}, %bn, {kk}] [1, {wn}, 16] -> %FB{r} : "
            f"{sb} -> {fb}\n")


def _prefetch_steps(t: str, sa: str, sb: str, indent: str, bk: int, wn: int, token: str,
                    pending: int, edge: bool = False) -> list[str]:
    """The ``bk / 16`` k16 steps of the ``prefetch`` loop: step ``s`` loads the fragments of
    step ``s + 1`` (into the other register set) before its mma; the last step first waits
    for the next stage (``token``, ``pending``) and meets the CTA at the barrier, then loads
    the next stage's first fragments (slot ``%snext``), so its 32 mma.sync run while the
    barrier's stragglers and those ldmatrix are in flight. With ``edge`` only that edge is
    prefetched: the first step computes on ``%FA1``/``%FB1`` (loaded by the previous
    iteration's last step), every other step loads its own fragments into ``%FA``/``%FB``
    first (the two sets are live together only around the barrier)."""
    fa, fb, c = FA.format(t=t), fragment_b(t, wn), accumulator("f32", wn)
    sets = ("", "1")
    steps = []
    last = bk - 16
    for s, kk in enumerate(range(0, bk, 16)):
        if edge:
            text = (_load(t, sa, sb, indent, "%stage", kk, "", wn) if kk else "")
            if kk == last:
                text += (f"{indent}regcopy.async_wait {token} {{pending = {pending} : i64}}\n"
                         f'{indent}"gpu.barrier"() : () -> ()\n'
                         + _load(t, sa, sb, indent, "%snext", 0, "1", wn))
            r = "1" if kk == 0 else ""
            steps.append(text + f"{indent}regcopy.mma warp %FA{r}, %FB{r}, %C {{transpose_b}} : "
                         f"{fa}, {fb}, {c}\n")
            continue
        if kk + 16 < bk:
            text = _load(t, sa, sb, indent, "%stage", kk + 16, sets[(s + 1) % 2], wn)
        else:
            text = (f"{indent}// the next stage has landed everywhere, and every warp is done"
                    " reading this one's slot\n"
                    f"{indent}regcopy.async_wait {token} {{pending = {pending} : i64}}\n"
                    f'{indent}"gpu.barrier"() : () -> ()\n'
                    + _load(t, sa, sb, indent, "%snext", 0, sets[(s + 1) % 2], wn))
        steps.append(text + f"{indent}regcopy.mma warp %FA{sets[s % 2]}, %FB{sets[s % 2]}, %C "
                     f"{{transpose_b}} : {fa}, {fb}, {c}\n")
    return steps


def _async_loop(t: str, sa: str, sb: str, bk: int, stages: int, wn: int = WARP_N,
                dbuf: bool = False, issue_at: int = 0, branchless: bool = False,
                cm: int = CTA_M, cn: int = CTA_N, prefetch: bool = False,
                edge: bool = False, x: str = "") -> str:
    g = _G.format(t=t)
    ahead = stages - 1

    def start(k: str, slot: str, a: str, b: str, indent: str) -> str:
        return (f"{indent}{a} = regcopy.copy_async cta %A[%m0, {k}] [{cm}, {bk}] -> "
                f"%SA[{slot}, 0, 0] [1, {cm}, {bk}] : {g} -> {sa}\n"
                f"{indent}{b} = regcopy.copy_async cta %B[%n0, {k}] [{cn}, {bk}] -> "
                f"%SB[{slot}, 0, 0] [1, {cn}, {bk}] : {g} -> {sb}\n")

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
    following = [f"%gk{s}" for s in range(1, ahead)] + ["%gn"]  # stage k+1's group first
    steps = (_prefetch_steps(t, sa, sb, "    ", bk, wn, following[0], ahead - 1, edge)
             if prefetch
             else _mma_steps(t, sa, sb, "    ", bk, wn, dbuf, x))
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
    advance = f"""    %s1 = arith.addi %stage, %c1 : index
    %wrap = arith.cmpi eq, %s1, %c{stages} : index
    %snext = arith.select %wrap, %c0, %s1 : index
"""
    if prefetch:
        text += f"""  regcopy.async_wait %g0 {{pending = {ahead - 1} : i64}}
  "gpu.barrier"() : () -> ()
  // stage 0's first fragments; each iteration then ends with the next stage's
{_load(t, sa, sb, "  ", "%c0", 0, "1" if edge else "", wn)}"""
        head = f"""    // 1. stage k (slot %stage = k / {bk} mod {stages}) has landed everywhere and its first
    //    fragments are in %FA, %FB (the previous iteration's last step or the prologue)
{advance}"""
        advance = ""
    else:
        head = f"""    // 1. stage k (slot %stage = k / {bk} mod {stages}) has landed (this thread's copies, then
    //    everyone's); stage k-1 is free
    regcopy.async_wait %gk0 {{pending = {ahead - 1} : i64}}
    "gpu.barrier"() : () -> ()
"""
    return text + f"""  %done:{ahead + 1} = scf.for %k = %c0 to %K step %c{bk} iter_args({carried}, %stage = %c0) -> ({tokens}, index) {{
{head}    // 2. {bk // 16} k16 steps: ldmatrix.x4 fragments of stage k, then the warp tile's mma.sync
{body}{advance}    scf.yield {shifted}, %snext : {tokens}, index
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
                branchless: bool | None = None, cm: int = CTA_M,
                epilogue: str | None = None, warps: int = WARPS,
                prefetch: bool | None = None, edge: bool | None = None,
                group: int = GROUP, edge_cols: int | None = None) -> str:
    """The GEMM kernel ``@name`` for element type ``t`` (``f16`` or ``bf16``; module doc);
    ``layouts`` picks the staged kernel's register layouts (``STAGED_LAYOUTS``); ``bk`` (a
    multiple of 16) and ``stages`` (>= 2) shape the cp.async ring (the staged kernel has
    ``bk = 32`` and 2 slots); ``wn`` (64 or 32) is the N of a warp's tile and ``cm`` (128 or
    256) the M of the CTA's, whose ``warps`` (8, or 4 with ``cm = 128``) are ``cm / 64`` x
    ``warps / (cm / 64)`` (``cta_n``; the staged kernel has ``wn = 64``, ``cm = 128``, 8
    warps); ``dbuf`` double-buffers the fragments in
    registers (``_mma_steps``); ``issue_at`` is the number of k16 steps computed before the
    next stage's cp.async are issued (default ``ISSUE_AT``, at most ``bk / 16``);
    ``branchless`` (default ``BRANCHLESS``) issues them in every iteration, with no branch
    for the last ones (their chunks lie past K: cp.async reads nothing and zero-fills a slot
    no step reads), so ptxas may interleave them with the HMMAs; ``epilogue`` (default
    ``EPILOGUE``, ``EPILOGUES``) is how the rounded accumulators reach D; ``prefetch`` (default
    ``PREFETCH``) moves the wait and the barrier for stage k+1 to before the last k16 step's
    mma of stage k and loads each step's fragments one step ahead, in two register sets
    (``_prefetch_steps``): no warp then waits at the barrier with nothing to compute, and no
    step starts with its ldmatrix latency exposed; ``edge`` prefetches only across the
    barrier (``_prefetch_steps``), for fewer live registers; ``group`` is the number of M
    tiles whose CTAs walk N together (``GROUP``); ``edge_cols`` (default ``EDGE_COLS``, 0 for
    none and for the staged kernel; a multiple of 8): a CTA with at most ``edge_cols`` columns
    of D left (the last column of CTAs where N is
    1..``edge_cols`` past a multiple of the CTA's N) runs ``_edge_path`` instead, so that the
    column costs its A loads and not a whole tile's mma.sync."""
    issue_at = min(ISSUE_AT if issue_at is None else issue_at, bk // 16)
    branchless = BRANCHLESS if branchless is None else branchless
    epilogue = EPILOGUE if epilogue is None else epilogue
    prefetch = PREFETCH if prefetch is None else prefetch
    edge = EDGE if edge is None else edge
    edge_cols = (EDGE_COLS if edge_cols is None else edge_cols) if not staged else 0
    if staged:
        bk, stages, wn, cm, dbuf, warps = STAGED_BK, 2, WARP_N, CTA_M, False, WARPS
        prefetch = False
    cn, wcols = cta_n(wn, cm, warps), warps // (cm // 64)
    sa, sb = _shared(cm, t, stages, bk), _shared(cn, t, stages, bk)
    g, c, co = _G.format(t=t), accumulator("f32", wn), accumulator(t, wn)
    fa, fb = FA.format(t=t), fragment_b(t, wn)
    spare = (f"  %FA1 = memref.alloca() : {fa}\n  %FB1 = memref.alloca() : {fb}\n"
             if dbuf or prefetch else "")
    regs = 2 * wn  # accumulator registers a lane
    # 8 warps of 64 x 64 tiles: one CTA an SM; the smaller CTAs fit two
    ctas = 1 if wn == WARP_N and warps == WARPS else 2
    promise = "" if staged else " {regcopy.divisibility = array<i64: 1, 8>}"
    loop = (_staged_loop(t, sa, sb, layouts) if staged
            else _async_loop(t, sa, sb, bk, stages, wn, dbuf, issue_at, branchless, cm, cn,
                             prefetch, edge))
    out_allocs, out_text = _epilogue(epilogue, t, wn, cm, cn, co, g)
    main = (f"{_zeroed('', c, regs)}{loop}  // epilogue: round to {t} (cvt.rn, same fragment "
            f"layout), {EPILOGUES[epilogue]}\n{_rounded('', co, regs, t)}{out_text}")
    used = {0, 1, 2, 4, 8, 32, 64, 128, 256, wn, cn, cm, regs, bk, stages, stages - 1, group,
            (stages - 1) * bk, wcols,
            *(s * bk for s in range(stages)), *range(stages)}
    if edge_cols:
        assert edge_cols % 8 == 0 and edge_cols < cn, edge_cols
        used |= {edge_cols, 2 * edge_cols}
        edge_allocs, edge_text = _edge_path(t, sa, sb, bk, stages, cm, edge_cols)
        out_allocs += edge_allocs
        main = f"""  // a CTA with at most {edge_cols} columns of D left runs the edge tile
  %NB = memref.dim %B, %c0 : {g}
  %nleft = arith.subi %NB, %n0 : index
  %atedge = arith.cmpi ule, %nleft, %c{edge_cols} : index
  scf.if %atedge {{
{_indent(edge_text)}  }} else {{
{_indent(main)}  }}
"""
    consts = "".join(f"  %c{v} = arith.constant {v} : index\n" for v in sorted(used))
    return f"""func.func @{name}(%A: {g}{promise},
    %B: {g}{promise},
    %D: {g})
    attributes {{regcopy.launch = #regcopy.launch<block = {32 * warps}, grid = [1, 1], min_blocks = {ctas}>}} {{
  %SA = memref.alloca() : {sa}
  %SB = memref.alloca() : {sb}
{out_allocs}  %FA = memref.alloca() : {fa}
  %FB = memref.alloca() : {fb}
{spare}  %C = memref.alloca() : {c}
  %CO = memref.alloca() : {co}
{consts}  %zero = arith.constant dense<0.0> : vector<4xf32>
  %K = memref.dim %A, %c1 : {g}
  %tid = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %bx = "gpu.block_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %by = "gpu.block_id"() <{{dimension = #gpu<dim y>}}> : () -> index
  // the CTA's tile (pm, pn), in groups of {group} M tiles that walk N together (their B tiles
  // and A row bands stay in L2): the linear block id p = by * gx + bx runs down a group's
  // {group} M tiles first, then across its N tiles
  %gx = "gpu.grid_dim"() <{{dimension = #gpu<dim x>}}> : () -> index
  %gy = "gpu.grid_dim"() <{{dimension = #gpu<dim y>}}> : () -> index
  %byx = arith.muli %by, %gx : index
  %pid = arith.addi %byx, %bx : index
  %width = arith.muli %gx, %c{group} : index
  %group = arith.divui %pid, %width : index
  %first = arith.muli %group, %c{group} : index
  %left = arith.subi %gy, %first : index
  %size = arith.minui %left, %c{group} : index
  %inside = arith.remui %pid, %width : index
  %pmo = arith.remui %inside, %size : index
  %pm = arith.addi %first, %pmo : index
  %pn = arith.divui %inside, %size : index
  // the CTA's first rows of A (M) and B (N); the warp's 64 x {wn} tile inside the CTA's
  %m0 = arith.muli %pm, %c{cm} : index
  %n0 = arith.muli %pn, %c{cn} : index
  %warp = arith.divui %tid, %c32 : index
  %wm = arith.divui %warp, %c{wcols} : index
  %wn = arith.remui %warp, %c{wcols} : index
  %am = arith.muli %wm, %c64 : index
  %bn = arith.muli %wn, %c{wn} : index
{main}  func.return
}}
"""


def _indent(text: str, by: str = "  ") -> str:
    """``text`` with every non-empty line indented by ``by``."""
    return "".join(by + ln if ln.strip() else ln for ln in text.splitlines(keepends=True))


def _zeroed(x: str, c: str, regs: int) -> str:
    """IR: ``%acc{x}``, the storage of the accumulator ``%C{x}`` (type ``c``, ``regs`` f32 a
    lane), set to zero."""
    return f"""  // the accumulators start at zero
  %acc{x} = regcopy.storage %C{x} : {c} -> memref<{regs}xf32, #regcopy.mem<local>>
  scf.for %i = %c0 to %c{regs} step %c4 {{
    vector.store %zero, %acc{x}[%i] : memref<{regs}xf32, #regcopy.mem<local>>, vector<4xf32>
  }}
"""


def _rounded(x: str, co: str, regs: int, t: str) -> str:
    """IR: ``%acc{x}`` rounded to ``t`` into ``%CO{x}`` (type ``co``), the same fragment
    layout, through its storage ``%out{x}``."""
    return f"""  %out{x} = regcopy.storage %CO{x} : {co} -> memref<{regs}x{t}, #regcopy.mem<local>>
  scf.for %i = %c0 to %c{regs} step %c4 {{
    %v = vector.load %acc{x}[%i] : memref<{regs}xf32, #regcopy.mem<local>>, vector<4xf32>
    %h = arith.truncf %v : vector<4xf32> to vector<4x{t}>
    vector.store %h, %out{x}[%i] : memref<{regs}x{t}, #regcopy.mem<local>>, vector<4x{t}>
  }}
"""


def _edge_path(t: str, sa: str, sb: str, bk: int, stages: int, cm: int, narrow: int
               ) -> tuple[str, str]:
    """``(allocas, body)`` of the edge tile (``kernel_text``'s ``edge_cols``, here
    ``narrow``): the same cp.async ring, its B copies only ``narrow`` rows a slot (the first
    rows of each B slot), every warp computing a ``64 x narrow`` tile (``narrow / 8``
    m16n8k16 mma.sync a k16 step and 16-row band) from rows ``%bn ..`` of the slot, so the
    warps past the first column of warps compute on rows no copy wrote, for columns past N that the epilogue's bounds-checked
    store leaves alone; the fragments stored straight to D (32-bit pieces)."""
    g = _G.format(t=t)
    fb, c, co = fragment_b(t, narrow), accumulator("f32", narrow), accumulator(t, narrow)
    regs = 2 * narrow
    allocs = (f"  %FBE = memref.alloca() : {fb}\n  %CE = memref.alloca() : {c}\n"
              f"  %COE = memref.alloca() : {co}\n")
    loop = _async_loop(t, sa, sb, bk, stages, narrow, cm=cm, cn=narrow, x="E")
    body = (f"{_zeroed('E', c, regs)}{loop}  // epilogue: round to {t}, 32-bit stores from "
            f"the fragments (bounds-checked)\n{_rounded('E', co, regs, t)}"
            f"""  %em0 = arith.addi %m0, %am : index
  %en0 = arith.addi %n0, %bn : index
  regcopy.copy warp %COE -> %D[%em0, %en0] [64, {narrow}] : {co} -> {g}
""")
    return allocs, body


EPILOGUES = {
    "shared": "stmatrix to shared, 128-bit rows out",
    "convert": "rows of 8 by warp shuffles, 128-bit stores",
}
"""The epilogues: ``shared``, the warps write their rounded fragments to one ``cm x cn``
shared tile (stmatrix) and, after a barrier, the CTA copies it to D through registers in
128-bit rows; ``convert``, each warp converts its fragments into rows of 128-bit chunks
(``regcopy.copy`` between two register tiles: ``rows_layout``; lower-reg-copy picks warp
shuffles, words move within quads of lanes) and stores its own 64 x wn tile, no shared memory
and no barrier. Both stores are bounds-checked against M and N and, where N % 8 != 0, store
each vector realigned as its aligned pieces (``D_STORES``)."""
D_STORES = ' {misaligned_stores = "realigned"}'
"""What the epilogues' stores to D ask for where N misaligns D's rows: realigned pieces, in
place of the cost model's choice for a warp along a row, the shuffled form. On the H200 the
shuffled stores ran these GEMMs no faster (at N = 4097, 0.946-0.956x of N = 4104's speed
against 0.955-0.971x realigned, mma.sync f16, three runs of ``lab/hopper/d_forms_ab.py``;
wgmma bf16 within 1-2% either way), with 2.3x the kernel's SASS (14096 against 6064
instructions, 32-bit index form) and its compile time."""
EPILOGUE = "shared"
"""The example's epilogue (with the example's loop the H200 measured it faster than
``convert``: 361 / 348 against 348 / 346 TFLOPS at 4096^3 / 8192^3)."""
PREFETCH = True
"""Whether the example's loop prefetches (``kernel_text``'s ``prefetch``): the H200 measured
it 1.09x / 1.05x the loop without (438 / 413 against 403 / 392 TFLOPS at 4096^3 / 8192^3,
32-bit index math). Its 64-bit index form spilled (10 to 18 local-memory accesses, by NVRTC
version) until the cp.async rounds of a copy shared one thread base; it has none in either
form now."""
EDGE = False
"""Whether the example's prefetch is the edge-only one (``kernel_text``'s ``edge``)."""
EDGE_COLS = 8
"""The example's narrow edge tile (``kernel_text``'s ``edge_cols``): a CTA with at most 8
columns of D left runs 64 x 8 warp tiles. At 4095 x 4097 (128 x 256 tiles) that makes 512 full
CTAs and 32 cheap ones where there were 544 full ones (five waves of 132 SMs): the H200
measured the padded GEMM at 459 against 364 TFLOPS (bf16, 0.96x of 4096^3 against 0.76x),
and 4096^3 unchanged (482 against 480)."""


def _epilogue(kind: str, t: str, wn: int, cm: int, cn: int, co: str, g: str
              ) -> tuple[str, str]:
    """The allocas and the ops of epilogue ``kind`` (``EPILOGUES``) after the rounding into
    ``%CO`` (a CTA tile ``cm x cn`` of warps ``64 x wn``)."""
    if kind == "shared":
        sc = f"memref<{cm}x{cn}x{t}, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>"
        rc = _rc(t, cm, cn, 32 * (cm // 64) * (cn // wn))
        return (f"  %SC = memref.alloca() : {sc}\n  %RC = memref.alloca() : {rc}\n",
                f"""  regcopy.copy warp %CO -> %SC[%am, %bn] [64, {wn}] : {co} -> {sc}
  "gpu.barrier"() : () -> ()
  regcopy.copy cta %SC -> %RC : {sc} -> {rc}
  regcopy.copy cta %RC -> %D[%m0, %n0] [{cm}, {cn}]{D_STORES} : {rc} -> {g}
""")
    if kind != "convert":
        raise ValueError(f"epilogue {kind!r}: expected one of {', '.join(EPILOGUES)}")
    rw = rows_layout(t, wn)
    return (f"  %RW = memref.alloca() : {rw}\n",
            f"""  regcopy.copy warp %CO -> %RW : {co} -> {rw}
  %wm0 = arith.addi %m0, %am : index
  %wn0 = arith.addi %n0, %bn : index
  regcopy.copy warp %RW -> %D[%wm0, %wn0] [64, {wn}]{D_STORES} : {rw} -> {g}
""")
