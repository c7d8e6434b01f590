#!/usr/bin/env bash
# Nsight Compute on the mma.sync GEMM (why it runs near half of mma.sync's peak), ~1 minute:
#   bash lab/gpu/mmagemm_ncu.sh        (outputs under $OUT, default /tmp/out)
# The example's kernel and the prefetching candidates, one 4096^3 f16 launch each
# (lab/gpu/gemm_ncu_run.py), with the sections that say which pipe binds: SpeedOfLight,
# ComputeWorkloadAnalysis (tensor pipe), MemoryWorkloadAnalysis (shared memory, L1, L2),
# WarpStateStats (stall reasons: barrier, MIO throttle, short scoreboard, math pipe).
set -uo pipefail
out=${OUT:-/tmp/out}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.."
python3 -m pip install -q --no-deps --no-build-isolation -e . >"$out/install.txt" 2>&1 || true
ncu=/usr/local/cuda/bin/ncu
if [ ! -x "$ncu" ]; then echo "no ncu"; exit 2; fi
timeout 100 "$ncu" -k regex:gemm_ \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
    --section WarpStateStats --section Occupancy \
    python3 lab/gpu/gemm_ncu_run.py "example" "prefetch, convert epilogue (the fastest; its 64-bit index form spills)" \
        "the previous example (copies after the first k16 step, no branch)" >"$out/ncu.txt" 2>&1
rc=$?
grep -E "gemm_[0-9]|Duration|Tensor|Shared|L2 Cache Throughput|L1/TEX Cache Throughput|Compute \(SM\) Throughput|Memory Throughput|Stall|Warp Cycles Per Issued|Issue Slots|Achieved Occupancy|Registers Per" "$out/ncu.txt" | head -150
echo "ncu: exit $rc" | tee "$out/summary.txt"
