"""A fork server for the tool commands of lit's RUN lines when lit runs under pytest
(lit_runner.py): ``regcopy-opt``, ``xdsl-opt`` and ``filecheck`` start in milliseconds instead
of re-importing xDSL (about 0.4 of the 0.5 CPU-seconds a ``regcopy-opt`` run takes).

The server imports xDSL, regcopy and FileCheck once and listens on a Unix socket. lit finds
stand-in scripts of the same names first on its ``PATH`` (``--param tool_bin=DIR``,
lit.cfg.py); a stand-in (tool_client.py) sends its argument list, working directory,
environment and its standard input, output and error (the file descriptors themselves) to the
server, which forks a child per command. The child takes them over and calls the console
script's entry point (the ``main`` the installed script calls, found in the package metadata)
as the script would, ``sys.exit(main())``: an uncaught exception prints its traceback and
exits 1. Every command is a fresh process; nothing carries over from one to the next.
``lit`` run by hand (``lit test``) uses the installed scripts.

**Round trip.** Given a directory (``serve(path, roundtrip)``), every ``regcopy-opt`` command
that succeeds and prints IR on stdout also parses its own output again (``reparse``: the
printed IR must always parse), and leaves a record there: ``<digest>.ok`` per distinct text that
parsed again (its digest; a text printed again is not parsed again), or ``<pid>.fail`` with
the command's arguments and the parse error. test_lit.py asserts on them.
"""

from __future__ import annotations

import atexit
import gc
import hashlib
import importlib
import io
import json
import marshal
import os
import signal
import socket
import subprocess
import sys
import traceback
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import TextIO

TOOLS = ("regcopy-opt", "xdsl-opt", "filecheck")
PRELOAD = ("xdsl.xdsl_opt_main", "xdsl.tools.xdsl_opt", "xdsl.targets.mlir",
           "regcopy_tools.regcopy_opt", "regcopy_tools.universe",
           "regcopy_passes.lower_reg_copy", "regcopy_passes.shared_layouts.choose",
           "regcopy_passes.lower_layout_access", "regcopy_backend.cuda.targets",
           "cuda.bindings.nvrtc", "filecheck.main", "regcopy_tools.regcopy_run")
"""What the tools import (NVRTC's Python bindings too: ``-t ptx``/``-t sass`` import them
when they compile; importing them loads no library and starts no thread, so forking after it
is safe), and what the round trip's ``reparse`` imports (``regcopy_tools.regcopy_run``'s
``build_context``: about 0.2 CPU-seconds that every ``regcopy-opt`` command would otherwise
spend importing it again)."""
CLIENT = Path(__file__).with_name("tool_client.py")


def entry_points_of(tools: tuple[str, ...]) -> dict[str, str]:
    """``{tool: "module:function"}``: the entry point each installed console script calls."""
    scripts = {e.name: e.value for e in entry_points(group="console_scripts")}
    return {tool: scripts[tool] for tool in tools}


def exit_status(code: object) -> int:
    """The exit status of ``sys.exit(code)``, printing ``code`` when it is a message."""
    if code is None or isinstance(code, int):
        return code or 0
    print(code, file=sys.stderr)
    return 1


def _take_over(fds: list[int], request: dict[str, object]) -> None:
    """Become the client's command: its standard streams, directory, environment, argv."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(str(request["cwd"]))
    os.environ.clear()
    os.environ.update(request["env"])  # type: ignore[arg-type, call-overload]
    sys.argv = list(request["argv"])  # type: ignore[call-overload]
    sys.stdin = sys.__stdin__ = open(0, closefd=False)  # type: ignore[misc]  # noqa: SIM115
    line = 1 if os.isatty(1) else -1  # line-buffered on a terminal, as the interpreter does
    sys.stdout = sys.__stdout__ = open(1, "w", line, closefd=False)  # type: ignore[misc]  # noqa: SIM115
    sys.stderr = sys.__stderr__ = open(2, "w", 1, errors="backslashreplace",  # type: ignore[misc]  # noqa: SIM115
                                       closefd=False)


def _run(target: str) -> int:
    """``sys.exit(main())`` of the entry point ``module:function``, as an exit status."""
    module, _, function = target.partition(":")
    try:
        status = exit_status(getattr(importlib.import_module(module), function)())
    except SystemExit as stop:
        status = exit_status(stop.code)
    except BaseException:  # noqa: BLE001 - what the interpreter does with an uncaught one
        traceback.print_exc()
        status = 1
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:
        status = status or 120  # the interpreter's status when flushing at exit fails
    return status


class _Tee(io.TextIOBase):
    """A text stream that writes through to ``stream`` and keeps a copy."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.parts: list[str] = []

    def write(self, s: str) -> int:
        self.parts.append(s)
        return self.stream.write(s)

    def flush(self) -> None:
        self.stream.flush()


SKIP_REPARSE = ("-t", "--target", "-o", "--output-file", "--verify-diagnostics",
                "--parsing-diagnostics", "-h", "--help", "-v", "--version")
"""``regcopy-opt`` options whose stdout is no (whole) IR to parse again."""


def reparse(argv: list[str], text: str) -> str | None:
    """Parse the IR ``text`` that ``regcopy-opt argv`` printed (each ``// -----`` chunk with
    ``--split-input-file``); the error, or None when it parses (or is no IR)."""
    from regcopy_tools.regcopy_run import build_context
    from xdsl.parser import Parser

    ctx = build_context()
    ctx.allow_unregistered = "--allow-unregistered-dialect" in argv
    chunks = text.split("// -----") if "--split-input-file" in argv else [text]
    for chunk in chunks:
        if "builtin.module" not in chunk:
            continue
        try:
            Parser(ctx, chunk, "<printed>").parse_module()
        except Exception as e:  # noqa: BLE001 - any failure is the finding
            return f"{type(e).__name__}: {e}"
    return None


def _record_roundtrip(roundtrip: str, argv: list[str], tee: _Tee) -> None:
    """Re-parse what the command printed and leave its record (module docstring). A text
    already parsed again by an earlier command (the same printed IR, the same parsing
    options: a round trip's second print, say) is not parsed a third time: its record is
    that command's, made under its digest."""
    if any(a in SKIP_REPARSE or a.startswith(("--target=", "--output-file=")) for a in argv):
        return
    text = "".join(tee.parts)
    flags = [a for a in argv if a in ("--split-input-file", "--allow-unregistered-dialect")]
    digest = hashlib.sha256("\0".join([*flags, text]).encode()).hexdigest()[:32]
    if (Path(roundtrip) / f"{digest}.ok").exists():
        return
    error = reparse(argv, text)
    name = Path(roundtrip) / f"{digest if not error else os.getpid()}.{'fail' if error else 'ok'}"
    name.write_text(json.dumps({"argv": argv, "cwd": os.getcwd(), "error": error}))


def _child(conn: socket.socket, targets: dict[str, str], roundtrip: str | None = None) -> None:
    """In the forked child: run one command and send its exit status; never returns."""
    status = 1
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        _, fds, _, _ = socket.recv_fds(conn, 1, 3)
        size = int.from_bytes(_recv_exactly(conn, 4), "big")
        request = marshal.loads(_recv_exactly(conn, size))
        _take_over(fds, request)
        tee = None
        if roundtrip is not None and request["tool"] == "regcopy-opt":
            tee = _Tee(sys.stdout)
            sys.stdout = tee  # type: ignore[assignment]
        status = _run(targets[request["tool"]])
        if tee is not None and roundtrip is not None and status == 0:
            sys.stdout = tee.stream  # type: ignore[assignment]
            _record_roundtrip(roundtrip, list(request["argv"])[1:], tee)
        for fd in (0, 1, 2):
            os.close(fd)  # the reader of a pipe sees its end before the client exits
    except BaseException:  # noqa: BLE001 - the server's own failure: say it where it can
        traceback.print_exc()
    finally:
        try:
            conn.sendall(str(status).encode())
        finally:
            os._exit(status)


def _recv_exactly(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            raise ConnectionError("the client went away")
        data += chunk
    return data


def _reap(block: bool) -> None:
    """Wait for finished children (all of them when ``block``), so that their CPU time is
    counted in this process's children's time, as a shell's would be."""
    while True:
        try:
            pid, _ = os.waitpid(-1, 0 if block else os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def serve(path: str, roundtrip: str | None = None) -> None:
    """Preload, listen on ``path``, say ``ready`` on stdout; fork a child per connection
    until SIGTERM, then wait for the children; ``roundtrip``: re-parse ``regcopy-opt``'s
    output there (module docstring)."""
    for module in PRELOAD:
        importlib.import_module(module)
    targets = entry_points_of(TOOLS)
    gc.freeze()  # the children's collections skip what was imported: fewer copied pages
    stopping: list[bool] = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        listener.bind(path)
        listener.listen(64)
        listener.settimeout(0.2)
        print("ready", flush=True)
        while not stopping:
            _reap(block=False)
            try:
                conn, _ = listener.accept()
            except (TimeoutError, InterruptedError):
                continue
            conn.settimeout(None)
            if os.fork() == 0:
                listener.close()
                _child(conn, targets, roundtrip)
            conn.close()
    _reap(block=True)


@dataclass
class ToolServer:
    """A running server and the directory of its stand-in scripts (put it first on PATH)."""

    proc: subprocess.Popen[str]
    bindir: Path

    @staticmethod
    def start(scratch: Path, roundtrip: Path | None = None) -> ToolServer:
        """Start a server in ``scratch`` and write the stand-ins; returns once it listens.
        ``roundtrip``: the directory of the round-trip records (module docstring)."""
        path = scratch / "tools.sock"
        # -P: this script's folder is not put on sys.path, so the tools see the modules an
        # installed script would
        extra = [] if roundtrip is None else [str(roundtrip)]
        proc = subprocess.Popen([sys.executable, "-P", __file__, str(path), *extra],
                                stdout=subprocess.PIPE, text=True)
        bindir = scratch / "bin"  # each stand-in: tool_client.py, then its call
        bindir.mkdir()
        for tool in TOOLS:
            script = bindir / tool
            script.write_text(f"#!{sys.executable} -IS\n{CLIENT.read_text()}\n"
                              f"main({str(path)!r}, {tool!r})\n")
            script.chmod(0o755)
        if proc.stdout is None or proc.stdout.readline().strip() != "ready":
            proc.kill()
            raise RuntimeError("the lit tool server did not start")
        return ToolServer(proc, bindir)

    def stop(self) -> None:
        """End the server once its running commands are done."""
        if self.proc.poll() is None:
            self.proc.terminate()
        self.proc.wait()


if __name__ == "__main__":
    serve(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)
