#!/usr/bin/env bash
# Time `regcopy-run --check` of every example at the size its header (or docs) gives: one line
# per example, "<example> <wall s> <user+sys s> exit <code>" (without a GPU the lowered IR runs
# on the CPU interpreter in the GPU's place: two interpreted launches per kernel).
# Usage: lab/check_times.sh [OUTDIR] [EXAMPLE ...]   (each run's output in OUTDIR/<name>.txt)
out=${1:-/tmp/out/check_times}
shift || true
mkdir -p "$out"
cd "$(dirname "$0")/.." || exit 1
GEMM_FRAGS="--arg A=200x200 --arg B=136x200 --arg fragA=2x2x4x256x128 --arg fragB=2x2x4x256x64 --grid 2,2"
declare -A ARGS=(
  [gemm]="--arg A=40x24 --arg B=72x24 --arg D=40x72 --grid 1,1"
  [gemm_any_k]="--arg A=40x37 --arg B=72x37 --arg D=40x72 --grid 1,1"
  [gemm_hopper]="-p lower-reg-copy{transfer=tma} --kernel gemm_hopper --arg A=70x72 --arg B=100x72 --arg D=70x100 --grid 1,1"
  [gemm_tiles]="$GEMM_FRAGS" [gemm_async]="$GEMM_FRAGS"
  [layernorm]="--arg X=3x300 --arg G=300 --arg B=300 --arg Y=3x300 --grid 1"
  [pad_rows]="--arg X=40x37 --arg Y=40x40 --grid 1,2"
  [rowwise]="--arg X=37x1001 --arg Y=37x1001 --grid cdiv(X[0],4)"
  [softmax]="--arg X=3x300 --arg Y=3x300 --grid 3"
)
if [ $# -gt 0 ]; then names=("$@"); else
  names=(); for f in examples/*.mlir; do names+=("$(basename "$f" .mlir)"); done; fi
printf '%-18s %8s %8s %s\n' example wall_s cpu_s exit
for name in "${names[@]}"; do
  f=examples/$name.mlir
  # bash's own `time` (wall, user, system of the command and its children: no /usr/bin/time
  # or bc needed)
  # shellcheck disable=SC2086
  TIMEFORMAT='%R %U %S'
  { time timeout 600 regcopy-run --check ${ARGS[$name]:-} "$f" >"$out/$name.txt" 2>&1; } \
    2>"$out/$name.time"
  code=$?
  read -r wall usr sys <"$out/$name.time"
  printf '%-18s %8s %8s exit %d\n' "$name" "$wall" "$(awk -v u="$usr" -v s="$sys" 'BEGIN { printf "%.1f", u + s }')" "$code"
done
