"""``regcopy-run``: lower, print, compile and run the kernels of an input file.

    regcopy-run in.mlir [-p passes] [--seed N] [--arg NAME=VALUE ...] [--grid X[,Y[,Z]]]
                        [--kernel NAME] [--print-cuda]
                        [--compile-only | --check]

Parses ``in.mlir``, runs ``-p`` passes then ``lower-reg-copy{strict=true}`` (unless ``-p``
already names it: a copy the pass rejects is an error with its reason, since it cannot run),
prints the kernels as CUDA (``-t cuda``) and compiles them with NVRTC for sm_90. Then:

* default: runs every kernel ``func.func`` once on the GPU on deterministic random inputs
  (``numpy.random.default_rng(seed)``, values exactly representable in the element type) and
  prints one checksum line per global buffer:
  ``<kernel>.<buffer> <type>[<shape>] sum=<float64 sum> sha256=<16 hex digits>``;
* ``--compile-only``: no GPU needed; one line per kernel: registers, stack/spills, shared
  memory (ptxas), and the SASS memory instructions by kind and width;
* in every mode, a kernel whose SASS loads or stores local memory (``LDL``/``STL``: spilled
  registers, or a register tile indexed at run time) gets one warning line on stderr with
  its counts, its registers and the fix (``min_blocks = 1`` in its ``#regcopy.launch``, or a
  smaller tile);
* ``--check``: runs the *un-lowered* IR on the CPU interpreter (the reference: every
  ``regcopy.copy`` moves its elements directly) on the same inputs and compares every buffer
  bit for bit with the GPU run, one line per buffer (``equal`` or the first mismatch; float
  buffers of a kernel using ``math.exp``/``exp2``/``log``/``rsqrt``/``tanh`` within a few
  ulps, ``tolerance``). Without
  a GPU the lowered IR runs on the CPU interpreter in the GPU's place, and a line on stderr
  says that the GPU part was skipped. The reference runs first, so a runtime error (an
  offset out of bounds, a broken ``regcopy.multiple_of`` promise) is one line that names
  the op, its ``file:line:col``, and the block and thread that ran it.

Scalar (``index``/integer/float) kernel parameters take their value from ``--arg NAME=VALUE``
(required: there is no default; a value that breaks the parameter's
``{regcopy.divisibility = N}`` promise is refused). A dynamic buffer (``memref<?x?xf32>``)
takes its shape from ``--arg NAME=AxB`` (required; random data of that shape; the rank and
static sizes must match, extents be >= 1 and keep its ``regcopy.divisibility`` array); a
strided one (``strided<[?, 1]>``) takes its leading strides after a colon,
``--arg NAME=1000x4000:4096`` (without: contiguous rows), and runs on a view of that stride
(``strided_args``).
``--grid X[,Y[,Z]]`` overrides the launch attribute's grid (the GPU run and ``--check``):
sizes, or integer expressions of the extents and scalars (``--grid 'cdiv(X[1], 8),
cdiv(X[0], 32)'``: ``X[d]`` is extent d of ``%X``; ``launch_grid``). With ``--check``, when
``--grid`` is given or the kernel has runtime extents, the reference also runs the block just
past the grid in each dimension the kernel reads: if it would write an element the launch left
untouched, the grid leaves tiles unvisited and that buffer is reported ``UNVISITED`` (exit 3),
not ``equal``. A dynamic buffer given an extent 0 (``--arg X=0x128``) launches nothing: one
line says so. ``--kernel NAME`` runs (or reports) only the kernel ``@NAME``, and lowers,
prints and compiles it alone: a module's other kernels cost nothing (``--print-cuda`` prints
its CUDA, compiled for the architecture it needs: ``sm_90a`` only if it uses wgmma). ``--checked``
compiles the checked mode: every ``regcopy.multiple_of`` tests its promise on the GPU, and a
broken one prints ``file:line:col: error: regcopy.multiple_of: V is not a multiple of N
(block B, thread T)`` from the device and traps (the launch fails, exit 1) instead of faulting on a misaligned
vector or computing with a wrong assumption (the local-memory warning is not given then:
``printf`` keeps its arguments in local memory on that path).

Exit codes: 0 ran (``--check``: every buffer equal, also when the GPU part was skipped);
1 bad input, a failed compile/launch or a runtime error of the CPU interpreter (one
diagnostic, no traceback); 2 no CUDA GPU for a
plain run (``regcopy-run: no CUDA GPU available (...)`` on stderr); 3 ``--check`` found a
mismatch or unvisited tiles.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from regcopy_backend.cuda.kernel_info import KernelInfo, kernel_info, kernels
from regcopy_backend.cuda.printer import print_cuda
from regcopy_backend.cuda.spills import kernel_sass, local_traffic, ptxas_resources
from regcopy_backend.interpreter.driver import KernelError
from regcopy_backend.runtime.cpu_run import kernel_by_name, run_on_cpu
from regcopy_backend.host_data import as_float64, checksum, random_values
from regcopy_backend.cuda.nvrtc import (
    Compiled,
    NvdisasmError,
    NvrtcError,
    compile_cuda,
    disassemble,
    module_arch,
)
from regcopy_passes.lower_layout_access import lower_layout_access
from regcopy_tools import launch_grid
from regcopy_tools.cli import run_main
from regcopy_tools.cpu_jobs import CpuJob, CpuJobs, CpuRunError
from regcopy_tools.launch_grid import GridArg, block_dims, parse_grid_spec, unvisited
from regcopy_tools.run_report import (
    ArgumentSpecError,
    HostArg,
    host_arguments,
    mismatch,
    parse_arg_specs,
    sass_memory_ops,
    unknown_args,
)
from regcopy_tools.tolerance import (
    SUM_ULPS,
    accumulating_ops,
    approximate_ops,
    scaled_mismatch,
    ulp_mismatch,
    ulps_for,
)
from regcopy_tools.universe import DIALECT_OVERRIDES, REGCOPY_UNIVERSE
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline
from xdsl.universe import Universe
from xdsl.utils.exceptions import DiagnosticException, ParseError

from regcopy_dialect.diagnostics import first_invalid_op, op_error, parse_error
from regcopy_dialect.regcopy import CopyOp
from regcopy_dialect.source import parse_located

LOWER = "lower-reg-copy"


class RunInputError(Exception):
    """Bad input, already phrased as one diagnostic."""


@dataclass
class Prepared:
    """A lowered module, its CUDA source, its kernels and NVRTC's output (``compiled``: made
    by ``prepare``, or at first use when ``prepare`` was told to wait)."""

    module: ModuleOp
    source: str
    kernels: list[KernelInfo]
    name: str
    """The CUDA file's name (NVRTC's diagnostics cite it)."""
    arch: str
    options: tuple[str, ...] = ()
    """The NVRTC options of ``compiled`` (``VERBOSE``: ptxas's resource report in its log)."""
    _compiled: Compiled | None = None

    @property
    def compiled(self) -> Compiled:
        """NVRTC's output; ``RunInputError`` with its log when NVRTC refuses the source."""
        if self._compiled is None:
            try:
                self._compiled = compile_source(self.source, self.arch, self.name,
                                                self.options)
            except NvrtcError as e:
                raise RunInputError(str(e)) from None
        return self._compiled

    def compile(self) -> Compiled:
        """``compiled``, made now if it is not yet (its error raised here)."""
        return self.compiled


VERBOSE = ("--ptxas-options=-v",)
"""NVRTC options under which ptxas reports each kernel's registers, stack and shared memory in
the log (``compile_summary``); the cubin is the same as without."""


def build_context() -> Context:
    """A context with every dialect of the installed universes plus regcopy's."""
    ctx = Context()
    try:
        universes = [Universe.get_multiverse(), REGCOPY_UNIVERSE]
    except ValueError:  # a broken plugin: fall back to regcopy + xdsl's own dialects
        from xdsl.universe import XDSL_UNIVERSE

        universes = [XDSL_UNIVERSE, REGCOPY_UNIVERSE]
    for name, factory in DIALECT_OVERRIDES.items():
        ctx.register_dialect(name, factory)
    for universe in universes:
        for name, factory in universe.all_dialects.items():
            if name not in ctx.registered_dialect_names:
                ctx.register_dialect(name, factory)
    return ctx


def pipeline_spec(passes: str) -> str:
    """``-p`` passes followed by ``lower-reg-copy`` unless they already run it."""
    names = [p.strip().split("{")[0] for p in passes.split(",") if p.strip()]
    return passes if LOWER in names else ",".join(p for p in (passes, LOWER) if p)


def parse_module(text: str, filename: str) -> tuple[Context, ModuleOp]:
    """Parse and verify; ``RunInputError`` with one diagnostic on failure."""
    ctx = build_context()
    try:
        module = parse_located(ctx, text, filename)
    except ParseError as e:
        raise RunInputError(parse_error(e)) from None
    if (bad := first_invalid_op(module)) is not None:
        op, err = bad
        raise RunInputError(op_error(op, f"does not verify: {err}"))
    return ctx, module


def keep_kernel(module: ModuleOp, name: str | None) -> None:
    """Erase every kernel of ``module`` but ``@name`` (``--kernel``: the others are neither
    lowered, printed nor compiled; functions that are not kernels stay). Nothing is erased
    without a name or when no kernel has it (``select_kernel`` reports that, after the
    compile whose error comes first)."""
    if name is None:
        return
    found = kernels(module)
    if all(f.sym_name.data != name.lstrip("@") for f in found):
        return
    for f in found:
        if f.sym_name.data != name.lstrip("@"):
            f.detach()
            f.erase()


def parse_and_lower(text: str, filename: str, passes: str = "",
                    kernel: str | None = None) -> ModuleOp:
    """Parse, verify, and run the pipeline; ``RunInputError`` with one diagnostic on failure.
    ``kernel``: only that kernel is lowered (``keep_kernel``)."""
    ctx, module = parse_module(text, filename)
    keep_kernel(module, kernel)
    available = dict(Universe.get_multiverse().all_passes)
    available.update(REGCOPY_UNIVERSE.all_passes)
    try:
        pipeline = PassPipeline.parse_spec(available, pipeline_spec(passes))
        pipeline.apply(ctx, module)
        module.verify()
    except DiagnosticException as e:
        raise RunInputError(str(e.args[0]) if e.args else str(e)) from None
    except ValueError as e:
        raise RunInputError(f"bad pass pipeline '{passes}': {e}") from None
    return module


def rejection(text: str, filename: str, passes: str, kernel: str | None = None) -> str:
    """Why ``lower-reg-copy`` leaves a copy: the error of the same pipeline run strict."""
    strict = ",".join(p for p in (passes, f"{LOWER}{{strict=true}}") if p)
    try:
        parse_and_lower(text, filename, strict, kernel)
    except RunInputError as e:
        return str(e)
    return "lower-reg-copy left a regcopy.copy in the IR"


def prepare(text: str, filename: str, passes: str = "", arch: str = "sm_90",
            checked: bool = False, options: tuple[str, ...] = (),
            compile: bool = True, kernel: str | None = None) -> Prepared:
    """Lower, print and NVRTC-compile; no GPU needed. A copy left unlowered is an error that
    carries the pass's reason (regcopy-run can only run lowered kernels). ``checked``: the
    checked mode, every ``regcopy.multiple_of`` promise tested at run time (``print_cuda``);
    ``options``: NVRTC's (``VERBOSE`` for ``compile_summary``; a failed compile reports the
    log of the compile without them); ``compile=False``: NVRTC runs at the first use of
    ``Prepared.compiled`` (its error is raised there); ``kernel``: that kernel alone is
    lowered, printed and compiled (``keep_kernel``; the whole module when none has the
    name)."""
    module = parse_and_lower(text, filename, passes, kernel)
    if any(isinstance(op, CopyOp) for op in module.walk()):
        raise RunInputError(
            rejection(text, filename, "" if LOWER in passes else passes, kernel)
            + f"\n(regcopy-run runs lowered kernels only; `regcopy-opt -p "
            f"'lower-reg-copy{{remarks=true}}' {filename}` shows the plan of every copy)")
    try:
        source = print_cuda(module, checked_promises=checked)
    except DiagnosticException as e:
        raise RunInputError(str(e.args[0]) if e.args else str(e)) from None
    found = kernels(module)
    if not found:
        raise RunInputError(f"{filename}: no kernel: a kernel is a func.func with a "
                            "regcopy.launch attribute")
    try:
        infos = [kernel_info(f) for f in found]
    except ValueError as e:
        raise RunInputError(str(e)) from None
    prepared = Prepared(module, source, infos, Path(filename).stem + ".cu", arch, options)
    if compile:
        prepared.compile()
    return prepared


def compile_source(source: str, arch: str, name: str, options: tuple[str, ...]) -> Compiled:
    """``compile_cuda`` with ``options``; when that fails, the error of the plain compile
    (the options add to the log, not to what compiles)."""
    try:
        return compile_cuda(source, arch=arch, name=name, options=options)
    except NvrtcError:
        if not options:
            raise
    return compile_cuda(source, arch=arch, name=name)


def random_inputs(info: KernelInfo, rng: np.random.Generator) -> list[np.ndarray]:
    """One deterministic random array per buffer of ``info`` (its layout's whole span)."""
    out: list[np.ndarray] = []
    for p in info.buffers:
        values = random_values(p.type.element_type, p.elements, rng)
        out.append(values.reshape(p.shape) if p.elements == int(np.prod(p.shape)) else values)
    return out


def checksum_lines(info: KernelInfo, arrays: Sequence[np.ndarray]) -> list[str]:
    """``<kernel>.<buffer> <type>[<shape>] sum=... sha256=...`` per buffer."""
    lines: list[str] = []
    for p, a in zip(info.buffers, arrays, strict=True):
        total, digest = checksum(a, p.type.element_type)
        lines.append(f"{buffer_title(info, p, a)} sum={total!r} sha256={digest}")
    return lines


def buffer_title(info: KernelInfo, p: Any, like: np.ndarray | None = None) -> str:
    """``<kernel>.<buffer> <element>[<shape>]``; a dynamic buffer shows its array's shape."""
    dims = like.shape if like is not None and p.dynamic else p.shape
    shape = "x".join(str(d) for d in dims)
    return f"{info.name}.{p.name} {p.type.element_type}[{shape}]"


def sass_listing(prepared: Prepared) -> str | None:
    """The SASS of the compiled kernels, or None without ``nvdisasm``."""
    try:
        return disassemble(prepared.compiled.cubin)
    except NvdisasmError:
        return None


def compile_summary(prepared: Prepared, arch: str = "sm_90",
                    sass: str | None = None) -> list[str]:
    """One line per kernel: ptxas resources and the SASS memory instructions (no GPU);
    ``sass``: the listing when the caller has it (else disassembled here). The resources are
    read from ``prepared``'s log when it was compiled ``VERBOSE`` for ``arch`` (no second
    compile)."""
    verbose = (prepared.compiled if prepared.options == VERBOSE
               and prepared.compiled.arch == module_arch(prepared.source, arch)
               else compile_cuda(prepared.source, arch=arch, options=VERBOSE))
    resources = ptxas_resources(verbose.log)
    if sass is None:
        sass = sass_listing(prepared)
    lines: list[str] = []
    for info in prepared.kernels:
        r = resources.get(info.symbol)
        parts = [f"{info.name}: compiled for {verbose.arch}"]
        if r is not None:
            parts.append(f"{r.registers} registers, {r.stack_bytes} bytes stack, spills "
                         f"{r.spill_stores}/{r.spill_loads} bytes (stores/loads), "
                         f"{r.shared_bytes} bytes static shared")
        dyn = info.dynamic_shared_bytes
        parts.append(f"{dyn} bytes dynamic shared")
        if sass is not None:
            ops = sass_memory_ops(kernel_sass(sass, info.symbol))
            listed = " ".join(f"{op}*{n}" for op, n in sorted(ops.items())) or "none"
            local = sum(n for op, n in ops.items() if op.startswith(("LDL", "STL")))
            parts.append(f"SASS memory ops: {listed} ({local} LDL/STL)")
        lines.append("; ".join(parts))
    return lines


def spill_warnings(prepared: Prepared, sass: str | None, arch: str = "sm_90") -> list[str]:
    """One ``regcopy-run: warning: ...`` line per kernel whose SASS has ``LDL``/``STL``
    (none without a listing)."""
    if sass is None:
        return []
    try:
        traffic = local_traffic(sass, prepared.kernels, prepared.source, arch)
    except NvrtcError:
        return []
    return [f"regcopy-run: {t.warning()}" for t in traffic]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="regcopy-run", description=__doc__.split("\n\n")[0])
    ap.add_argument("input", help="input .mlir file")
    ap.add_argument("-p", "--passes", default="", help="passes to run before lower-reg-copy")
    ap.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    ap.add_argument("--arg", action="append", default=[], metavar="NAME=VALUE",
                    help="value of a scalar kernel parameter, or the shape AxB.. of a dynamic "
                         "buffer (repeatable; required for each)")
    ap.add_argument("--grid", default=None, metavar="X[,Y[,Z]]",
                    help="launch grid, overriding the regcopy.launch attribute's: sizes, or "
                         "expressions of the extents such as 'cdiv(X[1], 8), cdiv(X[0], 32)'")
    ap.add_argument("--kernel", default=None, metavar="NAME",
                    help="run (or compile-report) only the kernel @NAME; the other kernels are "
                         "not lowered or compiled")
    ap.add_argument("--checked", action="store_true",
                    help="checked mode: every regcopy.multiple_of promise is tested on the GPU; "
                         "a broken one prints its file:line:col and traps")
    ap.add_argument("--print-cuda", action="store_true", help="print the CUDA source first")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--compile-only", action="store_true",
                      help="compile with NVRTC and report resources; no GPU needed")
    mode.add_argument("--check", action="store_true",
                      help="compare with a CPU run of the un-lowered IR (without a GPU: the "
                           "lowered IR on the CPU)")
    return ap.parse_args(argv)


def parse_grid(text: str | None) -> tuple[int, ...] | None:
    """``X[,Y[,Z]]`` as sizes (``launch_grid.parse_grid``; ``--grid`` itself also takes
    expressions of the extents: ``parse_grid_spec``)."""
    return launch_grid.parse_grid(text)


def kernel_funcs(prepared: Prepared) -> list[func.FuncOp]:
    by_name = {f.sym_name.data: f for f in kernels(prepared.module)}
    return [by_name[info.name] for info in prepared.kernels]


def check_kernel(info: KernelInfo, args: list[HostArg], reference: ModuleOp,
                 candidate: list[np.ndarray], label: str) -> list[str]:
    """Compare ``candidate`` (one array per buffer) with the CPU reference run."""
    return compare_buffers(info, candidate, run_on_cpu(reference, info.name, args), label)


def compare_buffers(info: KernelInfo, candidate: list[np.ndarray], want: list[np.ndarray],
                    label: str, approximate: Sequence[str] = (),
                    accumulating: Sequence[str] = ()) -> list[str]:
    """One line per buffer: ``equal (N elements)`` or the first mismatch. With
    ``approximate`` math ops in the kernel, float buffers compare within a few ulps; with
    ``accumulating`` tensor-core ops, within a few ulps of each buffer's largest magnitude
    (``tolerance``); either says so."""
    lines: list[str] = []
    for p, got, ref in zip(info.buffers, candidate, want, strict=True):
        ulps = ulps_for(p.type.element_type) if approximate else 0
        element = p.type.element_type
        if accumulating and ulps_for(element):
            problem = scaled_mismatch(got, ref, as_float64(got, element),
                                      as_float64(ref, element), element, SUM_ULPS, label,
                                      "reference")
            equal = (f"equal ({ref.size} elements, within {SUM_ULPS} ulp of the largest: "
                     f"{', '.join(accumulating)} sums in the tensor cores' order)")
        elif ulps:
            problem = ulp_mismatch(got, ref, p.type.element_type, ulps, label, "reference")
            equal = (f"equal ({ref.size} elements, within {ulps} ulp: "
                     f"{', '.join(approximate)} not correctly rounded on the GPU)")
        else:
            problem = mismatch(got, ref, label, "reference")
            equal = f"equal ({ref.size} elements)"
        lines.append(f"{buffer_title(info, p, ref)} " + (f"MISMATCH: {problem}" if problem
                                                     else equal))
    return lines


def select_kernel(prepared: Prepared, name: str | None) -> None:
    """Keep only the kernel ``@name`` of ``prepared`` (``--kernel``); all without a name."""
    if name is None:
        return
    chosen = [k for k in prepared.kernels if k.name == name.lstrip("@")]
    if not chosen:
        known = ", ".join(f"@{k.name}" for k in prepared.kernels)
        raise RunInputError(f"--kernel {name}: no kernel of that name; the file has {known}")
    prepared.kernels = chosen


def kernel_grid(info: KernelInfo, grid: GridArg, host: Sequence[HostArg]
                ) -> tuple[int, int, int]:
    """The grid of one launch: the attribute's, ``--grid``'s sizes, or its expressions
    evaluated on this kernel's arguments."""
    from regcopy_backend.runtime.arguments import array_arg
    from regcopy_backend.runtime.runner import grid_of, launch_facts

    if callable(grid):
        grid = grid(launch_facts(info, host, [array_arg(a) for a in host]))
    return grid_of(info, grid)


def unvisited_lines(info: KernelInfo, fn: func.FuncOp, reference: ModuleOp,
                    host: Sequence[HostArg], after: list[np.ndarray],
                    grid: tuple[int, int, int]) -> dict[int, str]:
    """Per buffer that the block just past ``grid`` would still write (``unvisited``: its
    first warp runs, the whole block confirms), its ``UNVISITED`` report; empty when the
    grid covers the work."""
    buffers = iter(after)
    state = [next(buffers) if isinstance(a, np.ndarray) else a for a in host]

    def probe(g: tuple[int, int, int], b: tuple[int, int, int], whole: bool
              ) -> list[np.ndarray]:
        # the first warp of the block is enough to see whether it has work (and costs a
        # warp's share of a CTA); `unvisited` confirms what it finds with the whole block
        threads = range(info.block) if whole else range(min(32, info.block))
        return run_on_cpu(reference, info.name, state, g, [b], threads)

    found = unvisited(probe, grid, block_dims(fn), after)
    if found is None:
        return {}
    what, changed = found
    return {k: f"{buffer_title(info, info.buffers[k], after[k])} UNVISITED: {what} "
               f"({mismatch(p, after[k], 'probe', 'launch')})" for k, p in changed.items()}


def run(args: argparse.Namespace) -> int:
    from regcopy_backend.runtime.runner import NoGpuError, get_device, run_kernel

    try:
        text = Path(args.input).read_text()
    except OSError as e:
        raise RunInputError(f"cannot read {args.input}: {e.strerror}") from None
    # --check compiles (NVRTC, nvdisasm) while the interpreted launches run, which need
    # neither: its error, the SASS report and the spill warnings come out as they would have
    # first, before any other line (`report`); with --print-cuda the compile comes first
    deferred = args.check and not args.print_cuda
    prepared = prepare(text, args.input, args.passes, checked=args.checked,
                       options=VERBOSE if args.compile_only else (), compile=not deferred,
                       kernel=args.kernel)
    try:
        select_kernel(prepared, args.kernel)
    except RunInputError:
        prepared.compile()  # NVRTC's error comes first
        raise
    if args.print_cuda:
        print(prepared.source)

    reported = False

    def report() -> None:
        """NVRTC's error, the SASS report, the spill warnings: once, before any other line."""
        nonlocal reported
        if reported:
            return
        reported = True
        sass = sass_listing(prepared)
        if args.compile_only:
            print("\n".join(compile_summary(prepared, sass=sass)))
        for warning in [] if args.checked else spill_warnings(prepared, sass):
            print(warning, file=sys.stderr)

    if not deferred:
        report()
    if args.compile_only:
        return 0
    try:
        try:
            grid = parse_grid_spec(args.grid)
            scalars = parse_arg_specs(args.arg)
            fns = kernel_funcs(prepared)
            if unknown := unknown_args(fns, scalars):
                raise ArgumentSpecError(f"--arg {', '.join(unknown)}: no kernel has a scalar "
                                        f"parameter or dynamic buffer of that name")
        except ArgumentSpecError as e:
            raise RunInputError(str(e)) from None
        gpu, skipped = True, ""
        try:
            get_device()
        except NoGpuError as e:
            if not args.check:
                print(f"regcopy-run: {e}", file=sys.stderr)
                return 2
            gpu = False
            skipped = (f"regcopy-run: {e}: GPU run skipped; comparing the lowered IR, run on "
                       "the CPU interpreter, with the reference instead")
        if skipped and not deferred:
            print(skipped, file=sys.stderr)
        launches, jobs = check_launches(prepared, text, args, grid, scalars, gpu)
    except Exception:
        report()  # deferred: what the compile says comes before the error, as compiled first
        raise
    failed = False
    with CpuJobs(jobs) as cpu:
        if deferred:
            report()
            if skipped:
                print(skipped, file=sys.stderr)
        for info, fn, *rest in launches:
            if isinstance(rest[0], RunInputError):
                raise rest[0]
            if isinstance(rest[0], str):
                print(rest[0])
                continue
            host, launch_grid, first, reference = rest
            want = None if reference is None else cpu.result(first)
            if gpu:
                arrays = run_kernel(prepared.source, info, host, grid=launch_grid).arrays
                label = "gpu"
            else:
                arrays = cpu.result(first + 1)
                label = "lowered"
            if want is None or reference is None:
                print("\n".join(checksum_lines(info, arrays)))
                continue
            lines = compare_buffers(info, arrays, want, label,
                                    approximate_ops(fn) if gpu else (),
                                    accumulating_ops(fn) if gpu else ())
            if args.grid is not None or any(p.dynamic for p in info.buffers):
                for k, line in unvisited_lines(info, kernel_by_name(reference, info.name),
                                               reference, host, want, launch_grid).items():
                    lines[k] = line
            failed = failed or any(("MISMATCH" in ln or "UNVISITED" in ln) for ln in lines)
            print("\n".join(lines), flush=True)
    return 3 if failed else 0


def check_launches(prepared: Prepared, text: str, args: argparse.Namespace, grid: GridArg,
                   scalars: dict[str, str], gpu: bool
                   ) -> tuple[list[tuple[Any, ...]], list[CpuJob]]:
    """Every kernel's launch, in order, and the interpreted launches to run for them."""
    from regcopy_backend.runtime.arguments import ArgumentError, array_arg, empty_launch

    reference = parse_module(text, args.input)[1] if args.check else None
    lowered = None if gpu or reference is None else lower_layout_access(prepared.module.clone())
    rng = np.random.default_rng(args.seed)
    # every kernel's arguments and launch first (in order: the random inputs are those of a
    # run kernel after kernel), then the interpreted launches run on the CPU's cores while
    # the results are taken in order (cpu_jobs): the output is that of one launch after
    # another; an argument error of a kernel is raised at its turn
    launches: list[tuple[Any, ...]] = []
    jobs: list[CpuJob] = []
    for info, fn in zip(prepared.kernels, kernel_funcs(prepared), strict=True):
        try:
            host = host_arguments(fn, rng, scalars)
            launch_grid = kernel_grid(info, grid, host)
        except (ArgumentSpecError, ArgumentError) as e:
            launches.append((info, fn, RunInputError(str(e))))
            break
        if (why := empty_launch(info, [array_arg(a) for a in host])) is not None:
            launches.append((info, fn, why))
            continue
        # the reference runs first: a runtime error (an offset out of bounds) is reported at
        # its op in the input file, before the GPU or the lowered IR runs into it
        first = len(jobs)
        weight = info.block * launch_grid[0] * launch_grid[1] * launch_grid[2]
        if reference is not None:
            jobs.append(CpuJob(reference, info.name, host, launch_grid, weight))
        if lowered is not None:
            jobs.append(CpuJob(lowered, info.name, host, launch_grid, weight))
        launches.append((info, fn, host, launch_grid, first, reference))
    return launches, jobs


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    run_main("regcopy-run", lambda: run(args), (RunInputError, KernelError, CpuRunError))


if __name__ == "__main__":
    main()
