#!/usr/bin/env bash
# The shuffled form with its stores back in each class's branch (k a constant there:
# emit_shuffled.py; shuf3 ran one store block after the chain), on the H200:
#   OUT=/tmp/out bash lab/gpu/shuf4.sh
# 1. every GPU-marked test (test_shuffled's bit-exact stores among them);
# 2. lab/hopper/d_forms_ab.py: both GEMMs alone on padded operands at N = 4097 against
#    N = 4104, D's misaligned stores under each form (auto, realigned, shuffled, predicated);
# 3. bench_ragged, issue 34's table (every tile and band, bf16 and int8 rows, Triton beside),
#    then the one-row-a-warp tiles forced realigned (the form the model picked before);
# 4. compute-sanitizer memcheck: a shuffled GEMM epilogue (mma.sync, wgmma) and ragged tile.
set -uo pipefail
cd "$(dirname "$0")/../.."
budget=550 tail_lines=14
. lab/gpu/steps.sh
CS="compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9"
step pytest_gpu 290 python3 -m pytest -o addopts="" -q -rs -m gpu -p no:cacheprovider -n 4 --dist loadfile \
    $(grep -l "mark.gpu" test/python/test_*.py)
step d_forms_ab 80 python3 lab/hopper/d_forms_ab.py
B="python3 -m regcopy_bench.bench_ragged --pair-iters 0"
step ragged_auto 70 $B --fitted 1:64 --narrow 17:65 --rows 65:257 --wide 4000:4161
step ragged_realigned 45 $B --fitted '' --narrow '' --bf16 '' --i8 '' --rows 65:257 \
    --wide 4000:4161 --misaligned-stores realigned
K=$(mktemp -d)
python3 -c "
from regcopy_bench import bench_ragged as b
open('$K/rows.mlir', 'w').write(b.kernel_text(b.ROWS, False))"
step memcheck_ragged 20 $CS regcopy-run "$K/rows.mlir" --check --arg X=40x219 --arg Y=40x219 --grid 2
step memcheck_gemm 25 $CS regcopy-run examples/gemm.mlir --kernel gemm \
    --arg A=300x200 --arg B=257x200 --arg D=300x257 --grid 2,3
step memcheck_hopper 25 $CS python3 lab/gpu/hop3_memcheck.py auto
finish
