#!/usr/bin/env bash
# The whole GPU run of regcopy on a lent H200 (no network there), one command:
#   bash test/gpu/device_run.sh [all|tests|bench|ncu]   (outputs under $OUT, else /tmp/regcopy-gpu)
# `tests` runs every step but the benchmarks, `bench` only the benchmarks (two calls that each
# fit a 10-minute limit); `all` (the default) both. `ncu` only compares the shared-memory bank
# model with wavefronts counted by Nsight Compute (lab/ncu/ncu_banks.py, 120 random copies;
# it falls back to clock64 timing when ncu cannot read the counters), after a --check of the
# 8-way rotated kernel (a 3-bit butterfly).
# Wheels carried in .whl/ (xdsl and its pure-Python needs; .whl/cuda/ holds cuda-core and
# cuda-bindings, used only when the machine's own cuda.core does not import) are installed
# into /tmp/site, then regcopy itself (editable, else into /tmp/site). Then: the GPU case
# table (test/gpu/run_all.py, with compute-sanitizer
# memcheck), the GPU-marked pytest tests, `regcopy-run --check` (GPU vs the CPU interpreter)
# on the seed demo, the GEMM example, the 192 KiB shared.dyn kernel and the vector-arith example, `regcopy-run
# --compile-only` on the GEMM example, the ragged (runtime-extent) kernels' --check and
# compute-sanitizer memcheck, and the benchmarks (regcopy_bench.bench_copy,
# regcopy_bench.bench_ragged, regcopy_bench.bench_shared with each consumer,
# regcopy_bench.bench_async); `ncu` compares the bank model with Nsight Compute.
# Exit status: 0 when every step passed, else 1 (each step's output is in $out, and the exit
# status of each step in $out/summary.txt).
set -uo pipefail
out=${OUT:-/tmp/regcopy-gpu}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
export PYTHONPATH=/tmp/site:${PYTHONPATH:-} PATH=/tmp/site/bin:$PATH
if compgen -G ".whl/*.whl" >/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl || exit 1
fi
if ! python3 -c "import cuda.core, cuda.bindings" 2>/dev/null && compgen -G ".whl/cuda/*.whl" >/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/cuda/*.whl
fi
nvidia-smi -L
python3 -c "import cuda.core, cuda.bindings, xdsl, numpy; print('cuda.core', cuda.core.__version__, '| cuda.bindings', cuda.bindings.__version__, '| numpy', numpy.__version__)"
# regcopy itself (its packages, regcopy-run/regcopy-opt, the xDSL universe entry point): an
# editable install, else a plain one into /tmp/site; without network, so with the machine's
# setuptools (>= 64; before 70.1 it also needs the `wheel` package, e.g. carried in .whl/).
if ! python3 -m pip install -q --no-index --no-deps --no-build-isolation -e . >"$out/install.txt" 2>&1 \
    && ! python3 -m pip install -q --no-index --no-deps --no-build-isolation --upgrade \
        --target /tmp/site . >>"$out/install.txt" 2>&1; then
    cat "$out/install.txt"
    echo "device_run.sh: could not install regcopy (see above)" >&2
    exit 1
fi
python3 -c "import regcopy_tools, regcopy_bench" || exit 1
status=0
step() {  # step NAME FILE CMD...: run CMD, tee its output to $out/FILE, remember a failure
    local name=$1 file=$2
    shift 2
    echo "== $name"
    "$@" 2>&1 | tee "$out/$file"
    local rc=${PIPESTATUS[0]}
    echo "$name: exit $rc" >>"$out/summary.txt"
    [[ $rc -eq 0 ]] || status=1
}
run() { regcopy-run "$@"; }
: >"$out/summary.txt"
part=${1:-all}
case $part in all|tests|bench|ncu) ;; *) echo "usage: device_run.sh [all|tests|bench|ncu]" >&2; exit 2;; esac
if [[ $part == ncu ]]; then
step "regcopy-run --check test/gpu/kernels/rotated_f32_k32.mlir" check_rotated_8way.txt \
    run --check test/gpu/kernels/rotated_f32_k32.mlir
step "lab/ncu/ncu_banks.py (bank model vs Nsight Compute)" ncu_banks.txt \
    python3 lab/ncu/ncu_banks.py --cases 120
echo "== summary"
cat "$out/summary.txt"
exit $status
fi
if [[ $part != bench ]]; then
step "test/gpu/run_all.py" run_all.txt python3 test/gpu/run_all.py
step "pytest -m gpu" pytest_gpu.txt python3 -m pytest -o addopts="" -q -rs -m gpu -p no:cacheprovider test/python/test_gpu.py test/python/test_gpu_matrix.py test/python/test_gpu_epilogue.py test/python/test_runner.py test/python/test_docs.py test/python/test_gpu_async.py test/python/test_async_ragged.py test/python/test_gpu_ragged.py test/python/test_tma_runtime.py test/python/test_tma_matrix.py test/python/test_padding_types.py test/python/test_ldmatrix_replicated.py
step "regcopy-run examples/seed_demo.mlir" regcopy_run.txt run examples/seed_demo.mlir
step "regcopy-run --check examples/seed_demo.mlir" check_seed_demo.txt run --check examples/seed_demo.mlir
step "regcopy-run --compile-only examples/gemm_tiles.mlir" compile_gemm.txt \
    run --compile-only examples/gemm_tiles.mlir
step "regcopy-run --check test/gpu/kernels/shared_dyn_192k.mlir" check_shared_dyn.txt \
    run --check test/gpu/kernels/shared_dyn_192k.mlir
step "regcopy-run --check test/gpu/kernels/ldmatrix_wg_swizzle.mlir" check_ldmatrix.txt \
    run --check test/gpu/kernels/ldmatrix_wg_swizzle.mlir
step "regcopy-run --check test/gpu/kernels/ldmatrix_replicated.mlir (ldmatrix into replicas)" check_ldmatrix_replicated.txt \
    run --check test/gpu/kernels/ldmatrix_replicated.mlir
step "regcopy-run --check examples/vector_arith.mlir" check_vector_arith.txt \
    run --check examples/vector_arith.mlir
step "regcopy-run --check test/gpu/kernels/casts.mlir" check_casts.txt \
    run --check test/gpu/kernels/casts.mlir
step "regcopy-run --check test/gpu/kernels/rotated_f32_k32.mlir" check_rotated_8way.txt \
    run --check test/gpu/kernels/rotated_f32_k32.mlir
step "regcopy-run --check test/gpu/kernels/rotated_dynamic_slice.mlir (p=1)" check_rotated_slice.txt \
    run --check test/gpu/kernels/rotated_dynamic_slice.mlir --arg p=1
step "regcopy-run --check examples/epilogue.mlir" check_epilogue.txt \
    run --check examples/epilogue.mlir
step "regcopy-run --check test/gpu/kernels/im2col.mlir" check_im2col.txt \
    run --check test/gpu/kernels/im2col.mlir
step "regcopy-run --check test/gpu/kernels/ragged_tile.mlir (37x1029)" check_ragged.txt \
    run --check test/gpu/kernels/ragged_tile.mlir --arg X=37x1029 --arg Y=37x1029 --grid 5,2
step "regcopy-run --check test/gpu/kernels/ragged_lowered.mlir (5x131)" check_ragged_lowered.txt \
    run --check test/gpu/kernels/ragged_lowered.mlir --arg X=5x131 --arg Y=5x131 --grid 5,2
step "regcopy-run --check test/gpu/kernels/async_ragged.mlir (37x1000, cp.async)" check_async_ragged.txt \
    run --check test/gpu/kernels/async_ragged.mlir --arg X=37x1000 --arg Y=37x1000 --arg Z=2x16x32x64 --grid 16,2
step "regcopy-run --check test/gpu/kernels/async_ragged.mlir (37x1000, TMA)" check_async_ragged_tma.txt \
    run -p 'lower-reg-copy{transfer=tma}' --check test/gpu/kernels/async_ragged.mlir --arg X=37x1000 --arg Y=37x1000 --arg Z=2x16x32x64 --grid 16,2
if command -v compute-sanitizer >/dev/null; then
    step "compute-sanitizer memcheck: ragged cp.async copy (1001x4000)" memcheck_async_ragged.txt \
        compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 1 "$(command -v regcopy-run)" \
        test/gpu/kernels/async_ragged.mlir --arg X=1001x4000 --arg Y=1001x4000 --arg Z=32x63x32x64 --grid 63,32
    step "compute-sanitizer memcheck: ragged cp.async copy (3x8)" memcheck_async_ragged_small.txt \
        compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 1 "$(command -v regcopy-run)" \
        test/gpu/kernels/async_ragged.mlir --arg X=3x8 --arg Y=3x8 --arg Z=1x1x32x64 --grid 1,1
    step "compute-sanitizer memcheck: ragged TMA copy (1001x4000)" memcheck_async_ragged_tma.txt \
        compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 1 "$(command -v regcopy-run)" \
        -p 'lower-reg-copy{transfer=tma}' test/gpu/kernels/async_ragged.mlir --arg X=1001x4000 --arg Y=1001x4000 --arg Z=32x63x32x64 --grid 63,32
    step "compute-sanitizer memcheck: ragged tile copy (1001x4003)" memcheck_ragged.txt \
        compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 1 "$(command -v regcopy-run)" \
        test/gpu/kernels/ragged_tile.mlir --arg X=1001x4003 --arg Y=1001x4003 --grid 126,4
    step "compute-sanitizer memcheck: ragged tile copy (3x5)" memcheck_ragged_small.txt \
        compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 1 "$(command -v regcopy-run)" \
        test/gpu/kernels/ragged_tile.mlir --arg X=3x5 --arg Y=3x5 --grid 1,1
fi
# (--check runs the CPU interpreter too: keep its shapes small; memcheck below takes big ones)
step "regcopy-run --check examples/rowwise.mlir (37x1029, versioned narrow path)" check_rowwise_odd.txt \
    run --check --arg X=37x1029 --arg Y=37x1029 --grid 10 examples/rowwise.mlir
step "regcopy-run --check examples/rowwise.mlir (37x1028, wide path)" check_rowwise.txt \
    run --check --arg X=37x1028 --arg Y=37x1028 --grid 10 examples/rowwise.mlir
step "regcopy-run --check examples/transpose.mlir (auto shared layout)" check_transpose_auto.txt \
    run --check examples/transpose.mlir
step "regcopy-run --check test/gpu/kernels/replicated.mlir" check_replicated.txt \
    run --check test/gpu/kernels/replicated.mlir
for k in tma_swizzle128 tma_ragged tma_ring; do
    step "regcopy-run --check test/gpu/kernels/$k.mlir (transfer=tma)" check_$k.txt \
        run --check -p 'lower-reg-copy{transfer=tma}' test/gpu/kernels/$k.mlir
done
if command -v compute-sanitizer >/dev/null; then
    step "compute-sanitizer memcheck: rowwise (1001x4001)" memcheck_rowwise.txt \
        compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 1 "$(command -v regcopy-run)" \
        --arg X=1001x4001 --arg Y=1001x4001 --grid 251 examples/rowwise.mlir
    step "compute-sanitizer memcheck: TMA ragged boxes" memcheck_tma_ragged.txt \
        compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 1 "$(command -v regcopy-run)" \
        -p 'lower-reg-copy{transfer=tma}' test/gpu/kernels/tma_ragged.mlir
    step "compute-sanitizer memcheck: the TMA matrix (test/python/tma_cases.py)" memcheck_tma_matrix.txt \
        compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 1 \
        python3 test/python/tma_cases.py
    step "compute-sanitizer memcheck: gemm_async (ragged 200x136x200)" memcheck_gemm_async.txt \
        compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 1 "$(command -v regcopy-run)" \
        --arg A=200x200 --arg B=136x200 --arg fragA=2x2x4x256x128 --arg fragB=2x2x4x256x64 \
        --grid 2,2 examples/gemm_async.mlir
fi
python3 test/gpu/doc_block.py ir transpose.mlir >/tmp/transpose.mlir
step "regcopy-run --check docs/ir.md's transpose.mlir" check_transpose.txt \
    run --check /tmp/transpose.mlir
fi
if [[ $part != tests ]]; then
step "regcopy_bench.bench_copy" bench_copy.txt python3 -m regcopy_bench.bench_copy
step "regcopy_bench.bench_ragged --sass" bench_ragged_sass.txt \
    python3 -m regcopy_bench.bench_ragged --sass
step "regcopy_bench.bench_ragged" bench_ragged.txt python3 -m regcopy_bench.bench_ragged
step "regcopy_bench.bench_shared" bench_shared.txt python3 -m regcopy_bench.bench_shared
step "regcopy_bench.bench_shared --consumer xor" bench_shared_xor.txt \
    python3 -m regcopy_bench.bench_shared --consumer xor
step "regcopy_bench.bench_shared --auto" bench_shared_auto.txt \
    python3 -m regcopy_bench.bench_shared --auto
step "regcopy_bench.bench_async" bench_async.txt python3 -m regcopy_bench.bench_async
fi
if [[ $part != bench ]]; then
# last: the GEMM example's --check (its CPU reference takes about 30 s)
# (ragged M, N, K: 200 x 136 x 200 on a 2 x 2 grid, 4 K tiles)
step "regcopy-run --check examples/gemm_tiles.mlir (ragged)" check_gemm.txt \
    run --check --arg A=200x200 --arg B=136x200 --arg fragA=2x2x4x256x128 \
    --arg fragB=2x2x4x256x64 --grid 2,2 examples/gemm_tiles.mlir
# (ragged M, N, K as above: the cp.async chunks past an edge read nothing and land zeros)
step "regcopy-run --check examples/gemm_async.mlir (ragged)" check_gemm_async.txt \
    run --check --arg A=200x200 --arg B=136x200 --arg fragA=2x2x4x256x128 \
    --arg fragB=2x2x4x256x64 --grid 2,2 examples/gemm_async.mlir
fi
echo "== summary"
cat "$out/summary.txt"
exit $status
