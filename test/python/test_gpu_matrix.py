"""The interpreter's ldmatrix/stmatrix rule (``interp_matrix.byte_moves``) against the
hardware: a raw CUDA probe runs one ``ldmatrix``/``stmatrix .m8n8 .x{1,2,4}[.trans] .b16``
(inline PTX) on random bytes with rows scattered over shared memory, and every byte of the
registers and of shared memory must be where the rule puts it.

Without a GPU only the probe's compilation is checked (NVRTC + nvdisasm: it is one ``LDSM`` /
``STSM``, so the GPU test really tests the instruction); the GPU test is marked ``gpu`` and
skips with the reason. Run it with ``python -m pytest -q -m gpu test/python/test_gpu_matrix.py``.
"""

from __future__ import annotations

import random
import re

import numpy as np
import pytest
from xdsl.dialects.builtin import MemRefType, i32

from regcopy_backend.interpreter.ldmatrix import byte_moves
from regcopy_backend.cuda.kernel_info import KernelInfo, KernelParam
from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble
from regcopy_backend.runtime.runner import gpu_available, run_kernel

SHARED_WORDS = 256
"""The probe's shared buffer: 1 KiB, 64 rows of 16 bytes."""

PROBE = """
extern "C" __global__ void probe(const unsigned int* __restrict__ offs,
                                 const unsigned int* __restrict__ src,
                                 unsigned int* __restrict__ regs,
                                 unsigned int* __restrict__ dst) {{
  __shared__ __align__(16) unsigned int smem[{words}];
  const unsigned int l = threadIdx.x;
  for (unsigned int i = l; i < {words}u; i += 32u) smem[i] = {fill};
  __syncwarp();
  const unsigned int addr = (unsigned int)__cvta_generic_to_shared(smem) + offs[l];
  unsigned int r[4];
  for (int m = 0; m < 4; ++m) r[m] = regs[4 * l + m];
  {asm}
  __syncwarp();
  for (int m = 0; m < 4; ++m) regs[4 * l + m] = r[m];
  for (unsigned int i = l; i < {words}u; i += 32u) dst[i] = smem[i];
}}
"""


def probe_source(loads: bool, count: int, trans: bool) -> str:
    """ldmatrix: smem = src, ``r[0..count)`` loaded. stmatrix: smem = 0, ``r`` stored."""
    name = ("ldmatrix" if loads else "stmatrix") + f".sync.aligned.m8n8.x{count}" + \
        (".trans" if trans else "") + ".shared.b16"
    regs = "{" + ", ".join(f"%{k + (0 if loads else 1)}" for k in range(count)) + "}"
    if loads:
        outs = ", ".join(f'"=r"(r[{k}])' for k in range(count))
        asm = f'asm volatile("{name} {regs}, [%{count}];" : {outs} : "r"(addr));'
    else:
        ins = ", ".join(f'"r"(r[{k}])' for k in range(count))
        asm = f'asm volatile("{name} [%0], {regs};" :: "r"(addr), {ins} : "memory");'
    return PROBE.format(words=SHARED_WORDS, fill="src[i]" if loads else "0u", asm=asm)


def probe_info() -> KernelInfo:
    params = tuple(KernelParam(n, MemRefType(i32, [size]), 4) for n, size in
                   (("offs", 32), ("src", SHARED_WORDS), ("regs", 128), ("dst", SHARED_WORDS)))
    return KernelInfo("probe", 32, (1,), params, False, 0, c_name="probe")


def sass_heads(source: str) -> list[str]:
    sass = disassemble(compile_cuda(source).cubin)
    return re.findall(r"^\s+/\*[0-9a-f]+\*/\s+(?:@!?P\w+\s+)?([A-Z][A-Z0-9_.]*)", sass, re.M)


@pytest.mark.parametrize(("loads", "head"), [(True, "LDSM"), (False, "STSM")])
def test_the_probe_is_one_ldsm_or_stsm(loads: bool, head: str) -> None:
    ops = sass_heads(probe_source(loads, 4, True))
    assert [op for op in ops if op.startswith(head)] == [f"{head}.16.MT88.4"]
    assert not any(op.startswith(("LDL", "STL")) for op in ops)


HAS_GPU, WHY = gpu_available()


@pytest.mark.gpu
@pytest.mark.skipif(not HAS_GPU, reason=WHY)
@pytest.mark.parametrize("trans", [False, True], ids=["plain", "trans"])
@pytest.mark.parametrize("count", [1, 2, 4])
@pytest.mark.parametrize("loads", [True, False], ids=["ldmatrix", "stmatrix"])
def test_hardware_moves_the_bytes_of_the_rule(loads: bool, count: int, trans: bool) -> None:
    rng = random.Random(100 * loads + 10 * count + trans)
    rows = [16 * r for r in rng.sample(range(SHARED_WORDS // 4), 32)]  # every lane: a row
    offs = np.array(rows, dtype=np.uint32)
    src = np.frombuffer(rng.randbytes(4 * SHARED_WORDS), dtype=np.uint32).copy()
    regs = np.frombuffer(rng.randbytes(4 * 128), dtype=np.uint32).copy()
    dst = np.zeros(SHARED_WORDS, dtype=np.uint32)
    got_regs, got_dst = run_kernel(probe_source(loads, count, trans), probe_info(),
                                   [offs, src, regs, dst]).arrays[2:]
    want_regs = regs.view(np.uint8).reshape(32, 16).copy()
    want_dst = (src if loads else dst).view(np.uint8).copy()
    shared_in = src.view(np.uint8)
    for lane, reg, s in byte_moves(count, trans, rows, [4 * m for m in range(count)]):
        if loads:
            want_regs[lane, reg] = shared_in[s]
        else:
            want_dst[s] = want_regs[lane, reg]
    assert np.array_equal(got_regs.view(np.uint8).reshape(32, 16), want_regs)
    assert np.array_equal(got_dst.view(np.uint8), want_dst)
