"""Is ``disassemble``'s listing (``nvdisasm -c -ndf``, again without ``-ndf`` when it has
``LDL``/``STL``: backend/cuda/nvrtc.py) the one plain ``nvdisasm -c`` gives?

``python3 lab/suite/sass_options_check.py CACHE_DIR`` disassembles every cubin of a compile
cache (``REGCOPY_CACHE_DIR`` of a whole test-suite run, kept by setting it before pytest starts:
``REGCOPY_CACHE_DIR=$(mktemp -d) python3 -m pytest``) both ways and prints the cubins whose
listings differ (none: exit 0), with the CPU seconds of each. ``--lean`` compares plain
``-c -ndf`` instead (2026-12-03, 315 cubins of the suite: 4 differ, each only by the
``(*"SpillRefill"*)`` notes on its ``LDL``/``STL``).
"""

from __future__ import annotations

import pickle
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

from regcopy_backend.cuda.nvrtc import LEAN_OPTIONS, Compiled, _disassemble, find_nvdisasm


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def listing(tool: str, cubin: Path, options: tuple[str, ...] | None) -> tuple[str, float]:
    """nvdisasm's output for ``cubin`` under ``options`` (``None``: ``_disassemble``'s) and
    the CPU seconds it took."""
    before = _cpu()
    if options is None:
        text = _disassemble(cubin.read_bytes())
    else:
        out = subprocess.run([tool, *options, str(cubin)], capture_output=True, text=True,
                             check=False)
        text = out.stdout if out.returncode == 0 else f"{out.returncode}\n{out.stderr}"
    return text, _cpu() - before


def main(cache: Path, lean: bool) -> int:
    tool = find_nvdisasm()
    cubins: dict[bytes, str] = {}
    for path in sorted(cache.glob("nvrtc*.pickle")):
        compiled = pickle.loads(path.read_bytes())
        if isinstance(compiled, Compiled):
            cubins.setdefault(compiled.cubin, path.name)
    other = " ".join(LEAN_OPTIONS) if lean else "disassemble()"
    differ, cpu = [], {"-c": 0.0, other: 0.0}
    with tempfile.TemporaryDirectory() as tmp:
        file = Path(tmp) / "k.cubin"
        for cubin, name in cubins.items():
            file.write_bytes(cubin)
            plain, t_plain = listing(tool, file, ("-c",))
            mine, t_mine = listing(tool, file, LEAN_OPTIONS if lean else None)
            cpu["-c"] += t_plain
            cpu[other] += t_mine
            if plain != mine:
                differ.append(name)
    print(f"{len(cubins)} cubins; listings that differ: {len(differ)}")
    for name in differ:
        print(f"  {name}")
    for options, seconds in cpu.items():
        print(f"nvdisasm {options}: {seconds:.1f} CPU-s in all, "
              f"{seconds / max(len(cubins), 1):.3f} a call")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), "--lean" in sys.argv[2:]))
