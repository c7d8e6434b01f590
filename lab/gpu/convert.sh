#!/usr/bin/env bash
# GPU steps of the register <-> register conversion work (issue 33), in at most ~4 minutes:
#   OUT=/some/dir bash lab/gpu/convert.sh
# Every step has its own time limit, appends to $OUT/convert.log and prints its exit status; a
# failed step does not stop the others. What each should show:
#   1. pytest -m gpu test_convert.py: every bench kernel (auto, shuffle, shared) gives its input
#      back bit for bit after A -> B -> A three times (12 items run, 1 skipped: no shuffle form
#      for the CTA case).
#   2. bench_convert: per case and form, us/launch, conversions/s, ratio to the hand-written
#      shared round trip ("vs hand"), SASS of one A -> B -> A; "output" must be "ok" everywhere.
#   3. regcopy-run --check examples/convert_epilogue.mlir: GPU == CPU for both kernels.
#   4. compute-sanitizer memcheck + racecheck on the epilogue example and on the lit kernels of the
#      CTA round trip: 0 errors, 0 hazards (the barriers of the scratch tile are enough).
#   5. SASS greps: SHFL/shared/BAR/LDL counts of the example kernels (no LDL/STL anywhere).
#   6. the Triton table (CPU only; the same as docs/convert.md's).
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"; log=$out/convert.log; : >"$log"
export PYTHONUNBUFFERED=1
cs=/usr/local/cuda/bin/compute-sanitizer
step() {  # step SECONDS NAME CMD...
    local limit=$1 name=$2; shift 2
    echo "== $name" >>"$log"
    timeout "$limit" "$@" >>"$log" 2>&1
    echo "-- $name: exit $?" | tee -a "$log"
}
step 150 "pytest -m gpu test_convert.py" python3 -m pytest -o addopts="" -q -rs -m gpu \
    -p no:cacheprovider test/python/test_convert.py
step 120 "bench_convert" bash -c "python3 -m regcopy_bench.bench_convert | tee $out/bench_convert.md"
step 40 "regcopy-run --check convert_epilogue" regcopy-run --check examples/convert_epilogue.mlir
step 60 "memcheck convert_epilogue" $cs --tool memcheck --error-exitcode 1 \
    "$(command -v regcopy-run)" examples/convert_epilogue.mlir
step 60 "racecheck convert_epilogue" $cs --tool racecheck --error-exitcode 1 \
    "$(command -v regcopy-run)" examples/convert_epilogue.mlir
cat >"$out/cta_convert.mlir" <<'MLIR'
func.func @cta(%in: memref<64x64xf32, #regcopy.mem<global>>, %out: memref<64x64xf32, #regcopy.mem<global>>) attributes {regcopy.launch = #regcopy.launch<block = 128, grid = [1]>} {
  %a = memref.alloca() : memref<64x64xf32, #regcopy.layout<(64,2,32):(2@tx,1@tx,1)>, #regcopy.mem<local>>
  %b = memref.alloca() : memref<64x64xf32, #regcopy.layout<(2,32,64):(64@tx,1,1@tx)>, #regcopy.mem<local>>
  regcopy.copy cta %in -> %a : memref<64x64xf32, #regcopy.mem<global>> -> memref<64x64xf32, #regcopy.layout<(64,2,32):(2@tx,1@tx,1)>, #regcopy.mem<local>>
  regcopy.copy cta %a -> %b : memref<64x64xf32, #regcopy.layout<(64,2,32):(2@tx,1@tx,1)>, #regcopy.mem<local>> -> memref<64x64xf32, #regcopy.layout<(2,32,64):(64@tx,1,1@tx)>, #regcopy.mem<local>>
  regcopy.copy cta %b -> %a : memref<64x64xf32, #regcopy.layout<(2,32,64):(64@tx,1,1@tx)>, #regcopy.mem<local>> -> memref<64x64xf32, #regcopy.layout<(64,2,32):(2@tx,1@tx,1)>, #regcopy.mem<local>>
  regcopy.copy cta %a -> %out : memref<64x64xf32, #regcopy.layout<(64,2,32):(2@tx,1@tx,1)>, #regcopy.mem<local>> -> memref<64x64xf32, #regcopy.mem<global>>
  func.return
}
MLIR
step 60 "check + racecheck CTA round trip (two conversions, one scratch)" bash -c \
    "regcopy-run --check $out/cta_convert.mlir && $cs --tool racecheck --error-exitcode 1 \
     $(command -v regcopy-run) $out/cta_convert.mlir"
step 60 "SASS of the example kernels" bash -c "regcopy-opt --lower-reg-copy -t sass \
    examples/convert_epilogue.mlir > $out/convert_epilogue.sass; for op in SHFL LDS STS STSM \
    LDSM BAR SEL LDL STL; do echo \"\$op \$(grep -cE \"\\b\$op\\b\" $out/convert_epilogue.sass)\"; done"
step 60 "Triton table" bash -c "python3 -m regcopy_bench.triton_convert_cases | tee $out/triton_table.md"
echo "summary:"; grep -- "^-- " "$log"
