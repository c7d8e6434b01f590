#!/usr/bin/env bash
# The whole GPU run of regcopy on a lent H200 (no network there), one command:
#   bash test/gpu/device_run.sh            (outputs under $OUT, else /tmp/regcopy-gpu)
# Wheels carried in .whl/ (xdsl and its pure-Python needs; .whl/cuda/ holds cuda-core and
# cuda-bindings, used only when the machine's own cuda.core does not import) are installed
# into /tmp/site. Then: the GPU case table (test/gpu/run_all.py, with compute-sanitizer
# memcheck), the GPU-marked pytest tests, `regcopy-run` on the seed demo, and the benchmark.
set -uo pipefail
out=${OUT:-/tmp/regcopy-gpu}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
if compgen -G ".whl/*.whl" >/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl || exit 1
    export PYTHONPATH=/tmp/site:${PYTHONPATH:-} PATH=/tmp/site/bin:$PATH
fi
if ! python3 -c "import cuda.core, cuda.bindings" 2>/dev/null && compgen -G ".whl/cuda/*.whl" >/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/cuda/*.whl
fi
nvidia-smi -L
python3 -c "import cuda.core, cuda.bindings, xdsl, numpy; print('cuda.core', cuda.core.__version__, '| cuda.bindings', cuda.bindings.__version__, '| numpy', numpy.__version__)"
python3 -m pip install -q --no-index --no-deps --no-build-isolation -e . >"$out/install.txt" 2>&1 \
    || echo "editable install failed (see install.txt); regcopy-run via python -m"
echo "== test/gpu/run_all.py"
python3 test/gpu/run_all.py 2>&1 | tee "$out/run_all.txt"
echo "== pytest -m gpu"
python3 -m pytest -q -m gpu -p no:cacheprovider test/python/test_gpu.py 2>&1 | tee "$out/pytest_gpu.txt"
echo "== regcopy-run examples/seed_demo.mlir"
regcopy-run examples/seed_demo.mlir 2>&1 | tee "$out/regcopy_run.txt"
echo "== bench/bench_copy.py"
python3 bench/bench_copy.py 2>&1 | tee "$out/bench.txt"
