"""The regcopy IR of the Hopper GEMM (``examples/gemm_hopper.mlir``): TMA ring -> wgmma.

``D[M,N] = A[M,K] * B[N,K]^T`` (both K-major), f32 accumulation, D in the input type (f16 or
bf16); M, N, K runtime extents (K a multiple of 8: TMA needs 16-byte row strides; for any
other K, ``pad_pair_text``'s kernel first copies A and B into K8-wide rows), ragged in all
three (TMA fills zeros past the edges; the epilogue's stores are bounds-checked).

One CTA of 256 threads, two consumer warpgroups, computes a ``CTA_M x CTA_N`` tile of D
(``TILES``: 128 x 256, each warpgroup one 64 x 256 accumulator, or 256 x 128, each warpgroup
two 64 x 128 ones; 128 f32 registers a thread either way, in the m64nNk16 fragment layout;
``choose_tile`` picks the one with fewer waves of CTAs for an M x N output).
K goes 64 at a time through a ``STAGES``-slot ring in dynamic shared memory: per slot, A as
two ``CTA_M / 2`` x 64 tiles (one a warpgroup) and B as one ``CTA_N`` x 64 tile, each loaded
by one ``regcopy.copy_async`` lowered with ``transfer=tma`` (``cp.async.bulk.tensor``, one
elected thread, an mbarrier a slot). The shared tiles are ``auto``: the compiler gives them
the 128-byte swizzle, which is both TMA's ``128B`` mode and wgmma's (K-major, SBO 1024).

Iteration ``k``: (1) wait for K tile ``k`` and meet at a CTA barrier: tile ``k`` has landed
for everyone, and both warpgroups are past their wait for K tile ``k - 2``'s wgmmas;
(2) refill that slot with K tile ``k + STAGES - 2``; (3) issue the wgmmas of the 64-wide K
tile, ``{async}`` (one ``regcopy.wgmma`` an accumulator, four k16 steps each); (4)
``wgmma_wait``: tile ``k - 1``'s are done. After the loop, wait for the last wgmmas, round to
the input type and store, bounds-checked (``EPILOGUES``): ``frag``, straight from the
fragment (32-bit stores, two adjacent elements a thread); ``rows``, converted first by a
register -> register ``regcopy.copy`` into rows of 8 elements a thread (warp shuffles within
each quad of lanes), then 128-bit stores (realigned pieces where N is odd); ``rowwarp``,
converted so that a warp runs along a row (``_rowwarp``: 16 lanes a row, 128 columns at a
time; ``rowwarp256``: whole rows of 256 columns, 32 lanes) where the misalignment of odd-N
rows varies least within a warp instruction. CTAs walk the output in groups of 8 M tiles
(L2 reuse), as the mma.sync kernel does.
"""

from __future__ import annotations

from regcopy_bench.gemm_kernels import D_STORES

BK, THREADS, STAGES = 64, 256, 4
TILES: dict[str, tuple[int, int]] = {"128x256": (128, 256), "256x128": (256, 128)}
"""CTA tiles (M x N). Both run 512 CTAs at 4096^3; at 4095 x 4097 the 128 x 256 tile needs 32
x 17 = 544 CTAs (five waves of the H200's 132 SMs, one CTA an SM), the 256 x 128 one 16 x 33 =
528 (four waves)."""
TILE = "128x256"
"""The CTA tile where both make as many waves (``choose_tile``)."""
EPILOGUES = ("frag", "rows", "rowwarp", "rowwarp256")
"""How the accumulators leave (module doc)."""
EPILOGUE = "rows"
"""The example's epilogue (measured on the H200: 713 against 644 TFLOPS at 4096^3 f16)."""
FORMS: tuple[tuple[str, str], ...] = (
    ("256x128", "rows"), ("128x256", "rows"), ("256x128", "rows-predicated"),
    ("128x256", "frag"), ("256x128", "frag"))
"""(tile, epilogue) forms ``bench_gemm_hopper --candidates`` times; ``rows-predicated``: the
rows epilogue lowered with ``misaligned-stores=predicated`` (odd N: each aligned piece a
predicated store instead of one branch per misalignment). (A persistent schedule, measured
0.64-0.67x of this one at 4096^3 and 8192^3, is kept as an A/B form in lab/ab.)"""
PAD = "pair4x1024"
"""The example's padding for K % 8 != 0: ``pad_pair_text`` with a 4 x 1024 CTA tile, one
launch, a warp along a row (the fastest of ``PADS`` on the H200 in their 32-bit index forms:
37.0 us at 4095 x 4097 x 4093, 3.63 TB/s, against 37.3 for 8 x 512 and 39.6 for 8 x 1024;
the earlier 32 x 256 tile's 32-bit form spills 36 bytes under ptxas's register cap)."""
EXAMPLE: dict[str, tuple[str, int]] = {"128x256": ("rows", 0),
                                       "256x128": ("rowwarp-shuffle", 8)}
"""The example's form of each CTA tile: its epilogue (``EPILOGUES``; ``-shuffle``: its
conversions carry ``{conversion = "shuffle"}``, ``kernel_text``'s ``conversion``) and its
narrow edge tile (``kernel_text``'s ``edge``). The 256 x 128 kernel, the one ``choose_tile``
takes at 4095 x 4097, runs its last column of CTAs as 256 x 8 tiles where N is 1..8 past a
multiple of 128 (on the H200 656 against 645 TFLOPS at 4095 x 4097 x 4096), and converts
its accumulators so that a warp runs along a row, by shuffles (the ragged call 563 against
552 TFLOPS f16 for ``rows``, 584 against 568 bf16): the cost model alone would take the
shared round trip there, after which ptxas serializes the K loop's wgmmas (C7515), so the
copy asks for shuffles itself."""
EDGES: dict[str, int] = {tile: edge for tile, (_, edge) in EXAMPLE.items()}
"""The example's narrow edge tile by CTA tile (``EXAMPLE``)."""


def example_passes() -> str:
    """The pass pipeline that lowers the example's module (``transfer=tma``; each
    conversion's kind is its own ``{conversion = ...}`` where it needs one)."""
    return "lower-reg-copy{transfer=tma}"


def split_epilogue(epilogue: str) -> tuple[str, str, str]:
    """``EPILOGUE[-FORM]...`` -> ``(epilogue, conversion, misaligned-stores form)``: a
    ``FORM`` ``shuffle``/``shared`` is the conversions' own ``{conversion = ...}``, any other
    a ``misaligned-stores`` lowering option (``rows-predicated``, ``rowwarp-shuffle-staged``)."""
    base, *forms = epilogue.split("-")
    conversion = next((f for f in forms if f in ("shuffle", "shared")), "")
    stores = next((f for f in forms if f not in ("shuffle", "shared")), "")
    return base, conversion, stores

_G = "memref<?x?x{t}, #regcopy.mem<global>>"


def _c(t: str, n: int) -> str:
    """A warpgroup's 64 x n accumulator in the m64nNk16 fragment layout."""
    return (f"memref<64x{n}x{t}, #regcopy.layout<(4,2,8,{n // 8},4,2):(1@wid_in_wg,2,4@laneid,"
            "4,1@laneid,1)>, #regcopy.mem<local>>")


def _rows(t: str, n: int) -> str:
    """The same 64 x n tile as rows of 8 elements a thread: lane ``4 g + q`` of warp ``w``
    holds rows ``16 w + g`` and ``16 w + 8 + g``, columns ``8 (4 j + q) ..`` (j < n / 32):
    the fragment's quads exchange words among their four lanes (shuffles, no shared memory)
    and every thread then stores 16-byte vectors."""
    return (f"memref<64x{n}x{t}, #regcopy.layout<(4,2,8,{n // 32},4,8):(1@wid_in_wg,{n // 4},"
            "4@laneid,8,1@laneid,1)>, #regcopy.mem<local>>")


def _rowwarp(t: str, n: int) -> str:
    """The same 64 x n tile with a warp along a row: warp ``w`` keeps its 16 rows ``16 w ..``,
    ``L = min(32, n / 8)`` lanes cover one row, 8 consecutive elements a lane, ``32 / L`` rows
    a round (``kernel_text`` converts at most 128 columns at a time: 16 lanes a row). Every store of a round then starts where its row does (one misalignment class a
    warp and round where N is odd, where the quad layout of ``_rows`` holds rows of every
    class); the conversion from the fragment moves elements across the warp (shuffles)."""
    lanes = min(32, n // 8)
    if lanes == 32:
        layout = "(4,16,32,8):(1@wid_in_wg,8,1@laneid,1)"
    else:
        layout = (f"(4,{16 * lanes // 32},{32 // lanes},{lanes},8):(1@wid_in_wg,8,{lanes}@laneid,"
                  "1@laneid,1)")
    return f"memref<64x{n}x{t}, #regcopy.layout<{layout}>, #regcopy.mem<local>>"


def _out(t: str, n: int, ep: str) -> str:
    """The register tile the epilogue ``ep`` stores from (``rows`` or ``rowwarp``)."""
    return _rowwarp(t, n) if ep.startswith("rowwarp") else _rows(t, n)


def grid(m: int, n: int, tile: str = TILE) -> tuple[int, int, int]:
    """The launch grid for an M x N output: ``ceil(N / CTA_N) x ceil(M / CTA_M)``."""
    cta_m, cta_n = TILES[tile]
    return -(-n // cta_n), -(-m // cta_m), 1


def choose_tile(m: int, n: int, sms: int = 132) -> str:
    """The CTA tile with the fewest waves of ``sms`` CTAs (one CTA an SM) for an M x N output;
    ``TILE`` on a tie. At 4095 x 4097: 128 x 256 makes 544 CTAs (5 waves of 132), 256 x 128
    makes 528 (4)."""
    def waves(tile: str) -> int:
        cta_m, cta_n = TILES[tile]
        return -(-(-(-m // cta_m) * -(-n // cta_n)) // sms)
    return min(TILES, key=lambda x: (waves(x), x != TILE))


def _tile_of(pid: str, p: str, cta_m: int, cta_n: int, wgr: int, indent: str,
             group: int = 8) -> str:
    """IR: the origin ``%{p}m0``, ``%{p}m1`` (second warpgroup's rows), ``%{p}n0`` of tile
    ``pid``, tiles numbered in groups of ``group`` M tiles that walk N together (L2 reuse)."""
    c = f"%c{group}"
    lines = [f"%{p}group = arith.divui {pid}, %width", f"%{p}first = arith.muli %{p}group, {c}",
             f"%{p}left = arith.subi %gy, %{p}first", f"%{p}size = arith.minui %{p}left, {c}",
             f"%{p}inside = arith.remui {pid}, %width",
             f"%{p}pmo = arith.remui %{p}inside, %{p}size", f"%{p}pm = arith.addi %{p}first, %{p}pmo",
             f"%{p}pn = arith.divui %{p}inside, %{p}size", f"%{p}m0 = arith.muli %{p}pm, %c{cta_m}",
             f"%{p}m1 = arith.addi %{p}m0, %c{wgr}", f"%{p}n0 = arith.muli %{p}pn, %c{cta_n}"]
    return "".join(f"{indent}{ln} : index\n" for ln in lines)


def kernel_text(name: str, t: str, stages: int = STAGES, tile: str = TILE,
                epilogue: str = EPILOGUE, edge: int = 0, group: int = 8,
                conversion: str = "") -> str:
    """The kernel ``@name`` for element type ``t`` (module doc). ``edge`` (0, or a multiple
    of 8 below ``CTA_N``): a CTA whose tile has at most ``edge`` columns left in N (the last
    column of CTAs at a ragged N) runs the same pipeline with an ``edge x BK`` B tile (the first
    rows of each B slot) and
    ``m64n{edge}k16`` wgmmas instead (the fragment epilogue), so a one-column edge costs its
    A loads, not a whole tile's tensor work. ``group``: M tiles a group of CTAs walks N
    with (L2 reuse). ``conversion`` (``shuffle``/``shared``; empty: none): the epilogue's
    register -> register copies carry ``{conversion = ...}``, their own choice of kind in
    place of the pass option's."""
    cta_m, cta_n = TILES[tile]
    how_conv = f' {{conversion = "{conversion}"}}' if conversion else ""
    wgr = cta_m // 2  # rows of a warpgroup
    accs = wgr // 64  # 64-row accumulators of a warpgroup
    g = _G.format(t=t)
    sa = f"memref<{stages}x2x{wgr}x{BK}x{t}, #regcopy.layout<auto>, #regcopy.mem<shared.dyn>>"
    ahead = stages - 2  # slot k-1 may still be read by the wgmmas in flight
    assert edge == 0 or (edge % 8 == 0 and 8 <= edge < cta_n), edge
    used = {0, 1, 2, 4, 8, 64, wgr, cta_m, cta_n, BK, stages, ahead, ahead * BK, group,
            *(s * BK for s in range(stages)), *range(stages)}

    def path(cn: str | int, x: str, ep: str) -> tuple[str, str]:
        """``(allocas, body)`` of the pipeline for an N tile of ``cn`` columns, its buffers
        named with ``x`` (``""``: the main tile's %C, %CO, %RO, %acc; both read B from the
        main tile's ring %SB)."""
        n = int(cn)
        c, co = _c("f32", n), _c(t, n)
        regs = 64 * n // 128
        used.add(regs)
        # the edge tile reads its B rows from the first rows of the main tile's B ring
        sb = (f"memref<{stages}x{cta_n}x{BK}x{t}, #regcopy.layout<auto>, "
              "#regcopy.mem<shared.dyn>>")

        def start(k: str, slot: str, out: str, indent: str) -> str:
            return (f"{indent}%{out}a0 = regcopy.copy_async cta %A[%m0, {k}] [{wgr}, {BK}] -> "
                    f"%SA[{slot}, 0, 0, 0] [1, 1, {wgr}, {BK}] : {g} -> {sa}\n"
                    f"{indent}%{out}a1 = regcopy.copy_async cta %A[%m1, {k}] [{wgr}, {BK}] -> "
                    f"%SA[{slot}, 1, 0, 0] [1, 1, {wgr}, {BK}] : {g} -> {sa}\n"
                    f"{indent}%{out}b = regcopy.copy_async cta %B[%n0, {k}] [{n}, {BK}] -> "
                    f"%SB[{slot}, 0, 0] [1, {n}, {BK}] : {g} -> {sb}\n"
                    f"{indent}%{out} = regcopy.async_group %{out}a0, %{out}a1, %{out}b\n")

        acc = [f"%C{x}{i}" if accs > 1 else f"%C{x}" for i in range(accs)]
        allocas = ((f"  %SB = memref.alloca() : {sb}\n" if not x else "")
                   + "".join(f"  {a} = memref.alloca() : {c}\n" for a in acc)
                   + f"  %CO{x} = memref.alloca() : {co}\n")
        # rowwarp converts at most 128 columns at a time (a 32 KiB shared scratch)
        part = min(n, 128) if ep == "rowwarp" else n  # rowwarp256: whole rows of 256
        if ep in ("rows", "rowwarp", "rowwarp256"):
            allocas += f"  %RO{x} = memref.alloca() : {_out(t, part, ep)}\n"
        tokens = ", ".join(["!regcopy.token"] * ahead)
        carried = ", ".join(f"%gk{s} = %g{s}" for s in range(ahead))
        shifted = ", ".join([f"%gk{s}" for s in range(1, ahead)] + ["%gn"])
        storages = "".join(f"  %acc{i} = regcopy.storage {a} : {c} -> memref<{regs}xf32, "
                           "#regcopy.mem<local>>\n" for i, a in enumerate(acc))
        zero = "".join(
            f"  scf.for %i = %c0 to %c{regs} step %c4 {{\n"
            f"    vector.store %zero, %acc{i}[%i] : memref<{regs}xf32, #regcopy.mem<local>>, "
            f"vector<4xf32>\n  }}\n" for i in range(accs))
        mma = "".join(
            f"    regcopy.wgmma warpgroup %SA[%stage, %wg, {64 * i}, 0] [1, 1, 64, {BK}], "
            f"%SB[%stage, 0, 0] [1, {n}, {BK}], {a} {{transpose_b, async}} : {sa}, {sb}, {c}\n"
            for i, a in enumerate(acc))
        out = ("  %mw = arith.addi %m0, %wm : index\n"
               + "".join(f"  %mw{i} = arith.addi %mw, %c64 : index\n" for i in range(1, accs))
               + f"  %out = regcopy.storage %CO{x} : {co} -> memref<{regs}x{t}, "
               "#regcopy.mem<local>>\n")
        for i in range(accs):
            mw = f"%mw{i}" if i else "%mw"
            out += (f"  scf.for %i = %c0 to %c{regs} step %c4 {{\n"
                    f"    %v = vector.load %acc{i}[%i] : memref<{regs}xf32, "
                    "#regcopy.mem<local>>, vector<4xf32>\n"
                    f"    %h = arith.truncf %v : vector<4xf32> to vector<4x{t}>\n"
                    f"    vector.store %h, %out[%i] : memref<{regs}x{t}, "
                    f"#regcopy.mem<local>>, vector<4x{t}>\n  }}\n")
            if ep in ("rows", "rowwarp", "rowwarp256") and part < n:
                ro = _out(t, part, ep)
                for j in range(0, n, part):
                    nj = f"%n0_{j}" if j else "%n0"
                    if j and i == 0:
                        out += f"  {nj} = arith.addi %n0, %c{j} : index\n"
                        used.add(j)
                    out += (f"  regcopy.copy warpgroup %CO{x}[0, {j}] [64, {part}] -> %RO{x}"
                            f"{how_conv} : {co} -> {ro}\n"
                            f"  regcopy.copy warpgroup %RO{x} -> %D[{mw}, {nj}] [64, {part}]"
                            f"{D_STORES} : {ro} -> {g}\n")
            elif ep in ("rows", "rowwarp", "rowwarp256"):
                ro = _out(t, n, ep)
                out += (f"  regcopy.copy warpgroup %CO{x} -> %RO{x}{how_conv} : {co} -> {ro}\n"
                        f"  regcopy.copy warpgroup %RO{x} -> %D[{mw}, %n0] [64, {n}]"
                        f"{D_STORES} : {ro} -> {g}\n")
            else:
                out += (f"  regcopy.copy warpgroup %CO{x} -> %D[{mw}, %n0] [64, {n}] "
                        f": {co} -> {g}\n")
        how = {"rows": "convert to rows of 8 a thread, 128-bit stores",
               "rowwarp": "convert to a warp along a row, 8 a lane, 128-bit stores",
               "rowwarp256": "convert to a warp along a whole row, 8 a lane, 128-bit stores",
               "frag": "32-bit stores from the fragment"}[ep]
        prologue = "".join(start(f"%c{s * BK}", f"%c{s}", f"g{s}", "  ") for s in range(ahead))
        refill = f"""    // 2. refill slot k-2 with K tile k+{ahead} (an empty group past the end)
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
"""
        body = f"""  // the accumulators start at zero
{storages}{zero}  // prologue: K tiles 0 .. {ahead - 1} in flight
{prologue}  %done:{ahead} = scf.for %k = %c0 to %K step %c{BK} iter_args({carried}) -> ({tokens}) {{
    %kt = arith.divui %k, %c{BK} : index
    %stage = arith.remui %kt, %c{stages} : index
    // 1. K tile k has landed, for every thread (its own copies, then everyone's), and both
    //    warpgroups are done with K tile k-2 (their wgmma_wait of iteration k-1)
    regcopy.async_wait %gk0 {{pending = {ahead - 1} : i64}}
    "gpu.barrier"() : () -> ()
{refill}    // 3. the wgmmas of slot k (four k16 steps an accumulator), not waited for
{mma}    // 4. K tile k-1's wgmmas are done (k's may still run)
    regcopy.wgmma_wait {{pending = {accs} : i64}}
    scf.yield {shifted} : {tokens}
  }}
  regcopy.wgmma_wait {{pending = 0 : i64}}
  // epilogue: round to {t} in the fragment layout; {how} (bounds-checked)
{out}"""
        return allocas, body

    def nest(text: str) -> str:
        return "".join(f"  {ln}" if ln else ln for ln in text.splitlines(keepends=True))

    main_allocas, body = path(cta_n, "", epilogue)
    allocas = f"  %SA = memref.alloca() : {sa}\n" + main_allocas
    if edge:
        edge_allocas, edge_body = path(edge, "E", "frag")
        allocas += edge_allocas
        used.add(edge)
        body = (f"  // the last column of CTAs with at most {edge} columns left: a {cta_m} x "
                f"{edge} tile\n  %N = memref.dim %B, %c0 : {g}\n"
                "  %rest = arith.subi %N, %n0 : index\n"
                f"  %narrow = arith.cmpi ule, %rest, %c{edge} : index\n"
                f"  scf.if %narrow {{\n{nest(edge_body)}  }} else {{\n{nest(body)}  }}\n")
    # the main tile's B ring first, as before the edge form existed
    allocas = allocas.replace(f"  %SA = memref.alloca() : {sa}\n", "", 1)
    allocas = f"  %SA = memref.alloca() : {sa}\n" + allocas
    consts = "".join(f"  %c{v} = arith.constant {v} : index\n" for v in sorted(used))
    return f"""func.func @{name}(%A: {g} {{regcopy.divisibility = array<i64: 1, 8>}},
    %B: {g} {{regcopy.divisibility = array<i64: 1, 8>}},
    %D: {g})
    attributes {{regcopy.launch = #regcopy.launch<block = {THREADS}, grid = [1, 1]>}} {{
{allocas}{consts}  %zero = arith.constant dense<0.0> : vector<4xf32>
  %K = memref.dim %A, %c1 : {g}
  %tid = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  // this thread's warpgroup: rows {wgr} wg .. of the CTA's tile
  %wg = arith.divui %tid, %c128 : index
  %wm = arith.muli %wg, %c{wgr} : index
  %bx = "gpu.block_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %by = "gpu.block_id"() <{{dimension = #gpu<dim y>}}> : () -> index
  // the CTA's tile (pm, pn), in groups of {group} M tiles that walk N together (L2 reuse)
  %gx = "gpu.grid_dim"() <{{dimension = #gpu<dim x>}}> : () -> index
  %gy = "gpu.grid_dim"() <{{dimension = #gpu<dim y>}}> : () -> index
  %byx = arith.muli %by, %gx : index
  %pid = arith.addi %byx, %bx : index
  %width = arith.muli %gx, %c{group} : index
{_tile_of("%pid", "", cta_m, cta_n, wgr, "  ", group)}{body}  func.return
}}
"""


PAD_COLS = 256
PAD_ROWS = (32, 64)
"""Rows of a CTA's tile in ``pad_pair_text``'s first form (4 or 8 rows a thread)."""
PADS: dict[str, tuple[int, int]] = {
    "pair32": (32, 256), "pair64": (64, 256), "pair8x2048": (8, 2048),
    "pair16x1024": (16, 1024), "pair8x1024": (8, 1024), "pair8x512": (8, 512),
    "pair4x1024": (4, 1024), "pair2x1024": (2, 1024), "pair4x512": (4, 512)}
"""Paddings by name: the CTA tile (rows x columns) of ``pad_pair_text``, one launch.
``pair8x2048`` is bench_ragged's wide row tile in bytes (its f32 8 x 1024 and bf16 8 x 2048:
8 rows, a warp 512 contiguous bytes of one row, the CTA a whole 4 KiB of it)."""


def _pad_layout(rows: int, cols: int) -> str:
    """256 threads over a ``rows x cols`` tile, 8 consecutive elements a thread and row: ``cols
    / 8`` threads a row, ``2048 / cols`` rows a round (a warp's 32 vectors along one row)."""
    per = cols // 8
    if per == 256:
        return f"({rows},256,8):(8,1@tx,1)"
    return f"({rows * per // 256},{256 // per},{per},8):(8,{per}@tx,1@tx,1)"


def pad_pair_text(name: str, t: str, rows: int = 32, cols: int = PAD_COLS) -> str:
    """``@name``: both operands' row padding in one launch, ``Y1 = X1`` and ``Y2 = X2`` padded
    as ``@pad_rows`` does (``Y[r, c] = X[r, c]`` for ``c < K``, 0 up to ``K8``), block z
    picking the pair (grid ``ceil(K8 / 256) x ceil(max(R1, R2) / rows) x 2``; a CTA past its
    operand's rows stores nothing: the copies are bounds-checked). 256 threads copy a
    ``rows x cols`` tile (``cols`` 256 .. 2048), 8 consecutive elements a thread and row
    (``_pad_layout``)."""
    assert cols % 256 == 0 and cols <= 2048 and rows * cols % 2048 == 0, (rows, cols)
    g = f"memref<?x?x{t}, #regcopy.mem<global>>"
    gy = f"memref<?x?x{t}, #regcopy.mem<global>>"
    r = f"memref<{rows}x{cols}x{t}, #regcopy.layout<{_pad_layout(rows, cols)}>, #regcopy.mem<local>>"

    def pair(x: str, y: str) -> str:
        return (f"    regcopy.copy cta %{x}[%r0, %k0] [{rows}, {cols}] -> %R : {g} -> {r}\n"
                f"    regcopy.copy cta %R -> %{y}[%r0, %k0] [{rows}, {cols}] : {r} -> {gy}\n")
    promise = "{regcopy.divisibility = array<i64: 1, 8>}"
    return f"""func.func @{name}(%X1: {g}, %Y1: {gy} {promise}, %X2: {g}, %Y2: {gy} {promise})
    attributes {{regcopy.launch = #regcopy.launch<block = 256, grid = [1, 1, 2]>}} {{
  %R = memref.alloca() : {r}
  %c0 = arith.constant 0 : index
  %crows = arith.constant {rows} : index
  %c{cols} = arith.constant {cols} : index
  %bx = "gpu.block_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %by = "gpu.block_id"() <{{dimension = #gpu<dim y>}}> : () -> index
  %bz = "gpu.block_id"() <{{dimension = #gpu<dim z>}}> : () -> index
  %r0 = arith.muli %by, %crows : index
  %k0 = arith.muli %bx, %c{cols} : index
  %first = arith.cmpi eq, %bz, %c0 : index
  scf.if %first {{
{pair("X1", "Y1")}  }} else {{
{pair("X2", "Y2")}  }}
  func.return
}}
"""


def pad_pair_grid(rows1: int, rows2: int, k8: int, rows: int = 32,
                  cols: int = PAD_COLS) -> tuple[int, int, int]:
    """The launch grid of ``pad_pair_text``."""
    return -(-k8 // cols), -(-max(rows1, rows2) // rows), 2


def example_kernels() -> list[str]:
    """The kernels of examples/gemm_hopper.mlir: both CTA tiles in their ``EXAMPLE`` forms
    (``@gemm_hopper`` for ``TILE``, ``@gemm_hopper_256x128`` for the other), f16 and bf16,
    then the paddings ``@pad_pair``, ``@pad_pair_bf16`` (``PAD``)."""
    kernels = []
    for tile, (epilogue, edge) in EXAMPLE.items():
        suffix = "" if tile == TILE else f"_{tile}"
        for t in ("f16", "bf16"):
            name = f"gemm_hopper{suffix}" + ("_bf16" if t == "bf16" else "")
            base, conversion, _ = split_epilogue(epilogue)
            kernels.append(kernel_text(name, t, tile=tile, epilogue=base, edge=edge,
                                       conversion=conversion))
    rows, cols = PADS[PAD]
    return kernels + [pad_pair_text("pad_pair", "f16", rows, cols),
                      pad_pair_text("pad_pair_bf16", "bf16", rows, cols)]
