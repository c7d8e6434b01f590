#!/usr/bin/env bash
# tma's GPU steps (issue 29: TMA exact and memcheck-clean; f64/fp8 padding on the GPU), at most
# 4 minutes (the step limits add up to 240 s): run from the repository root on the H200,
# outputs under $OUT (default /tmp/out).
#   1. the TMA matrix (test/python/tma_cases.py: box start column mod 16 bytes, pending 0..3
#      with every group committed before the waits, every swizzle x shared/shared.dyn, one and
#      two kernels per module, ragged boxes) under compute-sanitizer memcheck: pass/fail counts;
#   2. the GPU-marked pytest tests of the matrix, the padding types and the older TMA kernels;
#   3. SASS: UTMALDG for an aligned box, none (LDGSTS instead) for a box at f16 column 2;
#   4. an A/B probe: the box start columns the hardware takes with the rule switched off;
#   5. ldmatrix into a replicated register tile (test/gpu/kernels/ldmatrix_replicated.mlir):
#      --check (every replica's registers, GPU vs CPU), memcheck, 4 LDSM.16.M88.4 and no LDS.
set -uo pipefail
out=${OUT:-/tmp/out}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
summary=$out/tma_summary.txt
: >"$summary"
step() {  # step SECONDS NAME LOG CMD...
    local limit=$1 name=$2 log=$3
    shift 3
    echo "== $name"
    timeout "$limit" "$@" >"$out/$log" 2>&1
    local rc=$?
    tail -n 3 "$out/$log"
    echo "$name: exit $rc" | tee -a "$summary"
}
san=(compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 1)
command -v compute-sanitizer >/dev/null || san=(/usr/local/cuda/bin/compute-sanitizer "${san[@]:1}")
step 90 "TMA matrix under memcheck" tma_matrix_memcheck.txt "${san[@]}" python3 test/python/tma_cases.py
grep -E "^(FAIL|tma matrix:)|ERROR SUMMARY" "$out/tma_matrix_memcheck.txt" | tail -n 20
step 50 "pytest -m gpu (TMA matrix, padding types, TMA runtime, replicated ldmatrix)" pytest_gpu.txt \
    python3 -m pytest -o addopts="" -q -rs -m gpu -p no:cacheprovider \
    test/python/test_tma_matrix.py test/python/test_padding_types.py test/python/test_tma_runtime.py \
    test/python/test_ldmatrix_replicated.py
step 30 "A/B: TMA box start columns with the 16-byte rule off (lab/gpu/tma_box_start_probe.py)" box_start_probe.txt \
    python3 lab/gpu/tma_box_start_probe.py
cat "$out/box_start_probe.txt"
step 20 "regcopy-run --check ldmatrix_replicated.mlir (GPU vs CPU, every replica)" check_ldmatrix_replicated.txt \
    regcopy-run --check test/gpu/kernels/ldmatrix_replicated.mlir
step 20 "memcheck: ldmatrix_replicated.mlir" memcheck_ldmatrix_replicated.txt \
    "${san[@]}" "$(command -v regcopy-run)" test/gpu/kernels/ldmatrix_replicated.mlir
step 10 "SASS: ldmatrix_replicated.mlir" sass_ldmatrix_replicated.txt \
    regcopy-opt test/gpu/kernels/ldmatrix_replicated.mlir -p lower-reg-copy -t sass
echo "replicated A operand: LDSM.16.M88.4 $(grep -c 'LDSM.16.M88.4' "$out/sass_ldmatrix_replicated.txt") (want 4), executed LDS $(grep -v '@!PT' "$out/sass_ldmatrix_replicated.txt" | grep -cE '\bLDS(\.U16|\.32|\.64|\.128)? ') (want 0)" | tee -a "$summary"
sass() {  # sass COL: the SASS of one f16 box at column COL, lowered with transfer=tma
    python3 - "$1" <<'PY'
import sys
sys.path.insert(0, "test/python")
from tma_cases import TmaCase, module_text
print(module_text([TmaCase(col=int(sys.argv[1]))]))
PY
}
sass 8 >"$out/tma_c8.mlir" && sass 2 >"$out/tma_c2.mlir"
step 10 "SASS: f16 box at column 8 (TMA)" sass_c8.txt \
    regcopy-opt "$out/tma_c8.mlir" -p 'lower-reg-copy{transfer=tma}' -t sass
step 10 "SASS: f16 box at column 2 (cp.async fallback)" sass_c2.txt \
    regcopy-opt "$out/tma_c2.mlir" -p 'lower-reg-copy{transfer=tma}' -t sass
echo "UTMALDG at column 8: $(grep -c UTMALDG "$out/sass_c8.txt"), at column 2: $(grep -c UTMALDG "$out/sass_c2.txt") (want >0 and 0); LDGSTS at column 2: $(grep -c LDGSTS "$out/sass_c2.txt")" | tee -a "$summary"
echo "== summary"
cat "$summary"
