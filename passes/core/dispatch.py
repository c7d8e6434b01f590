"""Acceptance of a ``regcopy.copy`` by the register dispatch.

``accept(op)`` runs the checks in order; the first one that fails gives the rejection reason,
which names the check and the offending value. An accepted copy comes back as an
``Accepted`` with everything the planner needs. What the copy's verifier refuses (thread axes
on the memory side, element types other than those of ``regcopy.ELEMENT_TYPES``, all at least
8 bits wide, e.g. sub-byte ones) is not checked again: ``accept`` runs that verifier first (IR
built by a program may not have been verified), and its message is the reason.
"""

from __future__ import annotations

from dataclasses import dataclass

from regcopy_passes.core.bounds import standin_slice
from regcopy_passes.core.planning import Partition, partition_of
from xdsl.dialects import func, gpu, scf
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from regcopy_dialect.async_ops import CopyAsyncOp
from regcopy_dialect.layout import (
    THREAD_AXES,
    LayoutError,
    Scope,
    Sliced,
    canonicalize,
    ownership,
    slice_region,
)
from regcopy_dialect.regcopy import (
    CopyOp,
    LaunchAttr,
    MemSpace,
    buffer_layout,
    element_bits,
    is_dynamic,
    memory_space,
)


class Rejected(Exception):
    """A copy the register dispatch does not take; ``str()`` is the reason."""


@dataclass(frozen=True)
class Accepted:
    """An accepted copy: which side is R, both sliced layouts, scope and sizes."""

    r_is_dst: bool
    r: Sliced
    s: Sliced
    scope: Scope
    threads: int
    element_bits: int
    registers: int
    partition: Partition
    """Steps 1-4 and the thread decode, as the checks established them (planning reuses
    them)."""
    element_type: str = ""

    @property
    def register_words(self) -> int:
        """32-bit registers a thread needs for its part of the tile: ``ceil(bytes / 4)``
        (``registers`` counts elements: the span of the tile's register storage)."""
        return register_words(self.registers, self.element_bits)

    def describe_registers(self) -> str:
        """``8 registers/thread``, with the elements where they are not 32-bit words:
        ``8 registers/thread (32 × i8)``."""
        words = self.register_words
        head = f"{words} register{'' if words == 1 else 's'}/thread"
        if self.element_bits == 32:
            return head
        return f"{head} ({self.registers} × {self.element_type})"


MAX_REGISTERS = 255
"""32-bit registers a thread can address (the hardware limit, sm_90)."""


def register_words(elements: int, element_bits: int) -> int:
    """``ceil(elements * element_bits / 32)``: the 32-bit registers ``elements`` fill."""
    return -(-elements * element_bits // 32)


def _enclosing_launch(op: Operation) -> LaunchAttr | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp):
        parent = parent.parent_op()
    if parent is None:
        return None
    launch = parent.attributes.get("regcopy.launch")
    return launch if isinstance(launch, LaunchAttr) else None


def depends_on_thread_id(value: SSAValue, seen: set[SSAValue] | None = None) -> bool:
    """Whether ``value`` is computed from a thread or lane id (through any op, or a loop
    induction variable whose bounds are)."""
    seen = set() if seen is None else seen
    if value in seen:
        return False
    seen.add(value)
    owner = value.owner
    if isinstance(owner, Block):
        loop = owner.parent_op()
        return loop is not None and any(depends_on_thread_id(v, seen) for v in loop.operands)
    if isinstance(owner, gpu.ThreadIdOp | gpu.LaneIdOp | gpu.GlobalIdOp):
        return True
    return any(depends_on_thread_id(v, seen) for v in owner.operands)


def _divergent_parent(op: Operation) -> Operation | None:
    """The first enclosing ``scf.if``/``scf.while`` whose condition depends on a thread id."""
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, scf.IfOp) and depends_on_thread_id(parent.cond):
            return parent
        if isinstance(parent, scf.WhileOp):
            cond = parent.before_region.block.last_op
            if isinstance(cond, scf.ConditionOp) and depends_on_thread_id(cond.condition):
                return parent
        parent = parent.parent_op()
    return None


def check_all_threads_active(op: CopyOp | CopyAsyncOp, scope: Scope) -> int:
    """Check 1: the block is a multiple of the scope's threads and no thread-dependent
    ``scf.if``/``scf.while`` encloses the copy. Returns the block size."""
    launch = _enclosing_launch(op)
    if launch is None:
        raise Rejected("the enclosing func.func has no regcopy.launch, so the active threads "
                       "are unknown; add attributes {regcopy.launch = #regcopy.launch<block = "
                       "128, grid = [1]>} (your block and grid) to the kernel")
    block = launch.block.data
    need = scope.threads(block)
    if block % need:
        raise Rejected(f"block of {block} threads is not a multiple of the {scope.name.lower()} "
                       f"scope's {need} threads; use a block that is a multiple of {need}, or "
                       "a narrower exec scope")
    if (div := _divergent_parent(op)) is not None:
        raise Rejected(f"the copy is nested in a '{div.name}' whose condition depends on a "
                       "thread id: not all threads of the scope are active; move the copy out "
                       "of it (the pass guards threads that own nothing by itself)")
    return block


def _slice(op: CopyOp, side: str) -> Sliced:
    t = op.src_type if side == "src" else op.dst_type
    offsets, sizes = op.region(side)
    if is_dynamic(t):  # planned on its static stand-in (bounds.py), region at 0
        return standin_slice(sizes)
    return slice_region(buffer_layout(t), t.get_shape(), offsets, sizes)


def check_valid_copy(op: CopyOp) -> tuple[Sliced, Sliced]:
    """Check 2: same element type, non-unit sizes agree in order, and both sides slice
    cleanly to their regions. Returns the sliced (src, dst) layouts."""
    if op.src_type.element_type != op.dst_type.element_type:
        raise Rejected(f"element types differ: {op.src_type.element_type} vs "
                       f"{op.dst_type.element_type}; the copy does not convert, so both "
                       "buffers need one element type")
    src_sizes = [z for z in op.region("src")[1] if z != 1]
    dst_sizes = [z for z in op.region("dst")[1] if z != 1]
    if src_sizes != dst_sizes:
        raise Rejected(f"region sizes differ: {src_sizes} vs {dst_sizes}")
    try:
        return _slice(op, "src"), _slice(op, "dst")
    except LayoutError as e:
        raise Rejected(f"a side does not slice cleanly to its region: {e}; choose offsets "
                       "and sizes that cut each dim at a boundary of its layout iters") from None


def check_memory_pair(op: CopyOp) -> bool:
    """Check 3: exactly one side is local, the other shared, shared.dyn or global. Returns
    whether R is the destination."""
    src, dst = memory_space(op.src_type), memory_space(op.dst_type)
    if (src == MemSpace.LOCAL) == (dst == MemSpace.LOCAL):
        raise Rejected(f"memory pair {src} -> {dst}: exactly one side must be local; this "
                       "pass copies between a register tile (#regcopy.mem<local>) and shared "
                       "or global memory")
    return dst == MemSpace.LOCAL


def check_r_layout(r_type: MemRefType, r: Sliced, scope: Scope) -> None:
    """Check 4: R is not swizzled; each thread axis has a register-level subscope and a scope
    no wider than the exec scope (thread scope admits none). A region that starts inside a
    thread-owned dim (a slice that pins or shifts a thread axis) is fine: check 7 decides
    whether its owners can be decoded."""
    if r.layout.swizzle is not None:
        raise Rejected(f"R layout {r.layout} is swizzled; only the memory side (S) may "
                       "carry a swizzle, the register tile's layout may not")
    for name in dict.fromkeys(i.axis for i in buffer_layout(r_type).owner_iters):
        assert name is not None
        axis = THREAD_AXES[name]
        if axis.subscope > Scope.WARPGROUP:
            raise Rejected(f"R thread axis '{name}' has subscope {axis.subscope.name.lower()}, "
                           "not a register-level one; the register tile's thread axes must "
                           "name threads (laneid, tid_in_wg, tx), warps (wid_in_wg, warpid) or "
                           "warpgroups (wgid)")
        if scope is Scope.THREAD:
            raise Rejected(f"R thread axis '{name}' under exec scope thread, which admits none; "
                           f"run the copy at exec scope {axis.scope.name.lower()} (the "
                           "register tile is spread over threads)")
        if axis.scope > scope:
            raise Rejected(f"R thread axis '{name}' has scope {axis.scope.name.lower()}, wider "
                           f"than exec scope {scope.name.lower()}; run the copy at exec scope "
                           f"{axis.scope.name.lower()}")


def check_partition(r: Sliced, s: Sliced, scope: Scope, threads: int,
                    store: bool = False) -> Partition:
    """Check 6: S groups by R's partition (``planning.partition_of``, which also finds the
    thread decode check 7 needs; ``store``: R is the source)."""
    try:
        return partition_of(r, s, scope, threads, store)
    except LayoutError as e:
        raise Rejected(f"S cannot be grouped by R's partition: {e}; the memory side (S) "
                       "must split its dims where the register tile's iters split") from None


def check_owners(r: Sliced, r_axes: tuple[str, ...], scope: Scope, block: int,
                 part: Partition) -> None:
    """Check 7: each element of R has exactly one
    owner thread per declared replica (``replicate<...>``, one owner without), counting the axis values a slice pinned (``r.thread_base``,
    and 0 for the other axes of the unsliced layout, ``r_axes``); the owners are those of
    the fused thread index; and some division/remainder decode of the thread index
    recovers exactly the owners (``planning.plan_decode``; the other threads are guarded)."""
    if scope is Scope.THREAD:
        return
    own = ownership(r.layout, scope, block, r.thread_base, r_axes)
    where = f"R layout {r.layout}" + (f" (region pins {_pins(r)})" if r.thread_base else "")
    if own.fewest == 0:
        raise Rejected(f"{where} has elements owned by no thread of the "
                       f"{scope.name.lower()}; a register tile whose thread axes stay inside "
                       f"the {scope.name.lower()} would be accepted")
    want = r.layout.replica_count
    if own.most > want:
        declared = f" but the layout declares {want} replicas" if want > 1 else ""
        raise Rejected(f"{where} is replicated: {own.most} threads of the "
                       f"{scope.name.lower()} own the same element{declared}; give each "
                       f"element one owner (add the missing thread axis to the register "
                       f"tile, or use a narrower exec scope); or, where the copies are meant, "
                       f"declare them: replicate<...> on the thread axis the layout leaves out")
    if own.fewest < want:
        raise Rejected(f"{where} has {want} replicas but only {own.fewest} of them lie inside "
                       f"the {scope.name.lower()}; replicas must stay inside the exec scope "
                       f"(and the block)")
    if not own.fused_exact:
        raise Rejected(f"{where}: its thread axes overlap (the owner is not "
                       "lane + 32 * warp + 128 * warpgroup of its axis values)")
    if part.decode is None:
        raise Rejected(f"R thread map {canonicalize(r.layout, scope)}: {part.decode_reason}")


def _pins(r: Sliced) -> str:
    return ", ".join(f"{name} = {value}" for name, value in r.thread_base)


def check_register_budget(r_type: MemRefType, registers: int) -> None:
    """Check 5: a thread's part of the register tile (``registers`` elements) fits the
    ``MAX_REGISTERS`` 32-bit registers a thread can address; beyond, ptxas cannot allocate
    it (it spills the tile or does not finish)."""
    bits = element_bits(r_type.element_type) or 32
    words = register_words(registers, bits)
    if words <= MAX_REGISTERS:
        return
    raise Rejected(f"the register tile needs {words} 32-bit registers per thread "
                   f"({registers} × {r_type.element_type}), more than the {MAX_REGISTERS} a "
                   "thread can hold; spread the tile over more threads (thread axes over a "
                   "wider exec scope, or a larger block), or split it into copies of at most "
                   f"{MAX_REGISTERS * 32 // bits} × {r_type.element_type} per thread")


def check_copy_runs(op: CopyOp | CopyAsyncOp) -> tuple[Scope, int]:
    """The checks every copy passes first (``regcopy.copy`` and ``copy_async`` alike): it
    verifies and every thread of its exec scope runs it. Returns the scope and the block size."""
    try:
        op.verify_()
    except VerifyException as e:
        raise Rejected(f"the copy does not verify: {e}") from None
    scope = op.scope.data.scope
    return scope, check_all_threads_active(op, scope)


def accept(op: CopyOp) -> Accepted:
    """Run the checks in order; raise ``Rejected`` with the first failing reason."""
    scope, block = check_copy_runs(op)
    src, dst = check_valid_copy(op)
    r_is_dst = check_memory_pair(op)
    r_type, (r, s) = (op.dst_type, (dst, src)) if r_is_dst else (op.src_type, (src, dst))
    check_r_layout(r_type, r, scope)
    registers = buffer_layout(r_type).storage().span()
    check_register_budget(r_type, registers)
    part = check_partition(r, s, scope, scope.threads(block), not r_is_dst)
    bits = element_bits(r_type.element_type) or 0
    r_axes = tuple(dict.fromkeys(i.axis for i in buffer_layout(r_type).owner_iters
                                 if i.axis is not None))
    check_owners(r, r_axes, scope, block, part)
    return Accepted(r_is_dst, r, s, scope, scope.threads(block), bits, registers, part,
                    str(r_type.element_type))
