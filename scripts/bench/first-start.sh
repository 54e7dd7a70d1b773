#!/usr/bin/env bash
# How long a newcomer waits: clones the repository into a temporary folder, runs `npm start` there
# as a new user would (the machine's own node and npm first on PATH, so the runtime fetch is
# included), polls the dashboard until it answers 200, stops the service, and does it again (the
# second start reuses what the first installed). Prints the seconds of each start, the load
# average, and whether any native module was compiled (a build/ folder under node_modules).
#
#   bash scripts/bench/first-start.sh [repository, default this checkout]
#
# FIRST_START_FRESH_CACHES=1 also gives npm and Maven empty caches of their own (a machine that
# has never installed anything: every package is downloaded). Ports: PUBLIC_PORT (3870),
# DASHBOARD_PORT (3871), STACK_MONGO_PORT (27817), so a running stack or service is not disturbed;
# everything the run starts lives in the temporary folder and is stopped by its own scripts.
set -euo pipefail

repo=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
export PUBLIC_PORT=${PUBLIC_PORT:-3870} DASHBOARD_PORT=${DASHBOARD_PORT:-3871}
export STACK_MONGO_PORT=${STACK_MONGO_PORT:-27817}
# The newcomer's environment: nothing of this shell's runtime or stack settings.
unset npm_config_nodedir MONGODB_URI REDIS_URL S3_BUCKET SMTP_URL PLATFORM_DB STACK_DIR STACK_ENV_FILE
PATH=$(tr ':' '\n' <<<"$PATH" | grep -v '/.stack/runtime/' | paste -sd: -)
export PATH
TIMEOUT_S=${FIRST_START_TIMEOUT:-900}

work=$(mktemp -d "${TMPDIR:-/tmp}/first-start.XXXXXX")
if [ "${FIRST_START_FRESH_CACHES:-}" = 1 ]; then
  export npm_config_cache="$work/npm-cache"
  export MAVEN_OPTS="${MAVEN_OPTS:-} -Dmaven.repo.local=$work/m2"
fi
app=""
cleanup() {
  [ -n "$app" ] && kill -TERM -- "-$app" 2>/dev/null || true
  [ -d "$work/repo/scripts" ] && (cd "$work/repo" && bash scripts/stack.sh stop dev >/dev/null 2>&1 || true)
  if [ -n "${FIRST_START_KEEP:-}" ]; then echo "kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime | sed 's/.*averages*: //'; }

# One `npm start`, timed from the command to the dashboard's first 200; then stopped.
timed_start() {
  local name=$1 log="$work/$1.log" started now code
  started=$EPOCHREALTIME
  # Each line of its output with the seconds since the command, to see where the time goes. The
  # line stamper stays outside the process group that is stopped below: a stop must not close the
  # service's stdout under it (a terminal's Ctrl-C does not either).
  (cd "$work/repo" && exec setsid npm start) > >(
    while IFS= read -r line; do printf '%6.1f %s\n' "$(bc <<<"$EPOCHREALTIME - $started")" "$line"; done >"$log"
  ) 2>&1 &
  app=$!
  while :; do
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$DASHBOARD_PORT/" || true)
    now=$EPOCHREALTIME
    [ "$code" = 200 ] && break
    if ! kill -0 "$app" 2>/dev/null; then
      echo "$name: npm start ended before the dashboard answered; its log:" >&2
      tail -n 40 "$log" >&2
      exit 1
    fi
    if [ "$(echo "$now - $started > $TIMEOUT_S" | bc)" = 1 ]; then
      echo "$name: no dashboard after $TIMEOUT_S s; its log:" >&2
      tail -n 40 "$log" >&2
      exit 1
    fi
    sleep 0.5
  done
  printf '%s start: %.1f s to a dashboard answering 200 (load average %s)\n' "$name" "$(echo "$now - $started" | bc)" "$(load)"
  kill -TERM -- "-$app" 2>/dev/null || true
  wait "$app" 2>/dev/null || true
  # start.sh stops the service and the embedded database on its way out: wait for all of it.
  for _ in $(seq 150); do kill -0 -- "-$app" 2>/dev/null || break; sleep 0.2; done
  app=""
  # Anything of the clone still running after that is a failed stop: said, then ended.
  local left="" p
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/cwd" 2>/dev/null)" = "$work/repo" ] && left="$left ${p#/proc/}"
  done
  if [ -n "$left" ]; then
    echo "$name: still running 30 s after the stop:$left" >&2
    kill -9 $left 2>/dev/null || true
  fi
  (cd "$work/repo" && bash scripts/stack.sh stop dev >/dev/null 2>&1) || true
  # What the start printed, minus the service's own lines.
  grep -E '^ *[0-9.]+ \[(install|runtime|stack|start|build:web)\]' "$log" | sed 's/^/    /' || true
  grep -m1 '"msg":"starting ' "$log" | awk '{ print "    " $1 " [service] starting" }' || true
}

echo "first start of $(git -C "$repo" rev-parse --short HEAD) on $(nproc 2>/dev/null || echo '?') cores, machine node $(node --version 2>/dev/null || echo none), npm $(npm --version)${FIRST_START_FRESH_CACHES:+, empty npm and Maven caches}"
echo "load average before: $(load)"
git clone --quiet --no-hardlinks "$repo" "$work/repo"
timed_start cold
compiled=$(find "$work/repo/node_modules" -path '*/build/Release/*.node' 2>/dev/null | sed "s|$work/repo/||")
echo "native modules compiled on install: ${compiled:-none}"
node_bin=$(ls "$work"/repo/.stack/runtime/node-*/bin/node 2>/dev/null || command -v node)
echo "argon2 hashes on $("$node_bin" --version): $(cd "$work/repo" && "$node_bin" -e "require('argon2').hash('x').then((h) => console.log(h.slice(0, 9)))" 2>&1 | tail -1)"
timed_start warm
