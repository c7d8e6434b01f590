"""Test helper: build copy-only kernels, lower them, run every thread on the CPU and compare
with the placement the layout algebra predicts.

A ``CopyCase`` describes one ``regcopy.copy`` between a register tile R (``local``) and a
buffer S (``global`` kernel argument, or ``shared``/``shared.dyn`` alloca). ``check_copy``

1. prints the kernel as text IR and parses it twice: the original, and one lowered by
   ``LowerRegCopyPass`` (with the given options);
2. computes, *independently of the pass*, where every logical element l of the region lives:
   its owner threads and register slot in R and its physical address in S
   (``Layout.apply`` on the unsliced layouts, cross-checked against ``slice_region``);
3. runs the original (through the reference semantics of ``regcopy.copy`` in
   ``regcopy_backend.interpreter.driver``) and, if the pass accepted the copy, the lowered kernel, for
   every thread of every block, from the same initial memory:
   S -> R: S holds ``("s", addr)`` everywhere, every register holds a sentinel;
   R -> S: S holds sentinels, each thread's *owned* register slots hold ``("r", t, slot)``
   (``t`` the thread's index inside its scope group), the others a junk value;
4. compares the final S and all registers with the prediction: S -> R fills exactly the owned
   slots with ``("s", addr(l))`` and leaves S and every other register as they were; R -> S
   writes exactly the region's addresses with the owner's register value and leaves every
   other address (and every register) as it was; and compares the lowered run with the
   reference run (differential).

It returns the ``Lowering`` numbers read from the lowered IR (vector width, rounds, guard).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from math import prod
from typing import Any, cast

import numpy as np
from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf, vector
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp, VectorType
from xdsl.ir import Operation, SSAValue
from xdsl.parser import Parser

from regcopy_backend.interpreter.driver import (
    Buffer,
    gpu_state,
    launch,
    make_interpreter,
    threads_of,
)
from regcopy_dialect.address import idx2crd
from regcopy_dialect.index_math import INT_MATH
from regcopy_dialect.layout import THREAD_AXES, Layout, slice_region
from regcopy_dialect.context import regcopy_context
from regcopy_dialect.regcopy import CopyOp, StorageOp, buffer_layout
from regcopy_passes.core.dispatch import Rejected, accept
from regcopy_passes.lower_reg_copy import LowerRegCopyPass, plan_for
from regcopy_passes.reg_copy.transfer import VectorTransfer

SCOPE_THREADS = {"thread": 1, "warp": 32, "warpgroup": 128}


# --------------------------------------------------------------------------------------------
# Parsing and lowering
# --------------------------------------------------------------------------------------------


@cache
def context() -> Context:
    """A context with every dialect the copy kernels use."""
    return regcopy_context()


def parse(text: str) -> ModuleOp:
    module = Parser(context(), text, "case.mlir").parse_module()
    module.verify()
    return module


def lower(text: str, **options: Any) -> ModuleOp:
    """Parse ``text`` and apply ``LowerRegCopyPass(**options)``; the result verifies."""
    module = parse(text)
    LowerRegCopyPass(**options).apply(context(), module)
    module.verify()
    return module


def rejection_reason(text: str) -> str | None:
    """Why the register dispatch rejects the (first) copy of ``text``; None if it accepts."""
    op = next(op for op in parse(text).walk() if isinstance(op, CopyOp))
    try:
        accept(op)
    except Rejected as reason:
        return str(reason)
    return None


@dataclass(frozen=True)
class Lowering:
    """What the pass made of a copy: from its plan (``planned_lowering``: the transfer the
    plan names) or read back from the lowered IR (``lowering_numbers``)."""

    accepted: bool
    vec: int | None = None  # elements per vector.load (None: not a vector transfer)
    rounds: int | None = None  # rounds (vector) or instructions a warp (matrix transfers)
    guarded: bool = False  # the transfers sit in an scf.if
    kind: str = "vector"  # the transfer kind (``VectorTransfer.kind``, "ldmatrix", ...)


def planned_lowering(text: str, **options: Any) -> Lowering:
    """The pass's plan for the (first) copy of ``text`` under pass ``options``, through the
    transfer it names (``plan_for``: the pass's own entry point)."""
    op = next(o for o in parse(text).walk() if isinstance(o, CopyOp))
    try:
        lp = plan_for(op, options.get("max_vector_bits", 128),
                      options.get("bank_rotation", "auto") == "auto",
                      options.get("transfer", "auto"))
    except Rejected:
        return Lowering(False)
    t = lp.transfer
    if isinstance(t, VectorTransfer):
        return Lowering(True, t.n, t.rounds, lp.copy.guarded)
    return Lowering(True, None, t.instructions, lp.copy.guarded, t.kind)


def _constant(v: SSAValue) -> int:
    op = v.owner
    assert isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr), \
        f"expected a constant, got {op}"
    return op.value.value.data


def lowering_numbers(module: ModuleOp) -> Lowering:
    """Vector width, rounds and guard of the (single) lowered copy in ``module``."""
    if any(isinstance(op, CopyOp) for op in module.walk()):
        return Lowering(False)
    loads = [op for op in module.walk() if isinstance(op, vector.LoadOp)]
    assert loads, "expected a vector.load"
    (vec,) = cast(VectorType, loads[0].result.type).get_shape()
    rounds, guarded = 1, False
    parent = loads[0].parent_op()
    if len(loads) > 1:  # lane-rotated rounds: unrolled, one load a round, in one block
        assert all(op.parent_op() is parent for op in loads), "loads in different blocks"
        rounds = len(loads)
    # the rounds loop holds the transfer directly; the storages are hoisted out of it (a
    # loop of the user's around the copy holds them)
    elif isinstance(parent, scf.ForOp) and not any(isinstance(op, StorageOp)
                                                 for op in parent.body.block.ops):
        lb, ub, step = (_constant(v) for v in (parent.lb, parent.ub, parent.step))
        rounds = len(range(lb, ub, step))
        parent = parent.parent_op()
    if isinstance(parent, scf.IfOp):
        guarded = True
    return Lowering(True, vec, rounds, guarded)


# --------------------------------------------------------------------------------------------
# Describing a copy
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BlockRow:
    """A dynamic offset: ``block_id.x * factor`` (an ``index`` SSA value in the kernel)."""

    factor: int

    def value(self, block_id: int) -> int:
        return block_id * self.factor


Offset = int | BlockRow


@dataclass(frozen=True)
class Side:
    """One operand: shape, ``#regcopy.layout`` body (None: row-major), memory space and the
    region (None: the whole buffer)."""

    shape: tuple[int, ...]
    space: str
    layout: str | None = None
    offsets: tuple[Offset, ...] | None = None
    sizes: tuple[int, ...] | None = None

    def type_text(self, dtype: str) -> str:
        dims = "x".join(map(str, self.shape))
        lay = f", #regcopy.layout<{self.layout}>" if self.layout else ""
        return f"memref<{dims}x{dtype}{lay}, #regcopy.mem<{self.space}>>"

    def region_offsets(self, block_id: int = 0) -> tuple[int, ...]:
        offs = self.offsets if self.offsets is not None else (0,) * len(self.shape)
        return tuple(o.value(block_id) if isinstance(o, BlockRow) else o for o in offs)

    @property
    def region_sizes(self) -> tuple[int, ...]:
        return self.sizes if self.sizes is not None else self.shape


@dataclass(frozen=True)
class CopyCase:
    """A kernel with one register tile ``%R``, one buffer ``%S`` and one copy between them."""

    r: Side
    s: Side
    dtype: str = "f32"
    scope: str = "warp"
    block: int = 32
    grid: int = 1

    @property
    def scope_threads(self) -> int:
        return SCOPE_THREADS.get(self.scope, self.block)

    def kernel_text(self, r_to_s: bool) -> str:
        """The kernel ``@kernel`` as text IR, copying R -> S or S -> R."""
        st, rt = self.s.type_text(self.dtype), self.r.type_text(self.dtype)
        s_global = self.s.space == "global"
        lines = [f"  %R = memref.alloca() : {rt}"]
        if not s_global:
            lines.append(f"  %S = memref.alloca() : {st}")
        s_ref = _operand("%S", self.s, lines)
        r_ref = _operand("%R", self.r, lines)
        if r_to_s:
            lines.append(f"  regcopy.copy {self.scope} {r_ref} -> {s_ref} : {rt} -> {st}")
        else:
            lines.append(f"  regcopy.copy {self.scope} {s_ref} -> {r_ref} : {st} -> {rt}")
        params = f"%S: {st}" if s_global else ""
        launch_attr = f"#regcopy.launch<block = {self.block}, grid = [{self.grid}]>"
        return (f"func.func @kernel({params}) attributes {{regcopy.launch = {launch_attr}}} {{\n"
                + "\n".join(lines) + "\n  func.return\n}\n")


def _operand(name: str, side: Side, lines: list[str]) -> str:
    """``%S[offsets] [sizes]`` (emitting the ops of dynamic offsets into ``lines``)."""
    if side.offsets is None:
        return name
    texts: list[str] = []
    for d, o in enumerate(side.offsets):
        if isinstance(o, int):
            texts.append(str(o))
            continue
        v = f"{name[1:]}_off{d}"
        lines.append(f'  %{v}_bid = "gpu.block_id"() <{{dimension = #gpu<dim x>}}> : () -> index')
        lines.append(f"  %{v}_k = arith.constant {o.factor} : index")
        lines.append(f"  %{v} = arith.muli %{v}_bid, %{v}_k : index")
        texts.append(f"%{v}")
    return f"{name}[{', '.join(texts)}] [{', '.join(map(str, side.region_sizes))}]"


# --------------------------------------------------------------------------------------------
# The expected placement, from the layout algebra
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Element:
    """Logical element ``l`` of the region: R owner threads (CTA-local ids), register slot,
    and S physical address."""

    l: int
    owners: tuple[int, ...]
    slot: int
    addr: int


@cache
def memref_type(side: Side, dtype: str) -> MemRefType:
    t = parse(f"func.func @f(%a: {side.type_text(dtype)}) {{\n  func.return\n}}\n")
    fn = t.body.block.first_op
    assert isinstance(fn, func.FuncOp)
    ty = fn.function_type.inputs.data[0]
    assert isinstance(ty, MemRefType)
    return ty


def side_layout(side: Side, dtype: str) -> Layout:
    return buffer_layout(memref_type(side, dtype))


def _full_index(side: Side, l: int, block_id: int) -> int:
    """Row-major flat index in the whole buffer of the ``l``-th element of the region."""
    rel = idx2crd(INT_MATH, l, side.region_sizes)
    idx = [o + r for o, r in zip(side.region_offsets(block_id), rel, strict=True)]
    flat = 0
    for i, n in zip(idx, side.shape, strict=True):
        assert 0 <= i < n
        flat = flat * n + i
    return flat


@cache
def _threads_by_axes(axes: tuple[str, ...], block: int) -> dict[tuple[int, ...], tuple[int, ...]]:
    """CTA-local threads grouped by their values on ``axes`` (``ThreadAxis.value``)."""
    groups: dict[tuple[int, ...], list[int]] = {}
    for t in range(block):
        groups.setdefault(tuple(THREAD_AXES[a].value(t) for a in axes), []).append(t)
    return {k: tuple(v) for k, v in groups.items()}


def owners_of(axes: dict[str, int], block: int) -> tuple[int, ...]:
    """The CTA-local threads whose thread-axis values are ``axes``."""
    names = tuple(sorted(axes))
    return _threads_by_axes(names, block).get(tuple(axes[a] for a in names), ())


@cache
def placement(case: CopyCase, block_id: int = 0) -> tuple[Element, ...]:
    """Where each logical region element lives, from ``Layout.apply`` on the unsliced layouts;
    for a static region also checked against ``slice_region`` (sliced layout + base)."""
    r_lay, s_lay = side_layout(case.r, case.dtype), side_layout(case.s, case.dtype)
    n = prod(case.r.region_sizes)
    assert n == prod(case.s.region_sizes)
    out: list[Element] = []
    for l in range(n):
        axes, slot = r_lay.apply(_full_index(case.r, l, block_id))
        _, addr = s_lay.apply(_full_index(case.s, l, block_id))
        out.append(Element(l, owners_of(axes, case.block), slot, addr))
    _cross_check_sliced(case, out, r_lay, s_lay, block_id)
    return tuple(out)


def _cross_check_sliced(case: CopyCase, elems: Sequence[Element], r_lay: Layout,
                        s_lay: Layout, block_id: int) -> None:
    r_sl = slice_region(r_lay, case.r.shape, case.r.region_offsets(block_id),
                        case.r.region_sizes)
    s_sl = slice_region(s_lay.without_swizzle(), case.s.shape,
                        case.s.region_offsets(block_id), case.s.region_sizes)
    # a thread iter that the region cuts to one value is dropped from the sliced layout:
    # its axis then has the value recorded in thread_base (0 when absent)
    all_axes = {i.axis for i in r_lay.thread_iters if i.axis is not None}
    base = dict(r_sl.thread_base)
    for e in elems:
        sliced_axes, mem = r_sl.layout.apply(e.l)
        axes = {a: base.get(a, 0) + sliced_axes.get(a, 0) for a in all_axes}
        assert mem + r_sl.base.const == e.slot, f"sliced R disagrees at l={e.l}"
        assert owners_of(axes, case.block) == e.owners, f"sliced R owners disagree at l={e.l}"
        _, s_mem = s_sl.layout.apply(e.l)
        s_addr = s_mem + s_sl.base.const
        if s_lay.swizzle is not None:
            s_addr = s_lay.swizzle.apply(s_addr)
        assert s_addr == e.addr, f"sliced S disagrees at l={e.l}: {s_addr} vs {e.addr}"


# --------------------------------------------------------------------------------------------
# Running and comparing
# --------------------------------------------------------------------------------------------

SENTINEL_REG = ("unset-register",)


def s_value(addr: int) -> tuple[str, int]:
    return ("s", addr)


def s_sentinel(addr: int) -> tuple[str, int]:
    return ("s-sentinel", addr)


def r_value(t_local: int, slot: int) -> tuple[str, int, int]:
    return ("r", t_local, slot)


def r_junk(tid: int, slot: int) -> tuple[str, int, int]:
    return ("r-junk", tid, slot)


@dataclass
class Memory:
    """The final state of a run: S's storage (per block for shared S) and every thread's
    registers, keyed by ``(block x, tid)``."""

    s: dict[int, list[Any]] = field(default_factory=dict[int, list[Any]])
    regs: dict[tuple[int, int], list[Any]] = field(default_factory=dict)


def find_alloca(module: ModuleOp, name: str) -> Operation | None:
    """The ``memref.alloca`` whose result is ``%name``."""
    for op in module.walk():
        if isinstance(op, memref.AllocaOp) and op.memref.name_hint == name:
            return op
    return None


@cache
def owned_slots(case: CopyCase) -> dict[tuple[int, int], set[int]]:
    """``(block x, tid) -> register slots it owns in the region``."""
    owned: dict[tuple[int, int], set[int]] = {}
    for b in range(case.grid):
        for e in placement(case, b):
            for t in e.owners:
                owned.setdefault((b, t), set()).add(e.slot)
    return owned


def run_case(case: CopyCase, module: ModuleOp, r_to_s: bool) -> Memory:
    """Run ``module``'s kernel for every thread from the initial memory described in the
    module docstring; return the final memory.

    A kernel that computes on the values it moves (a lane rotation's multiply-add swaps:
    ``vector.broadcast`` of the lane bits, ``arith.subi``/``muli``/``addi`` on the words)
    cannot run on the symbolic tags: it runs on distinct numbers of the element type standing
    for them (``TagCodes``), decoded back to tags after the run, so the comparisons are the
    same."""
    if not any(isinstance(op, vector.BroadcastOp) for op in module.walk()):
        return _run(case, module, r_to_s, lambda tag: tag)
    codes = TagCodes(case.dtype)
    memory = _run(case, module, r_to_s, codes.encode)
    return Memory({b: [codes.decode(v) for v in s] for b, s in memory.s.items()},
                  {k: [codes.decode(v) for v in r] for k, r in memory.regs.items()})


@dataclass
class TagCodes:
    """Distinct values of the element type ``dtype`` standing for the harness's tags, in order
    of first use: the ``k``-th is ``k`` (integers, in two's complement of the width; bf16 and
    fp8 raw bits) or the ``k``-th non-negative finite value (f16: bit patterns from 0; f32 and
    f64: the float ``k``, exact below 2^24). More tags than values is a test error."""

    dtype: str
    codes: dict[Any, Any] = field(default_factory=dict[Any, Any])
    tags: dict[Any, Any] = field(default_factory=dict[Any, Any])

    def value(self, k: int) -> Any:
        if self.dtype in ("f32", "f64"):
            assert k < 1 << 24, "too many tags for exact floats"
            return float(k)
        if self.dtype == "f16":
            assert k < 0x7C00, "too many tags for f16"
            return float(np.array([k], dtype=np.uint16).view(np.float16)[0])
        bits = int(self.dtype.lstrip("uisbf").split("e")[0] or 0) if self.dtype[0] in "iu" \
            else (16 if self.dtype == "bf16" else 8)
        assert k < 1 << bits, f"too many tags for {self.dtype}"
        if self.dtype[0] == "i" and k >= 1 << (bits - 1):
            return k - (1 << bits)
        return k

    def encode(self, tag: Any) -> Any:
        if tag not in self.codes:
            code = self.value(len(self.codes))
            self.codes[tag], self.tags[code] = code, tag
        return self.codes[tag]

    def decode(self, value: Any) -> Any:
        return self.tags.get(value, ("not a tag", value))


def _run(case: CopyCase, module: ModuleOp, r_to_s: bool, enc: Any) -> Memory:
    """``run_case`` with every initial value passed through ``enc``."""
    interp = make_interpreter(module)
    state = gpu_state(interp)
    s_type = memref_type(case.s, case.dtype)
    r_alloca, s_alloca = find_alloca(module, "R"), find_alloca(module, "S")
    assert r_alloca is not None
    init_s = s_sentinel if r_to_s else s_value
    owned = owned_slots(case) if r_to_s else {}
    global_s = Buffer.new(s_type)
    global_s.storage = [enc(init_s(p)) for p in range(len(global_s.storage))]
    memory = Memory()
    for th in threads_of(case.block, (case.grid, 1, 1)):
        b, t = th.block_id[0], th.tid[0]
        regs = state.buffer_for(r_alloca, th.block_id, t)
        mine = owned.get((b, t), set())
        t_local = t % case.scope_threads
        regs.storage = [enc(r_value(t_local, k) if k in mine else
                            (r_junk(t, k) if r_to_s else SENTINEL_REG))
                        for k in range(len(regs.storage))]
        memory.regs[(b, t)] = regs.storage
        if s_alloca is not None and t == 0:
            shared = state.buffer_for(s_alloca, th.block_id)
            shared.storage = [enc(init_s(p)) for p in range(len(shared.storage))]
            memory.s[b] = shared.storage
    args = () if s_alloca is not None else (global_s,)
    launch(interp, "kernel", args)
    if s_alloca is None:
        memory.s = {b: global_s.storage for b in range(case.grid)}
    return memory


def expected_memory(case: CopyCase, r_to_s: bool, s_size: int, n_regs: int) -> Memory:
    """The memory the copy must leave behind (see the module docstring)."""
    memory = Memory()
    global_s = case.s.space == "global"
    shared_s: list[Any] = []
    for b in range(case.grid):
        if not global_s or b == 0:
            shared_s = [s_sentinel(p) if r_to_s else s_value(p) for p in range(s_size)]
        memory.s[b] = shared_s
        for t in range(case.block):
            memory.regs[(b, t)] = [SENTINEL_REG] * n_regs
    owned = owned_slots(case) if r_to_s else {}
    for b in range(case.grid):
        for t in range(case.block):
            for k in range(n_regs):
                if r_to_s:
                    memory.regs[(b, t)][k] = (r_value(t % case.scope_threads, k)
                                              if k in owned.get((b, t), set()) else r_junk(t, k))
        for e in placement(case, b):
            if r_to_s:
                # owners in different groups of the scope hold the same value (values depend
                # on the scope-local index); owners inside one group (a replicated layout,
                # which the pass rejects) race: threads run in order, so the last one wins
                if e.owners:
                    memory.s[b][e.addr] = r_value(e.owners[-1] % case.scope_threads, e.slot)
            else:
                for t in e.owners:
                    memory.regs[(b, t)][e.slot] = s_value(e.addr)
    return memory


def diff_memory(got: Memory, want: Memory, limit: int = 8) -> list[str]:
    """Human-readable differences (at most ``limit``)."""
    out: list[str] = []
    for b, s in want.s.items():
        for p, (g, w) in enumerate(zip(got.s[b], s, strict=True)):
            if g != w:
                out.append(f"block {b} S[{p}] = {g}, expected {w}")
    for key, regs in want.regs.items():
        for k, (g, w) in enumerate(zip(got.regs[key], regs, strict=True)):
            if g != w:
                out.append(f"block {key[0]} thread {key[1]} R[{k}] = {g}, expected {w}")
    return out[:limit] + ([f"... {len(out) - limit} more"] if len(out) > limit else [])


def memory_problems(case: CopyCase, module: ModuleOp, r_to_s: bool,
                    got: Memory | None = None) -> list[str]:
    """Run ``module`` (the original or a lowering of ``case``; or take its final memory
    ``got``) and list how its final memory differs from the expected one (empty: correct)."""
    s_size = storage_len(case.s, case.dtype)
    n_regs = storage_len(case.r, case.dtype)
    want = expected_memory(case, r_to_s, s_size, n_regs)
    return diff_memory(got if got is not None else run_case(case, module, r_to_s), want)


def storage_len(side: Side, dtype: str) -> int:
    """Physical elements of a buffer (one thread's registers for local)."""
    return len(Buffer.new(memref_type(side, dtype)).storage)


class MisLowered(AssertionError):
    """The lowered (or reference) run disagrees with the expected placement."""


def check_copy(case: CopyCase, r_to_s: bool, *, require_accepted: bool = True,
               **options: Any) -> Lowering:
    """Lower ``case`` (pass ``options``), run original and lowered for every thread, compare
    both with the layout-algebra placement. Raises ``MisLowered`` with the first differences;
    returns the lowering numbers. With ``require_accepted`` a rejected copy is a failure."""
    text = case.kernel_text(r_to_s)
    lowered = lower(text, **options)
    numbers = planned_lowering(text, **options)
    if numbers.kind == VectorTransfer.kind:  # the IR holds what the plan says
        assert lowering_numbers(lowered) == numbers, (lowering_numbers(lowered), numbers)
    if require_accepted and not numbers.accepted:
        raise MisLowered(f"the pass rejected the copy:\n{text}")
    runs: list[tuple[str, ModuleOp]] = [("reference", parse(text))]
    if numbers.accepted:
        runs.append(("lowered", lowered))
    finals: list[Memory] = []
    for label, module in runs:
        finals.append(run_case(case, module, r_to_s))
        _raise_if(memory_problems(case, module, r_to_s, finals[-1]), label, case, r_to_s,
                  numbers, options)
    if len(finals) == 2:  # differential: the lowering does exactly what the reference does
        _raise_if(diff_memory(finals[1], finals[0]), "lowered-vs-reference", case, r_to_s,
                  numbers, options)
    return numbers


def _raise_if(problems: list[str], label: str, case: CopyCase, r_to_s: bool,
              numbers: Lowering, options: dict[str, Any]) -> None:
    if problems:
        raise MisLowered(f"{label} run of {'R -> S' if r_to_s else 'S -> R'} differs "
                         f"({numbers}, options {options}):\n  " + "\n  ".join(problems)
                         + f"\n{case.kernel_text(r_to_s)}")


def check_both(case: CopyCase, **options: Any) -> tuple[Lowering, Lowering]:
    """``check_copy`` in both directions; returns (S -> R, R -> S) numbers."""
    return check_copy(case, False, **options), check_copy(case, True, **options)
