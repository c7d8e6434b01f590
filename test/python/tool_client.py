"""The client half of tool_server.py: what runs when lit's RUN line calls ``regcopy-opt``,
``xdsl-opt`` or ``filecheck`` under pytest (each stand-in script that tool_server.py writes is
this file followed by its call of ``main``).

It hands the server its argument list, working directory, environment and its standard input,
output and error (the file descriptors themselves, over a Unix socket), waits for the forked
tool to finish and exits with the tool's exit status. Built-in modules only (``_socket``, not
``socket``; ``marshal``, not ``json``: the server runs the same Python): the stand-ins run with
``python -I -S``, so that a client costs about 13 ms of CPU, not the 24 ms those imports take.
"""

from __future__ import annotations

import _socket
import marshal
import os
import sys
import time
from array import array

CONNECT_TRIES = 200
"""Connection attempts, 50 ms apart, while the server is still starting (at most 10 s)."""


def _stdio() -> list[int]:
    """File descriptors 0, 1, 2; one that is closed is given ``/dev/null`` first."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            os.dup2(os.open(os.devnull, os.O_RDWR), fd)
    return [0, 1, 2]


def _connect(path: str) -> _socket.socket:
    for _ in range(CONNECT_TRIES):
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        try:
            sock.connect(path)
            return sock
        except (FileNotFoundError, ConnectionRefusedError):
            sock.close()
            time.sleep(0.05)
    sys.exit(f"{os.path.basename(sys.argv[0])}: no tool server at {path}")


def request(tool: str) -> bytes:
    """What the server reads: the tool, this process's arguments, directory, environment."""
    return marshal.dumps({"tool": tool, "argv": sys.argv, "cwd": os.getcwd(),
                          "env": dict(os.environ)})


def run(socket_path: str, tool: str) -> int:
    """Run ``tool`` with this process's arguments, directory, environment and standard
    streams in a child of the server at ``socket_path``; its exit status."""
    sock = _connect(socket_path)
    data = request(tool)
    sock.sendmsg([b"F"], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, array("i", _stdio()))])
    sock.sendall(len(data).to_bytes(4, "big") + data)
    reply = b""
    while chunk := sock.recv(16):
        reply += chunk
    if not reply:
        sys.exit(f"{tool}: the tool server ended without an exit status")
    return int(reply)


def main(socket_path: str, tool: str) -> None:
    sys.exit(run(socket_path, tool))
