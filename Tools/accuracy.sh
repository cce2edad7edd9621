#!/usr/bin/env bash
# Replays every visible set of the data folder with `bluedot replay` (calibrating on the set's survey files as
# sets.json says), scores it with `bluedot evaluate`, and prints the results table.
#
# usage: Tools/accuracy.sh [DATA_DIR] [-- extra replay options]
#   DATA_DIR defaults to ../shared/data (beside the package); the release build is made first. Static sets get --mode static.
#   Outputs (location JSONL per set) are kept in $OUT (default: a temporary folder, printed at the end).
#   `bluedot replay --calibrate` learns what `bluedot-bench accuracy` learns from the surveys (models, site bias
#   field, body-shadow sigma), so both print the same errors; replay also calibrates the radius on held-out replays
#   of the surveys, so its coverage differs. The held-out yardstick is `bluedot-calibrate accuracy` (README).
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${1:-../shared/data}
shift $(( $# > 0 ? 1 : 0 ))
[[ ${1:-} == "--" ]] && shift
OUT=${OUT:-$(mktemp -d /tmp/bluedot-accuracy.XXXXXX)}
swift build -c release --product bluedot >/dev/null
BIN=$(swift build -c release --show-bin-path)/bluedot

printf '%-27s %7s %7s %7s %7s %6s %9s\n' set median p90 mean rmse cov68 missing
jq -r '.sets[] | select((.split // "visible") == "visible") | [.name, .venue, .observations, .truth, (.static|tostring), (.calibration | join(","))] | @tsv' \
    "$DATA/sets.json" |
while IFS=$'\t' read -r name venue observations truth static calibration; do
    args=(replay "$DATA/$observations" --venue "$DATA/$venue" -o "$OUT/$name.locations.jsonl")
    IFS=',' read -r -a surveys <<< "$calibration"
    for s in "${surveys[@]}"; do args+=(--calibrate "$DATA/$s"); done
    evaluate=(evaluate "$OUT/$name.locations.jsonl" --truth "$DATA/$truth" --json)
    if [[ $static == true ]]; then args+=(--mode static); evaluate+=(--static); fi
    "$BIN" "${args[@]}" "$@" 2>"$OUT/$name.replay.log"
    "$BIN" "${evaluate[@]}" | jq -r --arg name "$name" \
        '[$name, (.median|.*100|round/100), (.p90|.*100|round/100), (.mean|.*100|round/100), (.rmse|.*100|round/100), (.coverage68|.*100|round/100), "\(.missing)/\(.total)"] | @tsv' |
        awk -F'\t' '{ printf "%-27s %7.2f %7.2f %7.2f %7.2f %6.2f %9s\n", $1, $2, $3, $4, $5, $6, $7 }'
done
echo "outputs and replay logs: $OUT" >&2
