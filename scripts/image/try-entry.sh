#!/usr/bin/env bash
# The `try` image's entry: with nothing configured, what `npm start` serves. Secrets are made once
# into /data (so data encrypted with them stays readable across runs), the embedded database
# (mongo-java-server, H2 file in /data/db) starts on loopback unless MONGODB_URI is set, then the
# service. SIGTERM stops the service first, then the database.
set -euo pipefail
secrets=/data/secrets.env
if [ ! -f "$secrets" ]; then
  (umask 077 && node -e '
    const c = require("node:crypto");
    console.log("ENCRYPTION_KEY=" + c.randomBytes(32).toString("base64"));
    console.log("INTERNAL_API_SECRET=" + c.randomBytes(32).toString("base64url"));' >"$secrets")
fi
while IFS='=' read -r key value; do
  [ -n "$key" ] && [ -z "${!key:-}" ] && export "$key=$value"
done <"$secrets"

db=
if [ -z "${MONGODB_URI:-}" ]; then
  port=${EMBEDDED_DB_PORT:-27017}
  java -Xmx${EMBEDDED_DB_HEAP:-512m} -XX:+UseSerialGC -cp '/opt/embedded/classes:/opt/embedded/lib/*' \
    MongoLauncher h2 "$port" /data/db/mongo.h2 &
  db=$!
  for _ in $(seq 1 120); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    kill -0 "$db" 2>/dev/null || { echo "the embedded database did not start" >&2; exit 1; }
    sleep 0.5
  done
  export MONGODB_URI="mongodb://127.0.0.1:$port"
else
  unset EMBEDDED_DATABASE
fi

node /app/dist/main.js "${1:-all}" &
app=$!
stop() {
  kill -TERM "$app" 2>/dev/null || true
  wait "$app" 2>/dev/null || true
  if [ -n "$db" ]; then
    kill -TERM "$db" 2>/dev/null || true
    wait "$db" 2>/dev/null || true
  fi
  exit 0
}
trap stop TERM INT
status=0
wait "$app" || status=$?
[ -n "$db" ] && kill -TERM "$db" 2>/dev/null && wait "$db" 2>/dev/null
exit "$status"
