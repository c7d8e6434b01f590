#!/usr/bin/env bash
# The shuffled form with only the whole vector's store in each class's branch and the pieces
# in one block after the chain (k a register there: emit_shuffled._store_pieces), on the H200:
#   OUT=/tmp/out bash lab/gpu/shuf6.sh
# 1. test_shuffled's GPU test (bit-exact stores, every tile);
# 2. bench_ragged's one-row-a-warp tiles (32 x 256 f32, 8 x 1024 f32, 8 x 2048 bf16,
#    8 x 4096 int8) under the model (shuffled) and forced realigned, each against Triton;
# 3. lab/hopper/d_forms_ab.py: both GEMMs at N = 4097 against 4104, each store form;
# 4. compute-sanitizer memcheck of the 32 x 256 tile at N = 219 and N = 65 (warps outside).
set -uo pipefail
cd "$(dirname "$0")/../.."
budget=400 tail_lines=14
. lab/gpu/steps.sh
CS="compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9"
step pytest_gpu 60 python3 -m pytest -o addopts="" -q -rs -m gpu -p no:cacheprovider \
    test/python/test_shuffled.py test/python/test_gpu_ragged.py
B="python3 -m regcopy_bench.bench_ragged --pair-iters 0 --fitted '' --narrow ''"
step ragged_auto 45 bash -c "$B --rows 65:257 --wide 4000:4161"
step ragged_realigned 45 bash -c "$B --rows 65:257 --wide 4000:4161 --misaligned-stores realigned"
step d_forms_ab 80 python3 lab/hopper/d_forms_ab.py
K=$(mktemp -d)
python3 -c "
from regcopy_bench import bench_ragged as b
open('$K/rows.mlir', 'w').write(b.kernel_text(b.ROWS, False))"
for n in 65 219; do
  step memcheck_ragged_n$n 20 $CS regcopy-run "$K/rows.mlir" --check --arg X=40x$n --arg Y=40x$n --grid 2
done
finish
