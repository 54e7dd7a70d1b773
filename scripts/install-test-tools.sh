#!/usr/bin/env bash
# The tools only the tests use, for `npm test` and the commands that need one of them:
#
#   bash scripts/install-test-tools.sh [chromium] [schemathesis]     (default: both)
#
# Neither is needed to run the service, so `npm start` never installs them (scripts/install.sh).
# A failure is reported, not fatal: only the tests that use the tool fail.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

tools=("$@")
[ ${#tools[@]} -gt 0 ] || tools=(chromium schemathesis)

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

apt_install() {
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get install -y -qq "$@" >/dev/null 2>&1 ||
    { as_root apt-get update -qq && as_root apt-get install -y -qq "$@" >/dev/null 2>&1; }
}

# Chromium for the browser tests (test/api/browser-cors.test.ts, test/e2e): Debian's package,
# driven by playwright-core, which downloads no browser of its own. Skipped when present or when
# CHROMIUM_PATH names another build.
chromium() {
  if [ -z "${CHROMIUM_PATH:-}" ] && [ ! -x /usr/bin/chromium ]; then
    echo "[install] apt-get install chromium"
    apt_install chromium || echo "[install] warning: could not install chromium; the browser tests will fail" >&2
  fi
}

# schemathesis (PyPI) for the property-based contract run (test/contract/fuzz.ts), pinned, in a
# virtualenv of its own under .stack/tools (git-ignored). Debian's python3-venv is installed when
# `python3 -m venv` cannot create one.
SCHEMATHESIS_VERSION=4.32.5
schemathesis() {
  local venv=.stack/tools/schemathesis
  [ "$(cat "$venv/.version" 2>/dev/null)" != "$SCHEMATHESIS_VERSION" ] || return 0
  echo "[install] schemathesis $SCHEMATHESIS_VERSION into $venv"
  rm -rf "$venv"
  mkdir -p .stack/tools
  if ! python3 -m venv "$venv" >/dev/null 2>&1; then
    rm -rf "$venv"
    apt_install python3-venv || true
    python3 -m venv "$venv" >/dev/null 2>&1 || true
  fi
  if [ -x "$venv/bin/pip" ] &&
    "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"; then
    echo "$SCHEMATHESIS_VERSION" >"$venv/.version"
  else
    echo "[install] warning: could not install schemathesis; the fuzz step will fail" >&2
  fi
}

for tool in "${tools[@]}"; do
  case "$tool" in
    chromium | schemathesis) "$tool" ;;
    *)
      echo "[install] unknown test tool \"$tool\": chromium or schemathesis" >&2
      exit 2
      ;;
  esac
done
