#!/usr/bin/env bash
# GPU check of the house reorganisation (issue 30): passes/ by lowering (today also convert/,
# mma/, core/strides, reg_copy/misaligned_cost, tma/ring, mma/wgmma), backend modules moved
# (runtime/nvrtc -> cuda/nvrtc, runtime/host_data -> host_data), the CopyOp/CopyAsyncOp base,
# the lab/ split, and the import-circle breaks (vector.extract printed by CudaPrinter itself,
# interpreter GpuState in interpreter/state.py, stride_problem in regcopy_dialect/strided.py).
# Nothing here measures performance: it shows that the moved code still runs on the GPU exactly
# as before, and that the moved lab scripts still start.
#   OUT=dir bash lab/gpu/house.sh     (outputs under $OUT, default /tmp/out; about 4 minutes)
# regcopy is expected installed from the tree (pip install --no-deps --no-build-isolation -e .).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
: >"$out/summary.txt"

step() {  # step SECONDS NAME CMD...: run CMD under a timeout, log to $out/NAME.txt, record rc
    local limit=$1 name=$2
    shift 2
    timeout "$limit" "$@" >"$out/$name.txt" 2>&1
    local rc=$?
    echo "$name: exit $rc" | tee -a "$out/summary.txt"
    tail -3 "$out/$name.txt"
}

# 1. the GPU-marked tests of the code that moved or changed (runner, TMA, async, ragged,
#    ld/stmatrix, strided buffers, launch checks): every buffer bit for bit against the CPU
#    interpreter
step 180 pytest_gpu python3 -m pytest -o addopts="" -q -m gpu test/python/test_gpu.py \
    test/python/test_tma_runtime.py test/python/test_gpu_async.py test/python/test_gpu_ragged.py \
    test/python/test_gpu_matrix.py test/python/test_gpu_strided.py test/python/test_gpu_launch.py \
    test/python/test_runner.py
# 2. the GPU-marked tests of the subpackages added since (conversions: gpu.shuffle and the
#    vector.extract printer; tensor cores: mma.sync and wgmma)
step 180 pytest_gpu_new python3 -m pytest -o addopts="" -q -m gpu test/python/test_convert.py \
    test/python/test_gpu_mma.py test/python/test_wgmma.py
# 3. regcopy-run --check (GPU vs CPU) on examples that use the moved modules: the seed demo
#    (vector + rotation) and the GEMM with cp.async and ldmatrix
step 40 check_seed regcopy-run --check examples/seed_demo.mlir
step 60 check_gemm_async regcopy-run --check examples/gemm_async.mlir
# 4. a lab script from its new place (imports its siblings by plain name): SASS only
step 40 lab_bank_model_cpu python3 lab/ncu/ncu_banks.py --cpu --cases 8

echo "== summary"
cat "$out/summary.txt"
! grep -qv ': exit 0$' "$out/summary.txt"
