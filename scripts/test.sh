#!/usr/bin/env bash
# `npm test`: installs what is missing, starts the test stack (real servers), runs lint, the type
# check, the generated-code check, the OpenAPI lint (Redocly and Spectral), the unit and
# integration tests, the contract tests (Dredd through Prism) and the property-based contract run
# (schemathesis), stops the stack, and closes with one line `N passed, N failed`. Exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/env.sh

bash scripts/install.sh || exit 1
bash scripts/install-test-tools.sh || exit 1
bash scripts/stack.sh start test || { bash scripts/stack.sh stop test; exit 1; }
trap 'bash scripts/stack.sh stop test' EXIT
load_env_file .env.test

. scripts/counts.sh

step lint npx eslint .
# The negated patterns keep prettier from walking the running servers' folders at all:
# .prettierignore filters files only after the walk, which fails on a file that a server deletes
# meanwhile or on a folder another user owns.
step format npx prettier --check . '!.stack/**' '!.data/**'
step typecheck npx tsc -p tsconfig.json --noEmit
step typecheck:web npx tsc -p web/tsconfig.json --noEmit
step typecheck:sdk npx tsc -p sdk/tsconfig.json --noEmit
step check:generated npx tsx scripts/generate.ts --check
step lint:spec bash scripts/lint-spec.sh
step build:web bash scripts/build-web.sh
step build:clients bash scripts/build-clients.sh
CHECK_RESPONSE_COVERAGE=1 counted "unit and integration tests" '[0-9]+ passing' '[0-9]+ failing' \
  npx mocha 'test/unit/**/*.test.ts' 'test/api/**/*.test.ts' 'test/e2e/**/*.test.ts'
counted "contract tests" 'contract: [0-9]+ passed' '[0-9]+ failed$' npx tsx test/contract/run.ts
counted "fuzz (schemathesis)" 'fuzz: [0-9]+ passed' '[0-9]+ failed$' npx tsx test/contract/fuzz.ts

counts_summary
