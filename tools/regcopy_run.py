"""``regcopy-run``: lower, print, compile and run the kernels of an input file on the GPU.

    regcopy-run in.mlir [-p passes] [--seed N] [--print-cuda]

Parses ``in.mlir``, runs ``-p`` passes then ``lower-reg-copy`` (unless ``-p`` already names it),
prints the kernels as CUDA (``-t cuda``), compiles them with NVRTC, runs every kernel
``func.func`` once on deterministic random inputs (``numpy.random.default_rng(seed)``, values
exactly representable in the element type) and prints one checksum line per global buffer:

    <kernel>.<buffer> <type>[<shape>] sum=<float64 sum> sha256=<16 hex digits>

Exit codes: 0 ran; 1 bad input or a failed compile/launch (one diagnostic, no traceback);
2 no CUDA GPU (``regcopy-run: no CUDA GPU available (...)`` on stderr).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.passes import PassPipeline
from xdsl.universe import Universe
from xdsl.utils.exceptions import DiagnosticException, ParseError

from regcopy_backend.cuda import print_cuda
from regcopy_backend.host_data import checksum, random_values
from regcopy_backend.kernel_info import KernelInfo, kernel_info, kernels
from regcopy_backend.nvrtc import Compiled, NvrtcError, compile_cuda
from regcopy_dialect.diagnostics import first_invalid_op, op_error
from regcopy_tools.universe import REGCOPY_UNIVERSE

LOWER = "lower-reg-copy"


class RunInputError(Exception):
    """Bad input, already phrased as one diagnostic."""


@dataclass
class Prepared:
    """A lowered module, its CUDA source, NVRTC's output and its kernels."""

    module: ModuleOp
    source: str
    compiled: Compiled
    kernels: list[KernelInfo]


def build_context() -> Context:
    """A context with every dialect of the installed universes plus regcopy's."""
    ctx = Context()
    try:
        universes = [Universe.get_multiverse(), REGCOPY_UNIVERSE]
    except ValueError:  # a broken plugin: fall back to regcopy + xdsl's own dialects
        from xdsl.universe import XDSL_UNIVERSE

        universes = [XDSL_UNIVERSE, REGCOPY_UNIVERSE]
    for universe in universes:
        for name, factory in universe.all_dialects.items():
            if name not in ctx.registered_dialect_names:
                ctx.register_dialect(name, factory)
    return ctx


def pipeline_spec(passes: str) -> str:
    """``-p`` passes followed by ``lower-reg-copy`` unless they already run it."""
    names = [p.strip().split("{")[0] for p in passes.split(",") if p.strip()]
    return passes if LOWER in names else ",".join(p for p in (passes, LOWER) if p)


def parse_and_lower(text: str, filename: str, passes: str = "") -> ModuleOp:
    """Parse, verify, and run the pipeline; ``RunInputError`` with one diagnostic on failure."""
    ctx = build_context()
    try:
        module = Parser(ctx, text, filename).parse_module()
    except ParseError as e:
        raise RunInputError(str(e)) from None
    if (bad := first_invalid_op(module)) is not None:
        op, err = bad
        raise RunInputError(op_error(op, f"does not verify: {err}"))
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


def prepare(text: str, filename: str, passes: str = "", arch: str = "sm_90") -> Prepared:
    """Lower, print and NVRTC-compile; no GPU needed."""
    module = parse_and_lower(text, filename, passes)
    try:
        source = print_cuda(module)
    except DiagnosticException as e:
        raise RunInputError(str(e.args[0]) if e.args else str(e)) from None
    found = kernels(module)
    if not found:
        raise RunInputError(f"{filename}: no kernel: a kernel is a func.func with a "
                            "regcopy.launch attribute")
    try:
        infos = [kernel_info(f) for f in found]
        compiled = compile_cuda(source, arch=arch, name=Path(filename).stem + ".cu")
    except (ValueError, NvrtcError) as e:
        raise RunInputError(str(e)) from None
    return Prepared(module, source, compiled, infos)


def random_inputs(info: KernelInfo, rng: np.random.Generator) -> list[np.ndarray]:
    """One deterministic random array per buffer of ``info`` (its layout's whole span)."""
    out: list[np.ndarray] = []
    for p in info.params:
        values = random_values(p.type.element_type, p.elements, rng)
        out.append(values.reshape(p.shape) if p.elements == int(np.prod(p.shape)) else values)
    return out


def checksum_lines(info: KernelInfo, arrays: Sequence[np.ndarray]) -> list[str]:
    """``<kernel>.<buffer> <type>[<shape>] sum=... sha256=...`` per buffer."""
    lines: list[str] = []
    for p, a in zip(info.params, arrays, strict=True):
        total, digest = checksum(a, p.type.element_type)
        shape = "x".join(str(d) for d in p.shape)
        lines.append(f"{info.name}.{p.name} {p.type.element_type}[{shape}] sum={total!r} "
                     f"sha256={digest}")
    return lines


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="regcopy-run", description=__doc__.split("\n\n")[0])
    ap.add_argument("input", help="input .mlir file")
    ap.add_argument("-p", "--passes", default="", help="passes to run before lower-reg-copy")
    ap.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    ap.add_argument("--print-cuda", action="store_true", help="print the CUDA source first")
    ap.add_argument("--check", action="store_true",
                    help="compare with a CPU reference run (not implemented yet)")
    return ap.parse_args(argv)


def run(args: argparse.Namespace) -> int:
    from regcopy_backend.runner import NoGpuError, get_device, run_kernel

    if args.check:
        print("regcopy-run: error: --check is not implemented yet", file=sys.stderr)
        return 1
    try:
        text = Path(args.input).read_text()
    except OSError as e:
        raise RunInputError(f"cannot read {args.input}: {e.strerror}") from None
    prepared = prepare(text, args.input, args.passes)
    if args.print_cuda:
        print(prepared.source)
    try:
        get_device()
    except NoGpuError as e:
        print(f"regcopy-run: {e}", file=sys.stderr)
        return 2
    rng = np.random.default_rng(args.seed)
    for info in prepared.kernels:
        result = run_kernel(prepared.source, info, random_inputs(info, rng))
        print("\n".join(checksum_lines(info, result.arrays)))
    return 0


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    try:
        code = run(args)
    except BrokenPipeError:  # `regcopy-run ... | head`: stop quietly
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - Python flushes stdout at exit
        code = 0
    except BaseException as e:  # noqa: BLE001 - no traceback reaches the user
        if isinstance(e, SystemExit | KeyboardInterrupt) or os.environ.get("REGCOPY_TRACEBACK"):
            raise
        message = str(e) if isinstance(e, RunInputError) else f"{type(e).__name__}: {e}"
        print(f"regcopy-run: error: {message}", file=sys.stderr)
        code = 1
    sys.exit(code)


if __name__ == "__main__":
    main()
