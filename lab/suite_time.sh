#!/usr/bin/env bash
# The test suite's time: run the README's pytest command (pytest-xdist, -n auto --dist loadfile)
# under /usr/bin/time and lab/suite/reap_time.py (every descendant's CPU), with a plugin that
# records each test's CPU seconds (lab/suite/suite_cpu.py), then print the slowest 30 tests and files by CPU, each worker's
# share, the 30 slowest by wall (pytest's --durations) and the whole run's wall and CPU total.
# With --trace first, every NVRTC compile and nvdisasm call of the run (the tools that the
# tests start included) is recorded too (lab/suite/trace/sitecustomize.py) and summarised
# (lab/suite/trace_report.py: calls and CPU seconds by test, sources compiled more than once).
# Usage (repository root, environment activated): bash lab/suite_time.sh [--trace] [pytest args...]
# Wall times move with the machine's load; CPU seconds much less.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=$(mktemp -d /tmp/suite_time.XXXXXX)
export SUITE_CPU_DIR="$out/cpu"
mkdir -p "$SUITE_CPU_DIR"
path="$PWD/lab/suite"
if [[ "${1:-}" == "--trace" ]]; then
    shift
    export SUITE_TRACE_DIR="$out/trace"
    mkdir -p "$SUITE_TRACE_DIR"
    path="$path:$PWD/lab/suite/trace"
fi
PYTHONPATH="$path${PYTHONPATH:+:$PYTHONPATH}" python3 lab/suite/reap_time.py --out "$out/all.txt" \
    /usr/bin/time -v -o "$out/time.txt" \
    python3 -m pytest -p suite_cpu -p no:cacheprovider -q --durations=30 "$@" > "$out/pytest.txt" 2>&1
status=$?
python3 lab/suite/report.py "$SUITE_CPU_DIR" 30
if [[ -n "${SUITE_TRACE_DIR:-}" ]]; then
    echo
    python3 lab/suite/trace_report.py "$SUITE_TRACE_DIR" 30
fi
echo
sed -n '/slowest 30 durations/,$p' "$out/pytest.txt" | tail -n 40
echo
grep -E "User time|System time|Elapsed|Percent of CPU" "$out/time.txt"
awk -F: '/User time|System time/ {s += $2} END {printf "CPU seconds of the processes waited for (user + system): %.1f\n", s}' "$out/time.txt"
# the servers that the tests leave to end with the run (tool_runner's fork server and every
# command it ran) are not waited for by pytest: reap_time.py counts them too
cat "$out/all.txt"
echo "pytest exit status: $status; logs in $out"
exit $status
