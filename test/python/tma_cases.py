"""The TMA test matrix: small kernels that exercise every decision of ``transfer=tma``, with
their numpy answer, for the CPU tests (lowering, refusal, remark, interpreter) of
``test_tma_matrix.py``, its GPU tests, and ``lab/gpu/tma.sh`` (every case under
compute-sanitizer memcheck: ``python3 test/python/tma_cases.py``).

A case: ``groups`` boxes of ``rows x cols`` elements of the global ``G`` (box ``j`` at row
``j * rows``, column ``col``) go into slot ``j`` of a shared (or ``shared.dyn``) buffer with
TMA swizzle ``swizzle`` (bytes, 0: none); all groups are committed before the first wait, an
``async_wait {pending = P}`` lets the last ``P`` stay in flight while the first slots are read
out to ``O``, then ``async_wait {pending = 0}`` and the rest (a CTA barrier after each wait,
which the ``cp.async`` fallback needs). ``ragged``: ``G`` has runtime extents (rows promised
a multiple of 16 bytes) and is cut so that the last box hangs over its bottom and right edges
(those elements read 0). A module holds
one kernel per case (``module_text``), so that several kernels share one module.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

BLOCK = 64
BYTES = {"f16": 2, "f32": 4, "i8": 1, "f64": 8}
NUMPY = {"f16": np.float16, "f32": np.float32, "i8": np.int8, "f64": np.float64}


@dataclass(frozen=True)
class TmaCase:
    """One kernel of the matrix (see the module docstring)."""

    elem: str = "f16"
    col: int = 0
    groups: int = 1
    pending: int = 0
    swizzle: int = 0
    space: str = "shared"
    ragged: bool = False
    rows: int = 8

    @property
    def e(self) -> int:
        return BYTES[self.elem]

    @property
    def cols(self) -> int:
        """Box columns: a swizzled row is exactly the swizzle span; else 64 bytes."""
        return (self.swizzle or 64) // self.e

    @property
    def name(self) -> str:
        return (f"tma_{self.elem}_c{self.col}_g{self.groups}p{self.pending}_s{self.swizzle}_"
                f"{self.space.replace('.', '')}{'_ragged' if self.ragged else ''}")

    @property
    def global_shape(self) -> tuple[int, int]:
        """Rows: every box, less 3 when ragged; columns: a multiple of 16 bytes, short of the
        box's end by 16 bytes when ragged."""
        step = 16 // self.e
        end = -(-(self.col + self.cols) // step) * step
        return (self.groups * self.rows - (3 if self.ragged else 0),
                end - (step if self.ragged else 0))

    @property
    def tma_expected(self) -> bool:
        """Whether the lowering may use TMA: the box start column 16-byte aligned."""
        return self.col * self.e % 16 == 0

    def layout(self) -> str:
        n, r, c = self.groups, self.rows, self.cols
        k = {1: 4, 2: 3, 4: 2, 8: 1}[self.e]
        swz = f", swizzle<{k},{self.swizzle.bit_length() - 5},3>" if self.swizzle else ""
        return f"#regcopy.layout<({n},{r},{c}):({r * c},{c},1){swz}>"

    def kernel(self) -> str:
        n, r, c, t = self.groups, self.rows, self.cols, self.elem
        gr, gc = self.global_shape
        g = f"memref<{'?x?' if self.ragged else f'{gr}x{gc}'}x{t}, #regcopy.mem<global>>"
        promise = (f" {{regcopy.divisibility = array<i64: 1, {16 // self.e}>}}"
                   if self.ragged else "")
        o = f"memref<{n}x{r}x{c}x{t}, #regcopy.mem<global>>"
        s = f"memref<{n}x{r}x{c}x{t}, {self.layout()}, #regcopy.mem<{self.space}>>"
        lines = [f"func.func @{self.name}(%G: {g}{promise}, %O: {o})",
                 (f"    attributes {{regcopy.launch = #regcopy.launch<block = {BLOCK}, "
                  "grid = [1]>} {"),
                 "  %c1 = arith.constant 1 : index",
                 f"  %cb = arith.constant {BLOCK} : index",
                 f"  %cn = arith.constant {r * c} : index",
                 f"  %cc = arith.constant {c} : index",
                 '  %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index',
                 f"  %S = memref.alloca() : {s}"]
        for j in range(n):
            lines += [(f"  %t{j} = regcopy.copy_async cta %G[{j * r}, {self.col}] [{r}, {c}] "
                       f"-> %S[{j}, 0, 0] [1, {r}, {c}] : {g} -> {s}"),
                      f"  %g{j} = regcopy.async_group %t{j}"]
        first = n - self.pending
        barrier = '  "gpu.barrier"() : () -> ()'  # (cp.async: other threads' chunks)
        lines += [f"  regcopy.async_wait %g{n - 1} {{pending = {self.pending} : i64}}",
                  barrier]
        for j in range(n):
            if j == first:
                lines += [f"  regcopy.async_wait %g{n - 1} {{pending = 0 : i64}}", barrier]
            lines += [f"  %j{j} = arith.constant {j} : index",
                      f"  scf.for %i{j} = %tid to %cn step %cb {{",
                      f"    %r{j} = arith.divui %i{j}, %cc : index",
                      f"    %q{j} = arith.remui %i{j}, %cc : index",
                      f"    %v{j} = memref.load %S[%j{j}, %r{j}, %q{j}] : {s}",
                      f"    memref.store %v{j}, %O[%j{j}, %r{j}, %q{j}] : {o}",
                      "  }"]
        return "\n".join([*lines, "  func.return", "}", ""])

    def inputs(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """``G`` (distinct small integers, exact in every type) and a poisoned ``O``."""
        g = (rng.permutation(int(np.prod(self.global_shape))) % 100 + 1).astype(
            NUMPY[self.elem]).reshape(self.global_shape)
        return g, np.full((self.groups, self.rows, self.cols), -7, NUMPY[self.elem])

    def expected(self, g: np.ndarray) -> np.ndarray:
        """``O``: box ``j`` of ``G``, zeros where it hangs over ``G``'s edges."""
        out = np.zeros((self.groups, self.rows, self.cols), g.dtype)
        for j in range(self.groups):
            part = g[j * self.rows:(j + 1) * self.rows, self.col:self.col + self.cols]
            out[j, :part.shape[0], :part.shape[1]] = part
        return out


def module_text(cases: Sequence[TmaCase]) -> str:
    """One module holding one kernel per case."""
    return "\n".join(c.kernel() for c in cases)


def matrix() -> list[tuple[TmaCase, ...]]:
    """Every module of the GPU matrix (a tuple of cases per module): box start column mod 16
    bytes (0, 4, 8, 12: a 2-byte start fits neither TMA nor cp.async and is refused); pending 0..3 with up to 4 groups committed before the waits; every swizzle ×
    shared/shared.dyn, alone and with a kernel of another alignment in the same module;
    ragged boxes."""
    out: list[tuple[TmaCase, ...]] = []
    out += [(TmaCase(col=c),) for c in range(0, 9, 2)]  # (odd: no cp.async width either)
    out += [(TmaCase(elem="f32", col=c),) for c in (1, 2, 4)]
    out += [(TmaCase(elem="i8", col=c),) for c in (4, 8, 16)]
    out += [(TmaCase(groups=g, pending=p),) for g in range(1, 5) for p in range(min(g, 4))]
    for sw in (0, 32, 64, 128):
        for space in ("shared", "shared.dyn"):
            one = TmaCase(swizzle=sw, space=space)
            out.append((one,))
            other = TmaCase(swizzle=128 if sw != 128 else 0, space=space, groups=2)
            out.append((one, other))
            out.append((TmaCase(swizzle=sw, space=space, ragged=True, groups=2, pending=1),))
    out += [(TmaCase(elem="f32", ragged=True, col=4, swizzle=128),),
            (TmaCase(elem="f64", ragged=True, col=2),)]
    return out


def run_module(cases: Sequence[TmaCase], seed: int = 0) -> list[tuple[TmaCase, bool, str]]:
    """Lower (``transfer=tma``), compile and run every kernel of one module on the GPU:
    ``(case, exact, how it was lowered)`` for each."""
    from regcopy_backend.runtime.runner import run_kernel
    from regcopy_tools.regcopy_run import prepare

    prepared = prepare(module_text(cases), "tma_matrix.mlir",
                       passes="lower-reg-copy{transfer=tma}")
    infos = {info.name: info for info in prepared.kernels}
    out = []
    for case in cases:
        g, o = case.inputs(np.random.default_rng(seed))
        info = infos[case.name]
        got = run_kernel(prepared.source, info, [g, o]).arrays[1]
        how = "tma" if info.tensor_maps else "cp.async"
        out.append((case, bool((got.view(np.uint8) == case.expected(g).view(np.uint8)).all()),
                    how))
    return out


def main(argv: Sequence[str]) -> int:
    """Run the whole matrix on the GPU; one line per case, then the pass/fail counts."""
    del argv
    passed = failed = 0
    for cases in matrix():
        try:
            results = run_module(cases)
        except Exception as e:  # noqa: BLE001 - report and go on: one line per failure
            print(f"FAIL {' + '.join(c.name for c in cases)}: {type(e).__name__}: "
                  f"{str(e).splitlines()[0] if str(e) else ''}", flush=True)
            failed += len(cases)
            continue
        for case, ok, how in results:
            print(f"{'ok  ' if ok else 'FAIL'} {case.name} ({how}"
                  f"{', with ' + str(len(cases) - 1) + ' more kernels' if len(cases) > 1 else ''})",
                  flush=True)
            passed += ok
            failed += not ok
    print(f"tma matrix: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
