"""The SASS of several printed CUDA sources from one NVRTC compile and one ``nvdisasm`` run.

``nvdisasm`` costs about a quarter of a CPU-second a call whatever the cubin's size (its
start-up), more than NVRTC spends on a small kernel; a test module that reads the SASS of many
small printed modules (one per case) compiles them as one translation unit instead. Each
source goes into a namespace of its own (``namespace s3 { ... }``: its typedefs and helpers do
not collide), and its ``extern "C"`` functions, which a namespace does not separate, are
renamed ``NAME__s3`` (with their calls); ``kernel_sass`` then cuts each kernel's part out of
the one listing. ptxas compiles and allocates each kernel on its own, so a kernel's
instructions are those it has in its own module, up to the names the module numbers (branch
labels, NVRTC's internal helpers): ``test_sass_batch.py``; so are those of every kernel that
the test modules batch (compared with ``test_sass_batch.instructions`` when each was batched).
The sources must be for one architecture (an ``sm_90a`` module apart).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from regcopy_backend.cuda.nvrtc import SM90A_MARKER, compile_cuda, disassemble
from regcopy_backend.cuda.spills import kernel_sass

EXTERN_C = re.compile(r'extern "C" __(global|device)__ void (?:__launch_bounds__\([^)]*\) )?'
                      r"(\w+)\(")


def merged(sources: Sequence[str]) -> tuple[str, list[dict[str, str]]]:
    """One translation unit of ``sources``, and for each source its ``extern "C"`` names
    renamed (``{name: NAME__sK}``). The sources must need the same architecture (all or
    none ``sm_90a``: a kernel compiled for another one is another kernel)."""
    archs = {s.startswith(SM90A_MARKER) for s in sources}
    if len(archs) > 1:
        raise ValueError("sources for sm_90 and sm_90a cannot be batched")
    parts = [SM90A_MARKER + "\n"] if archs == {True} else []
    renames: list[dict[str, str]] = []
    for k, source in enumerate(sources):
        names = {name: f"{name}__s{k}" for _, name in EXTERN_C.findall(source)}
        parts.append(f"namespace s{k} {{\n{_renamed(source, names)}\n}}  // namespace s{k}\n")
        renames.append(names)
    return "".join(parts), renames


def _renamed(source: str, names: dict[str, str]) -> str:
    """``source`` with every function ``name`` (its definition and its calls) renamed."""
    if not names:
        return source
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")(?=\s*\()")
    return pattern.sub(lambda m: names[m.group(1)], source)


def batched_sass(sources: Sequence[str], options: tuple[str, ...] = ()
                 ) -> list[dict[str, str]]:
    """For each source, ``{kernel name: its SASS}``, all from one compile (with NVRTC
    ``options``) and one disassembly."""
    text, renames = merged(sources)
    listing = disassemble(compile_cuda(text, options=options).cubin)
    out: list[dict[str, str]] = []
    for source, names in zip(sources, renames, strict=True):
        kernels = [name for kind, name in EXTERN_C.findall(source) if kind == "global"]
        missing = [names[k] for k in kernels if f".text.{names[k]}" not in listing]
        assert not missing, f"no SASS of {missing} in the batched listing"
        out.append({k: kernel_sass(listing, names[k]) for k in kernels})
    return out
