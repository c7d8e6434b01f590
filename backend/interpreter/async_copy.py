"""The asynchronous copies on the CPU interpreter, with their semantics made observable.

* ``regcopy.copy_async`` (reference semantics) and ``regcopy.cp_async`` (lowered) read their
  source when they are issued (outside a runtime-sized source's extents, the reference reads
  nothing and lands zero, unless ``{in_bounds}``, where that is an error; the lowered op lands
  its ``src_bytes`` and zero-fills the rest of its width) and put the data *in flight*: the
  destination elements are marked, and written only when a wait completes the copy's group;
* ``regcopy.async_group`` / ``regcopy.cp_async_commit`` close every copy the thread issued
  and has not yet closed into a new group (``cp.async.commit_group``); ``async_group`` also
  checks that the copies it names are among them;
* ``regcopy.async_wait %g {pending = N}`` / ``regcopy.cp_async_wait N`` complete every group
  of the thread but its N latest (``cp.async.wait_group N``): their data lands. ``async_wait``
  also checks that ``%g`` is a group this thread closed and that the wait completes it;
* reading an element in flight (``memref.load``, ``vector.load``, the source of a
  ``regcopy.copy``) is an error: the data has not landed (the kernel lacks a wait, or a
  ``gpu.barrier`` after another thread's wait).

In the reference semantics thread ``t`` of the copy's scope moves the region elements
``e = t (mod T)`` (row-major); the lowered code moves chunks. Both land the same data.
Errors are one line, located by the interpreter (``engine.KernelError``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, cast

from regcopy_backend.interpreter.buffers import Buffer, check_region, region_offsets
from regcopy_backend.interpreter.extents import ExtentFunctions
from regcopy_backend.interpreter.regcopy import RegcopyFunctions, gpu_state
from xdsl.dialects import memref, vector
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    impl,
    register_impls,
)
from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import InterpretationError

from regcopy_dialect.async_ops import (
    AsyncGroupOp,
    AsyncWaitOp,
    CopyAsyncOp,
    CpAsyncCommitOp,
    CpAsyncOp,
    CpAsyncWaitOp,
)
from regcopy_dialect.buffers import is_dynamic
from regcopy_dialect.layout import Scope
from regcopy_dialect.regcopy import CopyOp, element_bits


@dataclass(eq=False)
class Landing:
    """Values bound for ``storage[offsets]`` once their group completes."""

    storage: list[Any]
    offsets: list[int]
    values: list[Any]


@dataclass(eq=False)
class Group:
    """A closed group of one thread (also the Python value of its token)."""

    number: int
    landings: list[Landing]


@dataclass(eq=False)
class CopyToken:
    """The value of a ``copy_async`` token."""

    landing: Landing


@dataclass
class ThreadCopies:
    """One thread's issued-but-unclosed copies and its closed, incomplete groups."""

    open: list[Landing] = field(default_factory=list[Landing])
    groups: list[Group] = field(default_factory=list[Group])
    closed: int = 0


@dataclass
class AsyncState:
    """Per launch: each thread's copies, and the in-flight elements of each storage."""

    threads: dict[Any, ThreadCopies] = field(default_factory=dict[Any, ThreadCopies])
    inflight: dict[int, dict[int, str]] = field(default_factory=dict[int, dict[int, str]])
    counter: itertools.count[int] = field(default_factory=itertools.count)
    landed: dict[int, tuple[int, dict[int, int]]] = field(
        default_factory=dict[int, tuple[int, dict[int, int]]])
    """Per storage: the barrier phase of its latest landings and, for that phase, which
    thread's wait landed each element (``_complete``). Another thread's read of such an
    element in the same phase lacks a ``gpu.barrier`` (``check_landed``)."""


def _phase(interp: Interpreter) -> int:
    """The CTA's barrier phase (0 when its threads run one after another: no barrier)."""
    barrier = gpu_state(interp).barrier
    return 0 if barrier is None else barrier.generation


def _state(interp: Interpreter) -> tuple[AsyncState, ThreadCopies]:
    """The launch's async state and this thread's copies. ``dict.setdefault`` is atomic, so
    the threads of a phased CTA need no lock here (and each keeps its own key)."""
    gs = gpu_state(interp)
    st = gs.extra.get("async")
    if st is None:
        st = gs.extra.setdefault("async", AsyncState())
    th = gs.thread
    key = (th.block_id, th.linear_tid)
    mine = st.threads.get(key)
    if mine is None:
        mine = st.threads.setdefault(key, ThreadCopies())
    return cast(AsyncState, st), mine


def _name(v: SSAValue) -> str:
    return f"%{v.name_hint}" if v.name_hint else "the group"


def _issue(interp: Interpreter, landing: Landing, what: str) -> None:
    st, mine = _state(interp)
    marks = st.inflight.setdefault(id(landing.storage), {})
    for off in landing.offsets:
        marks[off] = what
    mine.open.append(landing)


def _close(interp: Interpreter) -> Group:
    _, mine = _state(interp)
    group = Group(mine.closed, mine.open)
    mine.closed += 1
    mine.open = []
    mine.groups.append(group)
    return group


def _wait(interp: Interpreter, group: Any, pending: int, name: str) -> None:
    _, mine = _state(interp)
    if not isinstance(group, Group) or group.number >= mine.closed:
        raise InterpretationError(f"waits on {name}, a group this thread never closed")
    later = mine.closed - 1 - group.number
    if group in mine.groups and later < pending:
        raise InterpretationError(
            f"pending = {pending} leaves {name} in flight: only {later} group(s) were closed "
            f"after it; use pending <= {later} (or wait after closing more groups)")
    _complete(interp, pending)


def _complete(interp: Interpreter, pending: int) -> None:
    """``cp.async.wait_group pending``: every group of the thread but its latest ``pending``
    lands."""
    st, mine = _state(interp)
    done = mine.groups[:len(mine.groups) - pending] if pending else mine.groups
    mine.groups = mine.groups[len(done):]
    gs = gpu_state(interp)
    tid, phase = gs.thread.linear_tid, _phase(interp)
    for g in done:
        for land in g.landings:
            marks = st.inflight.get(id(land.storage), {})
            with gs.lock:
                rec = st.landed.get(id(land.storage))
                if rec is None or rec[0] != phase:
                    rec = st.landed[id(land.storage)] = (phase, {})
            by = rec[1]
            for off, value in zip(land.offsets, land.values):
                land.storage[off] = value
                marks.pop(off, None)
                by[off] = tid


def _in_flight(interp: Interpreter, buf: Any) -> bool:
    """Whether some element of ``buf``'s storage is in flight, or was landed in this barrier
    phase (cheap: most loads see neither)."""
    st = gpu_state(interp).extra.get("async")
    if st is None or not isinstance(buf, Buffer) or buf.local:
        return False
    st = cast(AsyncState, st)
    if st.inflight.get(id(buf.storage)):
        return True
    rec = st.landed.get(id(buf.storage))
    return rec is not None and rec[0] == _phase(interp)


def check_landed(interp: Interpreter, op: Operation, buf: Any, offsets: range | list[int]
                 ) -> None:
    """Raise when one of ``offsets`` of ``buf``'s storage is still in flight, or was landed
    by another thread's wait in this barrier phase (a ``gpu.barrier`` is missing between
    that wait and this read: on the GPU the read may come first)."""
    if not isinstance(buf, Buffer):
        return
    st = gpu_state(interp).extra.get("async")
    if st is None:
        return
    st = cast(AsyncState, st)
    marks = st.inflight.get(id(buf.storage))
    if marks and not marks.keys().isdisjoint(offsets):
        for off in offsets:
            if off in marks:
                raise InterpretationError(
                    f"reads element offset {off} of {buf.type} while {marks[off]} is in "
                    "flight: the data lands at its regcopy.async_wait (then gpu.barrier for "
                    "other threads' copies)")
    rec = st.landed.get(id(buf.storage))
    if rec is None or rec[0] != _phase(interp):
        return
    me, by = gpu_state(interp).thread.linear_tid, rec[1]
    if by.keys().isdisjoint(offsets):
        return
    for off in offsets:
        if (t := by.get(off, me)) != me:
            raise InterpretationError(
                f"reads element offset {off} of {buf.type}, which thread {t}'s wait landed in "
                "this barrier phase: a gpu.barrier is missing between that wait and this "
                "read (another thread's asynchronous copies are visible only after one)")


def _scope_thread(interp: Interpreter, scope: Scope) -> tuple[int, int]:
    th = gpu_state(interp).thread
    block = th.block_dim[0] * th.block_dim[1] * th.block_dim[2]
    threads = scope.threads(block)
    return th.linear_tid % threads, threads


@register_impls
class AsyncCopyFunctions(InterpreterFunctions):
    """The async copy ops, and the in-flight read checks around the loads."""

    def __init__(self) -> None:
        self._base = RegcopyFunctions()
        self._copy = ExtentFunctions()  # the reference copy, bounds-checked where it must be

    # ---- reference semantics ----
    @impl(CopyAsyncOp)
    def run_copy_async(self, interp: Interpreter, op: CopyAsyncOp, args: PythonValues):
        src, dst, *dyn = args
        n_src = len(op.src_offsets)
        regions = []
        bounded = is_dynamic(op.src_type) and not op.in_bounds
        for side, values, buf in (("src", dyn[:n_src], src), ("dst", dyn[n_src:], dst)):
            offsets, sizes = op.region(side)
            it = iter(values)
            region = (tuple(next(it) if isinstance(o, SSAValue) else o for o in offsets),
                      tuple(sizes))
            if not (bounded and side == "src"):
                promise = " (the copy promises {in_bounds})" if op.in_bounds and \
                    side == "src" else ""
                check_region(region, buf.shape, f"{side} of copy_async{promise}")
            regions.append(region)
        t, threads = _scope_thread(interp, op.scope.data.scope)
        src_offs = region_offsets(src.type, *regions[0])[t::threads]
        dst_offs = region_offsets(dst.type, *regions[1])[t::threads]
        storage = src.storage
        landing = Landing(dst.storage, list(dst_offs),
                          [storage[o] if o >= 0 else 0 for o in src_offs])
        _issue(interp, landing, f"copy_async {_name(op.dst)}")
        return (CopyToken(landing),)

    @impl(AsyncGroupOp)
    def run_async_group(self, interp: Interpreter, op: AsyncGroupOp, args: PythonValues):
        _, mine = _state(interp)
        for tok in args:
            if cast(CopyToken, tok).landing not in mine.open:
                raise InterpretationError("closes a copy that is not open (already closed, or "
                                          "issued by another thread)")
        return (_close(interp),)

    @impl(AsyncWaitOp)
    def run_async_wait(self, interp: Interpreter, op: AsyncWaitOp, args: PythonValues):
        _wait(interp, args[0], op.pending.value.data, _name(op.group))
        return ()

    # ---- lowered ----
    @impl(CpAsyncOp)
    def run_cp_async(self, interp: Interpreter, op: CpAsyncOp, args: PythonValues):
        dst, di, src, si, src_bytes = args
        eb = (element_bits(dst.type.element_type) or 8) // 8
        n = op.bytes.data // eb
        if not 0 <= src_bytes <= op.bytes.data or src_bytes % eb:
            raise InterpretationError(f"src_bytes {src_bytes} must be a multiple of {eb} in "
                                      f"[0, {op.bytes.data}]")
        if gpu_state(interp).check_alignment and (di % n or si % n):
            raise InterpretationError(f"misaligned cp.async of {op.bytes.data} bytes: shared "
                                      f"element {di}, global element {si}")
        k = src_bytes // eb
        if not (0 <= di and di + n <= len(dst.storage) and 0 <= si
                and si + k <= len(src.storage)):
            raise InterpretationError(f"cp.async of {n} elements at shared {di} / global {si} "
                                      f"is out of bounds ({len(dst.storage)} / "
                                      f"{len(src.storage)} elements)")
        values = [*src.storage[si:si + k], *([0] * (n - k))]
        _issue(interp, Landing(dst.storage, list(range(di, di + n)), values), "a cp.async")
        return ()

    @impl(CpAsyncCommitOp)
    def run_commit(self, interp: Interpreter, op: CpAsyncCommitOp, args: PythonValues):
        _close(interp)
        return ()

    @impl(CpAsyncWaitOp)
    def run_cp_wait(self, interp: Interpreter, op: CpAsyncWaitOp, args: PythonValues):
        _complete(interp, op.pending.data)
        return ()

    # ---- reads of memory that may be in flight ----
    @impl(memref.LoadOp)
    def run_load(self, interp: Interpreter, op: memref.LoadOp, args: PythonValues):
        buf, *indices = args
        if _in_flight(interp, buf):
            check_landed(interp, op, buf, [buf.offset(indices)])
        return self._base.run_load(interp, op, args).values

    @impl(vector.LoadOp)
    def run_vector_load(self, interp: Interpreter, op: vector.LoadOp, args: PythonValues):
        out = self._base.run_vector_load(interp, op, args).values
        buf, *indices = args
        if not _in_flight(interp, buf):
            return out
        *outer, last = indices
        offsets = (range(last, last + len(out[0])) if len(indices) == 1
                   else [buf.offset([*outer, last + k]) for k in range(len(out[0]))])
        check_landed(interp, op, buf, offsets)
        return out

    @impl(CopyOp)
    def run_copy(self, interp: Interpreter, op: CopyOp, args: PythonValues):
        src = args[0]
        if _in_flight(interp, src):
            n_src = len(op.src_offsets)
            offsets, sizes = op.region("src")
            it = iter(args[2:2 + n_src])
            start = tuple(next(it) if isinstance(o, SSAValue) else o for o in offsets)
            region = region_offsets(src.type, start, tuple(sizes))
            check_landed(interp, op, src, [o for o in region if o >= 0])
        return self._copy.run_copy(interp, op, args).values
