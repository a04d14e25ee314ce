#!/usr/bin/env bash
# Installs a Debian package with apt (through sudo when not root): the one
# home of the installs scripts/bench.sh and .ci/run make on a fresh machine
# (libjemalloc-dev for the benchmarks' memory figures, libsqlite3-dev for
# FastStorePersistence). The callers check first whether it is needed.
#
#   scripts/apt-install.sh PACKAGE "why it is needed"
set -euo pipefail
[ $# = 2 ] || { echo "usage: scripts/apt-install.sh PACKAGE WHY" >&2; exit 2; }
package=$1 why=$2
printf '\033[1m==> installing %s (%s)\033[0m\n' "$package" "$why" >&2
sudo=
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null; then sudo=sudo; else
        echo "apt-install.sh: $package is missing ($why) and this user cannot install it; run: apt-get install -y $package" >&2
        exit 1
    fi
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$package" >/dev/null
