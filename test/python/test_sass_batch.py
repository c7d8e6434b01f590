"""``sass_batch``: the kernels of several printed modules compiled and disassembled as one
translation unit keep the instructions they have in their own module, also when two modules
name their kernels and device functions alike (a module's device functions are
``extern "C"`` too: renamed with its kernels)."""

from __future__ import annotations

import re

from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble
from regcopy_backend.cuda.printer import print_cuda
from regcopy_backend.cuda.spills import kernel_sass
from sass_batch import batched_sass, merged

from cuda_helpers import lower_text

WITH_HELPER = """func.func @helper(%a: memref<8xf32, #regcopy.mem<global>>, %i: index) {
  %v = memref.load %a[%i] : memref<8xf32, #regcopy.mem<global>>
  %c1 = arith.constant 1 : index
  memref.store %v, %a[%c1] : memref<8xf32, #regcopy.mem<global>>
  func.return
}
func.func @k(%a: memref<8xf32, #regcopy.mem<global>>) attributes
    {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0] : memref<8xf32, #regcopy.mem<global>>
  %w = arith.addf %v, %v : f32
  memref.store %w, %a[%c0] : memref<8xf32, #regcopy.mem<global>>
  func.return
}
"""


def instructions(sass: str) -> list[str]:
    """The instruction lines of a listing, without what the module numbers: branch labels,
    the batch's suffixes and NVRTC's internal helpers (``$__internal_0_$...``)."""
    lines = re.findall(r"^\s+/\*[0-9a-f]{4}\*/\s+(.*)$", sass, re.M)
    for pattern, same in ((r"\.L_x_\d+", ".L"), (r"__s\d+\b", ""), (r"__internal_\d+_", "")):
        lines = [re.sub(pattern, same, line) for line in lines]
    return lines


def test_batched_kernels_keep_their_own_instructions() -> None:
    own = print_cuda(lower_text(WITH_HELPER))
    other = own.replace("__fadd_rn", "__fmul_rn")
    assert other != own  # the same names, another body
    text, renames = merged([own, other])
    assert renames == [{"helper": "helper__s0", "k": "k__s0"},
                       {"helper": "helper__s1", "k": "k__s1"}]
    assert "void helper__s1(" in text and " helper(" not in text
    batched = batched_sass([own, other])
    for source, parts in zip((own, other), batched, strict=True):
        alone = disassemble(compile_cuda(source).cubin)
        assert list(parts) == ["k"]
        assert instructions(parts["k"]) == instructions(kernel_sass(alone, "k"))
    assert instructions(batched[0]["k"]) != instructions(batched[1]["k"])
