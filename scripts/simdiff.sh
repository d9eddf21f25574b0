#!/usr/bin/env bash
# simdiff.sh: do two builds of manetlab simulate the same? For work on the
# simulator's speed, which must not change what it computes.
#
#   scripts/simdiff.sh OLD_BINARY NEW_BINARY
#
# Runs `sim` with each binary on a set of scenarios (the DCF medium on the
# unit disk and on log-distance, flooding and AODV, an election with a
# crash and a recovery, mobility, mutual exclusion, 10,000 nodes for 5 s,
# and the ideal medium) and compares their traces byte for byte and their
# summaries but for the line with the wall time. Prints one line a
# scenario; exits 1 if any differs. Everything goes under a temporary
# directory ($TMPDIR or /tmp), removed at the end. Not part of the test
# suite.

set -euo pipefail

if [[ $# -ne 2 || ! -x $1 || ! -x $2 ]]; then
	echo "usage: scripts/simdiff.sh OLD_BINARY NEW_BINARY (two built manetlab binaries)" >&2
	exit 2
fi
old=$(realpath "$1")
new=$(realpath "$2")
cd "$(dirname "$0")/.."
tmp=$(mktemp -d "${TMPDIR:-/tmp}/manetlab-simdiff.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

cases=(
	"quickstart|configs/quickstart.yaml"
	"quickstart-ideal|configs/quickstart.yaml --set radio.mac=ideal"
	"static-10k-5s|configs/static-10k.yaml --set duration=5s"
	"aodv-grid|configs/aodv-grid.yaml"
	"aodv-rwp|configs/aodv-rwp.yaml"
	"bully|configs/bully.yaml"
	"mutex-lamport|configs/mutex-lamport.yaml"
	"mutex-compare|configs/mutex-compare.yaml"
	"lossy-dcf|configs/lossy.yaml --set radio.mac=dcf"
	"two-ray-dcf|configs/quickstart.yaml --set radio.propagation=two-ray --seed 3"
)
status=0
for c in "${cases[@]}"; do
	name=${c%%|*}
	args=${c#*|}
	for b in old new; do
		bin=$old
		[[ $b == new ]] && bin=$new
		# sim exits with its verdict's status (docs/analysis.md, "Exit
		# statuses"): 1 or 2 with "the verdict is" ran; anything else failed.
		rc=0
		# shellcheck disable=SC2086 # args is a list of words
		"$bin" sim $args --quiet --out "$tmp/$b-$name" >"$tmp/$b-$name.txt" 2>&1 || rc=$?
		if ((rc != 0)) && ! { ((rc <= 2)) && grep -q "the verdict is" "$tmp/$b-$name.txt"; }; then
			echo "simdiff.sh: $b binary failed on $name:" >&2
			tail -5 "$tmp/$b-$name.txt" >&2
			exit 1
		fi
		sed -i -e '/^simulated /s/ in [^:]*: \([0-9]*\) events ([0-9]*\/s)/ in WALL: \1 events/' -e "s|$tmp/$b-|DIR/|g" "$tmp/$b-$name.txt"
	done
	if diff -r "$tmp/old-$name" "$tmp/new-$name" >/dev/null && diff "$tmp/old-$name.txt" "$tmp/new-$name.txt" >/dev/null; then
		echo "same     $name ($(cat "$tmp/new-$name"/*.jsonl | wc -l) trace lines)"
	else
		echo "DIFFERS  $name"
		diff "$tmp/old-$name.txt" "$tmp/new-$name.txt" | head -5 || true
		status=1
	fi
done
exit $status
