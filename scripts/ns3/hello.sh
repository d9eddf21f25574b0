#!/usr/bin/env bash
# hello.sh: manetlab against ns-3 on issue 37's hello-only workload: N
# static nodes on a grid 100 m apart, a 150 m range (7.6 neighbours on
# average at 1,000 nodes, 7.9 at 10,000), a hello a second from every node
# for 60 s. Rows, each run ROUNDS times alternated (manetlab, ns-3,
# manetlab, ...), CPU time (user + system, /usr/bin/time) of the whole
# command:
#
#   - manetlab's ideal medium against ns-3's cheap range-limited channel
#     (hello.cc --channel=range) at 1,000 and 10,000 nodes;
#   - manetlab's DCF medium against ns-3's 802.11b (--channel=wifi) at
#     1,000 nodes.
#
#   scripts/ns3/hello.sh [ROUNDS] [NODES...]   # default 3 rounds, 1000 10000
#
# manetlab runs `sim` with traffic/beacon sending one frame in all (from
# node 1), so that the stack's hellos (radio.hello.period 1 s) are the
# workload; its traces and summary are included in its time. Beside it,
# the simulation alone: the CPU time of `sim`'s Run in-process
# (BenchmarkHello in sim/bench_test.go, 1,000 and 10,000 nodes; no
# start-up, pre-start estimate or summary): the difference is the
# command's fixed costs. Builds the CLI, the sim test binary and the ns-3
# programs (scripts/ns3/build.sh; NS3_BIN=DIR uses the hello program built
# there instead) into a temporary directory, removed at the end. Prints a
# Markdown table. Not part of the test suite.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."
rounds=${1:-3}
shift || true
sizes=("$@")
((${#sizes[@]})) || sizes=(1000 10000)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/manetlab-hello.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "hello.sh: building" >&2
go build -o "$tmp/manetlab" ./cmd/manetlab
go test -c -o "$tmp/sim.test" ./sim
ns3=${NS3_BIN:-}
if [[ -z $ns3 ]]; then
	"$here/build.sh" "$tmp/ns3" >/dev/null
	ns3=$tmp/ns3
fi

# cpu CMD...: runs CMD, prints its user+system CPU seconds.
cpu() {
	/usr/bin/time -f "%U %S" -o "$tmp/time" "$@" >"$tmp/out" 2>&1 || {
		echo "hello.sh: failed: $*" >&2
		tail -5 "$tmp/out" >&2
		exit 1
	}
	awk '{ printf "%.2f", $1 + $2 }' "$tmp/time"
}

scenario() { # scenario N MAC -> path
	local n=$1 cols side
	cols=$(awk -v n="$n" 'BEGIN { c = int(sqrt(n)); if (c * c < n) c++; print c }')
	side=$((cols * 100))
	cat >"$tmp/hello-$n-$2.yaml" <<EOF
name: hello-$n
seed: 1
duration: 60s
nodes: {count: $n, placement: grid}
radio: {propagation: unit-disk, range: 150, mac: $2}
mobility: {model: static, area: [$side, $side]}
protocol: {name: traffic/beacon, params: {from: [1]}}
EOF
	echo "$tmp/hello-$n-$2.yaml"
}

# simcpu N MAC: the simulation alone's CPU seconds (BenchmarkHello), or
# "-" for a size the benchmark does not run.
simcpu() {
	case $1 in
	1000 | 10000) ;;
	*) echo -n -; return ;;
	esac
	(cd "$tmp" && ./sim.test -test.run X -test.bench "^BenchmarkHello\$/^nodes=$1\$/^mac=$2\$" -test.benchtime 1x) >"$tmp/bench" 2>&1 || {
		echo "hello.sh: failed: BenchmarkHello nodes=$1 mac=$2" >&2
		tail -5 "$tmp/bench" >&2
		exit 1
	}
	awk '/cpu-ms\/op/ { for (i = 1; i < NF; i++) if ($(i + 1) == "cpu-ms/op") printf "%.2f", $i / 1000 }' "$tmp/bench"
}

row() { # row N MAC CHANNEL
	local n=$1 mac=$2 ch=$3 path m s a ms=() ss=() as=()
	path=$(scenario "$n" "$mac")
	for ((r = 1; r <= rounds; r++)); do
		echo "hello.sh: $n nodes, manetlab $mac / ns-3 $ch, round $r" >&2
		m=$(cpu "$tmp/manetlab" sim "$path" --quiet --out "$tmp/run")
		rm -rf "$tmp/run"
		s=$(cpu "$ns3/hello" --n="$n" --channel="$ch")
		a=$(simcpu "$n" "$mac")
		ms+=("$m")
		ss+=("$s")
		as+=("$a")
	done
	local deg ratio
	deg=$(grep -o 'mean_neighbours=[0-9.]*' "$tmp/out" | cut -d= -f2)
	ratio=$(paste -d' ' <(printf '%s\n' "${ms[@]}") <(printf '%s\n' "${ss[@]}") | awk '{ printf "%s%.1fx", (NR > 1 ? ", " : ""), $2 / $1 }')
	aratio=$(paste -d' ' <(printf '%s\n' "${as[@]}") <(printf '%s\n' "${ss[@]}") | awk '{ printf "%s%s", (NR > 1 ? ", " : ""), ($1 == "-" || $1 == 0 ? "-" : sprintf("%.1fx", $2 / $1)) }')
	echo "| $n | $deg | manetlab \`$mac\` / ns-3 \`$ch\` | ${ms[*]} | ${as[*]} | ${ss[*]} | $ratio | $aratio |"
}

echo "| nodes | neighbours (mean) | media | manetlab CPU s (whole command) | simulation alone | ns-3 CPU s | ns-3 / manetlab | ns-3 / simulation alone |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for n in "${sizes[@]}"; do
	row "$n" ideal range
done
row "${sizes[0]}" dcf wifi
echo
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end; $(nproc) cores"
