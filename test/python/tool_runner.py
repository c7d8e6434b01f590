"""Run regcopy's command-line tools from the tests without starting a new Python each time.

A ``regcopy-opt`` process spends most of its CPU importing xDSL (about 0.5 s of 0.6 s), and the
suite runs hundreds of them. ``run_tool`` runs a tool's console-script entry point (the same
``main`` the installed script calls, looked up in the package metadata) in a child forked from a
``multiprocessing`` fork server that has imported xDSL and regcopy once: a fresh process per
command (``max_tasks_per_child=1``: no state carries over), its own working directory and
environment, stdout and stderr captured at the file-descriptor level, the exit status from
``SystemExit``. A command whose only shell syntax is quoting (``-p 'lower-reg-copy{remarks}'``)
is split into words as bash would (``shlex``, POSIX rules); commands with any other shell
syntax (pipes, redirections, variables, globs, escapes) go through bash as before. lit's RUN
lines use their own server of the same kind (tool_server.py).
"""

from __future__ import annotations

import multiprocessing
import os
import shlex
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from tool_server import entry_points_of, exit_status

TOOLS = ("regcopy-opt", "regcopy-run", "regcopy-viz", "xdsl-opt")
PRELOAD = ["xdsl.xdsl_opt_main", "xdsl.targets.mlir", "regcopy_tools.regcopy_opt",
           "regcopy_tools.regcopy_viz", "regcopy_tools.viz_plan", "regcopy_tools.viz_async",
           "regcopy_tools.regcopy_run", "regcopy_passes.lower_reg_copy",
           "regcopy_backend.runtime.runner", "numpy", "cuda.bindings.nvrtc", "cuda.core"]
"""Imported once by the fork server: what the tools import when they run, not only when they
start (the pass, the printer's target, the viewer's tables, the GPU runner's host side), so
that a command does not spend about 0.1 CPU-s importing them again; NVRTC's bindings: what a
compile imports first, and ``cuda.core``: what looking for a GPU imports (importing them
loads no library, the driver's neither, and starts no thread; a child initialises CUDA, if at
all, itself)."""
SHELL_SYNTAX = set("|&;<>()$`\\*?[]{}~#!\n")
"""Characters that mean more than themselves to bash outside quotes (conservatively: ``{``,
``#``, ``~`` and ``!`` only do at some positions)."""
IN_DOUBLE_QUOTES = set("$`\\")
"""Characters that bash still expands inside double quotes (inside single quotes: none)."""

_lock = threading.Lock()
_pool: ProcessPoolExecutor | None = None


def _executor() -> ProcessPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            ctx = multiprocessing.get_context("forkserver")
            ctx.set_forkserver_preload(PRELOAD)
            _pool = ProcessPoolExecutor(max_workers=os.cpu_count() or 2, mp_context=ctx,
                                        max_tasks_per_child=1)
        return _pool


def _run_in_child(target: str, argv: list[str], cwd: str,
                  env: dict[str, str]) -> tuple[int, str, str]:
    """In the forked child: become ``argv[0]`` in ``cwd`` with ``env`` and run it."""
    import importlib

    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    module, _, func = target.partition(":")
    main = getattr(importlib.import_module(module), func)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
        sys.argv = argv
        try:
            code = main()
        except SystemExit as stop:
            code = stop.code
        rc = exit_status(code)
        sys.stdout.flush()
        sys.stderr.flush()
        out.seek(0)
        err.seek(0)
        return rc, out.read().decode(errors="replace"), err.read().decode(errors="replace")


def only_quoting(command: str) -> bool:
    """Whether ``command``'s only shell syntax is quoting: bash would pass its words on as
    ``shlex.split`` reads them (quotes closed, nothing expanded or redirected)."""
    quote = ""
    for ch in command:
        if quote == "'":
            quote = "" if ch == "'" else quote
        elif quote == '"':
            if ch in IN_DOUBLE_QUOTES:
                return False
            quote = "" if ch == '"' else quote
        elif ch in "'\"":
            quote = ch
        elif ch in SHELL_SYNTAX:
            return False
    return not quote


def in_process(command: str) -> list[str] | None:
    """The argument list of ``command`` when it is a plain tool call (no shell syntax but
    quoting)."""
    if not only_quoting(command):
        return None
    words = shlex.split(command)
    return words if words and words[0] in TOOLS else None


def run_tool(command: str | list[str], cwd: Path | str, env: dict[str, str] | None = None,
             timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run a tool command in ``cwd``: forked from the warm server when it is a plain call,
    else with bash. Returns what ``subprocess.run(..., capture_output=True, text=True)`` would."""
    env = dict(os.environ if env is None else env)
    argv = command if isinstance(command, list) else in_process(command)
    if argv is None or argv[0] not in TOOLS:
        shell = command if isinstance(command, str) else shlex.join(command)
        return subprocess.run(["bash", "-c", shell], cwd=cwd, env=env, capture_output=True, check=False,
                              text=True, timeout=timeout)
    target = entry_points_of((argv[0],))[argv[0]]
    future = _executor().submit(_run_in_child, target, argv, str(cwd), env)
    rc, out, err = future.result(timeout=timeout)
    return subprocess.CompletedProcess(argv, rc, out, err)
