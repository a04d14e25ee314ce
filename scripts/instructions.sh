#!/usr/bin/env bash
# Instructions per dispatch, counted by valgrind's callgrind: deterministic,
# unlike time, so comparable across runs and machines of one architecture.
#
#   scripts/instructions.sh [--strategy NAME] [PROFILE[:ENTITIES]]...
#
# Default: the todo profile at 1,000 and 100,000 items, feed, deep-tree and
# many-screens at their profile sizes, with the faststore strategy. For each,
# runs `fsinstructions` under callgrind with D and 2D dispatches and prints
# (I(2D) - I(D)) / D: set-up and warm-up cancel out. Needs valgrind
# (installed through apt when missing) and builds fsinstructions in release.
set -euo pipefail
cd "$(dirname "$0")/.."
strategy=faststore
specs=()
while [ $# -gt 0 ]; do
    case "$1" in
        --strategy) [ $# -ge 2 ] || { echo "instructions.sh: --strategy needs a name" >&2; exit 2; }; strategy=$2; shift 2 ;;
        -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
        *) specs+=("$1"); shift ;;
    esac
done
[ ${#specs[@]} -gt 0 ] || specs=(todo:1000 todo:100000 feed deep-tree many-screens)
D=${DISPATCHES:-2000}
# Swift seeds its hashing per process; fixed seeds make the counts repeat exactly.
export SWIFT_DETERMINISTIC_HASHING=1

if ! command -v valgrind >/dev/null; then
    echo "instructions.sh: installing valgrind" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null
fi
swift build -c release --package-path Benchmarks --product fsinstructions >/dev/null
work=$(mktemp -d "${TMPDIR:-/tmp}/fsinstructions.XXXXXX")
trap 'rm -rf "$work"' EXIT
# NB: valgrind 3.19 cannot read the debug info Swift 6 emits ("possibly
# corrupted debuginfo"); a copy without it runs fine.
bin=$work/fsinstructions
objcopy --strip-debug Benchmarks/.build/release/fsinstructions "$bin"

count() { # count PROFILE ENTITIES DISPATCHES -> total instructions
    valgrind --tool=callgrind --callgrind-out-file="$work/out" "$bin" "$1" "$2" "$3" "$strategy" >/dev/null 2>"$work/err" \
        || { cat "$work/err" >&2; exit 1; }
    grep -E '^(summary|totals):' "$work/out" | head -1 | awk '{print $2}'
}

printf '%-14s %10s %12s %16s\n' profile entities strategy "instr/dispatch"
for spec in "${specs[@]}"; do
    name=${spec%%:*}
    file=Profiles/$name.json
    [ -f "$file" ] || { echo "instructions.sh: no profile $file" >&2; exit 2; }
    if [ "$spec" = "$name" ]; then
        entities=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['state']['entities'])" "$file")
    else
        entities=${spec#*:}
    fi
    one=$(count "$file" "$entities" "$D")
    two=$(count "$file" "$entities" $((2 * D)))
    printf '%-14s %10s %12s %16s\n' "$name" "$entities" "$strategy" $(( (two - one) / D ))
done
