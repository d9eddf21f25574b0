#!/usr/bin/env bash
# Installs what the tests need on a fresh Debian or Ubuntu machine, and
# only what is missing: iproute2 (network namespaces, veth, bridges: the
# netns tests and scripts/netns-testbed.sh), openssh-client and
# openssh-server (run --hosts's test runs an sshd per namespace host; on
# a machine with systemd the package also enables its own sshd), ruby (the Vagrantfile syntax
# check) and chromium (the HTML report's test renders the page in headless
# Chromium, and skips without it), and ns-3 3.37 with what builds its
# programs: g++, pkg-config, libns3-dev and libgsl-dev (the DCF medium's
# tests compile scripts/ns3/*.cc and compare with it), munge, slurmctld,
# slurmd and slurm-client (the sweep's Slurm test starts a single-node
# Slurm of its own), parallel (GNU parallel: the sweep's parallel test)
# and python3-pandas (docs/sweeps.md's pandas query, run by a test with
# Debian's /usr/bin/python3), python3 and nodejs (the any-language
# examples' tests, docs/anylang.md). Idempotent and quiet: it prints one line
# when it installs something, nothing otherwise. scripts/test.sh runs it
# first as root.
#
#   sudo scripts/deps.sh
set -euo pipefail

need=()
command -v ip >/dev/null 2>&1 || need+=(iproute2)
command -v ssh >/dev/null 2>&1 && command -v ssh-keygen >/dev/null 2>&1 || need+=(openssh-client)
[ -x /usr/sbin/sshd ] || command -v sshd >/dev/null 2>&1 || need+=(openssh-server)
command -v ruby >/dev/null 2>&1 || need+=(ruby)
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || need+=(chromium)
command -v g++ >/dev/null 2>&1 || need+=(g++)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
pkg-config --exists ns3-core ns3-wifi 2>/dev/null || need+=(libns3-dev)
pkg-config --exists gsl 2>/dev/null || need+=(libgsl-dev)
[ -x /usr/sbin/munged ] || need+=(munge)
[ -x /usr/sbin/slurmctld ] || need+=(slurmctld)
[ -x /usr/sbin/slurmd ] || need+=(slurmd)
command -v sbatch >/dev/null 2>&1 || need+=(slurm-client)
command -v parallel >/dev/null 2>&1 || need+=(parallel)
[ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import pandas' 2>/dev/null || need+=(python3-pandas)
command -v python3 >/dev/null 2>&1 || need+=(python3)
command -v node >/dev/null 2>&1 || need+=(nodejs)

[ ${#need[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "deps.sh: missing ${need[*]}; run as root, or: sudo apt-get install ${need[*]}" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "deps.sh: missing ${need[*]} and there is no apt-get; install them by hand" >&2
  exit 1
fi
echo "deps.sh: installing ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${need[@]}"; } >"$log" 2>&1; then
  cat "$log" >&2
  echo "deps.sh: could not install ${need[*]}" >&2
  exit 1
fi
