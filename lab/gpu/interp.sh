#!/usr/bin/env bash
# Issue 31 item 8 (the CPU interpreter's speed, --check's worker processes), on the H200:
# `regcopy-run --check` of every example at its documented size (the GPU against the CPU
# interpreter's reference, bit for bit; the references now run in worker processes while the
# GPU runs: tools/cpu_jobs.py), 6 at a time, each timed; gemm.mlir once more with
# REGCOPY_CHECK_JOBS=1 (one process: its output must be the same lines); the gpu-marked
# tests of the runner and of regcopy-run.
# Run from the repository root after `pip install --no-deps --no-build-isolation -e .`:
#   OUT=/tmp/out bash lab/gpu/interp.sh     (at most 3.5 minutes; outputs under $OUT)
# What it should show: every example "exit 0" with only "equal" lines (no MISMATCH, no
# UNVISITED; wgmma_tile.mlir's f32 accumulator differed in 123 of 4096 elements by an ulp on
# 2026-12-03 before this branch too: the reference's summation order, not bit-exact on
# random f16 data), jobs1_same: yes, and pytest exit 0.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT/check"
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
# every example's --check (the same arguments as lab/check_times.sh), 6 at a time
check_one() {
  local name=$1; shift
  local t0; t0=$(date +%s%N)
  timeout 110 regcopy-run --check "$@" "examples/$name.mlir" >"$OUT/check/$name.txt" 2>&1
  local rc=$?
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  local bad; bad=$(grep -c "MISMATCH\|UNVISITED" "$OUT/check/$name.txt")
  printf '%-18s exit %d %6d ms mismatches %s\n' "$name" "$rc" "$ms" "$bad" >"$OUT/check/$name.sum"
}
export -f check_one
export OUT
G="--arg A=200x200 --arg B=136x200 --arg fragA=2x2x4x256x128 --arg fragB=2x2x4x256x64 --grid 2,2"
{
  for f in examples/*.mlir; do
    n=$(basename "$f" .mlir)
    case $n in
      gemm) a="--arg A=40x24 --arg B=72x24 --arg D=40x72 --grid 1,1" ;;
      gemm_any_k) a="--arg A=40x37 --arg B=72x37 --arg D=40x72 --grid 1,1" ;;
      gemm_hopper) a="-p lower-reg-copy{transfer=tma} --kernel gemm_hopper --arg A=70x72 --arg B=100x72 --arg D=70x100 --grid 1,1" ;;
      gemm_tiles|gemm_async) a="$G" ;;
      layernorm) a="--arg X=3x300 --arg G=300 --arg B=300 --arg Y=3x300 --grid 1" ;;
      pad_rows) a="--arg X=40x37 --arg Y=40x40 --grid 1,2" ;;
      rowwise) a="--arg X=37x1001 --arg Y=37x1001 --grid cdiv(X[0],4)" ;;
      softmax) a="--arg X=3x300 --arg Y=3x300 --grid 3" ;;
      *) a="" ;;
    esac
    echo "$n${a:+ $a}"
  done
} >"$OUT/check/list.txt"
t0=$SECONDS
# shellcheck disable=SC2016
timeout 120 xargs -P 6 -L 1 bash -c 'check_one "$@"' _ <"$OUT/check/list.txt"
summary+=("check_examples: exit $? ($((SECONDS - t0)) s)")
cat "$OUT"/check/*.sum >"$OUT/check_examples.txt" 2>/dev/null
echo "== check_examples ($((SECONDS - t0)) s)"; cat "$OUT/check_examples.txt"
# one process against worker processes: the same output
step jobs1 30 env REGCOPY_CHECK_JOBS=1 regcopy-run --check --arg A=40x24 --arg B=72x24 \
  --arg D=40x72 --grid 1,1 examples/gemm.mlir
if diff -q <(grep -v "^regcopy-run:" "$OUT/jobs1.txt") <(grep -v "^regcopy-run:" "$OUT/check/gemm.txt") >/dev/null
then summary+=("jobs1_same: yes"); else summary+=("jobs1_same: NO"); fi
step pytest_gpu 60 python3 -m pytest -o addopts="" -q -m gpu test/python/test_runner.py \
  test/python/test_regcopy_run.py
echo
echo "== summary"
printf '%s\n' "${summary[@]}"
