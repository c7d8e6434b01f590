#!/usr/bin/env bash
# Where the padded Hopper GEMM's 6% at N = 4097 (D's rows misaligned) against N = 4104 goes:
# Nsight Compute on the third launch at each N (lab/hopper/ncu_d_target.py):
#   OUT=/tmp/out bash lab/gpu/ncu_d.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
budget=200 tail_lines=80
. lab/gpu/steps.sh
NCU=/usr/local/cuda/bin/ncu
step ncu 180 $NCU --clock-control none --kernel-name regex:gemm_hopper --launch-skip 2 \
    --launch-count 4 --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section WarpStateStats --section LaunchStats \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_write.sum,smsp__inst_executed.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum \
    python3 lab/hopper/ncu_d_target.py
finish
