#!/usr/bin/env bash
# Installs the npm dependencies when they are missing, or when the lockfile or the Node.js major
# version changed since the last install (native modules are built for one runtime), Chromium for
# the browser tests and schemathesis for the fuzz step. Servers (MongoDB-compatible, Redis, S3,
# SMTP sink) are installed by scripts/stack.sh; the Node.js runtime by scripts/node-runtime.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

stamp=node_modules/.install-stamp
# The Node ABI counts too: native modules (re2 is not N-API) are built for one Node major.
want="$(sha256sum package-lock.json | cut -d' ' -f1)-abi$(node -p process.versions.modules)"
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

# schemathesis (PyPI) for the property-based contract run (test/contract/fuzz.ts), pinned, in a
# virtualenv of its own under .stack/tools (git-ignored). Debian's python3-venv is installed when
# `python3 -m venv` cannot create one. A failure is reported, not fatal: only that step needs it.
SCHEMATHESIS_VERSION=4.32.5
st_venv=.stack/tools/schemathesis
if [ "$(cat "$st_venv/.version" 2>/dev/null)" != "$SCHEMATHESIS_VERSION" ]; then
  echo "[install] schemathesis $SCHEMATHESIS_VERSION into $st_venv"
  rm -rf "$st_venv"
  mkdir -p .stack/tools
  if ! python3 -m venv "$st_venv" >/dev/null 2>&1; then
    rm -rf "$st_venv"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get install -y -qq python3-venv >/dev/null 2>&1 ||
      { $sudo apt-get update -qq && $sudo apt-get install -y -qq python3-venv >/dev/null 2>&1; } || true
    python3 -m venv "$st_venv" >/dev/null 2>&1 || true
  fi
  if [ -x "$st_venv/bin/pip" ] &&
    "$st_venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"; then
    echo "$SCHEMATHESIS_VERSION" > "$st_venv/.version"
  else
    echo "[install] warning: could not install schemathesis; the fuzz step will fail" >&2
  fi
fi
