#!/usr/bin/env bash
# One scenario at two commits, in alternating rounds, in one run: what a change costs (or wins), with
# the machine's drift spread over both sides — so a regression shows the day it lands.
#
#   server/bench/compare.sh <scenario> <before-commit> <after-commit> [rounds]
#   BENCH_DATABASE_URL=postgres://… server/bench/compare.sh votes HEAD~3 HEAD 5
#   (root: npx -y pnpm@10 bench:compare votes HEAD~3 HEAD)
#
# scenario: `votes` (POST /polls/{id}/votes against the naive one-INSERT baseline, vote-ingestion.ts),
# `get-poll` (GET /polls/{id} against a bare Fastify route, get-poll.ts), or `live-sessions`
# (compare-live.sh: N participants answering at once; `participants` as a fifth argument).
#
# Each commit is checked out into a worktree under ${TMPDIR:-/tmp}/pollkit-bench-compare (installed
# offline from the pnpm store). Each round runs the scenario once per side, before then after, with
# its own baseline in the same run (BENCH_DURATION seconds, 10 by default), and prints both figures
# and their ratio; at the end, the medians and after/before of the medians. The baselines do not
# change between the trees, so they show the machine's drift; the ratios are what to compare.
# Embedded PGlite unless BENCH_DATABASE_URL is set.
set -euo pipefail
scenario=${1:?scenario: votes, get-poll or live-sessions}
before=${2:?before commit}
after=${3:?after commit}
rounds=${4:-5}
here=$(cd "$(dirname "$0")" && pwd)
if [ "$scenario" = live-sessions ]; then exec "$here/compare-live.sh" "$before" "$after" "$rounds" "${5:-5000}"; fi
case "$scenario" in
  votes) name=vote-ingestion ;;
  get-poll) name=get-poll ;;
  *) echo "unknown scenario: $scenario (votes, get-poll, live-sessions)" >&2; exit 2 ;;
esac
repo=$(git -C "$here" rev-parse --show-toplevel)
work=${TMPDIR:-/tmp}/pollkit-bench-compare
mkdir -p "$work"

# shellcheck source=compare-trees.sh
source "$(dirname "$0")/compare-trees.sh"

# One run of the scenario in a tree: "<pollkit per s> <baseline per s> <pollkit p99 ms>".
round() {
  local log
  log=$(cd "$1/server" && BENCH_SCENARIOS=$name BENCH_ROUNDS=1 npx tsx --conditions=@pollkit/source bench/run.ts 2>&1)
  # The table's rows: | target | per second | p50 | p99 | non-2xx | errors |
  echo "$log" | awk -F'|' '
    /^\| (naive baseline|bare Fastify)/ { gsub(/[ ,]/, "", $3); base = $3 }
    /^\| Pollkit/ { gsub(/[ ,]/, "", $3); gsub(/[ ,]/, "", $5); pk = $3; p99 = $5 }
    END { if (pk == "" || base == "") exit 1; print pk, base, p99 }' || { echo "$log" >&2; return 1; }
}

before_dir=$(tree "$before")
after_dir=$(tree "$after")
echo "$scenario at $before (before) and $after (after); ${BENCH_DATABASE_URL:+PostgreSQL }${BENCH_DATABASE_URL:-embedded PGlite}; $rounds rounds"
echo "| round | side | Pollkit /s | baseline /s | ratio | Pollkit p99 ms |"
echo "|---:|---|---:|---:|---:|---:|"
declare -a b_ratio a_ratio b_rate a_rate
for i in $(seq 1 "$rounds"); do
  for side in before after; do
    dir=$before_dir; [ "$side" = after ] && dir=$after_dir
    read -r pk base p99 < <(round "$dir")
    ratio=$(awk -v a="$pk" -v b="$base" 'BEGIN { printf "%.3f", a / b }')
    if [ "$side" = before ]; then b_ratio+=("$ratio"); b_rate+=("$pk"); else a_ratio+=("$ratio"); a_rate+=("$pk"); fi
    echo "| $i | $side | $pk | $base | $ratio | $p99 |"
  done
done
mb=$(median "${b_ratio[@]}"); ma=$(median "${a_ratio[@]}")
rb=$(median "${b_rate[@]}"); ra=$(median "${a_rate[@]}")
echo
echo "median ratio to the baseline: before $mb, after $ma"
echo "median Pollkit /s: before $rb, after $ra (after/before $(awk -v a="$ra" -v b="$rb" 'BEGIN { printf "%.3f", a / b }'))"
