"""Every code block of docs/*.md runs here (one pytest item per block).

Conventions (an HTML comment on the line right before a fence sets directives for that block,
comma-separated):

* ```` ```mlir ````: parsed and verified. ``file: NAME`` saves it as NAME in the scratch
  directory for later blocks of the same page; ``lower`` also runs ``lower-reg-copy{strict}``
  on it; ``error: TEXT`` expects parsing/verification to fail with TEXT in the message.
* ```` ```python ````: executed after the earlier python blocks of the same page, in one
  namespace, in the scratch directory.
* ```` ```sh ````: lines ``$ command`` are run with bash in the scratch directory (only
  regcopy-opt, regcopy-viz, regcopy-run and xdsl-opt); a trailing ``# exit N`` gives the
  expected exit status (default 0), ``# gpu`` means exit 0 with a GPU and 2 without. The other
  lines are expected output: each must appear, in order, within a line of the command's
  stdout + stderr (``...`` lines are skipped).
* ```` ```text ```` blocks are prose (syntax summaries) and are not run.
* ``pending: WHY``: the block needs a feature that is being built elsewhere; it is skipped
  with that reason (and only such blocks are skipped).

The scratch directory holds links to the repository's ``examples/`` and ``docs/``.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from tool_runner import run_tool

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
TOOLS = ("regcopy-opt", "regcopy-viz", "regcopy-run", "xdsl-opt")
FENCE = re.compile(r"^```(\w*)\s*$")
DIRECTIVE = re.compile(r"^<!--\s*(.*?)\s*-->\s*$")


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    lang: str
    text: str
    directives: dict[str, str]

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}:{self.lang}"


def parse_directives(comment: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in comment.split(","):
        key, _, value = part.partition(":")
        if key.strip():
            out[key.strip()] = value.strip()
    return out


def blocks_of(page: Path) -> list[Block]:
    lines = page.read_text().splitlines()
    out: list[Block] = []
    k = 0
    while k < len(lines):
        m = FENCE.match(lines[k])
        if not m:
            k += 1
            continue
        start, lang, body = k, m.group(1), []
        k += 1
        while k < len(lines) and lines[k].rstrip() != "```":
            body.append(lines[k])
            k += 1
        d = DIRECTIVE.match(lines[start - 1]) if start else None
        out.append(Block(page.name, start + 1, lang, "\n".join(body) + "\n",
                         parse_directives(d.group(1)) if d else {}))
        k += 1
    return out


PAGES = sorted(DOCS.glob("*.md"))
BLOCKS = [b for p in PAGES for b in blocks_of(p)]
RUN_LANGS = ("mlir", "python", "sh")


def _assert_self_contained(page: Path, forbidden: tuple[str, ...]) -> str:
    """``page`` names nothing outside the repository and its relative links resolve (from the
    page's folder); returns its text."""
    text = page.read_text()
    for bad in forbidden:
        assert bad not in text, f"{page.name} refers to {bad}"
    for link in re.findall(r"\]\(([^)#]+)", text):
        if not link.startswith("http"):
            assert (page.parent / link).exists(), f"{page.name}: broken link {link}"
    return text


def test_docs_exist_and_are_self_contained() -> None:
    names = {p.name for p in PAGES}
    assert {"ir.md", "layouts.md", "pass.md", "guide.md", "python.md"} <= names
    for page in PAGES:
        _assert_self_contained(page, ("../shared", "SPEC.md", "algorithm.md", "/work/"))


def test_every_block_has_a_known_language() -> None:
    for b in BLOCKS:
        assert b.lang in (*RUN_LANGS, "text"), f"{b.id}: fence language '{b.lang}'"


def test_no_block_is_pending() -> None:
    """A block marked ``<!-- pending: ... -->`` would be skipped: none may remain."""
    assert [b.id for b in BLOCKS if "pending" in b.directives] == []


def test_readme_is_self_contained_and_its_python_runs(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """The README never sends the reader outside the repository, its links resolve, and its
    Python snippet runs as written from the repository root (and prints the CUDA)."""
    text = _assert_self_contained(ROOT / "README.md",
                                  ("../shared", "SPEC", "algorithm.md", "/work/"))
    snippets = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    assert snippets
    monkeypatch.chdir(ROOT)
    for code in snippets:
        exec(compile(code, "README.md", "exec"), {})  # noqa: S102
    assert 'extern "C" __global__' in capsys.readouterr().out


def _scratch(where: Path) -> Path:
    (where / "examples").symlink_to(ROOT / "examples")
    (where / "docs").symlink_to(DOCS)
    return where


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    return _scratch(tmp_path)


def _save_files(page: str, where: Path) -> None:
    for b in BLOCKS:
        if b.page == page and "file" in b.directives:
            (where / b.directives["file"]).write_text(b.text)


def _run_mlir(b: Block) -> None:
    from regcopy_passes.lower_reg_copy import LowerRegCopyPass
    from xdsl.parser import Parser

    from regcopy_dialect.context import regcopy_context
    from regcopy_dialect.diagnostics import first_invalid_op

    ctx = regcopy_context()
    try:
        module = Parser(ctx, b.text, b.id).parse_module()
        bad = first_invalid_op(module)
        if bad is not None:
            raise ValueError(f"{bad[0].name}: {bad[1]}")
    except Exception as e:
        if "error" in b.directives:
            assert b.directives["error"] in str(e), str(e)
            return
        raise
    assert "error" not in b.directives, f"{b.id} was expected to fail"
    if "lower" in b.directives:
        LowerRegCopyPass(strict=True).apply(ctx, module)
        module.verify()
        assert "regcopy.copy" not in str(module)


def _run_python(b: Block, where: Path) -> None:
    namespace: dict[str, object] = {"__name__": "__docs__"}
    cwd = os.getcwd()
    os.chdir(where)
    try:
        for earlier in BLOCKS:
            if earlier.page != b.page or earlier.lang != "python" or \
                    "pending" in earlier.directives:
                continue
            exec(compile(earlier.text, earlier.id, "exec"), namespace)  # noqa: S102
            if earlier is b:
                break
    finally:
        os.chdir(cwd)


def _commands(b: Block) -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []
    for line in b.text.splitlines():
        if line.startswith("$ "):
            out.append((line[2:], []))
        elif line.strip() and line.strip() != "...":
            assert out, f"{b.id}: output line before any '$ command'"
            out[-1][1].append(line.strip())
    return out


def _gpu() -> bool:
    from regcopy_backend.runtime.runner import gpu_available

    return gpu_available()[0]


def _execute_sh(b: Block, where: Path, gpu: bool) -> list[tuple[str, int, int, str, list[str]]]:
    """Run the block's commands in order in ``where``: ``(command, wanted exit, exit, output,
    expected lines)`` for each."""
    bindir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": bindir + os.pathsep + os.environ.get("PATH", ""),
           "NO_COLOR": "1", "COLUMNS": "120"}
    runs = []
    for command, expected in _commands(b):
        cmd, _, note = command.partition("#")
        words = shlex.split(cmd)
        assert words and words[0] in TOOLS, f"{b.id}: '{words[:1]}' is not one of {TOOLS}"
        if "gpu" in note:
            want = 0 if gpu else 2
        else:
            m = re.search(r"exit (\d+)", note)
            want = int(m.group(1)) if m else 0
        out = run_tool(cmd, where, env)
        runs.append((cmd, want, out.returncode, out.stdout + out.stderr, expected))
    return runs


def _check_sh(b: Block, runs: list[tuple[str, int, int, str, list[str]]]) -> None:
    for cmd, want, returncode, text, expected in runs:
        assert returncode == want, f"{b.id}: `{cmd}` exited {returncode}:\n{text}"
        assert "Traceback" not in text, f"{b.id}: `{cmd}` printed a traceback:\n{text}"
        lines = text.splitlines()
        k = 0
        for exp in expected:
            while k < len(lines) and exp not in lines[k]:
                k += 1
            assert k < len(lines), f"{b.id}: `{cmd}`: expected line not found in order: " \
                                   f"{exp!r}\n--- output ---\n{text}"
            k += 1


SH_BLOCKS = [b for b in BLOCKS if b.lang == "sh" and "pending" not in b.directives]


@pytest.fixture(scope="module", autouse=True)
def sh_runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Future]]:
    """Every shell block started at once, each in its own scratch folder, as many at a time
    as there are cores: the commands are separate processes, so the blocks run side by side
    while the tests of the other blocks go on; each test then checks its block's results."""
    gpu = _gpu()
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        futures = {}
        for b in SH_BLOCKS:
            where = _scratch(tmp_path_factory.mktemp("sh"))
            _save_files(b.page, where)
            futures[b.id] = pool.submit(_execute_sh, b, where, gpu)
        yield futures
        for f in futures.values():
            f.cancel()


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.lang in RUN_LANGS],
                         ids=lambda b: b.id)
def test_docs_block(block: Block, request: pytest.FixtureRequest) -> None:
    if "pending" in block.directives:
        pytest.skip(f"pending: {block.directives['pending']}")
    if block.lang == "sh":
        _check_sh(block, request.getfixturevalue("sh_runs")[block.id].result())
        return
    scratch = request.getfixturevalue("scratch")
    _save_files(block.page, scratch)
    if block.lang == "mlir":
        _run_mlir(block)
    else:
        _run_python(block, scratch)
