#!/usr/bin/env bash
# `npm start`: installs what running the service needs when it is missing (scripts/install.sh:
# npm ci, never the test tools), starts the embedded defaults that are not replaced by
# configuration (DECISIONS §1), builds, and runs every role (or the one named by ROLE). On a
# terminal the service's log is a readable line per request and a start banner (LOG_FORMAT).
#
# One `npm start` per stack folder (STACK_DIR, as scripts/stack.sh): a second one, while the first
# runs or stops, says so and exits 1. Its stop stops only the servers its own start started (a
# token per start, STACK_START_TOKEN), never one that was running already or another start's.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/env.sh

stack_dir=${STACK_DIR:-.stack}
mkdir -p "$stack_dir/dev"
lock="$stack_dir/dev/start.lock"
# Descriptor 8 holds the lock until this script exits; its children get it closed (8>&-), or a
# database left running would hold it for its whole life.
exec 8<>"$lock"
# Without flock (util-linux; not on macOS) there is no lock, as in scripts/stack.sh.
if command -v flock >/dev/null && ! flock -n 8; then
  echo "[start] another npm start is running or stopping on this stack (pid $(cat "$lock" 2>/dev/null || echo '?'), $stack_dir): stop it first (Ctrl-C in its terminal), or give this one its own STACK_DIR and ports" >&2
  exit 1
fi
echo $$ >"$lock"
export STACK_START_TOKEN="start-$$-$(date +%s%N)"
env_file=${STACK_ENV_FILE:-.env.dev}

# The embedded database (skipped when MONGODB_URI is set) and the generated secrets start while
# the dependencies install and the service builds: Maven's fetch and the JVM's start (about 20 s
# of a first start) overlap npm ci instead of following it.
embedded_db=$([ -z "${MONGODB_URI:-}" ] && echo 1 || echo 0)
bash scripts/stack.sh start dev 8>&- &
stack=$!

# npm ci when needed, then the service and the dashboard, each compiled again only when its
# sources changed. The service is transpiled file by file with esbuild (about 1 s; tsc's full
# build took 20 to 30 s of a first start on 2 cores): the same per-file transform tsx gives the
# tests, `isolatedModules` holds in tsconfig.json, and type checking is `npm run typecheck`'s and
# `npm test`'s job. `npm run build` (tsc) stays the production build.
prepare() {
  bash scripts/install.sh || return 1
  local want
  want=$(find src generated tsconfig.json tsconfig.build.json package-lock.json -type f -print0 |
    sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1) || return 1
  if [ ! -f dist/main.js ] || [ "$(cat dist/.build-stamp 2>/dev/null)" != "$want" ]; then
    echo "[start] compiling the service into dist"
    find src -name '*.ts' ! -name '*.d.ts' -print0 |
      xargs -0 npx esbuild --log-level=warning --outdir=dist --outbase=src --format=esm \
        --platform=node --target=node24 --sourcemap || return 1
    echo "$want" >dist/.build-stamp
  fi
  # Only the dashboard role serves it.
  case ${ROLE:-all} in all | dashboard) bash scripts/build-web.sh && bash scripts/build-clients.sh ;; esac
}
if ! prepare 8>&-; then
  wait "$stack" || true
  bash scripts/stack.sh stop dev 8>&- || true
  exit 1
fi
wait "$stack" || {
  echo "[start] the embedded servers did not start (see above)" >&2
  bash scripts/stack.sh stop dev 8>&- || true
  exit 1
}
load_env_file "$env_file"
if [ "$embedded_db" = 1 ]; then
  # The app says what this means in its start banner (with MONGODB_URI as the replacement), in
  # GET /api/health (data.engine) and on the dashboard.
  export EMBEDDED_DATABASE=1
fi
# The development profile unless told otherwise: among its defaults, webhook and HTTP hook targets
# on localhost (WEBHOOK_ALLOW_LOOPBACK, docs/webhooks.md), said in the banner and on the Webhooks page.
export NODE_ENV="${NODE_ENV:-development}"

node dist/main.js "${ROLE:-all}" 8>&- &
app=$!
stop() {
  trap '' INT TERM
  kill -TERM "$app" 2>/dev/null || true
  wait "$app" 2>/dev/null || true
  bash scripts/stack.sh stop dev 8>&-
}
trap 'stop; exit 130' INT
trap 'stop; exit 143' TERM
status=0
wait "$app" || status=$?
# The service ended by itself (a start-up failure): the servers this start started stop too.
stop
exit "$status"
