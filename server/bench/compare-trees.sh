# Sourced by compare.sh and compare-live.sh: a commit checked out into a worktree of its own, and a
# median. Expects $repo (the repository) and $work (where the worktrees go).

# The worktree of commit $1 (made and installed offline from the pnpm store the first time).
tree() {
  local commit dir
  commit=$(git -C "$repo" rev-parse --short "$1")
  dir="$work/$commit"
  if [ ! -d "$dir" ]; then
    git -C "$repo" worktree add --detach "$dir" "$commit" >/dev/null
    (cd "$dir" && (npx -y pnpm@10 install --offline --frozen-lockfile >/dev/null 2>&1 || npx -y pnpm@10 install --frozen-lockfile >/dev/null))
  fi
  echo "$dir"
}

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
