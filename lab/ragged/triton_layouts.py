"""What Triton makes of ``bench_ragged``'s peer kernel (``ragged_peer``) at a misaligned N: its
blocked layout (TTGIR), registers, and SASS instructions per element a thread moves, beside
the hand-written "Triton" kernel of ``smalln_forms.triton`` (warps stacked on rows), which
ran 5-8% under real Triton on the 64x64 tile at N >= 21 and 25% under it on 32x256.

    python3 lab/ragged/triton_layouts.py [ROWSxCOLS:N ...]     (needs torch, triton, a GPU)
"""

from __future__ import annotations

import re
import sys
from collections import Counter

CASES = ["64x64:25", "64x64:17", "32x256:219", "128x32:17", "1024x4:3"]


def main(argv: list[str]) -> int:
    from regcopy_backend.cuda.nvrtc import disassemble
    from regcopy_bench import ragged_peer
    from regcopy_bench.sass_loops import sass_ops

    found = ragged_peer.peer()
    if found is None:
        print(f"triton_layouts: {ragged_peer.MISSING[0]}")
        return 2
    kernel, torch = found
    for case in argv or CASES:
        tile, _, n_text = case.partition(":")
        rows, cols = (int(v) for v in tile.split("x"))
        n = int(n_text)
        m = rows * 4
        x = torch.zeros(m * n, dtype=torch.float32, device="cuda")
        y = torch.empty_like(x)
        grid = (-(-m // rows) * -(-n // cols),)
        compiled = kernel[grid](x, y, m, n, n // 4, BLOCK_M=rows, BLOCK_N=cols,
                                ALIGNED=n % 4 == 0, VEC=4, num_warps=8)
        torch.cuda.synchronize()
        ttgir = compiled.asm.get("ttgir", "")
        layouts = sorted(set(re.findall(r"#blocked\d* = #ttg\.blocked<\{[^}]*\}>", ttgir)))
        ops = [op for _, op, _ in sass_ops(disassemble(compiled.asm["cubin"])) if op != ":"]
        count = Counter(op.split(".")[0] for op in ops if not op.startswith("NOP"))
        per = rows * cols / 256
        print(f"\n{tile} N = {n}: {compiled.n_regs} registers, {compiled.n_spills} spills, "
              f"{sum(count.values()) / per:.2f} SASS instructions an element a thread")
        for line in layouts:
            print(f"  {line}")
        print("  " + " ".join(f"{k} {v}" for k, v in count.most_common(12)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
