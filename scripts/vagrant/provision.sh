#!/usr/bin/env bash
# Provisions one manetlab VM (Vagrantfile): a synchronised clock, iproute2,
# and /usr/local/bin/manetlab from the static binary the Vagrantfile
# copied in (scripts/vagrant/build.sh builds it on the host). No Go, no
# download but the Debian packages.
#
#   provision.sh IP        (run by vagrant as root, /tmp/manetlab copied in)
set -euo pipefail
ip_addr="${1:?usage: provision.sh IP}"
export DEBIAN_FRONTEND=noninteractive

apt-get update -qq
# chrony: nodes on different VMs start at one wall-clock instant, and run
# --hosts refuses a machine whose clock is off by more than --max-offset.
apt-get install -y -qq --no-install-recommends iproute2 chrony >/dev/null
systemctl enable --now chrony >/dev/null 2>&1 || true

[ -f /tmp/manetlab ] || { echo "provision.sh: no /tmp/manetlab: the Vagrantfile copies bin/manetlab-linux-ARCH (scripts/vagrant/build.sh)" >&2; exit 1; }
install -m 755 /tmp/manetlab /usr/local/bin/manetlab
rm -f /tmp/manetlab
/usr/local/bin/manetlab version
# (scripts/vagrant/route.sh, run next and at every up, routes multicast.)
echo "provision.sh: $(hostname) $ip_addr: $(/usr/local/bin/manetlab version) in /usr/local/bin"
