#!/usr/bin/env bash
# What running the service needs, and nothing more (`npm start`, `npm run bench`): the npm
# dependencies, installed again when the lockfile changed since the last install. No native module
# is compiled: the regular-expression engine is JavaScript (re2js) and argon2 loads the prebuilt
# N-API binary of its tarball on any Node.js major. The test tools (Chromium, schemathesis) are
# scripts/install-test-tools.sh's; servers are scripts/stack.sh's; the Node.js runtime is
# scripts/node-runtime.sh's.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

stamp=node_modules/.install-stamp
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "[install] npm ci"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$want" >"$stamp"
fi
