#!/usr/bin/env bash
# Commit messages: a subject of at most 72 characters saying what changed,
# a blank line, and a body saying why. Checked for every commit after
# $base (the last commit before the rule, 2026-12-02); older history is
# left as it is. Exit 0 clean, 1 with the offending commits, 77 = skipped
# (not a git checkout, or a clone without $base: a shallow one, history
# rewritten on landing).
set -uo pipefail
top=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top" || exit 1
base=a05c3fbec7e4c41ddf7156b28726af1bb8457578 # the last commit before the rule
if ! git rev-parse -q --verify "$base^{commit}" >/dev/null 2>&1; then
  echo "check-commits: $base is not in this clone (shallow?); commit messages not checked"
  exit 77
fi
status=0
while read -r commit; do
  subject=$(git log -1 --format=%s "$commit")
  if ((${#subject} > 72)); then
    echo "check-commits: $commit: subject is ${#subject} characters (at most 72): $subject" >&2
    status=1
  fi
  if [[ -z $(git log -1 --format=%b "$commit" | tr -d '[:space:]') ]]; then
    echo "check-commits: $commit: no body saying why: $subject" >&2
    status=1
  fi
done < <(git rev-list --no-merges "$base..HEAD")
exit $status
