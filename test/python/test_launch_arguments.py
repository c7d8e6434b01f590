"""Memory safety at launch, without a GPU: every array's element type, shape and size are
checked against the kernel's signature before anything is copied or launched (one line, no
launch); device arrays (``__cuda_array_interface__``, torch-like tensors) are used in place,
without a host copy; a grid may be a function of the runtime extents; an extent 0 launches
nothing and says so."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from ragged_cases import parse_unverified, tile_copy
from regcopy_backend.cuda.kernel_info import KernelInfo, kernel_info, kernels
from regcopy_backend.runtime import runner
from regcopy_backend.runtime.arguments import ArgumentError, array_arg, check_arguments
from regcopy_tools.regcopy_run import parse_and_lower

SEED = """func.func @k(%in: memref<32x8xf32, #regcopy.mem<global>>,
    %out: memref<32x8xf32, #regcopy.mem<global>>, %b: memref<16xbf16, #regcopy.mem<global>>,
    %i: memref<8xi32, #regcopy.mem<global>>, %u: memref<8xui8, #regcopy.mem<global>>,
    %p: memref<4x4xf32, #regcopy.layout<(4,4):(8,1)>, #regcopy.mem<global>>)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  func.return
}"""


@pytest.fixture(scope="module")
def info() -> KernelInfo:
    return kernel_info(kernels(parse_and_lower(SEED, "k.mlir", passes=""))[0])


def good() -> list[Any]:
    return [np.zeros((32, 8), np.float32), np.zeros((32, 8), np.float32),
            np.zeros(16, np.uint16), np.zeros(8, np.int32), np.zeros(8, np.uint8),
            np.zeros(28, np.float32)]


def refused(info: KernelInfo, k: int, value: Any) -> str:
    args = good()
    args[k] = value
    with pytest.raises(ArgumentError) as err:
        check_arguments(info, args)
    message = str(err.value)
    assert "\n" not in message and message.endswith("refusing to launch")
    return message


def test_the_right_arrays_pass(info: KernelInfo) -> None:
    facts = check_arguments(info, good())
    assert [f.shape if f else None for f in facts][:2] == [(32, 8), (32, 8)]
    args = good()
    args[0] = np.zeros(256, np.float32)  # the physical span, flat
    args[3] = np.zeros(8, np.uint32)  # i32 is signless: either signedness, same bits
    check_arguments(info, args)


@pytest.mark.parametrize(("k", "value", "why"), [
    (1, np.zeros((32, 8), np.float16), ("'out' has dtype float16, the buffer holds f32 "
                                        "(pass float32)")),
    (1, np.zeros((32, 8), np.float64), "has dtype float64"),
    (0, np.zeros((32, 8), np.int32), "has dtype int32"),
    (2, np.zeros(16, np.int16), ("has dtype int16, the buffer holds bf16 (pass uint16 or "
                                 "bfloat16)")),
    (4, np.zeros(8, np.int8), "has dtype int8, the buffer holds ui8 (pass uint8)"),
])
def test_a_wrong_element_type_is_refused(info: KernelInfo, k: int, value: Any,
                                         why: str) -> None:
    assert why in refused(info, k, value)


@pytest.mark.parametrize(("k", "value", "why"), [
    (1, np.zeros(255, np.float32), ("'out' has shape 255 (255 elements), the buffer "
                                    "memref<32x8xf32, #regcopy.mem<global>> spans 256")),
    (1, np.zeros(100, np.float32), "pass shape 32x8 or 256 elements flat"),
    (1, np.zeros((8, 32), np.float32), "has shape 8x32"),
    (1, np.zeros(512, np.float32), "has shape 512"),
    (5, np.zeros((4, 4), np.float32), "pass 28 elements flat (its physical span)"),
    (3, np.zeros(4, np.int32), "'i' has shape 4 (4 elements)"),
])
def test_a_wrong_shape_or_size_is_refused(info: KernelInfo, k: int, value: Any,
                                          why: str) -> None:
    assert why in refused(info, k, value)


class FakeCudaArray:
    """A device array as a CUDA library hands it over: ``__cuda_array_interface__`` only."""

    def __init__(self, shape: tuple[int, ...], typestr: str, ptr: int,
                 strides: tuple[int, ...] | None = None) -> None:
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr,
                                         "data": (ptr, False), "strides": strides,
                                         "version": 3}


class FakeTorch:
    """A torch-like CUDA tensor (``data_ptr``, ``element_size``, ``stride``, ``is_cuda``)."""

    def __init__(self, shape: tuple[int, ...], dtype: str, size: int, ptr: int) -> None:
        self.shape, self.dtype, self._size, self._ptr = shape, dtype, size, ptr
        self.is_cuda = True

    def element_size(self) -> int:
        return self._size

    def data_ptr(self) -> int:
        return self._ptr

    def stride(self) -> tuple[int, ...]:
        return tuple(int(np.prod(self.shape[i + 1:])) for i in range(len(self.shape)))


def test_device_arrays_are_described_and_checked(info: KernelInfo) -> None:
    a = array_arg(FakeCudaArray((32, 8), "<f4", 0x7000))
    assert a is not None and (a.shape, a.dtype, a.pointer, a.contiguous) == (
        (32, 8), "float32", 0x7000, True)
    assert "has dtype float16" in refused(info, 1, FakeCudaArray((32, 8), "<f2", 0x7000))
    assert "has shape 16x8" in refused(info, 1, FakeCudaArray((16, 8), "<f4", 0x7000))
    column = FakeCudaArray((32, 8), "<f4", 0x7000, strides=(4, 128))
    assert "is not contiguous" in refused(info, 1, column)
    bf16 = FakeTorch((16,), "torch.bfloat16", 2, 0x9000)
    args = good()
    args[2] = bf16  # torch's own bf16 is accepted as itself
    check_arguments(info, args)
    assert "has dtype float16" in refused(info, 2, FakeTorch((16,), "torch.float16", 2, 0))


@pytest.fixture
def fake_gpu(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """``runner`` with a stand-in for cuda.core: records the launch and every host copy."""
    seen: dict[str, Any] = {"to_device": 0, "launches": 0}

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
        def launch(stream: object, config: Any, kernel: object, *args: object) -> None:
            seen["launches"] += 1
            seen.update(config=config, args=args)

    handles: Iterator[int] = iter(range(0x10000, 0x100000, 0x1000))

    def to_device(d: object, st: object, mr: object, a: np.ndarray, sh: int) -> Buffer:
        seen["to_device"] += 1
        return Buffer(next(handles))

    dev = SimpleNamespace(properties=SimpleNamespace(max_shared_memory_per_block_optin=232448),
                          name="fake", create_stream=lambda: SimpleNamespace(sync=lambda: None),
                          sync=lambda: seen.update(device_sync=True))
    monkeypatch.setattr(runner, "get_device", lambda: dev)
    monkeypatch.setattr(runner, "cuda_core", lambda: Core)
    monkeypatch.setattr(runner, "compile_kernel", lambda d, src, name, index32=False: name)
    monkeypatch.setattr(runner, "_to_device", to_device)
    monkeypatch.setattr(runner, "_to_host", lambda st, mr, b, a, sh: a)
    return seen


def test_a_refused_argument_launches_nothing(info: KernelInfo, fake_gpu: dict[str, Any]
                                            ) -> None:
    args = good()
    args[1] = np.zeros(128, np.float32)
    with pytest.raises(ArgumentError):
        runner.run_kernel("src", info, args)
    assert fake_gpu["launches"] == 0 and fake_gpu["to_device"] == 0


def test_device_arrays_are_used_in_place(info: KernelInfo, fake_gpu: dict[str, Any]) -> None:
    args = good()
    out = FakeCudaArray((32, 8), "<f4", 0x7F00)
    args[1] = out
    result = runner.run_kernel("src", info, args)
    assert fake_gpu["args"][1] == 0x7F00  # the device pointer itself
    assert fake_gpu["to_device"] == 5  # the five host arrays, not the device one
    assert result.arrays[1] is out and result.skipped is None
    assert seen_sync(fake_gpu)  # the device array's producers finished before the launch
    with pytest.raises(ArgumentError, match=r"host .numpy. arrays only"):
        runner.run_kernel("src", info, args, offsets=[0, 4, 0, 0, 0, 0])


def seen_sync(seen: dict[str, Any]) -> bool:
    return bool(seen.get("device_sync"))


DYNAMIC = tile_copy()


@pytest.fixture(scope="module")
def dynamic() -> KernelInfo:
    return kernel_info(kernels(parse_unverified(DYNAMIC))[0])


def test_the_grid_may_be_a_function_of_the_extents(dynamic: KernelInfo,
                                                   fake_gpu: dict[str, Any]) -> None:
    x, y = np.zeros((70, 20), np.float32), np.zeros((70, 20), np.float32)
    runner.run_kernel("src", dynamic, [x, y],
                      grid=lambda f: (-(-f["X"][1] // 8), -(-f["X"][0] // 32)))
    assert fake_gpu["config"]["grid"] == (3, 3, 1)
    with pytest.raises(ArgumentError, match="the grid function failed: KeyError: 'Z'"):
        runner.run_kernel("src", dynamic, [x, y], grid=lambda f: (f["Z"],))
    with pytest.raises(ArgumentError, match="must be 1 to 3 sizes >= 1"):
        runner.run_kernel("src", dynamic, [x, y], grid=lambda f: 0)


def test_an_empty_buffer_launches_nothing(dynamic: KernelInfo, monkeypatch: pytest.MonkeyPatch
                                          ) -> None:
    def no_device() -> None:
        raise AssertionError("an empty launch must not touch the GPU")

    monkeypatch.setattr(runner, "get_device", no_device)
    x, y = np.zeros((0, 8), np.float32), np.zeros((5, 8), np.float32)
    result = runner.run_kernel("src", dynamic, [x, y])
    assert result.skipped == "kernel tile: 'X' has shape 0x8 (an extent 0): nothing to launch"
    assert result.arrays[0] is x and result.arrays[1] is y


def test_an_empty_buffer_runs_nothing_on_the_cpu() -> None:
    from regcopy_backend.runtime.cpu_run import run_on_cpu

    x, y = np.zeros((0, 8), np.float32), np.full((5, 8), 2.0, np.float32)
    out = run_on_cpu(parse_unverified(DYNAMIC), "tile", [x, y])
    assert out[0].shape == (0, 8) and np.array_equal(out[1], y)
