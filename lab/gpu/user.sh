#!/usr/bin/env bash
# GPU steps of the "user" engineer (issue 31: launch checks, replicas x bounds, device arrays,
# checked mode, --check speed). Writes everything under $OUT (default /tmp/out/user), prints
# a short summary, and finishes in about 4 minutes at most (every step under `timeout`; a
# failing step does not stop the others).
set -u
OUT=${OUT:-/tmp/out}/user
mkdir -p "$OUT"
cd "$(dirname "$0")/../.."
export REGCOPY_CACHE_DIR=${REGCOPY_CACHE_DIR:-$OUT/cache}
declare -a SUMMARY=()

step() {  # step NAME SECONDS COMMAND...: run, log to $OUT/NAME.log, record the exit status
  local name=$1 limit=$2
  shift 2
  local start end code
  start=$(date +%s)
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  code=$?
  end=$(date +%s)
  SUMMARY+=("$(printf '%-28s exit %3d  %4d s' "$name" "$code" "$((end - start))")")
  echo "== $name: exit $code ($((end - start)) s)"
  tail -n 5 "$OUT/$name.log"
}

# 1. the GPU-marked tests of this work: torch / DLPack / cupy launches, replicas x bounds on
#    the GPU, the checked mode's trap, the runner's own GPU tests
step pytest-gpu 150 python -m pytest -o addopts="" -q -m gpu -p no:cacheprovider \
  test/python/test_gpu_launch.py test/python/test_replicas_ragged.py \
  test/python/test_checked_promises.py test/python/test_runner.py

# 2. regcopy-run --check on every example, timed (target: each under 20 s)
step check-examples 200 lab/check_examples.sh "$OUT/check"

# 3. the checked mode by hand: a broken regcopy.multiple_of traps with its location
cat >"$OUT/promise.mlir" <<'MLIR'
func.func @rows(%A: memref<64x64xf32, #regcopy.mem<global>>,
                %k: index {regcopy.divisibility = 8 : i64}, %d: index)
    attributes {regcopy.launch = #regcopy.launch<block = 32, grid = [1]>} {
  %R = memref.alloca() : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  %j = arith.addi %k, %d : index
  %j8 = regcopy.multiple_of %j, 8 : index
  regcopy.copy warp %A[0, %k] [32, 8] -> %R : memref<64x64xf32, #regcopy.mem<global>> -> memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>>
  regcopy.copy warp %R -> %A[32, %j8] [32, 8] : memref<32x8xf32, #regcopy.layout<(32,8):(1@laneid,1)>, #regcopy.mem<local>> -> memref<64x64xf32, #regcopy.mem<global>>
  func.return
}
MLIR
step checked-broken 60 regcopy-run --checked "$OUT/promise.mlir" --arg k=8 --arg d=3
step unchecked-broken 60 regcopy-run "$OUT/promise.mlir" --arg k=8 --arg d=3

# 4. an undersized grid on the GPU is UNVISITED (exit 3), the covering one equal
step grid-undersized 60 regcopy-run --check --arg X=37x1001 --arg Y=37x1001 --grid 5 \
  examples/rowwise.mlir
step grid-expression 60 regcopy-run --check --arg X=37x1001 --arg Y=37x1001 \
  --grid 'cdiv(X[0], 4)' examples/rowwise.mlir

echo
echo "== summary (user)"
printf '%s\n' "${SUMMARY[@]}" | tee "$OUT/summary.txt"
echo "-- --check times per example (s, exit):"
tee -a "$OUT/summary.txt" <"$OUT/check-examples.log"
echo "-- expected: pytest-gpu exit 0; every example exit 0 under 20 s; checked-broken exit 1"
echo "   with 'promise.mlir:6:3: error: regcopy.multiple_of: 11 is not a multiple of 8' in its log;"
echo "   grid-undersized exit 3 (UNVISITED); grid-expression exit 0"
grep -h "regcopy.multiple_of" "$OUT/checked-broken.log" | head -2
