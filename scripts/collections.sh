#!/usr/bin/env bash
# Big state side by side, in one process (`fscollections`): the same todos
# held as an array, a VersionedList and an IdentifiedList: the bytes each
# holds (jemalloc's stats.allocated before and after the build; the titles'
# storage is shared with the source array, not counted), the build from
# the array, an iteration from another module than FastStore's, and a
# write by id with the previous version kept at COUNT and at COUNT / 10.
#
#   scripts/collections.sh [COUNT [REPEATS]]    (default 1000000 5: medians)
#
# Builds fscollections in release (needs libjemalloc-dev) and prints
# Markdown tables. Times on a shared machine are noisy; the byte counts are
# exact. Not run by CI.
set -euo pipefail
cd "$(dirname "$0")/../Benchmarks"
FSBENCH_ONLY=1 swift build -c release --product fscollections >&2
exec .build/release/fscollections "$@"
