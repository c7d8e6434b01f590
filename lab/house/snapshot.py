"""Record the lowered IR, remarks and CUDA of every example and lit input, to compare later.

``python3 lab/house/snapshot.py OUTDIR`` writes, for each ``*.mlir`` under ``examples/`` and
``test/``, ``OUTDIR/<path>.ir`` (``regcopy-opt --split-input-file -p 'lower-reg-copy{remarks}'``:
stdout, stderr, exit status) and ``OUTDIR/<path>.cu`` (the same with ``-t cuda``). Each command
runs in a child forked from this process after xDSL is imported once. ``diff -r A B`` compares two
snapshots.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = {
    "ir": ["--split-input-file", "-p", "lower-reg-copy{remarks}"],
    "cu": ["--split-input-file", "-p", "lower-reg-copy", "-t", "cuda"],
}


def run(argv: list[str], out: Path) -> None:
    """Run ``regcopy-opt argv`` in a forked child; write its stdout, stderr and status to ``out``."""
    from regcopy_tools.regcopy_opt import main

    out.parent.mkdir(parents=True, exist_ok=True)
    so, se = out.with_suffix(out.suffix + ".stdout"), out.with_suffix(out.suffix + ".stderr")
    pid = os.fork()
    if pid == 0:
        fo, fe = os.open(so, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), os.open(
            se, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(fo, 1)
        os.dup2(fe, 2)
        code = 0
        try:
            main(argv)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
        except BaseException:  # noqa: BLE001 - recorded, not raised
            code = 99
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    text = f"== exit {os.waitstatus_to_exitcode(status)}\n== stdout\n{so.read_text()}"
    text += f"== stderr\n{se.read_text()}"
    so.unlink()
    se.unlink()
    out.write_text(text.replace(str(ROOT), "<ROOT>"))


def main() -> None:
    outdir = Path(sys.argv[1]).resolve()
    os.chdir(ROOT)
    import regcopy_tools.regcopy_opt  # noqa: F401 - imported once, before the forks

    files = sorted(p for d in ("examples", "test") for p in Path(d).rglob("*.mlir"))
    for f in files:
        for kind, args in COMMANDS.items():
            run([*args, str(f)], outdir / f"{f}.{kind}")
    print(f"{len(files)} files -> {outdir}")


if __name__ == "__main__":
    main()
