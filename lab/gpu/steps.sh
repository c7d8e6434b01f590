# The step runner the lab/gpu scripts share. Source it from the repository root after setting
# `budget` (seconds the script may take in all) and optionally `tail_lines` (default 25):
#   cd "$(dirname "$0")/../.."; budget=235; . lab/gpu/steps.sh
# It sets `out` ($OUT, default /tmp/out, created), PYTHONUNBUFFERED and:
#   step NAME SECONDS COMMAND...  run COMMAND under `timeout`, at most SECONDS and never past the
#                                 budget (skipped, and said so, with under 10 s left); its output
#                                 to $out/NAME.txt, the last `tail_lines` lines echoed, its exit
#                                 status and the elapsed time added to the summary;
#   finish                        print the summary and write it to $out/summary.txt.
out=${OUT:-/tmp/out}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
t0=$(date +%s)
summary=()
step() {
    local name=$1 limit=$2; shift 2
    local left=$(( budget - ($(date +%s) - t0) ))
    if (( left < 10 )); then summary+=("$name: skipped (out of time)"); return; fi
    (( limit > left )) && limit=$left
    echo "== $name (limit ${limit}s)"
    timeout "$limit" "$@" >"$out/$name.txt" 2>&1
    local rc=$?
    tail -n "${tail_lines:-25}" "$out/$name.txt"
    summary+=("$name: exit $rc ($(( $(date +%s) - t0 ))s)")
}
finish() {
    echo "== summary"
    printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
}
