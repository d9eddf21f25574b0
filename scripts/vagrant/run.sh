#!/usr/bin/env bash
# Runs a scenario on the three VMs of the Vagrantfile (n1 n2 n3) with
# `manetlab run --hosts`: this machine's own manetlab, built here for its
# platform (bin/manetlab-home: macOS or Linux, any architecture), with the
# VMs' static Linux binary of scripts/vagrant/build.sh for them
# (--host-bin), the VMs' ssh configuration from `vagrant ssh-config`, and on each VM the
# interface of its private address (/etc/manetlab-iface, written by
# route.sh). The nodes are split in three contiguous blocks, the player
# runs on n1, the faults are applied on the VMs, the traces stream home
# into --out, and the summary is printed.
#
#   vagrant up
#   scripts/vagrant/run.sh configs/quickstart.yaml [--out DIR] [-- RUN FLAGS...]
#
# RUN FLAGS go to `manetlab run` (--set, --seed, --key-file, --json...).
# Ctrl-C stops the run on every VM and still writes what was gathered.
# Problems across the VMs (a VM's traces missing, a node without the
# key, late starts) make it exit 3. Works with macOS's bash 3.2.
set -euo pipefail

scenario="" out="" extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="${2:?--out needs a directory}"; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -*) echo "run.sh: unknown flag $1 (flags for manetlab run go after --)" >&2; exit 2 ;;
    *) scenario="$1"; shift ;;
  esac
done
[ -n "$scenario" ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ -f "$scenario" ] || { echo "run.sh: no scenario $scenario" >&2; exit 2; }

root="$(cd "$(dirname "$0")/../.." && pwd)"
vms=(n1 n2 n3)
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

"$root/scripts/vagrant/build.sh"
vmbin="$root/bin/manetlab-linux-${VM_ARCH:-amd64}"
# This machine's own manetlab, whatever its platform: static, so that it
# can also be copied to a VM of its platform.
(cd "$root" && CGO_ENABLED=0 go build -o bin/manetlab-home ./cmd/manetlab)
bin="$root/bin/manetlab-home"
(cd "$root" && vagrant ssh-config "${vms[@]}") >"$tmp/ssh_config"
hosts=()
for vm in "${vms[@]}"; do
  iface="$(ssh -F "$tmp/ssh_config" -o BatchMode=yes -o LogLevel=ERROR "$vm" cat /etc/manetlab-iface)" ||
    { echo "run.sh: cannot read /etc/manetlab-iface on $vm: is it up (vagrant up)?" >&2; exit 1; }
  hosts+=("$vm iface=$iface")
done
list="$(IFS=,; echo "${hosts[*]}")"
args=(run "$scenario" --hosts "$list" --ssh-config "$tmp/ssh_config" --ttl 1 --host-bin "$vmbin")
[ -z "$out" ] || args+=(--out "$out")
# exec would leave the temporary ssh configuration behind. An empty
# array's "${a[@]}" is an unbound variable to bash 3.2 under set -u:
# ${a[@]+"${a[@]}"} expands to nothing then.
"$bin" "${args[@]}" ${extra[@]+"${extra[@]}"}
