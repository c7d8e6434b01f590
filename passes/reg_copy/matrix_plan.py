"""Whether a planned register copy can move as ``ldmatrix``/``stmatrix`` (pure, no IR).

``plan_matrix(acc, plan, shared)`` enumerates the exact map the per-thread path implements,
thread ``t`` (scope-local) and register slot ``s`` -> S element offset relative to the slice
base ``s_base``::

    rel(t, r_base + dr(f) + i) = share(t) + ds(f) + i        (every round f, i < n)

and checks that it is what the PTX instructions
``{ld,st}matrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16`` do (``regcopy.ldmatrix``'s
module doc): each thread's registers split into 32-bit *words* (register offsets ``w * k``,
``k = 32 / element bits`` elements); for a fixed word, the 32 lanes of each warp form one
8x8 b16 matrix of eight 16-byte rows,

* plain: lane ``l``'s word is bytes ``[4(l%4), 4(l%4)+4)`` of row ``l/4``;
* ``.trans`` (16-bit only): half ``h`` of lane ``l``'s word is b16 element ``l/4`` of row
  ``2(l%4)+h``.

Words are grouped, in register order, into instructions of 4 matrices (then 2, then 1).
Lane ``8m + r`` of a warp supplies the start of row ``r`` of matrix ``m`` (lanes
``>= 8 * count`` repeat lanes ``l mod 8 * count``); that row address must be one affine
function of the thread index's bits, ``A(t) = sum((t >> lo) & (2^w - 1)) * c``, plus a constant
per instruction (checked on every thread of the scope). The emitted lane address is
``swizzle(s_base + A(t) + delta)``; each row start must be provably 16-byte aligned, slice
base included, and with a swizzle a row must stay inside one swizzle chunk.

``stmatrix`` needs sm_90 (our only target); ``ldmatrix`` sm_75.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from regcopy_passes.core.banks import WARP, BankReport, instruction_wavefronts
from regcopy_passes.core.dispatch import Accepted
from regcopy_passes.core.planning import CopyPlan, round_deltas

from regcopy_dialect.layout import Scope

ROW_BYTES = 16
"""Bytes of one matrix row (8 b16 elements), also the row-start alignment."""
COUNTS = (4, 2, 1)
"""Matrices per instruction, widest first."""


@dataclass(frozen=True)
class BitField:
    """``((t >> lo) & (2^width - 1)) * coeff``: one term of a lane's row address (elements)."""

    lo: int
    width: int
    coeff: int

    def value(self, t: int) -> int:
        return ((t >> self.lo) & ((1 << self.width) - 1)) * self.coeff


@dataclass(frozen=True)
class MatrixInstruction:
    """One ``.x{count}`` instruction a warp: the register offset of each matrix's word, and
    the lane address ``A(t) + delta`` (elements, relative to the slice base)."""

    registers: tuple[int, ...]
    delta: int
    fields: tuple[BitField, ...]

    @property
    def count(self) -> int:
        return len(self.registers)

    def address(self, t: int) -> int:
        """Thread ``t``'s row address (unswizzled, relative to the slice base)."""
        return self.delta + sum(f.value(t) for f in self.fields)


@dataclass(frozen=True)
class MatrixTransfer:
    """A copy as ld/stmatrix instructions (see the module doc); ``ops`` run in order, every
    lane of every warp of the scope executes each of them."""

    kind: str  # "ldmatrix" (S -> R) or "stmatrix" (R -> S)
    trans: bool
    element_bits: int
    threads: int  # of the scope; the thread index t is below it
    ops: tuple[MatrixInstruction, ...]
    s_base_divisibility: int = 1
    """Provable divisor of the slice base (``CopyPlan.s_base_divisibility``; 0: the base is
    the constant 0), for ``emit_matrix``'s carry-free swizzle."""

    @property
    def instructions(self) -> int:
        """Instructions a warp issues."""
        return len(self.ops)

    @property
    def tables(self) -> tuple[tuple[BitField, ...], ...]:
        """The distinct per-thread address tables (one is the usual case)."""
        return tuple(dict.fromkeys(op.fields for op in self.ops))

    def bank_report(self, plan: CopyPlan) -> BankReport:
        """Shared wavefronts of one warp over all the instructions (the worst warp of the
        scope), by the one bank model (``banks.instruction_wavefronts``): lane ``8m + r``
        supplies the 16-byte row ``r`` of matrix ``m``, and the eight rows of a matrix are
        served together like the eight lanes of a 128-bit access (rows in one 16-byte bank
        group one after the other, the same row at once). The slice base's static part is
        included, its dynamic part taken as a multiple of 128 bytes (as for the per-thread
        path)."""
        eb = self.element_bits // 8
        sw = plan.swizzle
        worst = (0, 0)
        for warp in range(self.threads // WARP):
            wf = ideal = 0
            for op in self.ops:
                rows = [plan.s_base.const + op.address(WARP * warp + lane)
                        for lane in range(8 * op.count)]
                a, i = instruction_wavefronts(
                    [(sw.apply(x) if sw is not None else x) * eb for x in rows], ROW_BYTES)
                wf, ideal = wf + a, ideal + i
            worst = max(worst, (wf, ideal))
        return BankReport(worst[0], worst[1], self.instructions, "instruction")

    @property
    def lane_bytes(self) -> int:
        return 4 * sum(op.count for op in self.ops)

    def mnemonic(self, count: int) -> str:
        return f"{self.kind}.x{count}{'.trans' if self.trans else ''}"

    def describe(self) -> str:
        """E.g. ``ldmatrix.x4 (1 instruction a warp, 16 bytes a lane)``."""
        counts = sorted({op.count for op in self.ops}, reverse=True)
        head = self.mnemonic(counts[0]) + "".join(f"/.x{c}" for c in counts[1:])
        n = self.instructions
        tail = f", {len(self.tables)} address tables" if len(self.tables) > 1 else ""
        return (f"{head} ({n} instruction{'s' if n != 1 else ''} a warp, {self.lane_bytes} "
                f"bytes a lane{tail})")


# ---- the checklist ----------------------------------------------------------------------------


def plan_matrix(acc: Accepted, plan: CopyPlan, shared: bool) -> MatrixTransfer | str:
    """The ld/stmatrix form of an accepted, planned copy, or why there is none (the first
    failing check, in the module doc's order)."""
    if not shared:
        return "S is global memory; ldmatrix/stmatrix move shared memory only"
    if acc.scope is Scope.THREAD:
        return "exec scope thread is not a warp collective"
    if acc.threads % WARP:
        return f"the scope's {acc.threads} threads are not whole warps"
    if plan.replicas > 1 and not acc.r_is_dst:
        return "R is replicated and the copy's source (replica 0 stores); stmatrix would " \
               "have every replica store"
    if plan.guarded:
        return "some lanes own no data (guarded); every lane of a warp must take part"
    eb = acc.element_bits // 8
    if acc.element_bits not in (8, 16, 32):
        return f"{acc.element_bits}-bit elements; ldmatrix/stmatrix move 8-, 16- or 32-bit " \
               "elements"
    if not plan.r_base.is_static:
        return "R's register offset is dynamic; the instructions name registers statically"
    rel = _element_map(plan)
    words = _words(rel, 4 // eb)
    if isinstance(words, str):
        return words
    plain = _matrix_rows(rel, words, eb, False)
    if isinstance(plain, str):
        trans = _matrix_rows(rel, words, eb, True)
        if isinstance(trans, str):
            return f"not 8x8 b16 matrices: {plain}; transposed: {trans}"
        rows, is_trans = trans, True
    else:
        rows, is_trans = plain, False
    ops = _instructions(rows, words, 4 // eb, plan.threads)
    if isinstance(ops, str):
        return ops
    aligned = _alignment(plan, rows, eb)
    if aligned is not None:
        return aligned
    if plan.swizzle is not None and plan.swizzle.chunk * eb < ROW_BYTES:
        return f"{plan.swizzle} keeps {plan.swizzle.chunk * eb} contiguous bytes, less than a " \
               "16-byte matrix row"
    kind = "stmatrix" if not acc.r_is_dst else "ldmatrix"
    return MatrixTransfer(kind, is_trans, acc.element_bits, plan.threads, ops,
                          plan.s_base_divisibility)


def _element_map(plan: CopyPlan) -> list[dict[int, int]]:
    """``rel[t][slot]``: the S element offset (relative to the slice base) of every register
    slot each thread of the scope moves, exactly as the per-thread path addresses it."""
    deltas = [round_deltas(plan.outer, f) for f in range(plan.rounds)]
    out: list[dict[int, int]] = []
    for t in range(plan.threads):
        share, _ = plan.thread_share(t)
        out.append({plan.r_base.const + dr + i: share + ds + i
                    for ds, dr in deltas for i in range(plan.n)})
    return out


def _words(rel: Sequence[dict[int, int]], k: int) -> tuple[int, ...] | str:
    """The word indices (register offset / ``k``) every thread moves whole, in order."""
    slots = set(rel[0])
    if any(set(m) != slots for m in rel):
        return "threads move different register slots"
    words = sorted({s // k for s in slots})
    for w in words:
        if any(w * k + j not in slots for j in range(k)):
            return f"the 32-bit register word at offset {w * k} is only partly copied"
    return tuple(words)


def _matrix_rows(rel: Sequence[dict[int, int]], words: Sequence[int], eb: int,
                 trans: bool) -> dict[tuple[int, int], tuple[int, ...]] | str:
    """``rows[(warp, word)]``: the eight row starts (S element offsets) of the matrix that
    ``word`` forms in ``warp``, when every byte of it is where the instruction puts it."""
    if trans and eb != 2:
        return f"trans needs 16-bit elements, not {8 * eb}-bit"
    k = 4 // eb
    out: dict[tuple[int, int], tuple[int, ...]] = {}
    for warp in range(len(rel) // WARP):
        lanes = rel[WARP * warp: WARP * warp + WARP]
        for w in words:
            if trans:  # row 2c + h starts at lane c's half h
                rows = tuple(lanes[r // 2][w * k + r % 2] for r in range(8))
            else:  # row r starts at lane 4r's first byte
                rows = tuple(lanes[4 * r][w * k] for r in range(8))
            for lane in range(WARP):
                for j in range(k):
                    got = lanes[lane][w * k + j]
                    want = (rows[2 * (lane % 4) + j] + lane // 4 if trans
                            else rows[lane // 4] + (4 * (lane % 4)) // eb + j)
                    if got != want:
                        return (f"lane {lane}'s byte {j * eb} of the word at register {w * k} "
                                f"is byte {got * eb} of the slice, not {want * eb}")
            out[(warp, w)] = rows
    return out


def _instructions(rows: dict[tuple[int, int], tuple[int, ...]], words: Sequence[int], k: int,
                  threads: int) -> tuple[MatrixInstruction, ...] | str:
    """Group the words, in register order, into instructions of 4 (then 2, then 1)
    matrices and find each one's lane address as bit fields of ``t`` plus a constant."""
    ops: list[MatrixInstruction] = []
    start = 0
    while start < len(words):
        count = next(c for c in COUNTS if start + c <= len(words))
        group = words[start:start + count]
        start += count

        def row_of(t: int, count: int = count, group: Sequence[int] = group) -> int:
            lane = (t % WARP) % (8 * count)
            return rows[(t // WARP, group[lane // 8])][lane % 8]

        fields = _bit_fields([row_of(t) for t in range(threads)])
        if fields is None:
            return (f"the row addresses of the matrices at registers "
                    f"{[w * k for w in group]} are not an affine function of the thread "
                    "index's bits")
        ops.append(MatrixInstruction(tuple(w * k for w in group), row_of(0), fields))
    return tuple(ops)


def _bit_fields(values: Sequence[int]) -> tuple[BitField, ...] | None:
    """``values[t] - values[0]`` as ``sum(bit_b(t) * c_b)`` over the bits of ``t``, with
    consecutive bits whose coefficients double merged into one field; None if not affine."""
    bits = (len(values) - 1).bit_length()
    coeff = [values[1 << b] - values[0] for b in range(bits)]
    for t, v in enumerate(values):
        if v - values[0] != sum(c for b, c in enumerate(coeff) if t >> b & 1):
            return None
    fields: list[BitField] = []
    for b, c in enumerate(coeff):
        if c == 0:
            continue
        last = fields[-1] if fields else None
        if last is not None and last.lo + last.width == b and \
                last.coeff << last.width == c:
            fields[-1] = BitField(last.lo, last.width + 1, last.coeff)
        else:
            fields.append(BitField(b, 1, c))
    return tuple(fields)


def _alignment(plan: CopyPlan, rows: dict[tuple[int, int], tuple[int, ...]],
               eb: int) -> str | None:
    """Why some row start is not provably 16-byte aligned (None: all are)."""
    d = plan.s_base_divisibility
    if d and (d * eb) % ROW_BYTES:
        return f"the S slice base is provably a multiple of {d * eb} bytes only, not of 16 " \
               "(a matrix row must start 16-byte aligned)"
    for (warp, w), starts in rows.items():
        for r, start in enumerate(starts):
            if (start * eb) % ROW_BYTES:
                return f"row {r} of the matrix of warp {warp} at register {w * 4 // eb} starts " \
                       f"at byte {start * eb} of the slice, not 16-byte aligned"
    return None
