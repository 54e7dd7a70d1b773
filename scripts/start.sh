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
