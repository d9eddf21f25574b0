#!/usr/bin/env bash
# The project's test command (README "Set up"): vet and every test.
# CI (.ci/run) calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
# As root (CI), install what the tests need first; without it they skip.
# CI must run the namespace tests, so there a failed install fails the run.
if [ "$(id -u)" -eq 0 ]; then
  if ! scripts/deps.sh; then
    if [ "${CI:-}" = "true" ]; then
      echo "test.sh: scripts/deps.sh failed" >&2
      exit 1
    fi
    echo "test.sh: scripts/deps.sh failed; the tests that need it will skip" >&2
  fi
fi
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change: $unformatted" >&2
  exit 1
fi
go vet ./...
# -timeout: cmd/manetlab alone runs 5-6 min on an idle 2-core machine and
# more when it is loaded; the default 10 min per package is too tight.
go test -count=1 -timeout 30m ./...
# The packages with goroutines, again under the race detector.
go test -count=1 -timeout 30m -race ./sim ./node ./node/launch ./trace/collect ./node/link ./trace/report ./studio
# Every fuzz target for a few seconds ($FUZZTIME, default 4s; about a minute
# in all), with a short minimisation (new inputs are minimised for at most
# 100 ms, so that it does not eat a target's budget: FuzzStream ran 10
# inputs in 4 s before). A crash fails the run and leaves its input in the
# package's testdata/fuzz/FuzzXxx/: commit it with the fix, as a seed.
# Go's fuzzer sometimes reports "context deadline exceeded" when its time
# runs out while a worker is still busy (on a loaded machine), without a
# failing input: such a run is tried once more; a real failure writes its
# input and fails at once.
fuzzlog=$(mktemp)
trap 'rm -f "$fuzzlog"' EXIT
for target in trace/collect:FuzzConn trace/collect:FuzzStream trace:FuzzScan scenario:FuzzParse \
  mobility:FuzzParseNS2 mobility:FuzzReadNS2File sim:FuzzReadSchedule node/wire:FuzzDecodeFrame node/wire:FuzzDecodeBody node:FuzzDecodeStore; do
  for try in 1 2; do
    if go test -run='^$' -fuzz="^${target#*:}\$" -fuzztime="${FUZZTIME:-4s}" -fuzzminimizetime=100ms "./${target%%:*}" >"$fuzzlog" 2>&1; then
      cat "$fuzzlog"
      break
    fi
    cat "$fuzzlog"
    if [ "$try" = 2 ] || grep -q "Failing input written to" "$fuzzlog" || ! grep -q "context deadline exceeded" "$fuzzlog"; then
      exit 1
    fi
    echo "test.sh: ${target#*:} ran out of time without a failing input; once more" >&2
  done
done
