#!/usr/bin/env bash
# `npm test`: installs what is missing, starts the test stack (real servers), runs lint, the type
# check, the generated-code check, the OpenAPI lint (Redocly and Spectral), the unit and
# integration tests and the contract tests, stops the stack, and closes with one line
# `N passed, N failed`. Exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/env.sh

bash scripts/install.sh || exit 1
bash scripts/stack.sh start test || { bash scripts/stack.sh stop test; exit 1; }
trap 'bash scripts/stack.sh stop test' EXIT
load_env_file .env.test

passed=0
failed=0
log=$(mktemp)

step() { # a check that counts as one test
  local name=$1; shift
  echo "== $name"
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAILED: $name"; fi
}

counted() { # a runner whose own summary gives the counts; $1 is the regex pair to read
  local name=$1 pass_re=$2 fail_re=$3; shift 3
  echo "== $name"
  "$@" 2>&1 | tee "$log"
  local code=${PIPESTATUS[0]}
  local p f
  p=$(grep -Eo "$pass_re" "$log" | tail -1 | grep -Eo '[0-9]+' | head -1)
  f=$(grep -Eo "$fail_re" "$log" | tail -1 | grep -Eo '[0-9]+' | head -1)
  passed=$((passed + ${p:-0}))
  failed=$((failed + ${f:-0}))
  if [ "$code" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then failed=$((failed + 1)); echo "FAILED: $name (exit $code)"; fi
}

step lint npx eslint .
step format npx prettier --check .
step typecheck npx tsc -p tsconfig.json --noEmit
step check:generated npx tsx scripts/generate.ts --check
step lint:spec bash scripts/lint-spec.sh
CHECK_RESPONSE_COVERAGE=1 counted "unit and integration tests" '[0-9]+ passing' '[0-9]+ failing' \
  npx mocha 'test/unit/**/*.test.ts' 'test/api/**/*.test.ts'
counted "contract tests" 'contract: [0-9]+ passed' '[0-9]+ failed$' npx tsx test/contract/run.ts

rm -f "$log"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
