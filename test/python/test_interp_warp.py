"""Warp lockstep in the CPU interpreter: ``regcopy.ldmatrix``/``stmatrix`` kernels run with
each warp's 32 lanes meeting at the op, compared with the PTX ISA's fragment tables
(``ptx_fragments``), and the faithful errors (divergence, partial warps, bad addresses) that
end a launch instead of hanging it."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from copy_harness import parse
from ptx_fragments import expected_bytes
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.utils.exceptions import VerifyException

from regcopy_backend.interpreter.cta_barrier import CtaBarrier, run_cta
from regcopy_backend.interpreter.driver import (
    Buffer,
    ThreadState,
    gpu_state,
    launch,
    make_interpreter,
    set_thread,
)
from regcopy_backend.interpreter.warp_sync import attach_warps, lane_ranges

BYTES = {"i8": 1, "f16": 2, "bf16": 2, "i16": 2, "f32": 4, "i32": 4}
ROWS = 64
"""Rows of 16 bytes in the shared buffer."""


def kernel(t: str, block: int, regs: list[int], k: int, *, loads: bool = True,
           trans: bool = False, sync_fill: bool = False, wrap: str = "{op}") -> str:
    """A kernel of ``block`` threads: shared ``S`` (ROWS 16-byte rows of ``t``) and ``K``
    registers per thread; lane offsets come from ``%offs[tid]``.

    ldmatrix: every thread fills ``S[i] = in[i]`` (i = tid, tid + block, ...), then
    (``sync_fill``: after a ``gpu.barrier``) ``ldmatrix S[offs[tid]] -> R[regs]`` and writes
    its registers to ``out[tid, :]``. stmatrix: thread t fills ``R[j] = in[t * K + j]``,
    ``stmatrix R[regs] -> S[offs[tid]]``, then (after a ``gpu.barrier`` when ``sync_fill``)
    copies ``S`` to ``out``. ``wrap`` puts the op (``{op}``) in context (divergence tests)."""
    n = ROWS * 16 // BYTES[t]
    s_t = f"memref<{n}x{t}, #regcopy.mem<shared>>"
    r_t = f"memref<{k}x{t}, #regcopy.mem<local>>"
    in_t = f"memref<{max(n, block * k)}x{t}, #regcopy.mem<global>>"
    out_t = (f"memref<{block}x{k}x{t}, #regcopy.mem<global>>" if loads
             else f"memref<{n}x{t}, #regcopy.mem<global>>")
    reg_list = ", ".join(map(str, regs))
    kw = " trans" if trans else ""
    op = (f"regcopy.ldmatrix{kw} %SS[%off] -> %RS[{reg_list}] : {s_t} -> {r_t}" if loads else
          f"regcopy.stmatrix{kw} %RS[{reg_list}] -> %SS[%off] : {r_t} -> {s_t}")
    barrier = '"gpu.barrier"() : () -> ()' if sync_fill else ""
    if loads:
        before = f"""
  scf.for %i = %t to %cN step %cB {{
    %v = memref.load %in[%i] : {in_t}
    memref.store %v, %S[%i] : {s_t}
  }}
  {barrier}"""
        after = f"""
  scf.for %j = %c0 to %cK step %c1 {{
    %v = memref.load %RS[%j] : {r_t}
    memref.store %v, %out[%t, %j] : {out_t}
  }}"""
    else:
        before = f"""
  %tk = arith.muli %t, %cK : index
  scf.for %j = %c0 to %cK step %c1 {{
    %i = arith.addi %tk, %j : index
    %v = memref.load %in[%i] : {in_t}
    memref.store %v, %RS[%j] : {r_t}
  }}"""
        after = f"""
  {barrier}
  scf.for %i = %t to %cN step %cB {{
    %v = memref.load %S[%i] : {s_t}
    memref.store %v, %out[%i] : {out_t}
  }}"""
    return f"""
func.func @kernel(%in: {in_t}, %offs: memref<{block}xindex, #regcopy.mem<global>>,
                  %out: {out_t})
    attributes {{regcopy.launch = #regcopy.launch<block = {block}, grid = [1]>}} {{
  %S = memref.alloca() : {s_t}
  %R = memref.alloca() : {r_t}
  %t = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
  %lane = "gpu.lane_id"() : () -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %cN = arith.constant {n} : index
  %cB = arith.constant {block} : index
  %cK = arith.constant {k} : index
  %low = arith.cmpi ult, %lane, %c16 : index
  %SS = regcopy.storage %S : {s_t} -> {s_t}
  %RS = regcopy.storage %R : {r_t} -> {r_t}
  {before}
  %off = memref.load %offs[%t] : memref<{block}xindex, #regcopy.mem<global>>
  {wrap.replace("{op}", op)}
  {after}
  func.return
}}
"""


def arg_types(module: ModuleOp) -> list[MemRefType]:
    fn = next(iter(module.ops))
    return list(fn.function_type.inputs.data)  # type: ignore[attr-defined]


def run(text: str, offsets: list[int], timeout: float = 60) -> tuple[list[Any], list[Any]]:
    """Launch the kernel with ``in[i] = 1000 + i`` and ``offsets``; unwritten shared and
    register elements hold None. Returns ``(in, out)`` storages; fails on a hang."""
    module = parse(text)
    in_t, offs_t, out_t = arg_types(module)
    a = Buffer(in_t, [1000 + i for i in range(in_t.get_shape()[0])])
    offs = Buffer(offs_t, list(offsets))
    out = Buffer.new(out_t, "unset")
    interp = make_interpreter(module)
    gpu_state(interp).fill = None
    errors: list[BaseException] = []

    def go() -> None:
        try:
            launch(interp, "kernel", (a, offs, out))
        except BaseException as e:  # noqa: BLE001 - re-raised below
            errors.append(e)

    th = threading.Thread(target=go, daemon=True)
    th.start()
    th.join(timeout)
    assert not th.is_alive(), "the launch hangs"
    if errors:
        raise errors[0]
    return a.storage, out.storage


def lane_offsets(t: str, count: int, seed: int, warps: int = 1) -> list[int]:
    """Per thread: lanes 8m + r of each warp address distinct random rows (element offsets);
    lanes beyond the matrices hold an unaligned value, which they do not use."""
    e = BYTES[t]
    out: list[int] = []
    rng = random.Random(seed)
    for _ in range(warps):
        rows = rng.sample(range(ROWS), 8 * count)
        out += [16 // e * r for r in rows] + [1] * (32 - 8 * count)
    return out


def registers_for(t: str, count: int) -> tuple[list[int], int]:
    """Register offsets (elements) of the matrices, in reverse word order, and K: one more
    word than needed, which no matrix touches."""
    word = 4 // BYTES[t]
    return [word * (count - 1 - m) for m in range(count)], word * (count + 1)


def expected_tables(t: str, count: int, trans: bool, offsets: list[int], regs: list[int]
                    ) -> dict[tuple[int, int], int]:
    """``(lane, register element) -> shared element``, from the PTX table, for one warp."""
    e = BYTES[t]
    table = expected_bytes(count, trans, [e * o for o in offsets[:8 * count]],
                           [e * r for r in regs])
    out = {}
    for (lane, reg_byte), shared_byte in table.items():
        if reg_byte % e == 0:
            assert shared_byte % e == 0
            out[(lane, reg_byte // e)] = shared_byte // e
    return out


LD_CASES = [(t, c, False) for t in ("i8", "f16", "f32") for c in (1, 2, 4)] + \
    [("bf16", c, True) for c in (1, 2, 4)]


@pytest.mark.parametrize(("t", "count", "trans"), LD_CASES)
def test_ldmatrix_matches_the_ptx_table(t: str, count: int, trans: bool) -> None:
    regs, k = registers_for(t, count)
    offsets = lane_offsets(t, count, seed=count)
    a, out = run(kernel(t, 32, regs, k, trans=trans), offsets)
    want = expected_tables(t, count, trans, offsets, regs)
    for lane in range(32):
        got = out[lane * k:(lane + 1) * k]
        assert got == [a[want[(lane, j)]] if (lane, j) in want else None for j in range(k)]


@pytest.mark.parametrize(("t", "count", "trans"), LD_CASES)
def test_stmatrix_matches_the_ptx_table(t: str, count: int, trans: bool) -> None:
    regs, k = registers_for(t, count)
    offsets = lane_offsets(t, count, seed=count + 7)
    a, out = run(kernel(t, 32, regs, k, loads=False, trans=trans), offsets)
    want = {s: (lane, r) for (lane, r), s in
            expected_tables(t, count, trans, offsets, regs).items()}
    assert out == [a[want[s][0] * k + want[s][1]] if s in want else None
                   for s in range(len(out))]


def test_two_warps_with_a_barrier_between_fill_and_ldmatrix() -> None:
    """Block 64: both warps fill S together, gpu.barrier, each warp loads its own rows (warp
    w's lanes read rows that the other warp's threads wrote)."""
    regs, k = registers_for("f16", 4)
    offsets = lane_offsets("f16", 4, seed=3, warps=2)
    a, out = run(kernel("f16", 64, regs, k, sync_fill=True), offsets)
    for w in range(2):
        want = expected_tables("f16", 4, False, offsets[32 * w:32 * w + 32], regs)
        for lane in range(32):
            t = 32 * w + lane
            assert out[t * k:(t + 1) * k] == [a[want[(lane, j)]] if (lane, j) in want
                                              else None for j in range(k)]


EXCHANGE = """
  regcopy.stmatrix %RS[0, 2, 4, 6] -> %SS[%off] : {r} -> {s}
  "gpu.barrier"() : () -> ()
  %c32 = arith.constant 32 : index
  %other = arith.xori %t, %c32 : index
  %off2 = memref.load %offs[%other] : memref<64xindex, #regcopy.mem<global>>
  regcopy.ldmatrix %SS[%off2] -> %RS[0, 2, 4, 6] : {s} -> {r}
  scf.for %j = %c0 to %cK step %c1 {{
    %v = memref.load %RS[%j] : {r}
    memref.store %v, %out[%t, %j] : memref<64x8xf16, #regcopy.mem<global>>
  }}
"""


def test_warps_exchange_fragments_through_shared_memory() -> None:
    """Warp w stmatrix-es its registers to its rows, gpu.barrier, then ldmatrix-es the other
    warp's rows with the same lane -> row map: each lane gets the registers of the lane 32
    away (stmatrix then ldmatrix of one map is the identity, PTX table or not)."""
    s, r = "memref<512xf16, #regcopy.mem<shared>>", "memref<8xf16, #regcopy.mem<local>>"
    text = kernel("f16", 64, [0, 2, 4, 6], 8, loads=False)
    head, _, _ = text.partition("  regcopy.stmatrix")
    text = head + EXCHANGE.format(s=s, r=r) + "  func.return\n}\n"
    text = text.replace("%out: memref<512xf16", "%out: memref<64x8xf16")
    offsets = [8 * (32 * (t // 32) + t % 32) for t in range(64)]
    a, out = run(text, offsets)
    assert out == [a[(t ^ 32) * 8 + j] for t in range(64) for j in range(8)]


def test_only_kernels_with_barriers_or_collectives_run_as_threads(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A kernel without gpu.barrier and collective ops stays on the sequential path."""
    import regcopy_backend.interpreter.driver as interpreter

    def no_threads(*_: Any) -> None:
        raise AssertionError("ran as Python threads")

    monkeypatch.setattr(interpreter, "run_cta", no_threads)
    plain = kernel("f16", 32, [0, 2, 4, 6], 8).replace("regcopy.ldmatrix", "// regcopy.ldmatrix")
    run(plain, ALIGNED)
    with pytest.raises(AssertionError, match="ran as Python threads"):
        run(kernel("f16", 32, [0, 2, 4, 6], 8), ALIGNED)


# --------------------------------------------------------------------------------------------
# Errors: one message, never a hang
# --------------------------------------------------------------------------------------------

ALIGNED = [8 * lane for lane in range(32)]


@pytest.mark.parametrize(("wrap", "message"), [
    ("scf.if %low { {op} }",
     r"regcopy.ldmatrix: warp 0 of block \(0, 0, 0\) diverged \(lanes 0-15 at "
     r"regcopy.ldmatrix; lanes 16-31 returned\); every lane of the warp must execute"),
    ("scf.if %low { {op} } else { {op} }",
     r"diverged \(lanes 0-15 at regcopy.ldmatrix #1; lanes 16-31 at regcopy.ldmatrix #2\)"),
    ('scf.if %low { {op} } else { "gpu.barrier"() : () -> () }',
     r"diverged \(lanes 0-15 at regcopy.ldmatrix; lanes 16-31 at gpu.barrier\)"),
    ('scf.if %low { "gpu.barrier"() : () -> () } else { {op} }',
     r"diverged \(lanes 16-31 at regcopy.ldmatrix; lanes 0-15 at gpu.barrier\)"),
])
def test_a_diverged_warp_is_an_error(wrap: str, message: str) -> None:
    text = kernel("f16", 32, [0, 2, 4, 6], 8, wrap=wrap)
    with pytest.raises(Exception, match=message):
        run(text, ALIGNED)


def test_an_error_in_a_lane_is_raised_while_its_warp_waits() -> None:
    """Lanes 16-31 read out of bounds instead of reaching the ldmatrix where lanes 0-15 wait:
    the launch reports that error (not a divergence) and does not hang."""
    wrap = ("scf.if %low { {op} } else { %bad = memref.load %offs[%cN] : "
            "memref<32xindex, #regcopy.mem<global>> }")
    with pytest.raises(Exception, match=r"index \[512\] is out of bounds of shape \[32\]"):
        run(kernel("f16", 32, [0, 2, 4, 6], 8, wrap=wrap), ALIGNED)


def test_divergence_in_one_warp_of_two_stops_the_whole_cta() -> None:
    """Warp 1 diverges; warp 0 waits at the gpu.barrier after its ldmatrix: both stop."""
    wrap = """%cw = arith.constant 32 : index
  %w1 = arith.cmpi uge, %t, %cw : index
  scf.if %w1 { scf.if %low { {op} } } else { {op} }
  "gpu.barrier"() : () -> ()"""
    text = kernel("f16", 64, [0, 2, 4, 6], 8, sync_fill=True, wrap=wrap)
    with pytest.raises(Exception, match=r"warp 1 of block \(0, 0, 0\) diverged \(lanes 0-15 "
                                        r"at regcopy.ldmatrix; lanes 16-31 at gpu.barrier\)"):
        run(text, ALIGNED + ALIGNED)


def test_a_partial_warp_is_an_error() -> None:
    text = kernel("f16", 48, [0, 2, 4, 6], 8)
    with pytest.raises(Exception, match=r"regcopy.ldmatrix needs whole warps: warp 1 of block "
                                        r"\(0, 0, 0\) has 16 lanes"):
        run(text, ALIGNED + ALIGNED[:16])


@pytest.mark.parametrize(("lane", "offset", "message"), [
    (3, 4, r"regcopy.ldmatrix in warp 0 of block \(0, 0, 0\): lane 3's row address "
           r"\(element 4, byte 8\) is not 16-byte aligned"),
    (31, 1024, r"lane 31's row \(element 1024, bytes 2048..2063\) is outside the 1024-byte "
               r"shared storage"),
])
def test_bad_row_addresses_are_errors(lane: int, offset: int, message: str) -> None:
    offsets = list(ALIGNED)
    offsets[lane] = offset
    with pytest.raises(Exception, match=message):
        run(kernel("f16", 32, [0, 2, 4, 6], 8), offsets)


def test_a_register_word_outside_the_registers_is_refused_by_the_verifier() -> None:
    with pytest.raises(VerifyException, match="register offset 8 is not a whole 32-bit word "
                                              "inside the 8 registers"):
        parse(kernel("f16", 32, [0, 2, 4, 8], 8))


def test_a_collective_outside_a_launch_is_an_error() -> None:
    module = parse(kernel("f16", 32, [0, 2, 4, 6], 8))
    in_t, offs_t, out_t = arg_types(module)
    interp = make_interpreter(module)
    set_thread(interp, ThreadState((0, 0, 0), (0, 0, 0), (32, 1, 1), (1, 1, 1)))
    with pytest.raises(Exception, match="regcopy.ldmatrix is warp-collective: it runs only "
                                        r"in a launch\(\)"):
        interp.call_op("kernel", (Buffer.new(in_t), Buffer(offs_t, ALIGNED), Buffer.new(out_t)))


def test_launching_part_of_a_warp_is_refused_and_whole_warps_run() -> None:
    module = parse(kernel("f16", 64, [0, 2, 4, 6], 8))
    in_t, offs_t, out_t = arg_types(module)
    a, out = Buffer(in_t, list(range(in_t.get_shape()[0]))), Buffer.new(out_t, -1)
    args = (a, Buffer(offs_t, ALIGNED + ALIGNED), out)
    with pytest.raises(Exception, match="threads= must name whole warps"):
        launch(make_interpreter(module), "kernel", args, threads=range(16))
    launch(make_interpreter(module), "kernel", args, threads=range(32, 64))
    assert out.storage[:32 * 8] == [-1] * 256 and -1 not in out.storage[32 * 8:]


# --------------------------------------------------------------------------------------------
# The barriers alone (no interpreter)
# --------------------------------------------------------------------------------------------


def test_lane_ranges() -> None:
    assert lane_ranges([7, 0, 1, 2, 5, 8]) == "0-2, 5, 7-8"


def test_each_warp_executes_once_per_op_with_its_lanes_in_order() -> None:
    """64 threads, 40 rounds of gpu.barrier then a collective: every round each warp executes
    once, with its 32 lanes' operands in lane order, and each lane gets its own result. (A CTA
    barrier release that did not make its threads running at once would make a fast lane see
    its warp-mates still parked and report a divergence.)"""
    cta = CtaBarrier(64)
    warps = attach_warps(cta, lambda w: f"warp {w}")
    calls: list[tuple[int, int, list[int]]] = []
    got: dict[tuple[int, int], int] = {}

    def execute(w: int, r: int) -> Callable[[Sequence[Any]], list[int]]:
        def run_op(operands: Sequence[Any]) -> list[int]:
            calls.append((w, r, list(operands)))
            return [10 * x for x in operands]
        return run_op

    def body(t: int) -> None:
        for r in range(40):
            cta.wait(t)
            got[(t, r)] = warps[t // 32].meet(t % 32, "op", 1000 * r + t, execute(t // 32, r))

    run_cta(cta, body)
    assert sorted((w, r) for w, r, _ in calls) == [(w, r) for w in range(2) for r in range(40)]
    assert all(ops == [1000 * r + 32 * w + k for k in range(32)] for w, r, ops in calls)
    assert got == {(t, r): 10 * (1000 * r + t) for t in range(64) for r in range(40)}

