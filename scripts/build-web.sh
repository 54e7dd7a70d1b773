#!/usr/bin/env bash
# Builds the web dashboard (web/, React + Vite) into dist/web when it is missing or stale: the
# stamp is a hash of web/, the generated dashboard types and document (its form validators are
# compiled from it), and the lockfile.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

stamp=dist/.web-stamp
want=$(find web generated/dashboard.d.ts generated/dashboard.openapi.json package-lock.json -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
if [ -f dist/web/index.html ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi
echo "[build:web] building the web dashboard into dist/web"
npx vite build --config web/vite.config.ts --logLevel warn
echo "$want" > "$stamp"
