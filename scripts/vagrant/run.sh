#!/usr/bin/env bash
# Runs a scenario on the three VMs of the Vagrantfile (n1 n2 n3): nodes
# 1..N split in three contiguous blocks, one `manetlab node` process per
# VM hosting its block, with --iface the VM's private interface and
# --ttl 1; the mobility player on n1; all with one start time 20 s ahead.
# When the nodes have stopped, the traces are copied home into --out, and
# `manetlab run --collected` writes run.jsonl and prints the summary.
#
#   vagrant up
#   scripts/vagrant/run.sh configs/quickstart.yaml --nodes 20 [--out DIR] [-- FLAGS...]
#
# FLAGS go to every node, the player and the final summary: --set, --seed,
# --key-file (a path valid in the VMs, e.g. under /vagrant).
#
# The scenario path is relative to this checkout (seen as /vagrant in the
# VMs; the script runs `vagrant rsync` first). The fault schedule is not
# applied (nor recorded: run --collected takes faults from the traces
# only); give a scenario without faults, or --set faults=[] after --, to
# judge the run you meant. Problems across the VMs (a VM's traces
# missing, a node without the key, late starts) make it exit 3.
# Ctrl-C stops the nodes (SIGTERM by PID) and still collects the traces.
set -euo pipefail

scenario="" nodes="" out="" extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --nodes) nodes="${2:?--nodes needs a number}"; shift 2 ;;
    --out) out="${2:?--out needs a directory}"; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -*) echo "run.sh: unknown flag $1" >&2; exit 2 ;;
    *) scenario="$1"; shift ;;
  esac
done
[ -n "$scenario" ] && [ -n "$nodes" ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2; }
[[ "$nodes" =~ ^[0-9]+$ ]] && [ "$nodes" -ge 3 ] || { echo "run.sh: --nodes $nodes: want 3 or more" >&2; exit 2; }

root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
[ -f "$scenario" ] || { echo "run.sh: no scenario $scenario in $root" >&2; exit 2; }
vms=(n1 n2 n3)
run="$(basename "${scenario%.*}")-vms-$(date +%Y%m%d-%H%M%S)"
out="${out:-runs/$run}"
tmp="$(mktemp -d)"
started=0

ssh_vm() { ssh -F "$tmp/ssh_config" -o LogLevel=ERROR "$@"; }

stop_nodes() {
  for vm in "${vms[@]}"; do
    ssh_vm "$vm" "cat /tmp/$run/*.pid 2>/dev/null | xargs -r kill -TERM 2>/dev/null; true" || true
  done
}

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  [ "$started" -eq 1 ] && [ "$rc" -ne 0 ] && stop_nodes
  rm -rf "$tmp"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "run.sh: syncing the checkout to the VMs" >&2
vagrant rsync >/dev/null
vagrant ssh-config "${vms[@]}" >"$tmp/ssh_config"
(cd "$root" && go build -o "$tmp/manetlab" ./cmd/manetlab)

start=$(( ($(date +%s) + 20) * 1000000000 ))
extra_q=""
[ ${#extra[@]} -eq 0 ] || extra_q="$(printf ' %q' "${extra[@]}")"
common="--run $run --start $start --iface \$(cat /etc/manetlab-iface) --ttl 1$extra_q"
for i in 0 1 2; do
  lo=$(( i * nodes / 3 + 1 )) hi=$(( (i + 1) * nodes / 3 ))
  vm="${vms[$i]}"
  cmd="mkdir -p /tmp/$run/log && cd /vagrant &&
    { setsid manetlab node --scenario '$scenario' --ids $lo-$hi --out /tmp/$run $common \
        </dev/null >/tmp/$run/log/$vm-node.log 2>&1 & echo \$! >/tmp/$run/node.pid; }"
  if [ "$i" -eq 0 ]; then
    cmd="$cmd && { setsid manetlab mobility play '$scenario' $common \
        </dev/null >/tmp/$run/log/$vm-player.log 2>&1 & echo \$! >/tmp/$run/player.pid; }"
  fi
  ssh_vm "$vm" "$cmd"
  started=1
  echo "run.sh: $vm runs nodes $lo-$hi" >&2
done

# Ctrl-C from here on stops the nodes and still collects their traces.
trap 'echo "run.sh: stopping the nodes" >&2; stop_nodes' INT
echo "run.sh: run $run starts at $(date -d "@$(( start / 1000000000 ))" +%T); waiting for the nodes to stop" >&2
for vm in "${vms[@]}"; do
  ssh_vm "$vm" "while cat /tmp/$run/*.pid | xargs -r kill -0 2>/dev/null; do sleep 1; done" ||
    { echo "run.sh: lost $vm; collecting what there is" >&2; }
done

mkdir -p "$out"
for vm in "${vms[@]}"; do
  ssh_vm "$vm" "tar -C /tmp/$run -cf - --exclude='*.pid' ." | tar -C "$out" -xf -
done
echo "run.sh: traces of $run in $out" >&2
"$tmp/manetlab" run "$scenario" --collected --run "$run" --out "$out" "${extra[@]}"
