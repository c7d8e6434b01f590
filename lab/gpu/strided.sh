#!/usr/bin/env bash
# Issue 31 item 11 (strided runtime tensors) on the H200: the GPU tests of strided views,
# `regcopy-run --check` of a strided kernel at odd and aligned leading dimensions (GPU against
# the CPU interpreter, bit for bit), compute-sanitizer memcheck on bandwidth-sized strided
# launches (versioned fast path, fallback path, cp.async from a view), the SASS of an
# aligned-stride copy (one LDG.E.128 / STG.E.128 per vector, no local memory), and a table of
# strided against contiguous bandwidth (lab/gpu/strided_bench.py).
# Run from the repository root after `pip install --no-deps --no-build-isolation -e .`:
#   OUT=/tmp/out bash lab/gpu/strided.sh        (about 2-3 minutes; outputs under $OUT)
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
summary=()
step() {  # step NAME SECONDS COMMAND...: run with a timeout, log to $OUT/NAME.txt, keep going
  local name=$1 limit=$2; shift 2
  local t0=$SECONDS
  timeout "$limit" "$@" >"$OUT/$name.txt" 2>&1
  local rc=$?
  summary+=("$name: exit $rc ($((SECONDS - t0)) s)")
  echo "== $name: exit $rc ($((SECONDS - t0)) s)"
}
V=lab/gpu/strided_view.mlir
A=lab/gpu/strided_aligned.mlir
step pytest_gpu 120 python3 -m pytest -o addopts="" -q -m gpu -rs test/python/test_gpu_strided.py
step check_odd_ld 60 regcopy-run --check --arg X=65x301:303 --arg Y=65x301:301 \
  --grid 3,38 $V
step check_ld4096 60 regcopy-run --check --arg X=33x1000:4096 --arg Y=33x1000:4100 \
  --grid 2,125 $V
step check_aligned 60 regcopy-run --check --arg A=48x1024:1028 --arg B=48x1024:2048 \
  --grid 6 $A
CS=/usr/local/cuda/bin/compute-sanitizer
step memcheck_fallback 120 $CS --tool memcheck --error-exitcode 9 regcopy-run \
  --arg X=4001x4001:4003 --arg Y=4001x4001:4005 --grid 126,501 $V
step memcheck_fast 120 $CS --tool memcheck --error-exitcode 9 regcopy-run \
  --arg X=4001x4001:4096 --arg Y=4001x4001:4100 --grid 126,501 $V
step memcheck_aligned 120 $CS --tool memcheck --error-exitcode 9 regcopy-run \
  --arg A=4096x1024:4100 --arg B=4096x1024:1024 --grid 512 $A
step memcheck_async 120 $CS --tool memcheck --error-exitcode 9 regcopy-run \
  --arg X=1001x1024:1030 --arg Y=1001x1024:1024 --grid 32,16 lab/gpu/strided_async.mlir
step check_async 60 regcopy-run --check --arg X=69x128:202 --arg Y=69x128:136 --grid 3,2 \
  lab/gpu/strided_async.mlir
step sass 60 regcopy-opt --lower-reg-copy -t sass $A
step bench 150 python3 lab/gpu/strided_bench.py
echo
echo "== summary"
printf '%s\n' "${summary[@]}"
echo "== checks"
grep -hE "\.(X|Y|A|B) " "$OUT"/check_*.txt
echo "== memcheck"
grep -h "ERROR SUMMARY" "$OUT"/memcheck_*.txt || echo "no ERROR SUMMARY line"
echo "== SASS of the aligned-stride copy (counts; want LDG.E.128 x8, STG.E.128 x8)"
grep -oE "\b(LDG|STG|LDL|STL)(\.E)?(\.[0-9]+)?\b" "$OUT/sass.txt" | sort | uniq -c
if grep -qE "\b(LDL|STL)\b" "$OUT/sass.txt"; then echo "LOCAL MEMORY: yes (bad)"; else echo "local memory: none"; fi
echo "== strided_bench"
cat "$OUT/bench.txt"
echo "== pytest"
tail -3 "$OUT/pytest_gpu.txt"
