# Sourced by the test scripts: counts checks and test runners into `passed` and `failed`, so a run
# can close with one line `N passed, N failed`.
passed=0
failed=0
failures=""
counts_log=$(mktemp)

step() { # a check that counts as one test
  local name=$1; shift
  echo "== $name"
  if "$@"; then passed=$((passed + 1)); else
    failed=$((failed + 1)); failures+="  step: $name"$'\n'; echo "FAILED: $name"
  fi
}

counted() { # a runner whose own summary gives the counts; $2 and $3 are the regexes to read
  local name=$1 pass_re=$2 fail_re=$3; shift 3
  echo "== $name"
  "$@" 2>&1 | tee "$counts_log"
  local code=${PIPESTATUS[0]}
  local p f
  p=$(grep -Eo "$pass_re" "$counts_log" | tail -1 | grep -Eo '[0-9]+' | head -1)
  f=$(grep -Eo "$fail_re" "$counts_log" | tail -1 | grep -Eo '[0-9]+' | head -1)
  passed=$((passed + ${p:-0}))
  failed=$((failed + ${f:-0}))
  if [ "${f:-0}" -gt 0 ]; then
    # mocha numbers each failure "  N) suite": keep it, the title and the first lines of the error
    local listed
    listed=$(grep -E -A3 '^  [0-9]+\) ' "$counts_log" | grep -v '^--$' | sed "s/^/  $name: /")
    # schemathesis heads each failing operation "____ GET /path ____"
    [ -n "$listed" ] || listed=$(grep -E '^_+ [A-Z]+ /.* _+$' "$counts_log" | sed -E "s/^_+ (.*) _+$/  $name: \1/")
    failures+="${listed:-  $name: $f failed (its report is above)}"$'\n'
  fi
  if [ "$code" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then
    failed=$((failed + 1)); failures+="  $name: exit $code"$'\n'; echo "FAILED: $name (exit $code)"
  fi
}

counts_summary() { # the closing line; the exit status says whether anything failed
  rm -f "$counts_log"
  # repeated at the end, where a log that keeps only its tail still shows what failed
  [ -n "$failures" ] && printf 'what failed:\n%s' "$failures"
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
