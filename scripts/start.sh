#!/usr/bin/env bash
# `npm start`: installs what is missing, starts the embedded defaults that are not replaced by
# configuration (DECISIONS §1), builds, and runs every role (or the one named by ROLE).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
. scripts/env.sh

bash scripts/install.sh
# The embedded database (skipped when MONGODB_URI is set) and the generated secrets.
embedded_db=$([ -z "${MONGODB_URI:-}" ] && echo 1 || echo 0)
bash scripts/stack.sh start dev
load_env_file .env.dev
if [ "$embedded_db" = 1 ]; then
  echo "[start] database: embedded mongo-java-server, data kept in .stack/dev (set MONGODB_URI to use your own MongoDB)"
  echo "[start] the embedded database is for development and small data: it scans, so lists slow down past"
  echo "[start] about 10,000 documents per collection; production: MONGODB_URI to a MongoDB replica set (docs/scale.md)"
  # The app says so too: in its start log, GET /api/health (data.engine) and the dashboard.
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
