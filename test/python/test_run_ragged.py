"""Running kernels with runtime extents, without a GPU: the runner's argument checks (shape,
extents, divisibility) and parameter order run before any CUDA call; ``regcopy-run --arg
X=AxB`` and ``--grid`` (``--check`` on a dynamic kernel; bad shapes and grids are one line,
exit 1, no traceback)."""

from __future__ import annotations

import numpy as np
import pytest
from ragged_cases import LOWERED, parse_unverified, tile_copy
from regcopy_backend.cuda.kernel_info import kernel_info, kernels
from regcopy_backend.runtime.runner import (
    ArgumentError,
    check_arguments,
    grid_of,
    launch_arguments,
)
from regcopy_tools.regcopy_run import main, parse_grid
from regcopy_tools.run_report import ArgumentSpecError, host_arguments, parse_arg_specs

PROMISED = tile_copy().replace(
    "%X: memref<?x?xf32, #regcopy.mem<global>>",
    "%X: memref<?x?xf32, #regcopy.mem<global>> {regcopy.divisibility = array<i64: 1, 4>}")


@pytest.fixture(scope="module")
def info():
    return kernel_info(kernels(parse_unverified(PROMISED))[0])


def _f32(*shape: int) -> np.ndarray:
    return np.zeros(shape, np.float32)


@pytest.mark.parametrize("x, why", [
    (_f32(3, 6), ("array for 'X' of shape 3x6 extent 6 of dim 1 breaks its promise "
                 "regcopy.divisibility = array<i64: 1, 4> (not a multiple of 4)")),
    (_f32(8), "array for 'X' of shape 8 has rank 1, the buffer ?x? has rank 2"),
])
def test_runner_refuses_bad_extents_before_cuda(info, x: np.ndarray, why: str) -> None:
    with pytest.raises(ArgumentError) as err:
        check_arguments(info, [x, _f32(4, 4)])
    assert str(err.value) == f"kernel tile: {why}; refusing to launch"


def test_extents_follow_their_pointer(info) -> None:
    args = launch_arguments(info, [_f32(5, 8), _f32(7, 12)], [0x1000, 0x2000])
    assert [int(a) for a in args] == [0x1000, 5, 8, 0x2000, 7, 12]
    assert all(a.dtype == np.int64 for a in args[1:3])


def test_grid_override(info) -> None:
    assert grid_of(info, None) == (1, 1, 1)
    assert grid_of(info, (4, 3)) == (4, 3, 1)
    with pytest.raises(ArgumentError, match="must be 1 to 3 sizes >= 1"):
        grid_of(info, (0,))


def _main(capsys, *argv: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as done:
        main([str(LOWERED), *argv])
    out, err = capsys.readouterr()
    return int(done.value.code or 0), out, err


def test_check_on_a_dynamic_kernel(capsys) -> None:
    code, out, _ = _main(capsys, "--check", "--arg", "X=3x9", "--arg", "Y=3x9",
                         "--grid", "3,1")
    assert code == 0
    assert out.splitlines() == ["ragged.X f32[3x9] equal (27 elements)",
                                "ragged.Y f32[3x9] equal (27 elements)"]


@pytest.mark.parametrize("argv, why", [
    (("--arg", "X=3x9"), ("kernel @ragged needs a value for each scalar parameter and a shape "
                         "for each dynamic buffer: %Y: memref<?x?xf32, #regcopy.mem<global>>; "
                         "pass --arg Y=1000x1000")),
    (("--arg", "X=3x0", "--arg", "Y=3x9", "--grid", "2,0"), "--grid 2,0: expected X[,Y[,Z]]"),
])
def test_bad_shapes_and_grids_are_one_line(capsys, argv: tuple[str, ...], why: str) -> None:
    code, out, err = _main(capsys, "--check", *argv)
    (line,) = [ln for ln in err.splitlines() if "no CUDA GPU" not in ln]
    assert code == 1 and out == "" and "Traceback" not in err
    assert line.startswith(f"regcopy-run: error: {why}")


@pytest.mark.parametrize("spec, why", [
    ("X=-3x9", "--arg X=-3x9: the shape has extent -3 in dim 0"),
    ("X=3x9x2", "--arg X=3x9x2: the shape has rank 3, the buffer ?x? has rank 2"),
    ("X=3by9", "--arg X=3by9: %X is a ?x? buffer; give its shape, e.g. --arg X=1000x1000"),
    ("X=3x6", ("--arg X=3x6: the shape extent 6 of dim 1 breaks its promise "
              "regcopy.divisibility = array<i64: 1, 4>")),
])
def test_arg_shapes(spec: str, why: str) -> None:
    fn = kernels(parse_unverified(PROMISED))[0]
    specs = parse_arg_specs([spec, "Y=32x8"])
    with pytest.raises(ArgumentSpecError) as err:
        host_arguments(fn, np.random.default_rng(0), specs)
    assert str(err.value).startswith(why)
    good = host_arguments(fn, np.random.default_rng(0), parse_arg_specs(["X=5x8", "Y=1x3"]))
    assert [a.shape for a in good] == [(5, 8), (1, 3)]


@pytest.mark.parametrize("text", ["0", "1,2,3,4", "a", "2,-1", "1,,2", "2;3"])
def test_bad_grids(text: str) -> None:
    with pytest.raises(ArgumentSpecError, match=f"--grid {text}: expected X"):
        parse_grid(text)
    assert parse_grid("7,2") == (7, 2)


def test_viz_draws_a_dynamic_copy_on_its_region(capsys) -> None:
    """regcopy-viz on runtime extents: the copy's region is the drawn shape, and a note says
    so and what happens outside the extents at run time."""
    from regcopy_tools.viz_plan import copy_picture

    copies = [op for op in parse_unverified(tile_copy()).walk()
              if op.name == "regcopy.copy"]
    lines = [copy_picture(op, k).lines for k, op in enumerate(copies)]
    assert ("  runtime extents: source %X is memref<?x?xf32, #regcopy.mem<global>>; drawn on "
            "the copy's region as if inside the extents (at run time, elements outside them "
            "are not read: the registers get the padding)") in lines[0]
    assert any(ln.endswith("are not written)") for ln in lines[1])
