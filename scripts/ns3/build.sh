#!/usr/bin/env bash
# Builds every ns-3 reference program in scripts/ns3 (each *.cc becomes a
# binary of the same name) against Debian's ns-3 (3.37), into OUTDIR
# (default: a new temporary directory). Prints the output directory as its
# last line, so a caller (a Go test, say) can take it with `tail -n1`.
#
#   scripts/ns3/build.sh [OUTDIR]
#
# Needs g++, pkg-config, libns3-dev and libgsl-dev (ns3-core's pkg-config
# file links libgsl by path). When one is missing it installs them with
# apt-get if run as root, and otherwise says what to install and exits 1.
# Set NS3_BUILD_JOBS to compile that many programs at once (default 2).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-}
mods="ns3-core ns3-network ns3-mobility ns3-propagation ns3-wifi ns3-internet ns3-aodv"

missing() {
  local need=()
  command -v g++ >/dev/null 2>&1 || need+=(g++)
  command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
  if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists $mods 2>/dev/null; then
    need+=(libns3-dev)
  fi
  if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists gsl 2>/dev/null; then
    need+=(libgsl-dev)
  fi
  echo "${need[*]}"
}

need=$(missing)
if [ -n "$need" ]; then
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "build.sh: missing $need; install them as root: apt-get install -y $need" >&2
    exit 1
  fi
  echo "build.sh: installing $need" >&2
  export DEBIAN_FRONTEND=noninteractive
  log=$(mktemp)
  if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends $need; } >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "build.sh: could not install $need" >&2
    exit 1
  fi
  rm -f "$log"
  need=$(missing)
  if [ -n "$need" ]; then
    echo "build.sh: still missing $need after apt-get" >&2
    exit 1
  fi
fi

if [ -z "$out" ]; then
  out=$(mktemp -d "${TMPDIR:-/tmp}/manetlab-ns3.XXXXXX")
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
flags=$(pkg-config --cflags --libs $mods)
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

jobs=${NS3_BUILD_JOBS:-2}
pids=()
names=()
fail=0
for src in "$here"/*.cc; do
  name=$(basename "$src" .cc)
  # shellcheck disable=SC2086
  g++ -O2 -std=c++17 "$src" -o "$out/$name" $flags 2>"$logs/$name.log" &
  pids+=($!)
  names+=("$name")
  if [ ${#pids[@]} -ge "$jobs" ]; then
    if ! wait "${pids[0]}"; then
      echo "build.sh: $(basename "${names[0]}") failed:" >&2
      cat "$logs/${names[0]}.log" >&2
      fail=1
    fi
    pids=("${pids[@]:1}")
    names=("${names[@]:1}")
  fi
done
for i in "${!pids[@]}"; do
  if ! wait "${pids[$i]}"; then
    echo "build.sh: ${names[$i]} failed:" >&2
    cat "$logs/${names[$i]}.log" >&2
    fail=1
  fi
done
[ "$fail" -eq 0 ] || exit 1
echo "$out"
