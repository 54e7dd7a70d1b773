#!/usr/bin/env bash
# Installs the npm dependencies when they are missing or the lockfile changed since the last
# install, and Chromium for the browser test. Servers (MongoDB-compatible, Redis, S3, SMTP sink)
# are installed by scripts/stack.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

stamp=node_modules/.install-stamp
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "[install] npm ci"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$want" > "$stamp"
fi

# Chromium for the browser tests (test/api/browser-cors.test.ts): Debian's package, driven by
# playwright-core, which downloads no browser of its own. Skipped when present or when
# CHROMIUM_PATH names another build. A failure is reported, not fatal: only that test needs it.
if [ -z "${CHROMIUM_PATH:-}" ] && [ ! -x /usr/bin/chromium ]; then
  echo "[install] apt-get install chromium"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  if ! { $sudo apt-get install -y -qq chromium >/dev/null 2>&1 ||
    { $sudo apt-get update -qq && $sudo apt-get install -y -qq chromium >/dev/null; }; }; then
    echo "[install] warning: could not install chromium; the browser test will fail" >&2
  fi
fi
