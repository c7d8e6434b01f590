"""One ragged call of the Hopper GEMM (odd K: scratch, @pad_pair, the GEMM) per form, for
compute-sanitizer: ``compute-sanitizer --report-api-errors no python3 lab/gpu/hop3_memcheck.py
[FORM ...]`` (FORM as bench_gemm_hopper's --form; default the example's). Prints whether D
equals float64's product on integer-valued data."""

import sys

import torch  # before any NVRTC compile
from regcopy_bench.bench_gemm_hopper import HopperGemm, parse_form

good = True
for form in sys.argv[1:] or ["auto"]:
    h = HopperGemm("f16", None, *parse_form(form))
    m, n, k = 515, 769, 301  # N = 3 x 256 + 1: the edge tile where a form has one
    g = torch.Generator(device="cuda").manual_seed(1)
    a = torch.randint(-3, 4, (m, k), device="cuda", generator=g).half()
    b = torch.randint(-3, 4, (n, k), device="cuda", generator=g).half()
    d = torch.full((m, n), 7.0, device="cuda", dtype=torch.float16)
    h(a, b, d, h.dev.default_stream)
    torch.cuda.synchronize()
    same = torch.equal(d, (a.double() @ b.double().T).half())
    good &= same
    print(f"memcheck call {form} {m}x{n}x{k}: {'equal' if same else 'MISMATCH'}", flush=True)
sys.exit(0 if good else 1)
