#!/usr/bin/env bash
# `npm run test:ferretdb`: the unit and API suites (mocha) against FerretDB v1 over PostgreSQL
# instead of mongo-java-server, as a second MongoDB-compatible engine. Not part of `npm test`.
# Installs what is missing (PostgreSQL from Debian, FerretDB built with Go), starts the
# STACK_ENGINE=ferretdb test stack (its own state in .stack/test-ferretdb and .env.test-ferretdb),
# runs the suites, stops the stack and closes with one line `N passed, N failed`.
#
# FerretDB 1.24 lacks some features the suites use; the failures this causes are listed in the
# README ("Second engine: FerretDB"). Extra arguments go to mocha (for example one file or
# --grep). FERRETDB_CONTRACT=1 also runs the contract tests.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/env.sh

# The point of this run is FerretDB: a MONGODB_URI from the caller's shell (often the default
# stack's, from .env.test) would make stack.sh skip it.
unset MONGODB_URI
export STACK_ENGINE=ferretdb

bash scripts/install.sh || exit 1
bash scripts/install-test-tools.sh chromium || exit 1
bash scripts/stack.sh start test || { bash scripts/stack.sh stop test; exit 1; }
trap 'bash scripts/stack.sh stop test' EXIT
load_env_file .env.test-ferretdb

. scripts/counts.sh
t0=$(date +%s)

if [ $# -gt 0 ]; then
  counted "mocha on FerretDB" '[0-9]+ passing' '[0-9]+ failing' npx mocha "$@"
else
  counted "unit and API tests on FerretDB" '[0-9]+ passing' '[0-9]+ failing' \
    npx mocha 'test/unit/**/*.test.ts' 'test/api/**/*.test.ts'
  if [ "${FERRETDB_CONTRACT:-}" = 1 ]; then
    counted "contract tests on FerretDB" 'contract: [0-9]+ passed' '[0-9]+ failed$' npx tsx test/contract/run.ts
  fi
fi

echo "FerretDB run took $(($(date +%s) - t0))s"
counts_summary
