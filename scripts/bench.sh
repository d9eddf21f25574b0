#!/usr/bin/env bash
# bench.sh: measure manetlab on this machine and print one table.
#
#   scripts/bench.sh [--skip-100k] [--1m]
#   sudo scripts/bench.sh            # as root: the real-node parts too
#   scripts/bench.sh --aggregator [--bin BINARY]
#
# Builds the CLI (and the node package's test binary) once, then measures:
#   - the machine: CPU model, cores, RAM, kernel, Go version, load average
#     at the start (the figures depend on what else runs);
#   - the simulator on configs/static-10k.yaml and configs/static-100k.yaml
#     (wall, user+system CPU and peak RSS from /usr/bin/time; --skip-100k
#     leaves the 100,000-node run out: about a minute, 4 GiB and 2.3 GB of
#     traces; --1m adds configs/static-1m.yaml on both media: on DCF
#     19 minutes of CPU, 15.3 GiB and 30 GB of traces, under
#     `flock /tmp/manetlab-bigmem.lock` on a shared machine); each row gives the
#     pre-start estimate (`sim --estimate`) beside what was measured;
#   - the real node's receive path (root): BenchmarkReceiveBurst in a
#     network namespace finds the highest rate a bare UDP multicast receiver
#     holds without loss, then measures a node process at that rate (frames
#     received of those offered, kernel drops, CPU per frame) and the
#     highest rate the node holds;
#   - 50 real node processes (root): `manetlab run configs/bench-50.yaml`,
#     their CPU and peak RSS from log/usage.json;
#   - the aggregator on about a million trace lines: a 3,300-node grid
#     simulated with per-node traces, then `trace merge`, `trace check`,
#     `trace report`, `trace report --html` and `trace export --format
#     netanim` (wall, CPU, peak RSS each).
#
# --aggregator measures the machine and the aggregator only (about 15 s),
# and --bin BINARY measures that build of manetlab instead of building
# one: two builds side by side (the node parts need the build's source).
#
# Progress goes to standard error, the table (Markdown) to standard output.
# Without root the real-node parts are skipped, and say so in the table.
# Everything is written under a temporary directory ($TMPDIR or /tmp),
# removed at the end however the script ends. It needs GNU time
# (/usr/bin/time), Go and, for the real-node parts, iproute2. It is not
# part of the test suite.

set -euo pipefail

skip100k=0
with1m=0
only=""
given=""
while (($# > 0)); do
	case "$1" in
	--skip-100k) skip100k=1 ;;
	--aggregator) only=aggregator ;;
	--1m) with1m=1 ;;
	--bin)
		[[ $# -ge 2 && -x $2 ]] || {
			echo "bench.sh: --bin wants a built manetlab binary" >&2
			exit 2
		}
		given=$(realpath "$2")
		shift
		;;
	-h | --help)
		sed -n '2,/^$/s/^# \{0,1\}//p' "$0"
		exit 0
		;;
	*)
		echo "bench.sh: unknown argument $1 (want --skip-100k, --1m, --aggregator, --bin BINARY)" >&2
		exit 2
		;;
	esac
	shift
done

cd "$(dirname "$0")/.."
if [[ ! -x /usr/bin/time ]]; then
	echo "bench.sh: needs GNU time at /usr/bin/time (apt-get install time)" >&2
	exit 1
fi
command -v go >/dev/null || {
	echo "bench.sh: needs the go command" >&2
	exit 1
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/manetlab-bench.XXXXXX")
cleanup() { rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

progress() { echo "bench: $(date +%H:%M:%S) $*" >&2; }

rows=()
# row WHAT WALL CPU RSS RESULT: a line of the table.
row() { rows+=("| $1 | $2 | $3 | $4 | $5 |"); }

# measure NAME CMD...: runs CMD with its output in $tmp/NAME.out and .err,
# and sets WALL, CPU (user+sys), RSS and STATUS from /usr/bin/time.
measure() {
	local name=$1
	shift
	STATUS=0
	/usr/bin/time -f "%e %U %S %M" -o "$tmp/$name.time" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" || STATUS=$?
	# sim, run and trace check exit 1 or 2 with their verdict (docs/analysis.md,
	# "Exit statuses"): a measured run, not a failure.
	if ((STATUS == 1 || STATUS == 2)) && grep -q "the verdict is\|a property is invalid" "$tmp/$name.err"; then
		STATUS=0
	fi
	# The figures are time's last line: a command that exits non-zero
	# (a verdict status) or is killed has time's complaint before them.
	read -r w u s m < <(tail -1 "$tmp/$name.time") || true
	WALL="${w} s"
	CPU="$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f s (%.2f + %.2f)", u + s, u, s }')"
	RSS="$(awk -v m="$m" 'BEGIN { printf "%.0f MiB", m / 1024 }')"
	if ((STATUS != 0)); then
		progress "$name exited with status $STATUS; the end of its errors:"
		tail -5 "$tmp/$name.err" >&2
	fi
}

# status prints "exit N" for a non-zero STATUS.
status() { ((STATUS == 0)) || printf '; exit %d' "$STATUS"; }

# --- the machine -------------------------------------------------------------
load=$(cut -d' ' -f1-3 /proc/loadavg)
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
ram=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
row "machine" "" "" "" "${cpu:-unknown CPU}, $(nproc) cores, $ram RAM, Linux $(uname -r), $(go env GOVERSION), load average $load at the start"

bin=$given
if [[ -z $bin ]]; then
	progress "building the CLI"
	go build -o "$tmp/manetlab" ./cmd/manetlab
	bin=$tmp/manetlab
fi

if [[ $only != aggregator ]]; then

# --- the simulator -----------------------------------------------------------
sim() { # sim NAME CONFIG [ARGS...]
	local name=$1 cfg=$2
	shift 2
	progress "sim $cfg $*"
	local est
	est=$("$bin" sim "$cfg" "$@" --estimate | sed -e 's/^manetlab: sim: estimate: [0-9]* nodes for [^:]*: //' -e 's/; from a pilot.*//')
	measure "$name" "$bin" sim "$cfg" "$@" -q --out "$tmp/$name"
	local verdict events
	verdict=$(grep -m1 -o '^verdict: [a-z]*' "$tmp/$name.out" | cut -d' ' -f2 || true)
	events=$(grep -m1 -o '[0-9]* events' "$tmp/$name.out" || true)
	row "sim $cfg $*" "$WALL" "$CPU" "$RSS" "verdict ${verdict:-none}, $events, traces $(du -sh "$tmp/$name" | cut -f1)$(status); estimated: $est"
	rm -rf "${tmp:?}/$name"
}
sim sim10k configs/static-10k.yaml
if ((skip100k)); then
	row "sim configs/static-100k.yaml" "" "" "" "skipped (--skip-100k)"
else
	sim sim100k configs/static-100k.yaml
fi
if ((with1m)); then
	sim sim1m-dcf configs/static-1m.yaml
	sim sim1m-ideal configs/static-1m.yaml --set radio.mac=ideal
fi

# --- the real node -----------------------------------------------------------
if [[ $(id -u) -ne 0 ]]; then
	row "real receive path" "" "" "" "skipped: needs root (a network namespace)"
	row "50 real processes" "" "" "" "skipped: needs root (a network namespace)"
else
	progress "building the node test binary"
	go test -c -o "$tmp/node.test" ./node
	progress "real receive path: BenchmarkReceiveBurst (about 40 s)"
	measure recv "$tmp/node.test" -test.run '^$' -test.bench '^BenchmarkReceiveBurst$' -test.benchtime 1x
	# metric VALUE-UNIT: the value of a unit on the benchmark's result line.
	metric() { awk -v unit="$1" '/^BenchmarkReceiveBurst/ { for (i = 3; i < NF; i++) if ($(i + 1) == unit) { print $i; exit } }' "$tmp/recv.out"; }
	if grep -q '^BenchmarkReceiveBurst' "$tmp/recv.out"; then
		limited=""
		[[ $(metric bare-sender-limited) == 1 ]] && limited=" (all the sender could offer)"
		row "real receive: bare receiver" "" "" "" "$(printf 'holds %.0f frames/s without loss%s; there, 3 x 2 s: %s of offered, %s kernel drops, %s µs CPU and %s allocations/frame' \
			"$(metric offered-frames/s)" "$limited" "$(metric bare-received/offered)" "$(metric bare-kernel-drops)" "$(metric bare-cpu-µs/frame)" "$(metric bare-allocs/frame)")"
		row "real receive: node process" "" "" "" "$(printf 'at that rate, 3 x 2 s: %s of offered (ratio to bare %s), %s kernel drops, %s µs CPU and %s allocations/frame' \
			"$(metric node-received/offered)" "$(metric ratio)" "$(metric node-kernel-drops)" "$(metric node-cpu-µs/frame)" "$(metric node-allocs/frame)")"
		limited=""
		[[ $(metric node-sender-limited) == 1 ]] && limited=", all the sender could offer"
		row "real receive: node maximum" "" "" "" "$(printf 'holds %.0f frames/s without loss%s (the benchmark took %s)' "$(metric node-max-frames/s)" "$limited" "$WALL")"
	else
		row "real receive path" "$WALL" "$CPU" "$RSS" "no result$(status)"
	fi

	progress "50 real processes: manetlab run configs/bench-50.yaml (about 25 s)"
	measure run50 "$bin" run configs/bench-50.yaml -q --out "$tmp/run50"
	u=$tmp/run50/log/usage.json
	if [[ -f $u ]]; then
		# field NAME: a number of log/usage.json.
		field() { sed -n "s/^ *\"$1\": \([0-9]*\).*/\1/p" "$u"; }
		verdict=$(grep -m1 -o '^verdict: [a-z]*' "$tmp/run50.out" | cut -d' ' -f2 || true)
		row "50 real processes" "$WALL" \
			"$(awk -v c="$(field cpu_ns)" -v u="$(field user_ns)" -v s="$(field sys_ns)" 'BEGIN { printf "%.2f s (%.2f + %.2f)", c / 1e9, u / 1e9, s / 1e9 }')" \
			"$(awk -v m="$(field rss_max_bytes)" 'BEGIN { printf "%.1f MiB", m / 1048576 }')" \
			"$(awk -v n="$(field node_processes)" -v e="$(field elapsed_ns)" -v c="$(field cpu_ns)" -v mc="$(field cpu_max_ns)" -v mr="$(field rss_mean_bytes)" -v v="${verdict:-none}" -v st="$(status)" \
				'BEGIN { printf "%d node processes for %.0f s: %.2f cores in all, CPU %.2f s mean and %.2f s max per process, peak RSS %.1f MiB mean; verdict %s%s", n, e / 1e9, c / e, c / n / 1e9, mc / 1e9, mr / 1048576, v, st }')"
	else
		row "50 real processes" "$WALL" "" "" "no log/usage.json$(status)"
	fi
	rm -rf "${tmp:?}/run50"
fi
fi # not --aggregator

# --- the aggregator ----------------------------------------------------------
progress "aggregator: simulating a 3,300-node grid with per-node traces"
agg=$tmp/agg
measure aggsim "$bin" sim configs/static-10k.yaml -q --out "$agg" --set nodes.count=3300 --set 'mobility.area=[5800,5800]' --set trace.layout=per-node
lines=$(cat "$agg"/*.jsonl | wc -l)
row "aggregator input: sim of 3,300 nodes" "$WALL" "$CPU" "$RSS" "$(printf "%d lines in %d files, %s" "$lines" "$(find "$agg" -name '*.jsonl' | wc -l)" "$(du -sh "$agg" | cut -f1)")$(status)"
for step in merge check report html export; do
	progress "aggregator: trace $step"
	case $step in
	merge) measure merge "$bin" trace merge "$agg" -o "$tmp/merged.jsonl" ;;
	check) measure check "$bin" trace check "$agg" ;;
	report) measure report "$bin" trace report "$agg" ;;
	html) measure html "$bin" trace report "$agg" --html "$tmp/report.html" ;;
	export) measure export "$bin" trace export --format netanim "$agg" -o "$tmp/export.xml" ;;
	esac
	case $step in
	merge) result="$(printf "%d lines merged" "$(wc -l <"$tmp/merged.jsonl")")" ;;
	check) result="$(awk 'NR > 1 && $2 ~ /:$/ { sub(":", "", $2); printf "%s%s %s", sep, $1, $2; sep = ", " }' "$tmp/check.out")" ;;
	report) result="$(wc -l <"$tmp/report.out") lines of report" ;;
	html) result="$(du -h "$tmp/report.html" | cut -f1) page" ;;
	export) result="$(du -h "$tmp/export.xml" | cut -f1) NetAnim XML" ;;
	esac
	what="trace $step"
	case $step in
	html) what="trace report --html" ;;
	export) what="trace export --format netanim" ;;
	esac
	row "$what (aggregator)" "$WALL" "$CPU" "$RSS" "$result$(status)"
	rm -f "$tmp/merged.jsonl" "$tmp/export.xml"
done

progress "done"
echo "| what | wall | CPU user+sys (user + sys) | peak RSS | result |"
echo "| --- | --- | --- | --- | --- |"
printf '%s\n' "${rows[@]}"
