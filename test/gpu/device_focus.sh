#!/usr/bin/env bash
# The GPU checks of the runtime-shape, layout and async work in one short call (a device
# session's time is scarce; device_run.sh tests|bench|ncu is the whole run). Every step has its
# own time limit and appends to one log, $OUT/focus.log, so a cut-off call still returns what ran:
#   OUT=/some/dir bash test/gpu/device_focus.sh
set -uo pipefail
out=${OUT:-/tmp/regcopy-gpu}; mkdir -p "$out"; log=$out/focus.log; : >"$log"
export PYTHONUNBUFFERED=1 PYTHONPATH=/tmp/site:${PYTHONPATH:-} PATH=/tmp/site/bin:$PATH
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl >/dev/null 2>&1
python3 -m pip install -q --no-index --no-deps --no-build-isolation -e . >/dev/null 2>&1 \
    || python3 -m pip install -q --no-index --no-deps --no-build-isolation --target /tmp/site . >/dev/null 2>&1
san="compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 1 $(command -v regcopy-run)"
step() {  # step SECONDS NAME CMD...
    local limit=$1 name=$2; shift 2
    echo "== $name" >>"$log"
    timeout "$limit" "$@" >>"$log" 2>&1
    echo "-- $name: exit $?" | tee -a "$log"
}
step 120 "pytest -m gpu (ragged, TMA, async, replicas)" python3 -m pytest -o addopts="" -q -rs \
    -m gpu -p no:cacheprovider test/python/test_gpu_ragged.py test/python/test_tma_runtime.py \
    test/python/test_gpu_async.py test/python/test_async_ragged.py test/python/test_gpu.py -k \
    "not seed and not worked and not ldmatrix and not b1 and not b2 and not b3 and not b4"
step 30 "memcheck ragged tile 1001x4003" $san test/gpu/kernels/ragged_tile.mlir \
    --arg X=1001x4003 --arg Y=1001x4003 --grid 126,4
step 30 "memcheck rowwise 1001x4001" $san --arg X=1001x4001 --arg Y=1001x4001 --grid 251 \
    examples/rowwise.mlir
step 30 "memcheck cp.async ragged 1001x4000" $san test/gpu/kernels/async_ragged.mlir \
    --arg X=1001x4000 --arg Y=1001x4000 --arg Z=32x63x32x64 --grid 63,32
step 30 "memcheck TMA ragged 1001x4000" $san -p 'lower-reg-copy{transfer=tma}' \
    test/gpu/kernels/async_ragged.mlir --arg X=1001x4000 --arg Y=1001x4000 \
    --arg Z=32x63x32x64 --grid 63,32
step 90 "bench_ragged" python3 -m regcopy_bench.bench_ragged
step 60 "bench_ragged --rows-on-x (8x1024 only)" python3 -m regcopy_bench.bench_ragged --rows-on-x \
    --narrow 0:0 --rows 0:0
step 50 "bench_async" python3 -m regcopy_bench.bench_async
step 60 "bench_shared --auto" python3 -m regcopy_bench.bench_shared --auto
step 60 "misaligned_variants" python3 lab/ragged/misaligned_variants.py
step 90 "bench_shared rotated (4-way, 8-way; fma-swap-share 0 and 0.5 beside the default)" \
    python3 -m regcopy_bench.bench_shared --only "32-bit k=16" --only 8-way \
    --fma-swap-share 0 --fma-swap-share 0.5
