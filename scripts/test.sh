#!/usr/bin/env bash
# The project's test command (README "Set up"): vet and every test.
# CI (.ci/run) calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
# As root (CI), install what the tests need first; without it they skip.
if [ "$(id -u)" -eq 0 ]; then
  scripts/deps.sh || echo "test.sh: scripts/deps.sh failed; the tests that need it will skip" >&2
fi
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change: $unformatted" >&2
  exit 1
fi
go vet ./...
go test -count=1 ./...
