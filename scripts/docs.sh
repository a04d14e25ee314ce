#!/usr/bin/env bash
# Builds the DocC documentation of the four products (FastStore,
# FastStoreReSwift, FastStoreTesting, FastStorePersistence) with swift-docc-plugin, and fails on
# any warning: docc runs with --warnings-as-errors, and the build's output is
# checked for any other warning (compiler or plugin).
#
#   scripts/docs.sh                 # one archive per product, in .build-docs/archives/
#   scripts/docs.sh --combined      # one combined archive of the four (experimental)
#   scripts/docs.sh --output DIR    # write the archives to DIR instead
#
# The catalogs are Sources/<Product>/<Product>.docc. The build uses its own
# scratch path, .build-docs, so it never touches .build. To browse the
# documentation while writing it: `swift package --scratch-path .build-docs
# --disable-sandbox preview-documentation --target FastStore`; an archive is
# transformed for static hosting: serve it with any static web server and
# open /documentation/faststore.
set -euo pipefail

cd "$(dirname "$0")/.."

scratch=".build-docs"
output="$scratch/archives"
combined=0
targets=(FastStore FastStoreReSwift FastStoreTesting FastStorePersistence)

usage() {
    sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
    case "$1" in
        --combined) combined=1 ;;
        --output)
            [ $# -ge 2 ] || { echo "docs.sh: --output needs a directory" >&2; exit 2; }
            output="$2"
            shift
            ;;
        -h|--help) usage; exit 0 ;;
        *) echo "docs.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
    shift
done

mkdir -p "$output"
output="$(cd "$output" && pwd)"
if [ "$combined" = 1 ]; then
    # The plugin writes the combined archive at the output path itself.
    output="$output/FastStore-combined.doccarchive"
    rm -rf "$output"
    mkdir -p "$output"
else
    # No archive of an earlier run survives a failed one.
    for target in "${targets[@]}"; do rm -rf "$output/$target.doccarchive"; done
fi

args=()
for target in "${targets[@]}"; do args+=(--target "$target"); done
[ "$combined" = 1 ] && args+=(--enable-experimental-combined-documentation)

log="$(mktemp)"
trap 'rm -f "$log"' EXIT

start=$SECONDS
set +e
swift package --scratch-path "$scratch" --allow-writing-to-directory "$output" \
    generate-documentation "${args[@]}" --warnings-as-errors --output-path "$output" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e

if [ "$status" -ne 0 ]; then
    echo "docs.sh: generate-documentation failed (exit status $status)" >&2
    exit 1
fi
if grep -qE '(^|[^A-Za-z])(warning|error):' "$log"; then
    echo "docs.sh: the documentation build printed warnings:" >&2
    grep -E '(^|[^A-Za-z])(warning|error):' "$log" >&2
    exit 1
fi

echo
echo "docs.sh: built without warnings in $((SECONDS - start)) s:"
if [ "$combined" = 1 ]; then
    echo "  $output"
else
    for target in "${targets[@]}"; do echo "  $output/$target.doccarchive"; done
fi
