#!/usr/bin/env bash
# Instructions per dispatch, counted by valgrind's callgrind: deterministic,
# unlike time, so comparable across runs and machines of one architecture.
#
#   scripts/instructions.sh [--strategy NAME] [PROFILE[:ENTITIES]]...
#   scripts/instructions.sh --check [THRESHOLDS.json]
#
# Default: the todo profile at 1,000 and 100,000 items, feed, deep-tree,
# many-screens, screens-100 and screens-1000 at their profile sizes, with the
# faststore strategy (one StateConsumer per screen; faststore-shared puts
# every screen in one). A PROFILE may end in @STRATEGY (screens-100@faststore-shared).
# observation:FIXTURE counts instructions per action of an Observation
# fixture (on the main thread, where its actions run; the least of three
# runs) instead (`fsobservation`: perNode, dispatchOnly, classes,
# classesBehindAStore; the ObservationBenchmarks suite's fixtures).
# For each, runs `fsinstructions` under callgrind with D and 2D dispatches
# and prints (I(2D) - I(D)) / D: set-up and warm-up cancel out. Needs
# valgrind (installed through apt when missing) and builds fsinstructions
# in release.
#
# --check runs the entries of a thresholds file (default
# Benchmarks/Thresholds/instructions.json: profile, entities, a strategy,
# faststore when absent, and either max, or maxRatio with relativeTo, another
# entry's {profile, entities, strategy}: this count over that one; an
# entry may name {observation: FIXTURE} instead) with 1,000 dispatches (or
# actions), and exits 1 when any count exceeds its max: a regression gate
# that machine load cannot move (CI runs it; a few minutes).
#
# Each profile's row also gives its heap allocations per dispatch: the
# calls into malloc, calloc, realloc, posix_memalign and aligned_alloc that
# callgrind counted, (A(2D) - A(D)) / D. An absolute entry may bound them
# with maxAllocations (0: a dispatch of that profile allocates nothing).
set -euo pipefail
cd "$(dirname "$0")/.."
strategy=faststore
specs=()
check=
while [ $# -gt 0 ]; do
    case "$1" in
        --strategy) [ $# -ge 2 ] || { echo "instructions.sh: --strategy needs a name" >&2; exit 2; }; strategy=$2; shift 2 ;;
        --check)
            if [ $# -ge 2 ] && [[ "$2" != -* ]]; then check=$2; shift 2; else check=Benchmarks/Thresholds/instructions.json; shift; fi
            [ -f "$check" ] || { echo "instructions.sh: no thresholds file $check" >&2; exit 2; } ;;
        -h|--help) sed -n '2,32p' "$0"; exit 0 ;;
        *) specs+=("$1"); shift ;;
    esac
done
declare -A limits=()     # key -> max (absolute entries)
declare -A allocation_limits=()  # key -> maxAllocations per dispatch (absolute entries that give one)
declare -A relative=()   # key -> "BASEKEY MAXRATIO" (relative entries)
if [ -n "$check" ]; then
    [ ${#specs[@]} -eq 0 ] || { echo "instructions.sh: --check takes its profiles from $check" >&2; exit 2; }
    [ "$strategy" = faststore ] || { echo "instructions.sh: --check takes its strategies from $check" >&2; exit 2; }
    entries=$(python3 - "$check" <<'PY'
import json, sys
path = sys.argv[1]
def key(e, where):
    if "observation" in e:
        if not isinstance(e["observation"], str) or set(e) & {"profile", "entities", "strategy"}:
            sys.exit(f"instructions.sh: {path}: {where}.observation: expected a fixture name, and no profile, entities or strategy")
        return f"observation:{e['observation']}"
    for field, kind in (("profile", str), ("entities", int), ("strategy", str)):
        if field == "strategy" and field not in e: continue
        if not isinstance(e.get(field), kind) or isinstance(e.get(field), bool):
            sys.exit(f"instructions.sh: {path}: {where}.{field}: expected {kind.__name__}")
    if e["entities"] <= 0:
        sys.exit(f"instructions.sh: {path}: {where}.entities must be positive")
    return f"{e['profile']}:{e['entities']}@{e.get('strategy', 'faststore')}"
try:
    entries = json.load(open(path))["thresholds"]
    for k, e in enumerate(entries):
        where = f"thresholds[{k}]"
        if "relativeTo" in e:
            # this count / relativeTo's count <= maxRatio (both measured here)
            ratio = e.get("maxRatio")
            if not isinstance(ratio, (int, float)) or isinstance(ratio, bool) or ratio <= 0 or "max" in e:
                sys.exit(f"instructions.sh: {path}: {where}: relativeTo needs a positive maxRatio and no max")
            if not isinstance(e["relativeTo"], dict):
                sys.exit(f"instructions.sh: {path}: {where}.relativeTo: expected an object (profile, entities, strategy)")
            print(f"{key(e, where)} rel {key(e['relativeTo'], where + '.relativeTo')} {ratio}")
        else:
            if not isinstance(e.get("max"), int) or isinstance(e.get("max"), bool) or e["max"] <= 0:
                sys.exit(f"instructions.sh: {path}: {where}.max: expected a positive int (or maxRatio with relativeTo)")
            allocations = e.get("maxAllocations", -1)
            if "maxAllocations" in e and (isinstance(allocations, bool) or not isinstance(allocations, (int, float))
                                          or allocations < 0 or "observation" in e):
                sys.exit(f"instructions.sh: {path}: {where}.maxAllocations: expected a number >= 0, on a profile entry")
            print(f"{key(e, where)} max {e['max']} {allocations}")
except (OSError, ValueError, KeyError, TypeError) as error:
    sys.exit(f"instructions.sh: {path}: {error}")
PY
) || exit 2
    while read -r key kind a b; do
        [ -n "$key" ] || continue
        if [ "$kind" = max ]; then
            limits[$key]=$a
            [ "$b" = -1 ] || allocation_limits[$key]=$b
            [[ " ${specs[*]} " == *" $key "* ]] || specs+=("$key")
        else
            relative[$key]="$a $b"
            # The base is measured first; each count is measured once.
            [[ " ${specs[*]} " == *" $a "* ]] || specs+=("$a")
            [[ " ${specs[*]} " == *" $key "* ]] || specs+=("$key")
        fi
    done <<< "$entries"
    [ ${#specs[@]} -gt 0 ] || { echo "instructions.sh: $check lists no thresholds" >&2; exit 2; }
fi
[ ${#specs[@]} -gt 0 ] || specs=(todo:1000 todo:100000 feed deep-tree many-screens screens-100 screens-1000)
D=${DISPATCHES:-2000}
# NB: the counts depend a little on which dispatches run; the thresholds
# were taken with 1,000 and 2,000.
[ -z "$check" ] || D=1000
# Swift seeds its hashing per process; fixed seeds make the counts repeat exactly.
export SWIFT_DETERMINISTIC_HASHING=1

if ! command -v valgrind >/dev/null; then
    echo "instructions.sh: installing valgrind" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null
fi
# FSBENCH_ONLY=1: without the package-benchmark suites and their plugin
# tools (see Benchmarks/Package.swift).
FSBENCH_ONLY=1 swift build -c release --package-path Benchmarks --product fsinstructions >/dev/null
work=$(mktemp -d "${TMPDIR:-/tmp}/fsinstructions.XXXXXX")
trap 'rm -rf "$work"' EXIT
# NB: valgrind 3.19 cannot read the debug info Swift 6 emits ("possibly
# corrupted debuginfo"); a copy without it runs fine.
bin=$work/fsinstructions
objcopy --strip-debug Benchmarks/.build/release/fsinstructions "$bin"
if [[ " ${specs[*]} " == *" observation:"* ]]; then
    FSBENCH_ONLY=1 swift build -c release --package-path Benchmarks --product fsobservation >/dev/null
    objcopy --strip-debug Benchmarks/.build/release/fsobservation "$work/fsobservation"
fi

count() { # count TAG PROGRAM ARGS... -> total instructions (TAG names the run's files; the heap allocations go to $work/allocs.TAG)
    local tag=$1; shift
    valgrind --tool=callgrind --callgrind-out-file="$work/out.$tag" "$@" >/dev/null 2>"$work/err.$tag" \
        || { cat "$work/err.$tag" >&2; return 1; }
    allocations "$work/out.$tag" > "$work/allocs.$tag"
    grep -E '^(summary|totals):' "$work/out.$tag" | head -1 | awk '{print $2}'
}

allocations() { # allocations CALLGRIND_OUT -> the calls into the C allocator's allocating functions
    python3 - "$1" <<'PY'
import re, sys
allocating = {"malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc"}
names, callee, total = {}, None, 0
for line in open(sys.argv[1]):
    if line.startswith("cfn="):
        # cfn=(id) name, or cfn=(id) for a name given before
        m = re.match(r"cfn=\((\d+)\)(?: (.*))?", line.rstrip("\n"))
        if m:
            if m.group(2) is not None: names[m.group(1)] = m.group(2)
            callee = names.get(m.group(1))
        else:
            callee = line[4:].strip()
    elif line.startswith("fn="):
        m = re.match(r"fn=\((\d+)\)(?: (.*))?", line.rstrip("\n"))
        if m and m.group(2) is not None: names[m.group(1)] = m.group(2)
    elif line.startswith("calls=") and callee in allocating:
        total += int(line[6:].split()[0])
print(total)
PY
}

count_main_thread() { # count_main_thread PROGRAM ARGS... -> the main thread's instructions
    # NB: an Observation fixture's actions all run on the main thread; the
    # re-notifications per-node Observation sends from a global queue (and
    # Dispatch's worker threads) run on a schedule of real milliseconds,
    # which callgrind's slowdown makes vary from run to run. What they
    # invalidate is re-tracked on the main thread, and counted there.
    rm -f "$work"/thread-out*
    valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$work/thread-out" "$@" >/dev/null 2>"$work/err" \
        || { cat "$work/err" >&2; exit 1; }
    grep -E '^(summary|totals):' "$work/thread-out-01" | head -1 | awk '{print $2}'
}

printf '%-14s %10s %16s %16s %8s%s\n' profile entities strategy "instr/dispatch" "allocs" "${check:+      max  verdict}"
failed=0
declare -A counted=()   # key -> instructions per dispatch
for key in "${specs[@]}"; do
    if [[ "$key" == observation:* ]]; then
        # An Observation fixture (fsobservation): instructions per action.
        name=observation entities=- run_strategy=${key#observation:}
        run=("$work/fsobservation" "$run_strategy")
    else
        spec=${key%@*}
        run_strategy=$strategy
        [[ "$key" != *@* ]] || run_strategy=${key##*@}
        name=${spec%%:*}
        file=Profiles/$name.json
        [ -f "$file" ] || { echo "instructions.sh: no profile $file" >&2; exit 2; }
        if [ "$spec" = "$name" ]; then
            entities=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['state']['entities'])" "$file")
        else
            entities=${spec#*:}
        fi
        run=("$bin" "$file" "$entities")
    fi
    # NB: the count (dispatches or actions) goes after the profile or
    # fixture, the strategy (profiles only) last.
    if [ "$name" = observation ]; then
        # NB: the least of three runs: the main thread's count still varies
        # with the timing of those other threads (perNode, five runs under
        # load: 42,400 four times, 50,045 once), and only upwards.
        per=
        for _ in 1 2 3; do
            one=$(count_main_thread "${run[@]}" "$D"); two=$(count_main_thread "${run[@]}" $((2 * D)))
            this=$(( (two - one) / D ))
            [ -n "$per" ] && [ "$per" -le "$this" ] || per=$this
        done
    else
        # NB: the two runs side by side (CI has two cores): a profile's
        # count is the program's own, whatever runs beside it.
        count one "${run[@]}" "$D" "$run_strategy" > "$work/one" & first=$!
        # NB: a failed run stops the other before the script ends (the
        # EXIT trap removes their folder).
        count two "${run[@]}" $((2 * D)) "$run_strategy" > "$work/two" \
            || { kill "$first" 2>/dev/null; wait "$first" 2>/dev/null; exit 1; }
        wait "$first" || exit 1
        one=$(cat "$work/one"); two=$(cat "$work/two")
    fi
    allocs=-
    if [ "$name" != observation ]; then
        per=$(( (two - one) / D ))
        allocs=$(python3 -c 'import sys; print("%.3f" % ((int(sys.argv[2]) - int(sys.argv[1])) / int(sys.argv[3])))' \
            "$(cat "$work/allocs.one")" "$(cat "$work/allocs.two")" "$D")
    fi
    counted[$key]=$per
    if [ -n "$check" ] && [ -n "${limits[$key]:-}" ]; then
        max=${limits[$key]}
        verdict=ok; [ "$per" -le "$max" ] || { verdict="OVER by $(( (per - max) * 100 / max ))%"; failed=1; }
        if [ -n "${allocation_limits[$key]:-}" ]; then
            bound=${allocation_limits[$key]}
            if python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) <= float(sys.argv[2]) else 1)' "$allocs" "$bound"; then
                verdict="$verdict, allocs <= $bound"
            else
                verdict="$verdict, ALLOCATES $allocs per dispatch (max $bound)"; failed=1
            fi
        fi
        printf '%-14s %10s %16s %16s %8s %8s  %s\n' "$name" "$entities" "$run_strategy" "$per" "$allocs" "$max" "$verdict"
    else
        printf '%-14s %10s %16s %16s %8s\n' "$name" "$entities" "$run_strategy" "$per" "$allocs"
    fi
done
# Relative entries: a count over another's, both measured above.
for key in "${!relative[@]}"; do
    read -r base ratio <<< "${relative[$key]}"
    line=$(python3 -c 'import sys; n, d, r = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]); q = n / max(d, 1); print(("ok" if q <= r else "OVER by %d%%" % int((q / r - 1) * 100)), "%.3f" % q)' \
        "${counted[$key]}" "${counted[$base]}" "$ratio")
    verdict=${line% *}; measured=${line##* }
    [ "$verdict" = ok ] || failed=1
    printf '%s / %s = %s / %s = %s (max %s)  %s\n' "$key" "$base" "${counted[$key]}" "${counted[$base]}" "$measured" "$ratio" "$verdict"
done
if [ "$failed" = 1 ]; then
    echo "instructions.sh: FAIL: instructions or allocations per dispatch above the thresholds in $check" >&2
    exit 1
fi
