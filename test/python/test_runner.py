"""The runner's pure parts (no GPU needed): the alignment check that refuses misaligned global
pointers before launch, kernel facts, host data, and ``regcopy-run``'s behaviour without a GPU."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path
from typing import Any, cast

import numpy as np
import pytest
from regcopy_backend.cuda.kernel_info import KernelInfo, kernel_info, kernels
from regcopy_backend.host_data import (
    as_float64,
    checksum,
    numpy_dtype,
    random_values,
)
from regcopy_backend.runtime.runner import (
    AlignmentError,
    ArgumentError,
    NoGpuError,
    check_alignment,
    check_arguments,
    check_shared_memory,
    gpu_available,
    run_kernel,
)
from regcopy_tools.regcopy_run import checksum_lines, parse_and_lower, random_inputs
from tool_runner import run_tool
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    IntegerType,
    Signedness,
)
from xdsl.ir import Attribute

REPO = Path(__file__).resolve().parents[2]
SEED = REPO / "examples" / "seed_demo.mlir"
BIN = Path(sys.executable).parent


def seed_info() -> KernelInfo:
    module = parse_and_lower(SEED.read_text(), str(SEED))
    (f,) = kernels(module)
    return kernel_info(f)


# ---- alignment -----------------------------------------------------------------------------


def test_kernel_info_of_the_seed_demo() -> None:
    info = seed_info()
    assert (info.name, info.block, info.grid3, info.index64) == ("seed_demo", 32, (1, 1, 1), False)
    assert [(p.name, p.shape, p.elements) for p in info.params] == [
        ("in", (32, 8), 256), ("out", (32, 8), 256)]
    # the seed demo's global buffers are only touched by scalar loads/stores: 4-byte alignment
    assert [p.alignment for p in info.params] == [4, 4]


def test_alignment_follows_the_widest_vector_through_storage() -> None:
    path = REPO / "examples" / "cta_tile.mlir"
    (f,) = kernels(parse_and_lower(path.read_text(), str(path)))
    info = kernel_info(f)
    assert info.widest_vector == 16
    assert [p.alignment for p in info.params] == [16, 16]


def test_misaligned_pointer_is_refused() -> None:
    path = REPO / "examples" / "cta_tile.mlir"
    (f,) = kernels(parse_and_lower(path.read_text(), str(path)))
    info = kernel_info(f)
    check_alignment(info.name, info.params, [0x7F0000000000, 0x7F0000001000])
    with pytest.raises(AlignmentError) as err:
        check_alignment(info.name, info.params, [0x7F0000000000, 0x7F0000001008])
    message = str(err.value)
    assert "cta_tile" in message and "'C'" in message and "16-byte" in message
    assert "refusing to launch" in message and "\n" not in message
    with pytest.raises(AlignmentError, match="takes 2 buffers"):
        check_alignment(info.name, info.params, [0])


def test_alignment_skips_scalar_parameters() -> None:
    info = scalar_info()
    check_alignment(info.name, info.params, [0x7F0000000004])
    with pytest.raises(AlignmentError, match="takes 1 buffers"):
        check_alignment(info.name, info.params, [0, 0])


def test_array_sizes_are_checked() -> None:
    info = seed_info()
    with pytest.raises(ArgumentError, match="takes 2 arguments"):
        check_arguments(info, [np.zeros(256, np.float32)])
    with pytest.raises(ArgumentError, match="has shape 255 .255 elements., the buffer "
                                            r"memref<32x8xf32.* spans 256: pass shape 32x8 "
                                            "or 256"):
        check_arguments(info, [np.zeros(256, np.float32), np.zeros(255, np.float32)])
    with pytest.raises(ArgumentError, match="argument %in is a buffer; pass a numpy array"):
        check_arguments(info, [3, np.zeros(256, np.float32)])


# ---- scalar arguments and their divisibility promises ---------------------------------------

SCALARS = """func.func @gemm_tiles(%A: memref<4096xf32, #regcopy.mem<global>>,
    %K: index {regcopy.divisibility = 64 : i64}, %n: i8, %m: ui16)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
  %i = arith.addi %t, %K : index
  %v = memref.load %A[%i] : memref<4096xf32, #regcopy.mem<global>>
  memref.store %v, %A[%t] : memref<4096xf32, #regcopy.mem<global>>
  func.return
}"""


def scalar_info() -> KernelInfo:
    (f,) = kernels(parse_and_lower(SCALARS, "scalars.mlir", passes=""))
    return kernel_info(f)


def test_scalar_arguments_are_checked_before_launch() -> None:
    info = scalar_info()
    a = np.zeros(4096, np.float32)
    check_arguments(info, [a, 128, -128, 65535])
    check_arguments(info, [a, np.int64(0), np.int8(5), 0])
    with pytest.raises(ArgumentError) as err:
        check_arguments(info, [a, 100, 0, 0])
    assert str(err.value) == ("kernel gemm_tiles: argument %K = 100 breaks its promise "
                              "regcopy.divisibility = 64; refusing to launch")
    with pytest.raises(ArgumentError, match=r"%n = 128 does not fit its type i8 \(signed char"):
        check_arguments(info, [a, 64, 128, 0])
    with pytest.raises(ArgumentError, match="%m = -1 does not fit"):
        check_arguments(info, [a, 64, 0, -1])
    with pytest.raises(ArgumentError, match="%K = 4294967296 does not fit its type index"):
        check_arguments(info, [a, 2**32, 0, 0])
    with pytest.raises(ArgumentError, match="argument %K is index; pass an int, not float"):
        check_arguments(info, [a, 64.0, 0, 0])
    with pytest.raises(ArgumentError, match=r"takes 4 arguments \(%A: buffer, %K: index"):
        check_arguments(info, [a])


def test_run_kernel_refuses_a_broken_promise_before_looking_for_a_gpu() -> None:
    with pytest.raises(ArgumentError, match="breaks its promise"):
        run_kernel("", scalar_info(), [np.zeros(4096, np.float32), 65, 0, 0])


def test_shared_memory_over_the_device_limit_is_refused() -> None:
    path = REPO / "test" / "backend" / "cuda-shared-dyn-192k.mlir"
    (f,) = kernels(parse_and_lower(path.read_text(), str(path)))
    info = kernel_info(f)
    assert (info.static_shared_bytes, info.dynamic_shared_bytes) == (0, 196608)
    check_shared_memory(info, 232448, "H200")
    with pytest.raises(Exception, match=r"196608 bytes of shared memory per block .* over "
                       "the 101376-byte per-block limit of small GPU"):
        check_shared_memory(info, 101376, "small GPU")


# ---- host data -----------------------------------------------------------------------------

TYPES = [Float32Type(), Float16Type(), BFloat16Type(), Float8E4M3FNType(), Float8E5M2Type(),
         IntegerType(8), IntegerType(64), IntegerType(8, Signedness.UNSIGNED)]


@pytest.mark.parametrize("t", TYPES, ids=str)
def test_random_values_are_exact_and_deterministic(t: Attribute) -> None:
    a = random_values(t, 1000, np.random.default_rng(7))
    b = random_values(t, 1000, np.random.default_rng(7))
    assert a.dtype == numpy_dtype(t) and np.array_equal(a, b)
    values = as_float64(a, t)
    assert np.all(np.isfinite(values))
    if t.__class__.__name__.startswith(("Float", "BFloat")):
        assert np.all(values * 4 == np.round(values * 4))  # quarters at most: exact
        assert len(np.unique(values)) > 5


def test_fp8_and_bf16_decoding() -> None:
    assert as_float64(np.array([0x3F80, 0xC000], np.uint16), BFloat16Type()).tolist() == [1, -2]
    assert as_float64(np.array([0x38, 0xB8, 0x7E], np.uint8), Float8E4M3FNType()).tolist() == [
        1.0, -1.0, 448.0]
    assert as_float64(np.array([0x3C, 0x40], np.uint8), Float8E5M2Type()).tolist() == [1.0, 2.0]


def test_checksum_lines() -> None:
    info = seed_info()
    arrays = random_inputs(info, np.random.default_rng(0))
    assert [a.shape for a in arrays] == [(32, 8), (32, 8)]
    lines = checksum_lines(info, arrays)
    total, digest = checksum(arrays[0], Float32Type())
    assert lines[0] == f"seed_demo.in f32[32x8] sum={total!r} sha256={digest}"
    assert lines == checksum_lines(info, random_inputs(info, np.random.default_rng(0)))


# ---- without a GPU -------------------------------------------------------------------------


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return run_tool(["regcopy-run", *args], Path.cwd(), timeout=300)


def test_regcopy_run_without_or_with_a_gpu() -> None:
    """No GPU here: one line on stderr and exit code 2. (On a GPU machine: checksums, and the
    seed demo's output equals its input.)"""
    proc = _run(str(SEED), "--seed", "3")
    has_gpu, _ = gpu_available()
    if not has_gpu:
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.startswith("regcopy-run: no CUDA GPU available (")
        assert len(proc.stderr.strip().splitlines()) == 1 and proc.stdout == ""
        with pytest.raises(NoGpuError):
            run_kernel("", seed_info(), random_inputs(seed_info(), np.random.default_rng(0)))
        return
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 2 and lines[0].split()[2:] == lines[1].split()[2:]


def test_regcopy_run_bad_input_is_one_diagnostic(tmp_path: Path) -> None:
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @k() {\n  %x = arith.constant : index\n}\n")
    proc = _run(str(bad))
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"{bad}:2:23: error: attribute expected\n")
    assert "Traceback" not in proc.stderr


def test_regcopy_run_needs_a_kernel(tmp_path: Path) -> None:
    empty = tmp_path / "none.mlir"
    empty.write_text("func.func @helper() {\n  func.return\n}\n")
    proc = _run(str(empty))
    assert proc.returncode == 1 and "no kernel" in proc.stderr


def test_dynamic_shared_size_goes_through_the_driver(monkeypatch: pytest.MonkeyPatch) -> None:
    """A library kernel (CUkernel) gets cuKernelSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, n,
    kernel, device); a CUfunction gets cuFuncSetAttribute; a driver error is a LaunchError."""
    from types import SimpleNamespace

    from cuda.bindings import driver
    from regcopy_backend.runtime.runner import LaunchError, set_dynamic_shared_memory

    calls: list[tuple[str, object, int]] = []
    attr = driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES

    def kernel_set(a: object, n: int, k: object, d: object) -> tuple[driver.CUresult]:
        calls.append(("kernel", a, n))
        assert isinstance(k, driver.CUkernel) and int(cast(Any, d)) == 3
        return (driver.CUresult.CUDA_SUCCESS,)

    def func_set(f: object, a: object, n: int) -> tuple[driver.CUresult]:
        calls.append(("func", a, n))
        return (driver.CUresult.CUDA_ERROR_INVALID_VALUE,)

    monkeypatch.setattr(driver, "cuKernelSetAttribute", kernel_set)
    monkeypatch.setattr(driver, "cuFuncSetAttribute", func_set)
    dev = SimpleNamespace(device_id=3)
    set_dynamic_shared_memory(dev, SimpleNamespace(handle=driver.CUkernel(0)), 196608)
    with pytest.raises(LaunchError, match="196608 bytes of dynamic shared memory"):
        set_dynamic_shared_memory(dev, SimpleNamespace(handle=driver.CUfunction(0)), 196608)
    assert calls == [("kernel", attr, 196608), ("func", attr, 196608)]


def test_run_kernel_launch_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a stand-in for cuda.core: the kernel is looked up by its C name, buffers become
    pointers and scalars numpy scalars of their C type, in parameter order; the dynamic shared
    size is set and passed as shmem_size; only buffers come back."""
    from types import SimpleNamespace

    from regcopy_backend.runtime import runner

    seen: dict[str, object] = {}

    class Buffer:
        def __init__(self, handle: int) -> None:
            self.handle = handle

        def close(self, stream: object) -> None:
            pass

    class Core:
        LegacyPinnedMemoryResource = staticmethod(lambda: None)

        @staticmethod
        def LaunchConfig(**kw: object) -> dict[str, object]:
            return kw

        @staticmethod
        def launch(stream: object, config: object, kernel: object, *args: object) -> None:
            seen.update(config=config, kernel=kernel, args=args)

    stream = SimpleNamespace(sync=lambda: None)
    dev = SimpleNamespace(properties=SimpleNamespace(max_shared_memory_per_block_optin=232448),
                          name="fake", create_stream=lambda: stream)
    monkeypatch.setattr(runner, "get_device", lambda: dev)
    monkeypatch.setattr(runner, "cuda_core", lambda: Core)
    monkeypatch.setattr(runner, "compile_kernel",
                        lambda d, src, name, index32=False: f"kernel:{name}")
    monkeypatch.setattr(runner, "set_dynamic_shared_memory",
                        lambda d, k, n: seen.update(dyn=(k, n)))
    handles = iter([0x1000, 0x2000])
    monkeypatch.setattr(runner, "_to_device", lambda d, st, mr, a, sh: Buffer(next(handles)))
    monkeypatch.setattr(runner, "_to_host", lambda st, mr, b, a, sh: a + b.handle)
    module = parse_and_lower(SCALARS.replace("@gemm_tiles", "@class").replace(
        "%m: ui16", "%m: ui16, %B: memref<8xi64, #regcopy.mem<global>>"), "s.mlir", passes="")
    info = dataclasses.replace(kernel_info(kernels(module)[0]), dynamic_shared_bytes=4096)
    a, b = np.zeros(4096, np.float32), np.zeros(8, np.int64)
    result = run_kernel("src", info, [a, 192, -3, 7, b])
    assert seen["kernel"] == "kernel:k_class" and seen["dyn"] == ("kernel:k_class", 4096)
    assert seen["config"] == {"grid": (1, 1, 1), "block": 32, "shmem_size": 4096}
    args = cast(tuple[Any, ...], seen["args"])
    assert args[0] == 0x1000 and args[4] == 0x2000
    assert [(type(x), x) for x in args[1:4]] == [(np.int32, 192), (np.int8, -3), (np.uint16, 7)]
    assert [r[0] for r in result.arrays] == [0x1000, 0x2000]


# ---- on the GPU (skipped with the reason elsewhere) -----------------------------------------

HAS_GPU, WHY_NOT = gpu_available()


@pytest.mark.gpu
@pytest.mark.skipif(not HAS_GPU, reason=WHY_NOT)
def test_192k_shared_dyn_kernel_runs_exactly() -> None:
    """Two shared.dyn buffers (196608 bytes in all, T at byte 180224): the input tile goes
    through T and through S's last 64 rows; both outputs equal the input bit for bit."""
    from regcopy_backend.cuda.printer import print_cuda

    path = REPO / "test" / "backend" / "cuda-shared-dyn-192k.mlir"
    module = parse_and_lower(path.read_text(), str(path))
    (f,) = kernels(module)
    info = kernel_info(f)
    arrays = random_inputs(info, np.random.default_rng(5))
    result = run_kernel(print_cuda(module), info, arrays)
    assert np.array_equal(result.arrays[1].view(np.uint16), arrays[0].view(np.uint16))
    assert np.array_equal(result.arrays[2].view(np.uint16), arrays[0].view(np.uint16))


@pytest.mark.gpu
@pytest.mark.skipif(not HAS_GPU, reason=WHY_NOT)
def test_scalar_arguments_and_mangled_name_on_the_gpu() -> None:
    """A kernel named @class (printed as k_class) with index/i8/ui16 scalars: A[t] = A[t + K]
    for the 32 threads, so the first 32 elements become elements K..K+31."""
    from regcopy_backend.cuda.printer import print_cuda

    module = parse_and_lower(SCALARS.replace("@gemm_tiles", "@class"), "s.mlir", passes="")
    (f,) = kernels(module)
    info = kernel_info(f)
    assert info.c_name == "k_class"
    a = np.arange(4096, dtype=np.float32)
    result = run_kernel(print_cuda(module), info, [a, 192, -3, 7])
    (out,) = result.arrays
    assert np.array_equal(out[:32], a[192:224]) and np.array_equal(out[32:], a[32:])
