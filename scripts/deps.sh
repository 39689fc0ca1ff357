#!/usr/bin/env bash
# Install what kcube needs to build, test and plot, from Debian's packages.
# Idempotent: packages already present are not fetched again.
set -euo pipefail
pkgs=(build-essential cmake ninja-build pkg-config libcmocka-dev libcjson-dev gnuplot-nox python3)
# Later subsystems append their needs here (one list, one place).
if [ -f "$(dirname "$0")/deps.extra" ]; then
  while read -r p; do [ -n "$p" ] && [ "${p#\#}" = "$p" ] && pkgs+=("$p"); done < "$(dirname "$0")/deps.extra"
fi
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
