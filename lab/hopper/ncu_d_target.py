"""ncu's target for lab/gpu/ncu_d.sh: the Hopper GEMM (the example's 256 x 128 form) on padded
operands, three launches at N = 4097 (every row of D misaligned), then three at N = 4104
(aligned; the same grid and edge tile). Run under ncu with ``--launch-skip 2 --launch-count
2``: the third launch of each."""

from __future__ import annotations


def main() -> None:
    import torch

    from regcopy_bench.hopper_launch import HopperGemm

    g = HopperGemm("f16", None, tile="256x128")
    stream = g.dev.default_stream
    a8 = torch.randn(4095, 4096, device="cuda", dtype=torch.float16)
    for n in (4097, 4104):
        b8 = torch.randn(n, 4096, device="cuda", dtype=torch.float16)
        d = torch.empty(4095, n, device="cuda", dtype=torch.float16)
        for _ in range(3):
            g(a8, b8, d, stream)
        torch.cuda.synchronize()
        print(f"N = {n}: {float(d.float().abs().mean()):.3f}")


if __name__ == "__main__":
    main()
