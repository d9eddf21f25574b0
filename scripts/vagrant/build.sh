#!/usr/bin/env bash
# Builds the static manetlab the VMs get (Vagrantfile: copied in at
# provisioning, so the VMs need no Go and download nothing but packages)
# and that scripts/vagrant/run.sh runs: bin/manetlab-linux-ARCH, for the
# VMs' architecture (amd64 unless VM_ARCH says otherwise).
#
#   scripts/vagrant/build.sh        (run by vagrant before up, provision, reload)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
arch="${VM_ARCH:-amd64}"
command -v go >/dev/null || { echo "build.sh: needs go to build the VMs' static manetlab" >&2; exit 1; }
mkdir -p "$root/bin"
(cd "$root" && CGO_ENABLED=0 GOOS=linux GOARCH="$arch" go build -o "bin/manetlab-linux-$arch" ./cmd/manetlab)
echo "build.sh: bin/manetlab-linux-$arch (static)" >&2
