"""``regcopy-run`` launching like a user, without a GPU (``--check`` runs the lowered IR on the
CPU in the GPU's place): a grid that leaves tiles unvisited is reported (exit 3), not
"equal"; ``--grid`` as expressions of the extents; an extent 0 launches nothing and says so;
``--kernel NAME`` picks one kernel of a file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from ragged_cases import LOWERED
from regcopy_tools.launch_grid import parse_grid_spec, unvisited
from regcopy_tools.regcopy_run import main
from regcopy_tools.run_report import ArgumentSpecError

REPO = Path(__file__).resolve().parents[2]
SEED = REPO / "examples" / "seed_demo.mlir"
SHAPES = ("--arg", "X=3x9", "--arg", "Y=3x9")


def _main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as done:
        main([*argv])
    out, err = capsys.readouterr()
    return int(done.value.code or 0), out, err


def test_an_undersized_grid_is_reported(capsys: pytest.CaptureFixture[str]) -> None:
    """ragged_lowered.mlir moves row r in block r: 3 rows need grid x >= 3."""
    code, out, err = _main(capsys, str(LOWERED), "--check", *SHAPES, "--grid", "2,1")
    x, y = out.splitlines()
    assert code == 3 and "Traceback" not in err
    assert x == "ragged.X f32[3x9] equal (27 elements)"  # read only: never written
    assert y.startswith("ragged.Y f32[3x9] UNVISITED: block (2, 0, 0) of a grid one larger "
                        "in x writes elements the launch left untouched: the grid (2, 1, 1) "
                        "is too small (9 of 27 elements differ, first at (2, 0)")


def test_a_covering_grid_expression_is_equal(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _main(capsys, str(LOWERED), "--check", *SHAPES, "--grid",
                         "X[0], cdiv(X[1], 128)")
    assert code == 0
    assert out.splitlines() == ["ragged.X f32[3x9] equal (27 elements)",
                                "ragged.Y f32[3x9] equal (27 elements)"]
    code, out, _ = _main(capsys, str(LOWERED), "--check", *SHAPES, "--grid", "4,2")
    assert code == 0 and "UNVISITED" not in out  # more blocks than tiles: fine


def test_a_lone_warps_writes_are_confirmed_by_the_whole_block() -> None:
    """The probe past the grid runs one warp first; what it changes is reported only if the
    whole block changes it too: a kernel whose CTAs walk the tiles in an order that depends
    on the grid size maps the probe onto a visited tile, where a lone warp of a kernel whose
    warps share results through shared memory writes what it could not finish alone (the
    GEMM example at 130x300 on a 2x2 grid was reported UNVISITED)."""
    after = [np.zeros(4, np.float32)]
    calls: list[bool] = []

    def visited_tile(grid: tuple[int, int, int], block: tuple[int, int, int], whole: bool
                     ) -> list[np.ndarray]:
        calls.append(whole)
        return [np.full(4, 0.0 if whole else 7.0, np.float32)]  # the whole block: same values

    assert unvisited(visited_tile, (2, 2, 1), {0}, after) is None
    assert calls == [False, True]

    def new_tile(grid: tuple[int, int, int], block: tuple[int, int, int], whole: bool
                 ) -> list[np.ndarray]:
        return [np.arange(4, dtype=np.float32)]

    found = unvisited(new_tile, (2, 2, 1), {0, 1}, after)
    assert found is not None and list(found[1]) == [0]
    assert found[0].startswith("block (2, 0, 0) of a grid one larger in x")


def test_grid_expressions() -> None:
    grid = parse_grid_spec("cdiv(X[1], 8), max(K // 2, 1) + 1, 2 * (X[0] % 5)")
    assert callable(grid)
    assert grid({"X": (13, 17), "K": 7}) == (3, 4, 6)
    with pytest.raises(ArgumentSpecError, match=r"cannot evaluate 'Z\[0\]'; use integers, "
                                                r"\+ - \* // %, cdiv/min/max and X\[0..1\], K"):
        parse_grid_spec("Z[0]")({"X": (1, 2), "K": 3})  # type: ignore[operator]
    with pytest.raises(ArgumentSpecError, match=r"gives .0.; every size must be >= 1"):
        parse_grid_spec("X[0] - 13")({"X": (13, 2)})  # type: ignore[operator]
    with pytest.raises(ArgumentSpecError, match="cannot evaluate '__import__"):
        parse_grid_spec("__import__('os').getpid()")({})  # type: ignore[operator]


def test_a_bad_grid_expression_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _main(capsys, str(LOWERED), "--check", *SHAPES, "--grid", "cdiv(W[0], 4)")
    (line,) = [ln for ln in err.splitlines() if "no CUDA GPU" not in ln]
    assert code == 1 and out == "" and "Traceback" not in err
    assert line.startswith("regcopy-run: error: --grid cdiv(W[0], 4): cannot evaluate 'W[0]'")


def test_an_empty_buffer_launches_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _main(capsys, str(LOWERED), "--check", "--arg", "X=0x9", "--arg",
                           "Y=3x9")
    assert code == 0 and "Traceback" not in err
    want = "kernel ragged: 'X' has shape 0x9 (an extent 0): nothing to launch"
    assert out.splitlines() == [want]


def test_kernel_picks_one_kernel(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    text = SEED.read_text()
    two = tmp_path / "two.mlir"
    two.write_text(text + "\n" + text.replace("@seed_demo", "@second"))
    code, out, _ = _main(capsys, str(two), "--check", "--kernel", "second")
    assert code == 0
    assert out.splitlines() == ["second.in f32[32x8] equal (256 elements)",
                                "second.out f32[32x8] equal (256 elements)"]
    code, out, err = _main(capsys, str(two), "--check", "--kernel", "third")
    assert code == 1 and out == ""
    assert "regcopy-run: error: --kernel third: no kernel of that name; the file has " \
           "@seed_demo, @second" in err


def test_kernel_alone_is_lowered_and_compiled(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path) -> None:
    """``--kernel NAME`` lowers, prints and compiles that kernel alone: a module's other
    kernel, one the CUDA target refuses (``math.sin``), is never printed, and the report of
    the chosen kernel is the line it has in the whole module's report."""
    bad = ("func.func @bad(%a: memref<8xf32, #regcopy.mem<global>>) attributes "
           "{regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {\n"
           "  %c0 = arith.constant 0 : index\n"
           "  %v = memref.load %a[%c0] : memref<8xf32, #regcopy.mem<global>>\n"
           "  %w = math.sin %v : f32\n"
           "  memref.store %w, %a[%c0] : memref<8xf32, #regcopy.mem<global>>\n"
           "  func.return\n}\n")
    text = SEED.read_text()
    two = tmp_path / "two.mlir"
    two.write_text(text + "\n" + text.replace("@seed_demo", "@second"))
    code, whole, _ = _main(capsys, str(two), "--compile-only")
    assert code == 0
    (line,) = [ln for ln in whole.splitlines() if ln.startswith("second: ")]
    code, out, err = _main(capsys, str(two), "--compile-only", "--kernel", "second",
                           "--print-cuda")
    assert code == 0 and err == ""
    assert out.count("__global__") == 1 and "seed_demo" not in out
    assert out.splitlines()[-1] == line
    (tmp_path / "bad.mlir").write_text(text + "\n" + bad)
    code, _, err = _main(capsys, str(tmp_path / "bad.mlir"), "--compile-only")
    assert code == 1 and "'math.sin' op" in err
    code, out, err = _main(capsys, str(tmp_path / "bad.mlir"), "--compile-only", "--kernel",
                           "seed_demo")
    assert (code, err) == (0, "")
    assert out.startswith("seed_demo: compiled for sm_90;")
