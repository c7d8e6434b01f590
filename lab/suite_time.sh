#!/usr/bin/env bash
# The test suite's time: run the README's pytest command (pytest-xdist, -n auto --dist loadfile)
# under /usr/bin/time, with a plugin that records each test's CPU seconds
# (lab/suite/suite_cpu.py), then print the slowest 30 tests and files by CPU, each worker's
# share, the 30 slowest by wall (pytest's --durations) and the whole run's wall and CPU total.
# Usage (repository root, environment activated): bash lab/suite_time.sh [pytest args...]
# Wall times move with the machine's load; CPU seconds much less.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=$(mktemp -d /tmp/suite_time.XXXXXX)
export SUITE_CPU_DIR="$out/cpu"
mkdir -p "$SUITE_CPU_DIR"
PYTHONPATH="$PWD/lab/suite${PYTHONPATH:+:$PYTHONPATH}" /usr/bin/time -v -o "$out/time.txt" \
    python3 -m pytest -p suite_cpu -p no:cacheprovider -q --durations=30 "$@" > "$out/pytest.txt" 2>&1
status=$?
python3 lab/suite/report.py "$SUITE_CPU_DIR" 30
echo
sed -n '/slowest 30 durations/,$p' "$out/pytest.txt" | tail -n 40
echo
grep -E "User time|System time|Elapsed|Percent of CPU" "$out/time.txt"
awk -F: '/User time|System time/ {s += $2} END {printf "CPU seconds in all (user + system): %.1f\n", s}' "$out/time.txt"
echo "pytest exit status: $status; logs in $out"
exit $status
