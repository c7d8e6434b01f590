"""The producer-warpgroup form of lab/ab/gemm_hopper_producer.py, derived from the printed
Hopper GEMM: 384 threads with a fixed register budget, the producer's branch without any
wgmma or accumulator, the consumers' body with the thread index shifted past the producer,
one CTA barrier an iteration on each side, setmaxnreg where asked; and it compiles for
sm_90a to the reallocation, the HGMMAs and no local memory."""

from __future__ import annotations

from gemm_hopper_producer import producer_source
from regcopy_bench.bench_gemm_hopper import hopper_lowered


def test_producer_form() -> None:
    from regcopy_backend.cuda.nvrtc import compile_cuda, disassemble
    source, _ = hopper_lowered("f16", "128x256")
    text = producer_source(source, (40, 232))
    assert "__launch_bounds__(384, 1)" in text and "__launch_bounds__(256)" not in text
    producer, _, consumer = text.partition("    return;\n  }\n")
    producer = producer.split("if (threadIdx.x < 128) {")[1]
    assert "wgmma." not in producer and '"+f"' not in producer  # no accumulator asm
    assert producer.count("__syncthreads();") == consumer.count("__syncthreads();") == 1
    assert "setmaxnreg.dec.sync.aligned.u32 40;" in producer
    assert "setmaxnreg.inc.sync.aligned.u32 232;" in consumer
    assert "(rc_index)threadIdx.x - 128;" in consumer and consumer.count("wgmma.mma_async") == 4
    assert "setmaxnreg" not in producer_source(source, None)
    sass = disassemble(compile_cuda(text).cubin)
    assert sass.count("USETMAXREG") == 2 and sass.count("HGMMA.64x256x16.F32") == 4
    assert "LDL" not in sass and "STL" not in sass
