#!/usr/bin/env bash
# CI check of the strategy comparison (called by .ci/run): builds fsbench,
# runs its self-test, checks the command line's error handling, then runs the
# quick mode and fails when FastStore's versioned strategy loses its lead
# (thresholds: Benchmarks/Thresholds/ci.json, see docs/benchmarks/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
out=Benchmarks/.build/fsbench-ci
mkdir -p "$out"
fail() { echo "bench-ci: FAIL: $*" >&2; exit 1; }

# 1. Build (bench.sh installs jemalloc when missing) and self-test: exact
#    allocation counting, malformed-profile fixtures, strategies agreeing.
scripts/bench.sh --self-test

bin=Benchmarks/.build/release/fsbench
export SWIFT_DETERMINISTIC_HASHING=1

# 2. Command-line and profile errors, caught before measuring: exit status 2
#    and a message naming the option or the field.
expect_error() { # expect_error "what" "substring" args...
    local what=$1 needle=$2; shift 2
    local status=0
    "$bin" "$@" >"$out/stdout" 2>"$out/stderr" || status=$?
    [ "$status" = 2 ] || fail "$what: exit status $status, expected 2"
    grep -qF -- "$needle" "$out/stderr" || fail "$what: message lacks '$needle': $(cat "$out/stderr")"
    echo "ok   $what: $(head -1 "$out/stderr")"
}
expect_error "unknown strategy" "valid strategies: " --quick --strategy no-such-strategy
expect_error "unknown profile" "valid profiles: " --quick --profile no-such-profile
expect_error "missing option value" "Missing value for '--profile" --quick --profile
expect_error "option as a value" "Missing value for '--results" --quick --results --no-progress
cat > "$out/malformed.json" <<'JSON'
{ "name": "mine", "description": "x", "state": { "entities": 100, "titleLength": 8 },
  "consumers": [ { "select": "row", "count": 3 } ],
  "actions": [ { "kind": "setField", "weight": 1 } ], "dispatch": { "pattern": "single" } }
JSON
expect_error "malformed profile" "$out/malformed.json: field 'consumers[0].select': expected one of" --validate --profile "$out/malformed.json"
sed 's/"count": 3/"count": 1.5/; s/"row"/"entity"/' "$out/malformed.json" > "$out/fraction.json"
expect_error "fractional integer" "$out/fraction.json: field 'consumers[0].count': expected an integer" --validate "$out/fraction.json"
sed 's/"entities": 10000,/"entities": 10000000,/; s/"titleLength": 24/"titleLength": 4096/' Profiles/todo.json > "$out/huge.json"
expect_error "profile larger than the machine" "$out/huge.json: field 'state.titleLength': expected a run that fits this machine's memory" --validate "$out/huge.json"
expect_error "unreadable thresholds" "--check '$out/none.json': cannot read it" --quick --check "$out/none.json"
expect_error "results under a file" "--results '$out/malformed.json/RESULTS.md'" --quick --results "$out/malformed.json/RESULTS.md"
"$bin" --validate >/dev/null || fail "the shipped profiles do not validate"
echo "ok   shipped profiles validate"

# The wrapper: --help from the script alone, a missing value caught before
# any build, --list from the lite build.
scripts/bench.sh --help > "$out/help.txt"
grep -q -- "--publish" "$out/help.txt" || fail "scripts/bench.sh --help lacks --publish"
echo "ok   scripts/bench.sh --help"
status=0; scripts/bench.sh --quick --profile 2>"$out/stderr" || status=$?
[ "$status" = 2 ] && grep -q -- "--profile needs a value" "$out/stderr" || fail "scripts/bench.sh --profile: exit $status, $(cat "$out/stderr")"
echo "ok   scripts/bench.sh --profile: $(head -1 "$out/stderr")"
scripts/bench.sh --list > "$out/list.txt" 2>/dev/null
grep -q "^  faststore " "$out/list.txt" || fail "scripts/bench.sh --list lacks faststore"
grep -q "^  faststore-shared " "$out/list.txt" || fail "scripts/bench.sh --list lacks faststore-shared"
echo "ok   scripts/bench.sh --list"

# 3. Quick mode with the thresholds.
scripts/bench.sh --quick --check Benchmarks/Thresholds/ci.json --json "$out/quick.json" \
    --results "$out/RESULTS.md" --chart-dir "$out"
echo "bench-ci: passed in $(( $(date +%s) - started ))s"
