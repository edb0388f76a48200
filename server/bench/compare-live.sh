#!/usr/bin/env bash
# The live-sessions scenario at two trees, in alternating rounds, in one run: what a change costs or
# saves a live room, with the machine's drift spread over both sides.
#
#   server/bench/compare-live.sh <before-commit> <after-commit> [rounds] [participants]
#
# (server/bench/answers-in-process.ts measures the same answers without HTTP, SSE or load generators.)
#
# Each commit is checked out into a worktree under ${TMPDIR:-/tmp} (installed offline from the pnpm
# store). Both sides are driven by the same load generator and targets, this tree's (server/bench is
# copied into the before tree: only the server under test differs). Rounds alternate
# before, after, before, after… (each a fresh server: N join, N streams, `next`, BENCH_LIVE_BROADCASTS
# more moves, N answers at once, the reconnect storm). Prints each round's figures, then the medians
# and after/before. Embedded PGlite unless BENCH_DATABASE_URL is set (each round on a fresh database).
set -euo pipefail
before=${1:?before commit}
after=${2:?after commit}
rounds=${3:-5}
participants=${4:-5000}
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
bench=$(cd "$(dirname "$0")" && pwd)
work=${TMPDIR:-/tmp}/pollkit-bench-compare
mkdir -p "$work"

# shellcheck source=compare-trees.sh
source "$(dirname "$0")/compare-trees.sh"

# On PostgreSQL each round gets a database of its own (pollkit_bench_live, made afresh beside the one
# BENCH_DATABASE_URL names): a room's rows left by the round before would slow the next.
fresh_database() {
  local admin=${BENCH_DATABASE_URL%/*}/postgres
  psql "$admin" -qc "drop database if exists pollkit_bench_live" -c "create database pollkit_bench_live" >/dev/null
  echo "${BENCH_DATABASE_URL%/*}/pollkit_bench_live"
}

# The figures of one round, space-separated (see the header printed below).
round() {
  local dir=$1 json
  json=$(mktemp)
  if [ -n "${BENCH_DATABASE_URL:-}" ]; then export ROUND_DATABASE_URL; ROUND_DATABASE_URL=$(fresh_database); fi
  (cd "$dir/server" && env ${ROUND_DATABASE_URL:+BENCH_DATABASE_URL=$ROUND_DATABASE_URL} \
    BENCH_SCENARIOS=live-sessions BENCH_LIVE_SIZES=$participants BENCH_LIVE_JSON=$json \
    npx tsx --conditions=@pollkit/source bench/run.ts >/dev/null 2>&1) || true
  jq -r '.sizes[0] | [
      (.join.perSec // 0 | floor), (.join.p99Ms // 0 | floor),
      (.delivery.p99Ms // 0 | floor), (.broadcasts.serverCpuUsPerStream // 0 | . * 10 | round / 10), (.broadcasts.serverSystemUsPerStream // 0 | . * 10 | round / 10),
      (.broadcasts.p99Ms // 0 | floor), (.memory.perStreamKb // 0 | . * 10 | round / 10),
      (.answers.perSec // 0 | floor), (.answers.p99Ms // 0 | floor), (.answers.serverCpuSec // 0),
      (.storm.sinceDropSec // 0 | . * 10 | round / 10), (.storm.ok // 0), (.storm.missedNothing // 0),
      (.error // "-" | gsub(" "; "_"))
    ] | join(" ")' "$json"
  rm -f "$json"
}

before_dir=$(tree "$before")
after_dir=$(tree "$after")
# The same load generator on both sides: this tree's harness and targets, the before tree's server.
for file in "$bench"/*.ts "$bench"/targets/*.ts; do cp "$file" "$before_dir/server/bench/${file#"$bench"/}"; done

columns="joins/s join_p99_ms next_p99_ms cpu_us_per_stream_per_broadcast of_it_system_us moves_p99_ms kb_per_stream answers/s answer_p99_ms answers_cpu_s storm_s resumed missed_nothing error"
echo "round side $columns"
declare -a b_rows a_rows
for i in $(seq 1 "$rounds"); do
  row=$(round "$before_dir"); b_rows+=("$row"); echo "$i before($before) $row"
  row=$(round "$after_dir"); a_rows+=("$row"); echo "$i after($after) $row"
done
# Medians per column (the error column left out) and after/before.
n=$(echo "$columns" | wc -w)
for k in $(seq 1 $((n - 1))); do
  name=$(echo "$columns" | cut -d' ' -f"$k")
  mapfile -t bv < <(printf '%s\n' "${b_rows[@]}" | cut -d' ' -f"$k")
  mapfile -t av < <(printf '%s\n' "${a_rows[@]}" | cut -d' ' -f"$k")
  mb=$(median "${bv[@]}"); ma=$(median "${av[@]}")
  echo "median $name: before $mb, after $ma, after/before $(awk -v a="$ma" -v b="$mb" 'BEGIN { printf "%.3f", (b == 0 ? 0 : a / b) }')"
done
