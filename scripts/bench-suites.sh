#!/usr/bin/env bash
# The package-benchmark suites (Benchmarks/Benchmarks/*Benchmarks) against
# checked-in thresholds, as swift-nio keeps its own: one file per benchmark,
# Benchmarks/Thresholds/suites/<swift major.minor>/<Target>.<Benchmark>.p90.json,
# holding the p90 of its allocation count (mallocCountTotal). Allocation
# counts do not move with machine load, so the gate is deterministic; time is
# gated by scripts/bench-ci.sh (ratios measured in one run) and
# scripts/instructions.sh (instruction counts), not here.
#
#   scripts/bench-suites.sh             # check (CI): exit 1 on a regression or an unrecorded improvement
#   scripts/bench-suites.sh --update    # run every suite and rewrite the thresholds
#   scripts/bench-suites.sh --target T  # only the suites whose target matches the regex T (with either mode)
#
# Every benchmark of the suites runs at its full size, measuring only
# allocations (`--metric mallocCountTotal`: no clock, no OS metrics, which
# add allocations of their own). Left out (--skip): the standard library's
# and swift-collections' reference rows of CollectionBenchmarks (Array.*,
# Dictionary.*, TreeDictionary.*: not FastStore's code, and the standard
# Dictionary's count moves with its hashing), and the one-sample memory
# benchmarks (*RetainedBytes*, *PerAction, *BytesWritten*, *foldBytesPerElement*), whose allocation
# count is their fixture's set-up; `Persistence.dispatch.{on,grouped,onOverOff,groupedOverOff}.*`, where
# the saver thread's allocations land in whichever dispatch runs beside
# them; and `Persistence.openOverGRDB.*`, a one-sample ratio. PersistenceBenchmarks runs at 1,000 items here (PERSIST_SIZES): its
# 1,000,000-item fixtures take minutes to build. The tolerance (5 % of the p90) is
# `allocationCountGate`, Benchmarks/Benchmarks/SuiteSupport. A few minutes
# once built.
#
# An improvement fails the check too (exit 1, "improvement"): the
# thresholds are then stale; rerun with --update and commit the files.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=check
target=
while [ $# -gt 0 ]; do
    case "$1" in
        --update) mode=update; shift ;;
        --check) mode=check; shift ;;
        --target) [ $# -ge 2 ] && [[ "$2" != -* ]] || { echo "bench-suites.sh: --target needs a regex" >&2; exit 2; }; target=$2; shift 2 ;;
        -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
        *) echo "bench-suites.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done

version=$(swift --version 2>/dev/null | sed -n 's/.*Swift version \([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p' | head -1)
[ -n "$version" ] || { echo "bench-suites.sh: cannot read the Swift version from 'swift --version'" >&2; exit 2; }
dir=Thresholds/suites/$version
if [ "$mode" = check ] && [ ! -d "Benchmarks/$dir" ]; then
    echo "bench-suites.sh: no thresholds for Swift $version (Benchmarks/$dir): record them with scripts/bench-suites.sh --update" >&2
    exit 2
fi

# NB: FSBENCH_ALLOCATION_GATE=1 runs each benchmark for at most 200 ms
# (SuiteSupport's `suiteMaxDuration`): an allocation count needs no
# second of samples (the thresholds recorded with full-length runs hold
# with the cap: every suite checked equal), and --update records with it.
export SWIFT_DETERMINISTIC_HASHING=1 PERSIST_SIZES=1000 FSBENCH_ALLOCATION_GATE=1
# NB: --target keeps package-benchmark away from the package's other
# executables (fsbench, fsinstructions...), which it would run as suites.
args=(--metric mallocCountTotal --no-progress --path "$dir" --target "${target:-.*Benchmarks}"
      --skip '(Array|Dictionary|TreeDictionary)\..*|.*RetainedBytes.*|.*PerAction.*|.*BytesWritten.*|.*foldBytesPerElement.*|Persistence\.dispatch\.(on|grouped|onOverOff|groupedOverOff)\..*|Persistence\.openOverGRDB\..*')

started=$(date +%s)
if [ "$mode" = update ]; then
    mkdir -p "Benchmarks/$dir"
    # Rewrites the files of the benchmarks that ran; a benchmark removed from
    # a suite leaves a stale file: start from an empty folder for a full update.
    (cd Benchmarks && swift package --allow-writing-to-package-directory benchmark thresholds update "${args[@]}")
    echo "bench-suites.sh: thresholds written to Benchmarks/$dir in $(( $(date +%s) - started ))s"
    exit 0
fi

status=0
(cd Benchmarks && swift package --allow-writing-to-package-directory benchmark thresholds check "${args[@]}") || status=$?
case "$status" in
    0) echo "bench-suites.sh: every suite within its thresholds ($(( $(date +%s) - started ))s)" ;;
    *) echo "bench-suites.sh: FAIL (exit $status): allocation counts moved past Benchmarks/$dir (a regression; or an improvement: then rerun with --update and commit)" >&2
       exit 1 ;;
esac
