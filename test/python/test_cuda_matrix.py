"""``backend/cuda_matrix``: the inline PTX of ``regcopy.ldmatrix``/``stmatrix``.

The statements are printed from parsed ops, placed in tiny hand-written CUDA kernels, compiled
with NVRTC for sm_90 and disassembled: the SASS must hold the ``LDSM``/``STSM`` variant the op
names (``.x4``, ``.T``, ...), one per op, with the register array kept in registers (no
``LDL``/``STL``). The kernels of the SASS tests are one module, ``k0``, ``k1``, ...: one NVRTC
compile and one nvdisasm run (ptxas allocates each kernel alone), each test reading its own
kernel's part of the listing.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from copy_harness import parse
from regcopy_backend.cuda.matrix import matrix_asm, mnemonic, print_matrix, register_word
from regcopy_backend.cuda.types import PRELUDE
from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble
from regcopy_backend.cuda.spills import kernel_sass
from regcopy_dialect.matrix_ops import LdMatrixOp, MatrixOpBase, StMatrixOp


def matrix_op(text: str, dtype: str = "f16") -> MatrixOpBase:
    """The one ld/stmatrix op of a function body ``text`` (%S: 1024 x dtype shared, %R: 16 x
    dtype local, %o: index)."""
    sh = f"memref<1024x{dtype}, #regcopy.mem<shared>>"
    lo = f"memref<16x{dtype}, #regcopy.mem<local>>"
    module = parse(f"func.func @f(%S: {sh}, %R: {lo}, %o: index) {{\n  {text.format(sh=sh, lo=lo)}"
                   "\n  func.return\n}\n")
    return next(op for op in module.walk() if isinstance(op, LdMatrixOp | StMatrixOp))


def test_ldmatrix_text() -> None:
    op = matrix_op("regcopy.ldmatrix trans %S[%o] -> %R[0, 2, 4, 6] : {sh} -> {lo}")
    assert mnemonic(op) == "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"
    text = print_matrix(op, "S", "off", "R")
    assert text == (
        'asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];" '
        ': "=r"(*reinterpret_cast<uint32_t*>(&R[0])), "=r"(*reinterpret_cast<uint32_t*>(&R[2])), '
        '"=r"(*reinterpret_cast<uint32_t*>(&R[4])), "=r"(*reinterpret_cast<uint32_t*>(&R[6])) '
        ': "r"((unsigned)__cvta_generic_to_shared(&S[off])) : "memory");')


def test_stmatrix_text() -> None:
    op = matrix_op("regcopy.stmatrix %R[4, 6] -> %S[%o] : {lo} -> {sh}")
    text = print_matrix(op, "S", "off", "R")
    assert text.startswith('asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};" '
                           ':: "r"((unsigned)__cvta_generic_to_shared(&S[off])), ')
    assert '"r"(*reinterpret_cast<uint32_t*>(&R[6])) : "memory");' in text
    with pytest.raises(ValueError, match="moves 2 words"):
        matrix_asm(op, "&S[0]", [register_word("R", 0)])


def kernel(body: str, dtype: str = "rc_f16", name: str = "k") -> str:
    """A kernel ``name`` (without the prelude): fill 1024 shared elements from ``in``, run
    ``body`` (which sees ``S``, ``R`` and ``off``, the lane's offset), write the 16 registers
    to ``out``."""
    return f"""
extern "C" __global__ void __launch_bounds__(32) {name}(const {dtype}* __restrict__ in, {dtype}* __restrict__ out) {{
  __shared__ alignas(128) {dtype} S[1024];
  alignas(16) {dtype} R[16];
  int lane = threadIdx.x % 32;
  for (int i = lane; i < 1024; i += 32) S[i] = in[i];
  #pragma unroll
  for (int i = 0; i < 16; ++i) R[i] = in[i * 32 + lane];
  __syncthreads();
  int off = (lane & 15) * 64 + (lane >> 4) * 8;
  {body}
  __syncthreads();
  #pragma unroll
  for (int i = 0; i < 16; ++i) out[i * 32 + lane] = R[i] + S[i * 64 + lane];
}}
"""


def sass_ops(sass: str) -> Counter[str]:
    return Counter(re.findall(r"^\s+/\*[0-9a-f]+\*/\s+(?:@!?P\w+\s+)?([A-Z][A-Z0-9_.]*)", sass,
                              re.M))


CASES = [
    ("regcopy.ldmatrix %S[%o] -> %R[0, 2, 4, 6] : {sh} -> {lo}", "LDSM.16.M88.4"),
    ("regcopy.ldmatrix trans %S[%o] -> %R[8, 10, 12, 14] : {sh} -> {lo}", "LDSM.16.MT88.4"),
    ("regcopy.ldmatrix %S[%o] -> %R[2, 12] : {sh} -> {lo}", "LDSM.16.M88.2"),
    ("regcopy.ldmatrix trans %S[%o] -> %R[4] : {sh} -> {lo}", "LDSM.16.MT88"),
    ("regcopy.stmatrix %R[0, 2, 4, 6] -> %S[%o] : {lo} -> {sh}", "STSM.16.M88.4"),
    ("regcopy.stmatrix trans %R[6, 2] -> %S[%o] : {lo} -> {sh}", "STSM.16.MT88.2"),
    ("regcopy.stmatrix %R[14] -> %S[%o] : {lo} -> {sh}", "STSM.16.M88"),
]


BYTES = "regcopy.ldmatrix %S[%o] -> %R[0, 4, 8, 12] : {sh} -> {lo}"
"""8-bit data (``test_matrix_sass_bytes``)."""
KERNELS = [(text, "f16", "rc_f16") for text, _ in CASES] + [(BYTES, "i8", "uint8_t")]
"""The SASS tests' kernels, ``k<index>`` in the module: (op, element type, C type)."""


@pytest.fixture(scope="module")
def listing() -> str:
    """The SASS of every kernel of ``KERNELS``, compiled as one module."""
    source = PRELUDE + "".join(
        kernel(print_matrix(matrix_op(text, dtype), "S", "off", "R"), c_type, f"k{k}")
        for k, (text, dtype, c_type) in enumerate(KERNELS))
    return disassemble(compile_cuda(source).cubin)


def kernel_ops(listing: str, k: int) -> Counter[str]:
    """The SASS instructions of kernel ``k<k>`` of the listing."""
    mine = kernel_sass(listing, f"k{k}")
    assert mine != listing, f"no kernel k{k} in the listing"
    return sass_ops(mine)


@pytest.mark.parametrize("k,sass", [(k, sass) for k, (_, sass) in enumerate(CASES)],
                         ids=[text.split(" %")[0] + f"-{sass}" for text, sass in CASES])
def test_matrix_sass(k: int, sass: str, listing: str) -> None:
    ops = kernel_ops(listing, k)
    head = sass.split(".")[0]
    assert ops[sass] == 1, ops
    assert sum(c for name, c in ops.items() if name.split(".")[0] == head) == 1, ops
    assert not any(name.split(".")[0] in ("LDL", "STL") for name in ops), ops


def test_matrix_sass_bytes(listing: str) -> None:
    """8-bit data moves as the same b16 rows (the plain form)."""
    ops = kernel_ops(listing, len(CASES))
    assert ops["LDSM.16.M88.4"] == 1 and not any(n.startswith(("LDL", "STL")) for n in ops)
