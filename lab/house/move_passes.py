"""``passes/`` by lowering (and two backend modules below the packages that use them).

The table ``MOVES`` maps each moved module's old installed name to its new one. Two uses:

    python3 lab/house/move_passes.py move            # once, in a clean tree: git mv + rewrite
    python3 lab/house/move_passes.py rewrite FILE... # rewrite code written against the old names

``rewrite`` changes, in the given files, every dotted module name of the table
(``regcopy_passes.banks`` -> ``regcopy_passes.core.banks``: imports, ``import ... as``, strings
such as ``mock.patch`` targets and prose), the ``from PACKAGE import module`` form, and source
paths (``passes/banks.py`` -> ``passes/core/banks.py``). It is idempotent: a name already new is
left alone, so it can run again over code merged later. With no FILE it rewrites every tracked
``.py``, ``.md``, ``.mlir``, ``.sh``, ``.toml`` and ``.cfg`` file (``git ls-files``) but this one.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CORE = ("index_builder", "planning", "divisibility", "banks", "bounds", "dispatch", "options",
        "swizzle_address", "emit_thread", "strides")
REG_COPY = {"shared_plan": "shared_plan", "matrix_plan": "matrix_plan", "transfer": "transfer",
            "emit_copy": "emit", "emit_rounds": "emit_rounds", "emit_rotated": "emit_rotated",
            "emit_matrix": "emit_matrix", "plan_bounds": "plan_bounds",
            "emit_bounds": "emit_bounds", "emit_realign": "emit_realign",
            "misaligned_cost": "misaligned_cost"}
ASYNC_COPY = {"lower_async": "plan", "emit_async": "emit", "async_bounds": "bounds",
              "emit_async_bounds": "emit_bounds", "async_tokens": "tokens"}
TMA = {"tma_plan": "plan", "emit_tma": "emit", "tma_ring": "ring"}
CONVERT = {"convert_plan": "plan", "convert_butterfly": "butterfly", "emit_convert": "emit",
           "lower_convert": "lower"}
MMA = {"lower_mma": "lower", "lower_wgmma": "wgmma"}
SHARED_LAYOUTS = {"choose_shared_layouts": "choose", "layout_search": "search"}

MOVES: dict[str, str] = {
    **{f"regcopy_passes.{m}": f"regcopy_passes.core.{m}" for m in CORE},
    **{f"regcopy_passes.{a}": f"regcopy_passes.reg_copy.{b}" for a, b in REG_COPY.items()},
    **{f"regcopy_passes.{a}": f"regcopy_passes.async_copy.{b}" for a, b in ASYNC_COPY.items()},
    **{f"regcopy_passes.{a}": f"regcopy_passes.tma.{b}" for a, b in TMA.items()},
    **{f"regcopy_passes.{a}": f"regcopy_passes.shared_layouts.{b}"
       for a, b in SHARED_LAYOUTS.items()},
    **{f"regcopy_passes.{a}": f"regcopy_passes.convert.{b}" for a, b in CONVERT.items()},
    **{f"regcopy_passes.{a}": f"regcopy_passes.mma.{b}" for a, b in MMA.items()},
    "regcopy_backend.runtime.nvrtc": "regcopy_backend.cuda.nvrtc",
    "regcopy_backend.runtime.host_data": "regcopy_backend.host_data",
}
"""Old installed module name -> new one. Not moved: ``regcopy_passes.lower_reg_copy`` and
``regcopy_passes.lower_layout_access`` (the passes, at the top of the package)."""

FOLDERS = {"regcopy_passes": "passes", "regcopy_backend": "backend"}
"""Installed package -> folder in the repository."""

SUBPACKAGES = {
    "core": "What every lowering shares: the plan's value types and steps (``planning``), "
            "acceptance (``dispatch``), divisibility, the bank model and lane rotation "
            "(``banks``), runtime-extent stand-ins (``bounds``), pass options, and the IR "
            "builders of index math, thread indices and swizzled addresses.",
    "reg_copy": "``regcopy.copy`` between registers and memory: planning (shared side, "
                "transfer kind: vector or ld/stmatrix; runtime extents) and one emitter per "
                "transfer kind.",
    "async_copy": "``regcopy.copy_async`` as per-thread ``cp.async``: the plan, its runtime "
                  "bounds, the emitter and the token bookkeeping.",
    "tma": "``regcopy.copy_async`` as Hopper bulk tensor copies (``transfer=tma``): the plan, "
           "the mbarrier ring's depth and the emitter.",
    "convert": "``regcopy.copy`` between two register tiles: the plan (renaming, warp shuffles "
               "or a shared round trip), the shuffle schedule's selects, the emitter and the "
               "lowering that picks the kind.",
    "mma": "Tensor-core ops: ``regcopy.mma`` as warp ``mma.sync`` and ``regcopy.wgmma`` as "
           "warpgroup ``wgmma.mma_async`` (descriptors, fences, waits).",
    "shared_layouts": "``choose-shared-layouts``: the layouts of ``#regcopy.layout<auto>`` "
                      "buffers (the search over XOR bases and pitches, and the pass).",
}


def path_of(module: str) -> str:
    """``regcopy_passes.core.banks`` -> ``passes/core/banks.py``."""
    package, *rest = module.split(".")
    return "/".join([FOLDERS[package], *rest]) + ".py"


def _patterns() -> list[tuple[re.Pattern[str], str]]:
    out = []
    for old, new in sorted(MOVES.items(), key=lambda kv: -len(kv[0])):
        out.append((re.compile(rf"(?<![\w.]){re.escape(old)}(?![\w])"), new))
        out.append((re.compile(rf"(?<![\w/.]){re.escape(path_of(old))}"), path_of(new)))
    return out


_FROM_IMPORT = re.compile(r"^(?P<indent>[ \t]*)from (?P<pkg>regcopy_passes|regcopy_backend\.runtime)"
                          r" import (?P<names>[\w, ]+?)(?P<tail>[ \t]*(#.*)?)$", re.MULTILINE)


def _split_from_import(m: re.Match[str]) -> str:
    """``from regcopy_passes import banks, lower`` -> one line per new home."""
    names = [n.strip() for n in m["names"].split(",") if n.strip()]
    homes: dict[str, list[str]] = {}
    for name in names:
        bare, _, alias = name.partition(" as ")
        new = MOVES.get(f"{m['pkg']}.{bare.strip()}")
        home = new.rsplit(".", 1)[0] if new else m["pkg"]
        if new and new.rsplit(".", 1)[1] != bare.strip():
            name = f"{new.rsplit('.', 1)[1]} as {alias.strip() or bare.strip()}"
        homes.setdefault(home, []).append(name)
    if list(homes) == [m["pkg"]]:
        return m.group(0)
    return "\n".join(f"{m['indent']}from {home} import {', '.join(ns)}{m['tail'] if k == 0 else ''}"
                     for k, (home, ns) in enumerate(homes.items()))


def rewrite_text(text: str) -> str:
    """``text`` with every old module name and source path of the table replaced."""
    text = _FROM_IMPORT.sub(_split_from_import, text)
    for pattern, new in _patterns():
        text = pattern.sub(new, text)
    return text


def rewrite(files: list[Path]) -> int:
    """Rewrite ``files`` in place; returns how many changed."""
    changed = 0
    for path in files:
        text = path.read_text()
        new = rewrite_text(text)
        if new != text:
            path.write_text(new)
            changed += 1
    return changed


def _tracked() -> list[Path]:
    out = subprocess.run(["git", "ls-files", "-z", "--", "*.py", "*.md", "*.mlir", "*.sh",
                          "*.toml", "*.cfg"], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout
    here = Path(__file__).resolve()  # this table names the old modules on purpose
    return [ROOT / p for p in out.split("\0")
            if p and not p.startswith("lab/results/") and (ROOT / p).resolve() != here]


def move() -> None:
    """``git mv`` every module of the table, add the subpackages' ``__init__.py``, rewrite."""
    for sub, doc in SUBPACKAGES.items():
        init = ROOT / "passes" / sub / "__init__.py"
        init.parent.mkdir(exist_ok=True)
        if not init.exists():
            init.write_text(f'"""{doc}"""\n')
            subprocess.run(["git", "add", str(init)], cwd=ROOT, check=True)
    for old, new in MOVES.items():
        src, dst = ROOT / path_of(old), ROOT / path_of(new)
        if src.exists() and not dst.exists():
            subprocess.run(["git", "mv", str(src), str(dst)], cwd=ROOT, check=True)
    print(f"rewrote {rewrite(_tracked())} files")


def main(argv: list[str]) -> None:
    if argv[:1] == ["move"]:
        move()
    elif argv[:1] == ["rewrite"]:
        files = [Path(a) for a in argv[1:]] or _tracked()
        print(f"rewrote {rewrite(files)} of {len(files)} files")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
