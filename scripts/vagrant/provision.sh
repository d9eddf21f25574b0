#!/usr/bin/env bash
# Provisions one manetlab VM (Vagrantfile): Go, a synchronised clock, and
# /usr/local/bin/manetlab built from the checkout synced to /vagrant.
#
#   provision.sh IP        (run by vagrant as root; GO_VERSION from the Vagrantfile)
set -euo pipefail
ip_addr="${1:?usage: provision.sh IP}"
go_version="${GO_VERSION:-1.26.8}"
export DEBIAN_FRONTEND=noninteractive

apt-get update -qq
# chrony: nodes on different VMs start at one wall-clock instant (--start),
# and traces are merged by hybrid logical clocks seeded from wall time.
apt-get install -y -qq --no-install-recommends ca-certificates curl iproute2 chrony rsync >/dev/null
systemctl enable --now chrony >/dev/null 2>&1 || true

case "$(uname -m)" in
  x86_64) arch=amd64 ;;
  aarch64|arm64) arch=arm64 ;;
  *) echo "provision.sh: no Go build for $(uname -m)" >&2; exit 1 ;;
esac
if ! /usr/local/go/bin/go version 2>/dev/null | grep -q "go$go_version "; then
  rm -rf /usr/local/go
  curl -fsSL "https://go.dev/dl/go$go_version.linux-$arch.tar.gz" | tar -C /usr/local -xz
fi
echo 'export PATH=$PATH:/usr/local/go/bin' >/etc/profile.d/go.sh

# Build as root from the synced checkout into /usr/local/bin.
cd /vagrant
GOFLAGS=-buildvcs=false HOME=/root /usr/local/go/bin/go build -o /usr/local/bin/manetlab ./cmd/manetlab
/usr/local/bin/manetlab --help >/dev/null
# (scripts/vagrant/route.sh, run next and at every up, routes multicast.)
echo "provision.sh: $(hostname) $ip_addr: $(/usr/local/go/bin/go version), manetlab in /usr/local/bin"
