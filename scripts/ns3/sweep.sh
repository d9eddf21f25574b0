#!/usr/bin/env bash
# Runs every case of the ns-3 reference programs over --run=1..N (default 10)
# and prints the README's figures as Markdown tables: the mean over the runs
# and [min, max]. BINDIR holds the programs build.sh built; without it,
# build.sh builds them into a temporary directory first.
#
#   scripts/ns3/sweep.sh [BINDIR] [N]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-}
runs=${2:-10}
if [ -z "$bin" ]; then
  bin=$("$here/build.sh" | tail -n1)
fi

# stat FILE KEY...: one table cell per key: mean [min, max] over the lines
# of FILE (each a run's "key=value key=value ..."); a value that is not a
# non-negative number (flood's t_all_ms=never, -1 for "none") is left out
# and counted.
stat() {
  local f=$1
  shift
  for k in "$@"; do
    awk -v k="$k" '
      { v = ""
        for (i = 1; i <= NF; i++) { split($i, a, "="); if (a[1] == k) v = a[2] }
        if (v ~ /^[0-9.]+$/) { n++; s += v; if (n == 1 || v + 0 < lo) lo = v + 0; if (n == 1 || v + 0 > hi) hi = v + 0; if (v != int(v)) frac = 1 } else bad++ }
      END { if (n == 0) { printf " none |"; exit }
            m = s / n
            if (!frac) fmt = "%.1f [%d, %d]"
            else if (hi >= 1000) fmt = "%.0f [%.0f, %.0f]"
            else fmt = "%.3f [%.3f, %.3f]"
            printf " " fmt, m, lo, hi
            if (bad) printf " (none in %d of %d runs)", bad, n + bad
            printf " |" }' "$f"
  done
  echo
}

# median FILE KEY: one table cell, the median over the runs with a number
median() {
  awk -v k="$2" '{ for (i = 1; i <= NF; i++) { split($i, a, "="); if (a[1] == k && a[2] ~ /^[0-9.]+$/) print a[2] } }' "$1" |
    sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print " none |"; else printf " %.3f |\n", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# one line per run, key=value separated by spaces; wall_ms measured here
runall() { # OUT PROG ARGS...
  local out=$1 prog=$2
  shift 2
  : >"$out"
  for r in $(seq 1 "$runs"); do
    local t0 t1
    t0=$(date +%s%N)
    line=$("$bin/$prog" "$@" --run="$r" | grep -v '^#' | tr '\n' ' ')
    t1=$(date +%s%N)
    echo "$line wall_ms=$(((t1 - t0) / 1000000))" >>"$out"
  done
}

echo "### AODV (aodv): routing control, mean [min, max] over --run=1..$runs"
echo
echo "| case | RREQ frames | RREQ originated | RREP frames | RREP frames on the air (MAC retries too) | RERR frames | RREP-ACK frames | hello frames | control bytes (IP, no hellos) | wall ms |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for c in grid rwp; do
  for arp in static dynamic; do
    runall "$tmp/a_${c}_$arp" aodv --case=$c --arp=$arp
    printf "| %s, arp=%s |" "$c" "$arp"
    stat "$tmp/a_${c}_$arp" rreq_frames rreq_originated rrep_frames rrep_phy_frames rerr_frames rrep_ack_frames \
      hello_frames ctrl_bytes wall_ms
  done
done
echo
echo "### AODV (aodv): data, mean [min, max] over --run=1..$runs"
echo
echo "| case | sent | delivered | delivery ratio | avg hops | first packet latency (ms) | later packets' median latency (ms) | data frames / delivered |"
echo "|---|---|---|---|---|---|---|---|"
for c in grid rwp; do
  for arp in static dynamic; do
    printf "| %s, arp=%s |" "$c" "$arp"
    stat "$tmp/a_${c}_$arp" data_sent data_received delivery_ratio avg_hops first_latency_ms later_latency_median_ms \
      data_frames_per_delivered
  done
done
echo
echo "### 802.11b broadcast contention (contention), 100-byte frames, all in range"
echo
echo "| mode | N | fraction received | latency p50 (us) | latency p90 (us) | wall ms |"
echo "|---|---|---|---|---|---|"
for mode in same rand10 hello; do
  for n in 5 20 100; do
    runall "$tmp/c" contention --n=$n --mode=$mode
    printf "| %s | %s |" "$mode" "$n"
    stat "$tmp/c" frac p50 p90 wall_ms
  done
done
echo
echo "### Flood on the 10x10 grid (flood), RangePropagationLossModel 150 m"
echo
echo "| source | relay jitter | fraction reached | time all reached (ms) | median of that over runs (ms) | last reached (ms) | wall ms |"
echo "|---|---|---|---|---|---|---|"
for src in 0 44; do
  for j in 1000 0; do
    runall "$tmp/f" flood --src=$src --jitter_us=$j
    printf "| %s | %s us |" "$([ $src = 0 ] && echo "corner (0)" || echo "centre (44)")" "$j"
    stat "$tmp/f" frac t_all_ms | tr -d '\n'
    median "$tmp/f" t_all_ms | tr -d '\n'
    stat "$tmp/f" t_last_reached_ms wall_ms
  done
done
echo
echo "### 802.11b acknowledged unicasts (unicast), 100-byte frames queued 1 us apart from 1 s + U[0, 10 ms)"
echo
echo "| case | fraction received | transmissions a frame | latency p50 (us) | last received (us) | last given up (us) | wall ms |"
echo "|---|---|---|---|---|---|---|"
for c in "sink --n=10 --count=10" "sink --n=20 --count=5" "hidden --count=20" "far --count=5"; do
  # shellcheck disable=SC2086
  runall "$tmp/u" unicast --mode=$c --period_us=1
  printf "| %s |" "$c"
  stat "$tmp/u" frac tx_per_frame p50 last_rx_after_first_tx_us last_fail_after_first_tx_us wall_ms
done
