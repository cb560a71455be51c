#!/usr/bin/env bash
# Renders each man page in packaging/man with groff's man macros, all
# warnings on: a warning fails. Also through man(1) where it is installed.
# Without groff the check is skipped (exit 77).
set -uo pipefail
top=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
if ! command -v groff >/dev/null; then
  echo "check-man-pages: groff not found (Debian: groff-base), skipped"
  exit 77
fi
status=0
pages=("$top"/packaging/man/*.1)
for page in "${pages[@]}"; do
  warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
  if command -v man >/dev/null; then
    warnings+=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$page" 2>&1 >/dev/null)
  fi
  if [[ -n $warnings ]]; then
    echo "check-man-pages: $page:"
    echo "$warnings"
    status=1
  fi
  # Every section a reader looks for.
  for section in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" FILES ENVIRONMENT "SEE ALSO"; do
    if ! grep -q "^\.SH \"\?$section\"\?$" "$page"; then
      echo "check-man-pages: $page has no $section section"
      status=1
    fi
  done
done
if ((status == 0)); then
  echo "ok: ${#pages[@]} man pages render without warnings"
fi
exit $status
