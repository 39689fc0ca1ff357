#!/usr/bin/env bash
# Install what kcube needs to build, test and plot, from Debian's packages.
# Usage: scripts/deps.sh [EXTRA_LIST...] (files with one package per line).
# Idempotent: packages already present are not fetched again.
set -euo pipefail
pkgs=(build-essential cmake ninja-build pkg-config libcmocka-dev libcjson-dev gnuplot-nox python3)
# Later subsystems append their needs to scripts/deps.extra (one list, one
# place). Targets with heavier needs name their own list as an argument
# (`make fuzz`: scripts/deps-fuzz.extra), so `make build` stays light.
lists=("$@")
[ -f "$(dirname "$0")/deps.extra" ] && lists=("$(dirname "$0")/deps.extra" "${lists[@]}")
for list in "${lists[@]}"; do
  while read -r p; do [ -n "$p" ] && [ "${p#\#}" = "$p" ] && pkgs+=("$p"); done < "$list"
done
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "kcube: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
