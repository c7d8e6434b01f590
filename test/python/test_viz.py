"""regcopy-viz and the layout pictures: labels against independent formulas, text width, SVG
well-formedness, copy plans and bank groups, and one-line errors."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from regcopy_tools.regcopy_viz import main

from regcopy_dialect import layout_svg, layout_text, parse_layout
from regcopy_dialect.viz import layout_tile, owners, render_text

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
MMA_A = "(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)"


def _viz(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``regcopy-viz`` in this process (its ``main``), from the repository root."""
    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main(list(args))
                code = 0
            except SystemExit as e:
                code = int(e.code or 0)
    finally:
        os.chdir(cwd)
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


def test_console_script_runs() -> None:
    out = subprocess.run([sys.executable, "-m", "regcopy_tools.regcopy_viz",
                          str(EXAMPLES / "seed_demo.mlir"), "--copy", "1"],
                         capture_output=True, text=True, cwd=ROOT, check=False)
    assert out.returncode == 0, out.stderr
    assert "R -> S, S is shared" in out.stdout


def test_mma_a_fragment_owners_match_the_ptx_formula() -> None:
    # PTX ISA, m16n8k16 .f16 A fragment: group g = lane / 4, t = lane % 4; a_i sits at
    # row g + 8 * ((i // 2) % 2), column 2 * t + i % 2 + 8 * (i // 4).
    cells = owners(parse_layout(MMA_A))
    for lane in range(32):
        for i in range(8):
            row = lane // 4 + 8 * ((i // 2) % 2)
            col = 2 * (lane % 4) + i % 2 + 8 * (i // 4)
            assert cells[row * 16 + col] == (lane, i)


def test_seed_text_labels_are_lane_and_slot() -> None:
    text = layout_text(parse_layout("(32,8):(1@laneid,1)"), [32, 8])
    row5 = next(line for line in text.splitlines() if line.startswith(" 5 |"))
    assert row5.split("|")[1].split() == [f"5:{j}" for j in range(8)]


def test_swizzled_offsets_are_the_xor_formula() -> None:
    tile = layout_tile(parse_layout("(64,64):(64,1), swizzle<3,3,3>"), [64, 64], 16)
    for r in range(64):
        for c in range(64):
            want = r * 64 + ((c // 8) ^ (r % 8)) * 8 + c % 8
            assert tile.labels[r][c] == str(want)
    assert tile.keys[1][0] == (72 * 2 // 4) % 32  # bank of element (1, 0)


@pytest.mark.parametrize("layout, shape", [("(8,256,4):(4,1@tx,1)", [8, 1024]),
                                           ("(64,64):(64,1), swizzle<3,3,3>", [64, 64])])
@pytest.mark.parametrize("width", [80, 120])
def test_big_tiles_fit_the_terminal(layout: str, shape: list[int], width: int) -> None:
    text = render_text(layout_tile(parse_layout(layout), shape), width=width)
    assert max(len(line) for line in text.splitlines()) <= width
    assert "showing" in text and "…" in text


def test_svg_is_well_formed_with_one_cell_per_element() -> None:
    svg = ET.fromstring(layout_svg(parse_layout(MMA_A), [16, 16]))
    rects = svg.findall("{http://www.w3.org/2000/svg}rect")
    assert len(rects) == 1 + 256  # background + cells
    assert len({r.get("fill") for r in rects[1:]}) >= 16  # coloured by owner lane


def test_cli_seed_plan_rounds_and_banks() -> None:
    out = _viz(str(EXAMPLES / "seed_demo.mlir"), "--copy", "0", "--width", "120")
    assert out.returncode == 0, out.stderr
    assert "vec 4 x 32-bit (128 bits), 2 round(s), 8 registers/thread" in out.stdout
    assert "round 1: S[4 .. 8) -> R[4 .. 8)" in out.stdout
    row7 = next(line for line in out.stdout.splitlines() if line.startswith(" 7 |  7/0"))
    assert row7.split("|")[1].split() == ["7/0"] * 4 + ["7/1"] * 4
    assert "8 wavefronts, ideal 4: 2-way bank conflict" in out.stdout


@pytest.mark.parametrize("example, verdict", [
    ("seed_f32_k16.mlir", "16 wavefronts, ideal 4: 4-way bank conflict"),
    ("seed_f16_k8.mlir", "4 wavefronts, ideal 4: no bank conflict"),
    ("seed_f16_k16.mlir", "8 wavefronts, ideal 4: 2-way bank conflict")])
def test_cli_bank_groups_of_the_seed_table(example: str, verdict: str) -> None:
    out = _viz(str(EXAMPLES / example), "--copy", "0")
    assert out.returncode == 0, out.stderr
    assert verdict in out.stdout


def test_cli_svg_output(tmp_path: Path) -> None:
    target = tmp_path / "mma.svg"
    out = _viz(str(ROOT / "docs/examples/mma_a_fragment.mlir"), "-o", str(target))
    assert out.returncode == 0 and out.stdout == "", out.stderr
    root = ET.parse(target).getroot()
    text = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    assert "vec 2 x 16-bit (32 bits), 4 round(s)" in text


@pytest.mark.parametrize("picture", ["seed_layout.svg", "mma_a_fragment.svg", "replicas.svg"])
def test_docs_pictures_are_svg(picture: str) -> None:
    root = ET.parse(ROOT / "docs" / picture).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert picture in (ROOT / "docs/layouts.md").read_text()


@pytest.mark.parametrize("text, args, message", [
    ("func.func @f() { func.return }", [], "nothing to draw"),
    ("func.func @f( {", [], "f.mlir:1:15: error: "),
    (None, [], "cannot read"),
    ((EXAMPLES / "seed_demo.mlir").read_text(), ["--copy", "5"], "has 2 regcopy.copy"),
])
def test_cli_errors_are_one_diagnostic(tmp_path: Path, text: str | None, args: list[str],
                                       message: str) -> None:
    path = tmp_path / "f.mlir"
    if text is not None:
        path.write_text(text)
    out = _viz(str(path), *args)
    assert out.returncode == 1
    first = out.stderr.splitlines()[0]
    assert message in first
    located = ":1:15" in message
    assert first.startswith(f"{path}:1:15: error: " if located else "regcopy-viz: error: ")
    assert "Traceback" not in out.stderr


def test_rejected_copy_shows_the_reason(tmp_path: Path) -> None:
    path = tmp_path / "r.mlir"
    path.write_text("""
func.func @f() attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %S = memref.alloca() : memref<32x8xf32, #regcopy.mem<shared>>
  %T = memref.alloca() : memref<32x8xf32, #regcopy.mem<shared>>
  regcopy.copy warp %S -> %T : memref<32x8xf32, #regcopy.mem<shared>> -> memref<32x8xf32, #regcopy.mem<shared>>
  func.return
}""")
    out = _viz(str(path))
    assert out.returncode == 0, out.stderr
    assert "not lowered by lower-reg-copy: memory pair shared -> shared" in out.stdout


def _three_copies(tmp_path: Path) -> tuple[Path, list[int]]:
    """seed_demo.mlir with its second copy written twice: three copies, on the lines returned."""
    lines = (EXAMPLES / "seed_demo.mlir").read_text().splitlines()
    second = max(i for i, line in enumerate(lines) if "regcopy.copy" in line)
    lines.insert(second + 1, lines[second])
    path = tmp_path / "three.mlir"
    path.write_text("\n".join(lines) + "\n")
    return path, [i + 1 for i, line in enumerate(lines) if "regcopy.copy" in line]


def _svg_copies(path: Path) -> list[str]:
    """The ``copy #K: ...`` headings drawn in an SVG."""
    root = ET.parse(path).getroot()
    return [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")
            if t.text and t.text.startswith("copy #")]


def test_svg_of_many_copies_shows_one_and_says_how_to_pick(tmp_path: Path) -> None:
    src, lines = _three_copies(tmp_path)
    out = _viz(str(src), "-o", str(tmp_path / "one.svg"))
    assert out.returncode == 0, out.stderr
    assert out.stderr.splitlines() == [
        (f"regcopy-viz: note: {src} has 3 copies; the SVG shows copy 0 (line {lines[0]}) only; "
         "pick another with --copy K (0-2) or --copy @LINE, or all with --copy all")]
    assert [h.split(":")[0] for h in _svg_copies(tmp_path / "one.svg")] == ["copy #0"]
    out = _viz(str(src), "--copy", "all", "-o", str(tmp_path / "all.svg"))
    assert out.returncode == 0 and out.stderr == ""
    assert [h.split(":")[0] for h in _svg_copies(tmp_path / "all.svg")] == [
        "copy #0", "copy #1", "copy #2"]
    # text output is not cut: all copies, no note
    out = _viz(str(src))
    assert out.stderr == "" and "copy #2:" in out.stdout


def test_copy_by_line(tmp_path: Path) -> None:
    src, lines = _three_copies(tmp_path)
    out = _viz(str(src), "--copy", f"@{lines[2]}", "-o", str(tmp_path / "l.svg"))
    assert out.returncode == 0 and out.stderr == ""
    assert [h.split(":")[0] for h in _svg_copies(tmp_path / "l.svg")] == ["copy #2"]
    out = _viz(str(src), "--copy", "@1")
    assert out.returncode == 1
    assert out.stderr == (f"regcopy-viz: error: {src}: --copy @1: no regcopy.copy starts on "
                          f"line 1; copies start on lines {', '.join(map(str, lines))}\n")
    out = _viz(str(src), "--copy", "first")
    assert out.returncode == 2 and "expected K (the K-th copy, from 0), @LINE" in out.stderr


def test_async_copies_are_drawn() -> None:
    """gemm_async's copy_async of A (128 x 64 f16 over 256 threads, cp.async 16 bytes): its
    plan, thread 0's four chunks (rows 0, 32, 64, 96 of the region), the region coloured by
    thread/round and the bank groups of warp 0's chunks."""
    out = _viz(str(EXAMPLES / "gemm_async.mlir"), "--copy", "0", "--width", "160")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "copy #0: %ta0 = regcopy.copy_async cta %A[%m0, 0] [128, 64]" in text
    assert ("plan: cp.async.cg 16 bytes (8 × f16), 4 chunks/thread, 1024 chunks over 256 "
            "threads in the cta") in text
    assert "shared memory gets zeros" in text
    assert "round 1: %A[%m0 + 32, 0] .. +8 -> S[2048 .. 2056) (swizzled 2048)" in text
    row0 = next(line for line in text.splitlines() if line.startswith("  0 |  *0/0"))
    assert row0.split("|")[1].split()[:10] == ["*0/0"] * 8 + ["1/0"] * 2  # * = thread 0
    assert ("bank groups of warp 0, round 0 (128-bit accesses, 8 lanes served together): 4 "
            "wavefronts, ideal 4: no bank conflict") in text


def test_copies_are_numbered_across_both_kinds() -> None:
    """--copy counts copy_async and copy together, in program order."""
    out = _viz(str(EXAMPLES / "gemm_async.mlir"), "--copy", "99")
    assert out.returncode == 1
    assert "the file has 8 regcopy.copy op(s), numbered from 0 (copy_async ops included)" \
        in out.stderr
