#!/usr/bin/env bash
# netns-testbed.sh: run a scenario on K "hosts" built from Linux network
# namespaces on this machine, joined by a bridge, so that frames really
# cross a network (TTL 1, one interface per host), as they would between
# machines or VMs.
#
#   sudo scripts/netns-testbed.sh SCENARIO.yaml --hosts K [--run NAME] [--out DIR] [--bin MANETLAB] [-- RUN FLAGS...]
#
#   sudo scripts/netns-testbed.sh configs/quickstart.yaml --hosts 3
#   sudo scripts/netns-testbed.sh testbed/testdata/twelve.yaml --hosts 3 --out runs/tb -- --json
#
# Layout (every name carries this script's PID, so parallel runs do not
# clash; nothing is added to the machine's own network namespace):
#
#   namespace mlsw<PID>      bridge br0 (multicast snooping off) and one
#                            veth end per host
#   namespaces mlh<PID>-1..K interface mlan0 (the other veth end) with
#                            10.77.0.<i>/24, lo up, route 224.0.0.0/4 via
#                            mlan0
#
# `manetlab run` (outside the namespaces: it does no networking) starts
# the nodes of host i inside mlh<PID>-i with --iface mlan0 --ttl 1, in
# contiguous blocks (--ids-per-process applies as usual), and the mobility
# player inside host 1. Every process writes its trace into --out (the
# namespaces share the file system, which stands in for copying the traces
# home); the launcher writes run.jsonl and log/processes.json (which host
# ran which nodes, hosts numbered 1..K as the namespaces are) and prints
# the summary. The run is named NAME (default SCENARIO-netnsK-TIMESTAMP),
# the name printed first, given to `manetlab run --run` and the default
# --out runs/NAME. Flags after "--" go to `manetlab run`.
#
# On exit, failure, Ctrl-C or SIGTERM the trap stops the run and deletes
# the namespaces, which removes the veths and the bridge with them.
# Namespaces of an earlier run whose script died by SIGKILL are removed at
# the next start.
set -euo pipefail

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
}

scenario="" hosts="" out="" run="" bin="${MANETLAB:-}"
run_flags=()
while [ $# -gt 0 ]; do
  case "$1" in
    --hosts) hosts="${2:?--hosts needs a number}"; shift 2 ;;
    --hosts=*) hosts="${1#*=}"; shift ;;
    --run) run="${2:?--run needs a name}"; shift 2 ;;
    --run=*) run="${1#*=}"; shift ;;
    --out) out="${2:?--out needs a directory}"; shift 2 ;;
    --out=*) out="${1#*=}"; shift ;;
    --bin) bin="${2:?--bin needs a path}"; shift 2 ;;
    --bin=*) bin="${1#*=}"; shift ;;
    -h|--help) usage ;;
    --) shift; run_flags=("$@"); break ;;
    -*) echo "netns-testbed.sh: unknown flag $1 (flags for manetlab run go after --)" >&2; exit 2 ;;
    *) [ -z "$scenario" ] || { echo "netns-testbed.sh: one scenario only" >&2; exit 2; }
       scenario="$1"; shift ;;
  esac
done
[ -n "$scenario" ] && [ -n "$hosts" ] || usage
[[ "$hosts" =~ ^[0-9]+$ ]] && [ "$hosts" -ge 1 ] && [ "$hosts" -le 200 ] ||
  { echo "netns-testbed.sh: --hosts $hosts: want 1 to 200" >&2; exit 2; }
[ -f "$scenario" ] || { echo "netns-testbed.sh: no scenario file $scenario" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "netns-testbed.sh: needs root (network namespaces)" >&2; exit 1; }
command -v ip >/dev/null || { echo "netns-testbed.sh: needs ip (scripts/deps.sh installs iproute2)" >&2; exit 1; }

root="$(cd "$(dirname "$0")/.." && pwd)"
id=$$
sw="mlsw$id"
hostns=()
for i in $(seq 1 "$hosts"); do hostns+=("mlh$id-$i"); done
tmp="$(mktemp -d)"
launcher=""

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [ -n "$launcher" ] && kill -0 "$launcher" 2>/dev/null; then
    kill -INT "$launcher" 2>/dev/null || true
    wait "$launcher" 2>/dev/null || true
  fi
  # Anything still inside our namespaces is ours: the launcher kills its
  # processes, this is the belt to its braces.
  for ns in "${hostns[@]}" "$sw"; do
    if [ -e "/run/netns/$ns" ]; then
      ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null || true
      ip netns del "$ns" 2>/dev/null || true
    fi
  done
  rm -rf "$tmp"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Namespaces of runs whose script was killed before its trap ran.
for f in /run/netns/mlsw* /run/netns/mlh*; do
  [ -e "$f" ] || continue
  n="$(basename "$f")"
  p="${n#mlsw}"; p="${p#mlh}"; p="${p%%-*}"
  [[ "$p" =~ ^[0-9]+$ ]] && [ "$p" != "$id" ] && ! kill -0 "$p" 2>/dev/null || continue
  ip netns pids "$n" 2>/dev/null | xargs -r kill -KILL 2>/dev/null || true
  ip netns del "$n" 2>/dev/null || true
done

if [ -z "$bin" ]; then
  command -v go >/dev/null || { echo "netns-testbed.sh: no go to build manetlab; give --bin" >&2; exit 1; }
  (cd "$root" && go build -o "$tmp/manetlab" ./cmd/manetlab)
  bin="$tmp/manetlab"
fi
[ -x "$bin" ] || { echo "netns-testbed.sh: $bin is not executable" >&2; exit 1; }
for f in "${run_flags[@]}"; do
  case "$f" in
    --run|--run=*) echo "netns-testbed.sh: give --run before -- (the script names the run)" >&2; exit 2 ;;
  esac
done
if [ -z "$run" ]; then
  run="$(basename "${scenario%.*}")-netns$hosts-$(date +%Y%m%d-%H%M%S)"
fi
if [ -z "$out" ]; then
  out="runs/$run"
fi

# The switch.
ip netns add "$sw"
ip -n "$sw" link set lo up
ip -n "$sw" link add br0 type bridge mcast_snooping 0
ip -n "$sw" link set br0 up
# The hosts, each cabled to the switch.
wrap=()
for i in $(seq 1 "$hosts"); do
  h="${hostns[$((i - 1))]}"
  ip netns add "$h"
  ip -n "$sw" link add "p$i" type veth peer name mlan0 netns "$h"
  ip -n "$sw" link set "p$i" master br0
  ip -n "$sw" link set "p$i" up
  ip -n "$h" link set lo up
  ip -n "$h" addr add "10.77.0.$i/24" dev mlan0
  ip -n "$h" link set mlan0 multicast on
  ip -n "$h" link set mlan0 up
  ip -n "$h" route add 224.0.0.0/4 dev mlan0
  wrap+=(--wrap "ip netns exec $h")
done
echo "netns-testbed: run $run: $hosts hosts (${hostns[*]}) on bridge br0 in $sw, 10.77.0.0/24; traces in $out" >&2

# In a session of its own, so that a Ctrl-C on the terminal reaches this
# script only, which passes exactly one SIGINT on (a second would make the
# launcher quit at once, before writing run.jsonl).
setsid "$bin" run "$scenario" --run "$run" --out "$out" --iface mlan0 --ttl 1 "${wrap[@]}" "${run_flags[@]}" &
launcher=$!
set +e
wait "$launcher"
rc=$?
set -e
launcher=""
exit "$rc"
