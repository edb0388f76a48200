#!/usr/bin/env bash
# The live-sessions scenario at two trees, in alternating rounds, in one run: what a change costs the
# answers of a live room, with the machine's drift spread over both sides.
#
#   server/bench/compare-live.sh <before-commit> <after-commit> [rounds] [participants]
#
# (server/bench/answers-in-process.ts measures the same answers without HTTP, SSE or load generators.)
#
# Each commit is checked out into a worktree under ${TMPDIR:-/tmp} (installed offline from the pnpm
# store), then rounds alternate before, after, before, after… (each a fresh server: N join, N streams,
# `next`, N answers at once). Prints each round's answers accepted per second and join rate, then the
# medians and the after/before ratio, of the rate and of the server's CPU seconds for the answers (the
# latter steadier on a machine shared with other work). Embedded PGlite unless BENCH_DATABASE_URL is set.
set -euo pipefail
before=${1:?before commit}
after=${2:?after commit}
rounds=${3:-5}
participants=${4:-5000}
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
work=${TMPDIR:-/tmp}/pollkit-bench-compare
mkdir -p "$work"

# shellcheck source=compare-trees.sh
source "$(dirname "$0")/compare-trees.sh"

round() {
  local dir=$1 log
  log=$(cd "$dir/server" && BENCH_SCENARIOS=live-sessions BENCH_LIVE_SIZES=$participants \
    npx tsx --conditions=@pollkit/source bench/run.ts 2>&1)
  # The answers table's row: | N | accepted | refused | accepted/s | p50 | p99 | counted | CPU |
  local answers joins n
  n=$(echo "$participants" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta')
  answers=$(echo "$log" | awk -F'|' -v n="$n" \
    '$2 ~ n && NF == 10 { gsub(/[ ,]/, "", $5); gsub(/[ ,]/, "", $7); gsub(/[ ,]/, "", $9); print $5, $7, $9 }' | tail -1)
  joins=$(echo "$log" | awk -F'|' -v n="$n" \
    '$2 ~ n && NF > 12 { gsub(/[ ,]/, "", $3); print $3 }' | tail -1)
  echo "$answers $joins"
}

before_dir=$(tree "$before")
after_dir=$(tree "$after")
declare -a b_rates a_rates b_cpu a_cpu
echo "round | side | answers accepted/s | answer p99 ms | server CPU s for the answers | joins/s"
for i in $(seq 1 "$rounds"); do
  read -r rate p99 cpu joins < <(round "$before_dir")
  b_rates+=("$rate"); b_cpu+=("$cpu"); echo "$i | before ($before) | $rate | $p99 | $cpu | $joins"
  read -r rate p99 cpu joins < <(round "$after_dir")
  a_rates+=("$rate"); a_cpu+=("$cpu"); echo "$i | after ($after) | $rate | $p99 | $cpu | $joins"
done
mb=$(median "${b_rates[@]}"); ma=$(median "${a_rates[@]}")
echo "median answers/s: before $mb, after $ma, after/before $(awk -v a="$ma" -v b="$mb" 'BEGIN { printf "%.3f", a / b }')"
cb=$(median "${b_cpu[@]}"); ca=$(median "${a_cpu[@]}")
echo "median server CPU s for the answers: before $cb, after $ca, after/before $(awk -v a="$ca" -v b="$cb" 'BEGIN { printf "%.3f", a / b }')"
