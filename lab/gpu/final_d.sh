#!/usr/bin/env bash
# The H200 check of main after session 3's merges (pref, hop3, smalln3, suite3 and the lead's
# --check fix): every GPU-marked test in one pytest run, the GPU `--check` of the GEMM example on
# a 2x2 grid (the case --check used to report UNVISITED) and of gemm_hopper, compute-sanitizer
# memcheck of both GEMMs, then the wgmma table of the example as merged (its 256x128 kernels
# with the narrow edge tile). Outputs under $OUT. Run from the repository root after
# `pip install --no-deps --no-build-isolation -e .` (lab/gpu/device.sh does it):
#   bash lab/gpu/device.sh 460:final_d
set -uo pipefail
cd "$(dirname "$0")/../.."
budget=520 tail_lines=12
. lab/gpu/steps.sh
CS="compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9"
step pytest_gpu 220 python3 -m pytest -o addopts="" -q -rs -m gpu -p no:cacheprovider \
    $(grep -l "mark.gpu" test/python/test_*.py)
step check_gemm_2x2 45 regcopy-run --check examples/gemm.mlir --kernel gemm \
    --arg A=130x24 --arg B=300x24 --arg D=130x300 --grid 2,2
step check_hopper 40 regcopy-run -p "lower-reg-copy{transfer=tma}" --kernel gemm_hopper --check \
    examples/gemm_hopper.mlir --arg A=70x72 --arg B=40x72 --arg D=70x40 --grid 1,1
step memcheck_gemm 25 $CS regcopy-run examples/gemm.mlir --kernel gemm \
    --arg A=300x200 --arg B=370x200 --arg D=300x370 --grid 2,3
step memcheck_hopper 25 $CS python3 lab/gpu/hop3_memcheck.py auto
step hopper_table 100 python3 -m regcopy_bench.bench_gemm_hopper --iters 20 --rounds 2 --cool 0.3 \
    --sizes 4096x4096x4096,8192x8192x8192,4095x4097x4093
grep -E "^\| |^\(every" "$out/hopper_table.txt" > "$out/hopper_tables.txt" 2>/dev/null
finish
