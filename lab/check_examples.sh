#!/usr/bin/env bash
# regcopy-run --check on every example, with the arguments its header (or the README) gives,
# timed: one line per example, "<example> <seconds> s exit <code>". Without a GPU the lowered
# IR runs on the CPU in the GPU's place (twice the interpreter work of a GPU machine's run).
# Usage: lab/check_examples.sh [OUTDIR]   (each example's output in OUTDIR/<name>.txt)
out=${1:-/tmp/out/check}
mkdir -p "$out"
cd "$(dirname "$0")/.."
GEMM="--arg A=200x200 --arg B=136x200 --arg fragA=2x2x4x256x128 --arg fragB=2x2x4x256x64 --grid 2,2"
declare -A ARGS=(
  [gemm_tiles]="$GEMM" [gemm_async]="$GEMM"
  [rowwise]="--arg X=37x1001 --arg Y=37x1001 --grid cdiv(X[0],4)"
)
for f in examples/*.mlir; do
  name=$(basename "$f" .mlir)
  start=$(date +%s%N)
  # shellcheck disable=SC2086
  timeout 300 regcopy-run --check ${ARGS[$name]:-} "$f" >"$out/$name.txt" 2>&1
  code=$?
  end=$(date +%s%N)
  ms=$(( (end - start) / 1000000 ))
  printf '%-16s %4d.%01d s exit %d\n' "$name" $((ms / 1000)) $((ms % 1000 / 100)) "$code"
done
