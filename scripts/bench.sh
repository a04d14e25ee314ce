#!/usr/bin/env bash
# FastStore's main job: build the benchmark runner in release and compare the
# consumer strategies on the workload profiles.
#
#   scripts/bench.sh                      all profiles, full sizes; writes
#                                         docs/benchmarks/RESULTS.md and the SVG charts
#   scripts/bench.sh --quick              small sizes (about a minute)
#   scripts/bench.sh --profile todo       one shipped profile (repeatable)
#   scripts/bench.sh --profile my.json    your own profile (see docs/benchmarks/README.md)
#   scripts/bench.sh --strategy faststore --strategy full-copy
#   scripts/bench.sh --validate --profile my.json
#   scripts/bench.sh --list | --self-test | --help
#
# Any other option goes to fsbench (see `scripts/bench.sh --help`). Runs other
# than the default full one write their RESULTS.md and charts under
# Benchmarks/.build/fsbench-results/ unless --results / --chart-dir say where.
# Exit status: fsbench's (0 done, 1 a check failed, 2 bad arguments or profile).
set -euo pipefail

# Paths given relative to the caller's directory stay valid after the cd below.
caller=$(pwd)
args=()
expect_path=""
for a in "$@"; do
    if [ -n "$expect_path" ]; then
        case "$a" in
            /*) ;;
            *) if [ "$expect_path" != --profile ] || [[ "$a" == *.json || "$a" == */* ]]; then a="$caller/$a"; fi ;;
        esac
        expect_path=""
    else
        case "$a" in --profile|--results|--chart-dir|--json|--check|--profiles-dir) expect_path=$a ;; esac
    fi
    args+=("$a")
done

cd "$(dirname "$0")/.."
started=$(date +%s)

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

# 1. jemalloc: the runner links it for its memory figures.
if [ ! -f /usr/include/jemalloc/jemalloc.h ] && ! pkg-config --exists jemalloc 2>/dev/null; then
    say "installing libjemalloc-dev (needed for the memory figures)"
    sudo=""
    if [ "$(id -u)" != 0 ]; then
        if command -v sudo >/dev/null; then sudo="sudo"; else
            echo "bench.sh: libjemalloc-dev is missing and this user cannot install it; run: apt-get install -y libjemalloc-dev" >&2
            exit 1
        fi
    fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libjemalloc-dev >/dev/null
fi

# 2. Build the runner (release; only fsbench and what it needs).
say "building fsbench (release)"
build_started=$(date +%s)
set +e
swift build -c release --package-path Benchmarks --product fsbench 2>&1 \
    | grep --line-buffered -Ev '^\s*$' | sed -u 's/^/    /' >&2
build_status=${PIPESTATUS[0]}
set -e
if [ "$build_status" != 0 ] || [ ! -x Benchmarks/.build/release/fsbench ]; then
    echo "bench.sh: the build failed" >&2
    exit 1
fi
build_seconds=$(( $(date +%s) - build_started ))
say "built in ${build_seconds}s"

# 3. Run. Deterministic hashing makes allocation counts repeatable
# (Dictionary and Set growth otherwise depends on a per-process seed).
export SWIFT_DETERMINISTIC_HASHING=1
extra=()
if [ ${#args[@]} -eq 0 ]; then
    # The default full run: the published results.
    extra=(--results docs/benchmarks/RESULTS.md --chart-dir docs/benchmarks)
else
    has_results=0
    for a in "${args[@]}"; do
        case "$a" in --results|--chart-dir|--validate|--self-test|--list|-h|--help) has_results=1 ;; esac
    done
    if [ $has_results = 0 ]; then
        extra=(--results Benchmarks/.build/fsbench-results/RESULTS.md --chart-dir Benchmarks/.build/fsbench-results)
    fi
fi
command="scripts/bench.sh${*:+ $*}"
say "running: $command"
set +e
Benchmarks/.build/release/fsbench "${args[@]}" "${extra[@]}" --build-seconds "$build_seconds" --command "$command"
status=$?
set -e
say "done in $(( $(date +%s) - started ))s (exit status $status)"
exit $status
