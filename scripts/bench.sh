#!/usr/bin/env bash
# FastStore's main job: build the benchmark runner (fsbench) in release and
# compare the consumer strategies on the workload profiles.
#
#   scripts/bench.sh                     every profile, full sizes; keeps RESULTS.md,
#                                        results.json and the SVG charts in
#                                        bench-results/<date>-<time>/ (not committed)
#   scripts/bench.sh --publish           the same, written over docs/benchmarks/RESULTS.md
#                                        and its charts (the committed results),
#                                        then the README's table (scripts/readme-results.py)
#   scripts/bench.sh --quick             small sizes; bench-results/<date>-<time>-quick/
#   scripts/bench.sh --profile todo      one shipped profile (repeatable)
#   scripts/bench.sh --profile my.json   your own profile (see docs/benchmarks/README.md)
#   scripts/bench.sh --strategy faststore --strategy full-copy
#   scripts/bench.sh --validate my.json  check a profile against the format and this machine
#   scripts/bench.sh --list              the strategies and the profiles
#   scripts/bench.sh --self-test         check the harness itself
#
# --help answers at once, from this script and docs/benchmarks/fsbench-help.txt
# (fsbench's own help, kept equal to it by a test). --list and --validate use
# a small debug build (fsbench-lite: no FastStore, no jemalloc). Anything
# else installs libjemalloc-dev through apt when it is missing (fsbench links
# it for its memory figures) and builds fsbench in release. Options go to
# fsbench; paths are taken relative to the directory you run this from.
# Exit status: fsbench's (0 done, 1 a check failed, 2 bad arguments or profile).
set -euo pipefail

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
usage_error() { echo "bench.sh: error: $*" >&2; echo "  See 'scripts/bench.sh --help'." >&2; exit 2; }

root=$(cd "$(dirname "$0")/.." && pwd)
caller=$(pwd)

# fsbench's options that take a value, and those whose value is a path.
valued=" --profile --strategy --profiles-dir --results --chart-dir --json --check --seconds --command --build-seconds "
paths=" --profiles-dir --results --chart-dir --json --check "

# A path given relative to the caller's directory stays valid after the cd
# below. A profile is a path when it ends in .json or has a slash; otherwise
# it names a shipped profile.
absolute() { # absolute OPTION VALUE (OPTION empty for an argument)
    local option=$1 value=$2
    case "$value" in /*) echo "$value"; return ;; esac
    if [[ "$paths" == *" $option "* ]]; then echo "$caller/$value"; return; fi
    if [[ "$option" == --profile || -z "$option" ]] && [[ "$value" == *.json || "$value" == */* ]]; then
        echo "$caller/$value"; return
    fi
    echo "$value"
}

args=()
mode=measure
expect=""
for a in "$@"; do
    if [ -n "$expect" ]; then
        # A value must not be the next option: `--profile --quick` is a
        # missing value, not a profile file named "--quick".
        if [[ "$a" == --* || "$a" == -h ]]; then usage_error "$expect needs a value, found the option '$a'"; fi
        args+=("$(absolute "$expect" "$a")")
        expect=""
        continue
    fi
    case "$a" in
        -h|--help)
            sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
            echo
            echo "fsbench's options (docs/benchmarks/fsbench-help.txt):"
            echo
            cat "$root/docs/benchmarks/fsbench-help.txt"
            exit 0 ;;
        --list|--validate) mode=info; args+=("$a") ;;
        --*=*)
            option=${a%%=*} value=${a#*=}
            if [[ "$valued" == *" $option "* ]]; then
                [ -n "$value" ] || usage_error "$option needs a value"
                args+=("$option=$(absolute "$option" "$value")")
            else
                args+=("$a")
            fi ;;
        --*)
            if [[ "$valued" == *" $a "* ]]; then expect=$a; fi
            args+=("$a") ;;
        *) args+=("$(absolute "" "$a")") ;;
    esac
done
[ -z "$expect" ] || usage_error "$expect needs a value (the last argument was the option itself)"

cd "$root"
# Without the package-benchmark suites (see Benchmarks/Package.swift): only
# what fsbench needs is resolved and built, package-benchmark's plugin tools
# are not.
export FSBENCH_ONLY=1
started=$(date +%s)

build() { # build CONFIGURATION PRODUCT
    set +e
    swift build -c "$1" --package-path Benchmarks --product "$2" 2>&1 \
        | grep --line-buffered -Ev '^\s*$' | sed -u 's/^/    /' >&2
    local status=${PIPESTATUS[0]}
    set -e
    if [ "$status" != 0 ] || [ ! -x "Benchmarks/.build/$1/$2" ]; then
        echo "bench.sh: the build of $2 failed" >&2
        exit 1
    fi
}

# --list and --validate: fsbench's command line from a small debug build.
if [ $mode = info ]; then
    say "building fsbench-lite (debug: the command line and the profile checks only)"
    build debug fsbench-lite
    exec Benchmarks/.build/debug/fsbench-lite "${args[@]}"
fi

# 1. jemalloc: the runner links it for its memory figures.
if [ ! -f /usr/include/jemalloc/jemalloc.h ] && ! pkg-config --exists jemalloc 2>/dev/null; then
    scripts/apt-install.sh libjemalloc-dev "needed for the memory figures"
fi

# 2. Build the runner (release; only fsbench and what it needs).
say "building fsbench (release)"
build_started=$(date +%s)
build release fsbench
build_seconds=$(( $(date +%s) - build_started ))
say "built in ${build_seconds}s"

# 3. Run. Deterministic hashing makes allocation counts repeatable
# (Dictionary and Set growth otherwise depends on a per-process seed).
export SWIFT_DETERMINISTIC_HASHING=1
command="scripts/bench.sh${*:+ $*}"
say "running: $command"
set +e
Benchmarks/.build/release/fsbench "${args[@]}" --build-seconds "$build_seconds" --command "$command"
status=$?
set -e
# The README's table is made from the published results.
if [ "$status" = 0 ] && [[ " ${args[*]} " == *" --publish "* ]]; then
    scripts/readme-results.py
fi
say "done in $(( $(date +%s) - started ))s (exit status $status)"
exit $status
