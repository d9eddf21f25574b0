#!/usr/bin/env bash
# tracediff.sh: do two builds of manetlab read and judge runs the same? For
# work on the trace aggregator (reading, merging, reporting), which must not
# change what it prints.
#
#   scripts/tracediff.sh OLD_BINARY NEW_BINARY      # both, then compare
#   scripts/tracediff.sh --outputs BINARY DIR       # one binary's outputs
#   scripts/tracediff.sh --compare OLD_DIR NEW_DIR  # compare two such
#
# For every shipped config under configs/ (but static-10k, static-100k and static-1m;
# the long ones cut to 20 s), and a few variants (the combined layout, a run
# split between two hosts' directories, a damaged node file), the binary
# runs `sim` (its text summary and its JSON summary, the wall time masked),
# then on the traces: `trace check` (text and --json), `trace report` (text,
# --json and --html), `trace merge` (the merged trace and its report on
# stderr) and `trace export` (shiviz and netanim), each with its exit
# status; the combined quickstart run is also merged with a host's
# directory of node files. Compare prints one line a case and exits 1 if any output differs.
# Everything goes under a temporary directory ($TMPDIR or /tmp), removed at
# the end, but for --outputs's DIR. Not part of the test suite.

set -euo pipefail

usage() {
	sed -n '2,/^$/s/^# \{0,1\}//p' "$0" >&2
	exit 2
}
[[ $# -eq 3 || $# -eq 2 ]] || usage
argv=()
for a in "$@"; do
	[[ $a == --* ]] || a=$(realpath -m "$a")
	argv+=("$a")
done
set -- "${argv[@]}"
cd "$(dirname "$0")/.."

cases=()
for f in configs/*.yaml; do
	name=$(basename "$f" .yaml)
	case $name in
	static-10k | static-100k | static-1m) continue ;;
	vasudevan-paper | aodv-rwp) cases+=("$name|$f --set duration=20s") ;;
	*) cases+=("$name|$f") ;;
	esac
done
cases+=(
	"quickstart-combined|configs/quickstart.yaml --set trace.layout=combined"
	"mutex-lamport-combined|configs/mutex-lamport.yaml --set trace.layout=combined"
	"static-10k-2s|configs/static-10k.yaml --set duration=2s --set nodes.count=1200 --set mobility.area=[3500,3500]"
)

# outputs BIN DIR: every case's outputs under DIR.
outputs() {
	local bin=$1 c name args d r repo
	repo=$(pwd)
	mkdir -p "$out"
	cd "$out" # paths in the outputs are relative, the same in both
	for c in "${cases[@]}"; do
		name=${c%%|*}
		args=${c#*|}
		args=${args//configs\//$repo/configs/}
		d=$name
		r=$d/run
		mkdir -p "$d"
		# shellcheck disable=SC2086 # args is a list of words
		"$bin" sim $args --quiet --out "$r" >"$d/sim.txt" 2>&1 || echo "exit $?" >>"$d/sim.txt"
		# shellcheck disable=SC2086
		"$bin" sim $args --quiet --json --out "$d/run-json" >"$d/sim.json" 2>&1 || echo "exit $?" >>"$d/sim.json"
		rm -rf "$d/run-json"
		sed -i -e '/^simulated /s/ in [^:]*: \([0-9]*\) events ([0-9]*\/s)/ in WALL: \1 events/' \
			-e 's/"wall[a-z_]*": *[0-9.e+-]*/"wall": WALL/g' -e 's/"events_per_s[a-z_]*": *[0-9.e+-]*/"eps": EPS/g' \
			"$d/sim.txt" "$d/sim.json"
		variants "$bin" "$d" "$r" ""
		if [[ $name == quickstart ]]; then
			hosts "$bin" "$d"
			damaged "$bin" "$d"
		fi
		if [[ $name == quickstart-combined ]]; then
			mixed "$bin" "$d" quickstart
		fi
	done
	cd "$repo"
}

# variants BIN CASEDIR RUN TAG: the aggregator's outputs on RUN.
variants() {
	local bin=$1 d=$2 r=$3 t=$4
	run "$d/check$t.txt" "$bin" trace check "$r"
	run "$d/check$t.json" "$bin" trace check "$r" --json
	run "$d/report$t.txt" "$bin" trace report "$r"
	run "$d/report$t.json" "$bin" trace report "$r" --json
	run "$d/html$t.txt" "$bin" trace report "$r" --html "$d/report$t.html"
	run "$d/merge$t.txt" "$bin" trace merge "$r" -o "$d/merged$t.jsonl"
	run "$d/merge$t.json" "$bin" trace merge "$r" --json -o /dev/null
	run "$d/shiviz$t.txt" "$bin" trace export --format shiviz "$r" -o "$d/export$t.shiviz"
	run "$d/netanim$t.txt" "$bin" trace export --format netanim "$r" -o "$d/export$t.xml"
}

# run FILE CMD...: CMD's standard output and error in FILE, with its
# status, without the progress lines (they come every 2 s of wall time).
run() {
	local f=$1
	shift
	"$@" >"$f" 2>&1 || echo "exit $?" >>"$f"
	sed -i -E -e '/^[a-z ]+: html: /d' -e '/^[a-z ]+: [a-z][^:]* ([0-9]+% \(.*\)|[0-9.]+ (M lines|MB|s)|\([0-9]+s\))$/d' "$f"
}

# hosts BIN CASEDIR: the run split between two hosts' directories.
hosts() {
	local bin=$1 d=$2 a=$2/hostA b=$2/hostB n
	mkdir -p "$a" "$b"
	cp "$d/run/run.jsonl" "$a/"
	cp "$d/run/run.jsonl" "$b/"
	for n in "$d"/run/node-*.jsonl; do
		case $n in
		*[13579].jsonl) cp "$n" "$a/" ;;
		*) cp "$n" "$b/" ;;
		esac
	done
	run "$d/hosts-merge.txt" "$bin" trace merge "$a" "$b" -o "$d/hosts-merged.jsonl"
	run "$d/hosts-shiviz.txt" "$bin" trace export --format shiviz "$a" "$b" -o "$d/hosts.shiviz"
	run "$d/hosts-netanim.txt" "$bin" trace export --format netanim "$a" "$b" -o "$d/hosts.xml"
	rm -rf "$a" "$b"
}

# mixed BIN CASEDIR PERNODE: the combined run merged with a host's
# directory of node files (the odd nodes of case PERNODE's run), both ways.
mixed() {
	local bin=$1 d=$2 x=$2/host n
	mkdir -p "$x"
	cp "$3/run/run.jsonl" "$x/"
	for n in "$3"/run/node-*[13579].jsonl; do
		cp "$n" "$x/"
	done
	run "$d/mixed-merge.txt" "$bin" trace merge "$d/run" "$x" -o "$d/mixed-merged.jsonl"
	run "$d/mixed-merge2.txt" "$bin" trace merge "$x" "$d/run" -o "$d/mixed-merged2.jsonl"
	run "$d/mixed-shiviz.txt" "$bin" trace export --format shiviz "$x" "$d/run" -o "$d/mixed.shiviz"
	run "$d/mixed-netanim.txt" "$bin" trace export --format netanim "$d/run" "$x" -o "$d/mixed.xml"
	rm -rf "$x"
}

# damaged BIN CASEDIR: a run with damaged and missing node files.
damaged() {
	local bin=$1 d=$2 x=$2/damaged
	cp -r "$d/run" "$x"
	rm "$x/node-3.jsonl"
	printf 'not json\n{"t":1,"node":4,"ev":"recv"}\n' >>"$x/node-4.jsonl"
	sed -i '1s/"node":5/"node":6/' "$x/node-5.jsonl"
	head -c 300 "$d/run/node-7.jsonl" >"$x/node-7.jsonl"
	sed -n '3p' "$d/run/node-8.jsonl" >>"$x/node-8.jsonl"
	variants "$bin" "$d" "$x" "-damaged"
	rm -rf "$x"
}

# compare OLD NEW: one line a case.
compare() {
	local old=$1 new=$2 status=0 c name
	for c in "${cases[@]}"; do
		name=${c%%|*}
		if diff -r "$old/$name" "$new/$name" >/dev/null; then
			echo "same     $name"
		else
			echo "DIFFERS  $name"
			diff -r "$old/$name" "$new/$name" | head -8 || true
			status=1
		fi
	done
	return $status
}

case $1 in
--outputs)
	[[ $# -eq 3 && -x $2 ]] || usage
	out=$3
	outputs "$2" "$out"
	;;
--compare)
	[[ $# -eq 3 ]] || usage
	compare "$2" "$3"
	;;
*)
	[[ $# -eq 2 && -x $1 && -x $2 ]] || usage
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/manetlab-tracediff.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	out=$tmp/old
	outputs "$1" "$out"
	out=$tmp/new
	outputs "$2" "$out"
	compare "$tmp/old" "$tmp/new"
	;;
esac
