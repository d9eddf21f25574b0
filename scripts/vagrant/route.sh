#!/usr/bin/env bash
# Finds the interface holding this VM's private address, routes multicast
# through it and records its name in /etc/manetlab-iface (the --iface of
# the nodes on this VM).
#
#   route.sh IP            (run by vagrant as root at every up)
set -euo pipefail
ip_addr="${1:?usage: route.sh IP}"
iface="$(ip -o -4 addr show | awk -v a="$ip_addr" '{split($4, p, "/"); if (p[1] == a) print $2}' | head -n1)"
[ -n "$iface" ] || { echo "route.sh: no interface has $ip_addr" >&2; exit 1; }
ip link set "$iface" multicast on
ip route replace 224.0.0.0/4 dev "$iface"
echo "$iface" >/etc/manetlab-iface
