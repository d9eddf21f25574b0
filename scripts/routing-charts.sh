#!/usr/bin/env bash
# The charts of docs/routing.md, "What it changes": frames per election
# (Chang-Roberts, bully) and per critical-section entry (Ricart-Agrawala,
# Lamport, Suzuki-Kasami, token ring) against n on a multi-hop grid,
# flood against AODV. Each is `manetlab sweep ... --html` (the pages go to
# $OUT, default runs/routing-charts); the chart each page draws is then
# taken from it with headless Chromium and written, with the page's
# styles, to docs/img/NAME.svg. Takes about five minutes on two cores.
#
#   scripts/routing-charts.sh            # n = 16, 25, 36, 49, seeds 1-3
#   NS='9|16' SEEDS=1 scripts/routing-charts.sh   # a quick look
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-runs/routing-charts}
NS=${NS:-16|25|36|49}
SEEDS=${SEEDS:-3}
mkdir -p "$OUT" docs/img
go build -o "$OUT/manetlab" ./cmd/manetlab
ml="$OUT/manetlab"
chromium=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$chromium" ]; then
  echo "routing-charts.sh: no Chromium (scripts/deps.sh installs it)" >&2
  exit 1
fi

# The multi-hop grid of docs/routing.md: 150 m unit disk over 600 x 600 m,
# static (a node's neighbours are the four or eight around it).
grid=(--set nodes.placement=grid --set radio.range=150 --set 'mobility.area=[600,600]' --set mobility.model=static)

sweep() { # NAME CONFIG METRIC [ARG...]
  local name=$1 config=$2 metric=$3
  shift 3
  "$ml" sweep "$config" "${grid[@]}" "$@" --vary "nodes.count=$NS" --vary 'routing.protocol=flood|aodv' \
    --seeds "$SEEDS" --metric "$metric" --out "$OUT/$name" --html "$OUT/$name.html" --json >"$OUT/$name.json"
  svg "$name"
}

# svg NAME: the chart of $OUT/NAME.html as a standalone SVG.
svg() {
  local name=$1 profile
  profile=$(mktemp -d)
  "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --user-data-dir="$profile" --virtual-time-budget=5000 \
    --dump-dom "file://$(realpath "$OUT/$name.html")" 2>/dev/null >"$OUT/$name.dom.html"
  rm -rf "$profile"
  local style
  style=$(sed -n '/^<style>/,/^<\/style>/p' "$OUT/$name.html" | grep -E '^(\.|svg|#chart svg)' | sed 's/#chart svg/svg/')
  STYLE="svg { background: #fff; font: 14px/1.4 sans-serif; } $style" perl -0777 -ne \
    'if (/(<svg[^>]*id="chart-svg"[^>]*>)(.*?<\/svg>)/s) { print "$1<style>$ENV{STYLE}</style>$2\n" }' \
    "$OUT/$name.dom.html" >"docs/img/$name.svg"
  if ! grep -q '</svg>' "docs/img/$name.svg"; then
    echo "routing-charts.sh: no chart in $OUT/$name.html" >&2
    exit 1
  fi
  echo "docs/img/$name.svg"
}

sweep routing-ring-frames configs/ring-chang-roberts.yaml frames --set duration=20s
sweep routing-bully-frames configs/bully.yaml frames --set duration=30s --set 'faults=[]' \
  --set 'protocol.params={initiators: one, check: 0}'
sweep routing-mutex-frames configs/mutex-ricart-agrawala.yaml mutex.frames_per_entry \
  --vary 'protocol.name=mutex/ricart-agrawala|mutex/lamport|mutex/suzuki-kasami|mutex/token-ring'
