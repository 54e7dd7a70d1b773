#!/usr/bin/env bash
# Installs the npm dependencies when they are missing or the lockfile changed since the last
# install. Servers (MongoDB-compatible, Redis, S3, SMTP sink) are installed by scripts/stack.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

stamp=node_modules/.install-stamp
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "[install] npm ci"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$want" > "$stamp"
fi
