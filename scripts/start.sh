#!/usr/bin/env bash
# `npm start`: installs what running the service needs when it is missing (scripts/install.sh:
# npm ci, never the test tools), starts the embedded defaults that are not replaced by
# configuration (DECISIONS §1), builds, and runs every role (or the one named by ROLE). On a
# terminal the service's log is a readable line per request and a start banner (LOG_FORMAT).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/env.sh

bash scripts/install.sh
# The embedded database (skipped when MONGODB_URI is set) and the generated secrets.
embedded_db=$([ -z "${MONGODB_URI:-}" ] && echo 1 || echo 0)
bash scripts/stack.sh start dev
load_env_file .env.dev
if [ "$embedded_db" = 1 ]; then
  # The app says what this means in its start banner (with MONGODB_URI as the replacement), in
  # GET /api/health (data.engine) and on the dashboard.
  export EMBEDDED_DATABASE=1
fi
echo "[start] building"
npm run -s build
bash scripts/build-web.sh

node dist/main.js "${ROLE:-all}" &
app=$!
stop() {
  kill -TERM "$app" 2>/dev/null || true
  wait "$app" 2>/dev/null || true
  bash scripts/stack.sh stop dev
}
trap stop INT TERM
wait "$app"
