#!/usr/bin/env bash
# One device call: install the carried wheels (.whl/: xdsl, lit, filecheck and their pure-Python
# needs) and regcopy from this tree, then run the named lab/gpu scripts one after another, each
# under its own time limit, each with OUT=<dir>/<name>; everything comes back as one archive,
# $OUT/results.tgz, with $OUT/summary.txt beside it (a device call returns at most 8 files). Usage (on the H200):  bash lab/gpu/device.sh SECONDS:NAME [SECONDS:NAME ...]
# where NAME is lab/gpu/NAME.sh. Prints each step's exit status and a summary.
set -uo pipefail
export PYTHONUNBUFFERED=1
final=${OUT:-/tmp/out}; out=/tmp/gpu_out; rm -rf "$out"; mkdir -p "$out" "$final"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:${PYTHONPATH:-} PATH=/tmp/site/bin:/usr/local/cuda/bin:$PATH
python3 -m pip install -q --no-index --no-deps --no-build-isolation -e . >"$out/install.txt" 2>&1 \
    || python3 -m pip install -q --no-index --no-deps --no-build-isolation --target /tmp/site . >>"$out/install.txt" 2>&1 \
    || { cat "$out/install.txt"; exit 1; }
nvidia-smi -L
python3 -c "import torch, triton, xdsl, cuda.core; print('torch', torch.__version__, '| triton', triton.__version__, '| cuda.core', cuda.core.__version__)"
: >"$out/summary.txt"
for spec in "$@"; do
    limit=${spec%%:*}; name=${spec#*:}
    mkdir -p "$out/$name"
    echo "=== $name (limit ${limit}s)"
    start=$(date +%s)
    OUT="$out/$name" timeout "$limit" bash "lab/gpu/$name.sh" 2>&1 | tee "$out/$name/log.txt" | tail -n 60
    rc=${PIPESTATUS[0]}
    echo "$name: exit $rc in $(( $(date +%s) - start )) s" | tee -a "$out/summary.txt"
done
echo "=== summary"; cat "$out/summary.txt"
# at most 8 files come back from $OUT: everything in one archive, the summary beside it
tar -czf "$final/results.tgz" -C "$out" . && cp "$out/summary.txt" "$final/summary.txt"
