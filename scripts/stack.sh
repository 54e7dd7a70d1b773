#!/usr/bin/env bash
# Local stack of real servers for tests and local runs (no mocks).
#
#   bash scripts/stack.sh <install|start|stop|status|restart> <test|dev>
#
#   test: mongo-java-server (memory backend), Redis, versitygw (S3), SMTP sink. Every start of a
#         server begins from empty data, so a test run never sees the previous run's leftovers.
#   dev:  mongo-java-server (H2 backend, persistent file). The app uses its in-process cache,
#         local file storage and local mail outbox in dev.
#
#   STACK_ENGINE=ferretdb (test profile only): FerretDB v1 over a private PostgreSQL cluster
#         instead of mongo-java-server, on the same mongo port; the rest of the stack is the same.
#         Its servers, pid files and secrets live in $STACK_DIR/test-ferretdb, and the env file
#         is <repo>/.env.test-ferretdb, so it never touches the default test stack's state.
#         PostgreSQL comes from Debian (apt-get install postgresql when missing); as root, the
#         cluster runs as the `postgres` user, because initdb and postgres refuse to run as root.
#
# Everything is installed and run under $STACK_DIR (default <repo>/.stack, git-ignored); a
# relative STACK_DIR is taken relative to the repo root. `start` writes <repo>/.env.<profile>.
#
# Environment:
#   STACK_MONGO_PORT, STACK_REDIS_PORT, STACK_S3_PORT, STACK_SMTP_PORT   override the ports
#   STACK_SKIP=mongo,redis,s3,smtp   do not start these (the caller brings its own); their env
#                                    variables are copied from the environment into the env file
#   MONGODB_URI                      set: mongo is not started, this URI goes into the env file
#   STACK_ENV_FILE                   where to write the env file (two stacks with different
#                                    STACK_DIR and ports would otherwise share .env.<profile>)
#   STACK_START_TIMEOUT (s, 60), STACK_STOP_TIMEOUT (s, 15), STACK_MONGO_JAVA_OPTS
#   STACK_ENGINE                     mongo-java-server (default) or ferretdb, see above
#   STACK_START_TOKEN                at start: recorded with each server this start launches (not
#                                    with one already running); at stop: only the servers recorded
#                                    with this token are stopped (scripts/start.sh passes its own, so
#                                    its stop never stops another start's servers)
#   STACK_PG_PORT                    PostgreSQL port for STACK_ENGINE=ferretdb (default: the
#                                    mongo port + 10000, so stacks with distinct ports never clash)
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"
HELPERS="$SCRIPT_DIR/stack"

# The pom is the one place that names the mongo-java-server version.
MONGO_JAVA_SERVER_VERSION="$(sed -n 's:.*<mongo-java-server.version>\(.*\)</mongo-java-server.version>.*:\1:p' "$HELPERS/pom.xml")"
VERSITYGW_VERSION=v1.7.0
# scripts/stack/ferretdb/go.mod is the one place that names the FerretDB version.
FERRETDB_VERSION="$(sed -n 's:^require github.com/FerretDB/FerretDB \(v[0-9.]*\)$:\1:p' "$HELPERS/ferretdb/go.mod")"
OWN_S3_REGION=us-east-1
OWN_S3_BUCKET=baas-test

START_TIMEOUT="${STACK_START_TIMEOUT:-60}"
STOP_TIMEOUT="${STACK_STOP_TIMEOUT:-15}"
[[ $START_TIMEOUT =~ ^[1-9][0-9]*$ && $STOP_TIMEOUT =~ ^[1-9][0-9]*$ ]] ||
  { printf '[stack] error: STACK_START_TIMEOUT and STACK_STOP_TIMEOUT must be whole seconds\n' >&2; exit 2; }
# Serial GC and a bounded heap: the machines have 2 cores and the test data is small.
MONGO_JAVA_OPTS="${STACK_MONGO_JAVA_OPTS:--Xmx1g -XX:+UseSerialGC}"

log() { printf '[stack] %s\n' "$*"; }
warn() { printf '[stack] warning: %s\n' "$*" >&2; }
die() { printf '[stack] error: %s\n' "$*" >&2; exit 1; }

usage() {
  cat >&2 <<'EOF'
[stack] usage: bash scripts/stack.sh <install|start|stop|status|restart> <test|dev>
[stack]   install  install what the profile needs (idempotent)
[stack]   start    install if needed, start the servers, wait until ready, write .env.<profile>
[stack]   stop     stop the profile's servers
[stack]   status   one line per server
EOF
  exit 2
}

show_log_tail() {
  local file=$1 lines=${2:-30}
  if [[ -s $file ]]; then
    printf '[stack] ---- last %s lines of %s ----\n' "$lines" "$file" >&2
    tail -n "$lines" "$file" | sed 's/^/[stack] | /' >&2
    printf '[stack] ----\n' >&2
  fi
}

now() { date +%s; }

# ---------------------------------------------------------------------------------------------
# Arguments and configuration

[[ $# -eq 2 ]] || usage
COMMAND=$1
PROFILE=$2
case $COMMAND in install | start | stop | status | restart) ;; *) usage ;; esac
case $PROFILE in
  test) SERVICES=(mongo redis s3 smtp) ;;
  dev) SERVICES=(mongo) ;;
  *) usage ;;
esac
ENGINE="${STACK_ENGINE:-mongo-java-server}"
case $ENGINE in
  mongo-java-server) STATE_NAME=$PROFILE ;;
  ferretdb)
    [[ $PROFILE == test ]] || die "STACK_ENGINE=ferretdb is for the test profile only"
    # "mongo" stays the name of the MongoDB-compatible endpoint (STACK_SKIP=mongo, MONGODB_URI);
    # postgres is its backend and starts first.
    SERVICES=(postgres mongo redis s3 smtp)
    STATE_NAME=$PROFILE-ferretdb
    ;;
  *) die "STACK_ENGINE: unknown engine '$ENGINE' (known: mongo-java-server, ferretdb)" ;;
esac

STACK_DIR="${STACK_DIR:-.stack}"
[[ $STACK_DIR == /* ]] || STACK_DIR="$REPO_ROOT/$STACK_DIR"
PROFILE_DIR="$STACK_DIR/$STATE_NAME"
ENV_FILE="${STACK_ENV_FILE:-$REPO_ROOT/.env.$STATE_NAME}"
FERRETDB_BIN="$STACK_DIR/bin/ferretdb"
MJS_LIB="$STACK_DIR/mongo-java-server/lib"
VERSITYGW_BIN="$STACK_DIR/bin/versitygw"
INSTALL_LOGS="$STACK_DIR/logs"

if [[ $PROFILE == test ]]; then
  MONGO_PORT="${STACK_MONGO_PORT:-27217}"
else
  MONGO_PORT="${STACK_MONGO_PORT:-27117}"
fi
REDIS_PORT="${STACK_REDIS_PORT:-6579}"
S3_PORT="${STACK_S3_PORT:-7270}"
SMTP_PORT="${STACK_SMTP_PORT:-2625}"
PG_PORT="${STACK_PG_PORT:-$((10#$MONGO_PORT + 10000))}"
for p in "$MONGO_PORT" "$REDIS_PORT" "$S3_PORT" "$SMTP_PORT" "$PG_PORT"; do
  if ! [[ $p =~ ^[1-9][0-9]{0,4}$ ]] || ((10#$p < 1 || 10#$p > 65535)); then
    die "invalid port '$p'"
  fi
done

OWN_MONGO_URI="mongodb://127.0.0.1:$MONGO_PORT/?directConnection=true"
MAIL_DIR="$PROFILE_DIR/mail"
PG_DATA="$PROFILE_DIR/postgres"
PG_DATABASE=ferretdb

declare -A SKIP=()
IFS=',' read -r -a _skip_list <<<"${STACK_SKIP:-}"
for s in "${_skip_list[@]}"; do
  s="${s//[[:space:]]/}"
  [[ -z $s ]] && continue
  case $s in mongo | redis | s3 | smtp) SKIP[$s]=1 ;; *) die "STACK_SKIP: unknown server '$s' (known: mongo,redis,s3,smtp)" ;; esac
done
# A MONGODB_URI equal to our own is what a shell that sourced .env.<profile> carries; treating it
# as external would skip our server and leave the URI pointing at nothing.
EXTERNAL_MONGO_URI=""
if [[ -n ${MONGODB_URI:-} && ${MONGODB_URI} != "$OWN_MONGO_URI" ]]; then
  EXTERNAL_MONGO_URI=$MONGODB_URI
  SKIP[mongo]=1
fi
# FerretDB's PostgreSQL is only its backend: no server of ours uses it when mongo is external.
if [[ -n ${SKIP[mongo]:-} ]]; then
  SKIP[postgres]=1
fi

is_skipped() { [[ -n ${SKIP[$1]:-} ]]; }

port_of() {
  case $1 in
    mongo) echo "$MONGO_PORT" ;;
    redis) echo "$REDIS_PORT" ;;
    s3) echo "$S3_PORT" ;;
    smtp) echo "$SMTP_PORT" ;;
    postgres) echo "$PG_PORT" ;;
  esac
}

# A word of the server's command line: a pid file whose pid now belongs to another program
# (pid reuse after a reboot or a crash) must not count as "running", nor be killed by stop.
cmd_marker_of() {
  case $1 in
    mongo) if [[ $ENGINE == ferretdb ]]; then echo "-postgresql-url"; else echo "MongoLauncher"; fi ;;
    postgres) echo "$PG_DATA" ;;
    redis) echo "redis-server" ;;
    s3) echo "versitygw" ;;
    smtp) echo "smtp-sink.mjs" ;;
  esac
}

# ---------------------------------------------------------------------------------------------
# Processes

pid_file() { echo "$PROFILE_DIR/$1.pid"; }
token_file() { echo "$PROFILE_DIR/$1.token"; }
START_TOKEN="${STACK_START_TOKEN:-}"

# Whether a stop with STACK_START_TOKEN may stop this server: only if that start launched it.
owned() {
  [[ -z $START_TOKEN ]] && return 0
  [[ -f $(token_file "$1") && $(<"$(token_file "$1")") == "$START_TOKEN" ]]
}
log_file() { echo "$PROFILE_DIR/$1.log"; }

# A process that exited but is not yet reaped (a zombie) still answers kill -0. Our servers are
# re-parented to PID 1, and some container inits reap only every second or two.
alive() {
  kill -0 "$1" 2>/dev/null || return 1
  if [[ -r /proc/$1/stat ]]; then
    local stat
    stat=$(<"/proc/$1/stat") || return 1
    # The state is the first field after the ")" that closes the command name.
    stat=${stat##*) }
    [[ ${stat%% *} != Z ]]
  fi
}

# Prints the pid if the service runs (per its pid file), else fails.
running_pid() {
  local name=$1 file pid
  file=$(pid_file "$name")
  [[ -f $file ]] || return 1
  pid=$(<"$file")
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  alive "$pid" || return 1
  if [[ -r /proc/$pid/cmdline ]]; then
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "$(cmd_marker_of "$name")" || return 1
  fi
  echo "$pid"
}

tcp_open() {
  # bash's /dev/tcp needs no netcat; the subshell closes the descriptor again.
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# Starts a command detached in its own session (setsid: no SIGHUP when the terminal closes, no
# SIGINT from a Ctrl-C in the caller's job), output to the service's log file. The child writes
# its own pid, which stays right whatever setsid does with forking. Descriptor 9 (the stack lock)
# is closed, or the server would hold the lock for its whole life.
spawn() {
  local name=$1
  shift
  local pidfile logfile
  pidfile=$(pid_file "$name")
  logfile=$(log_file "$name")
  [[ -f $logfile ]] && mv -f "$logfile" "$logfile.prev"
  rm -f "$pidfile" "$(token_file "$name")"
  if [[ -n $START_TOKEN ]]; then
    printf '%s\n' "$START_TOKEN" >"$(token_file "$name")"
  fi
  (
    cd "$REPO_ROOT"
    # shellcheck disable=SC2016 # $$ and $@ belong to the inner shell
    exec setsid bash -c 'echo $$ >"$0"; exec "$@"' "$pidfile" "$@"
  ) </dev/null >>"$logfile" 2>&1 9>&- &
  local waited=0
  while [[ ! -s $pidfile ]] && ((waited < 50)); do
    sleep 0.1
    waited=$((waited + 1))
  done
  [[ -s $pidfile ]] || die "$name: the process did not start (see $logfile)"
}

# Stops one service: SIGTERM, wait, SIGKILL. Quiet when it is not running.
stop_service() {
  local name=$1 pid ticks=0
  if ! pid=$(running_pid "$name"); then
    rm -f "$(pid_file "$name")" "$(token_file "$name")"
    return 1
  fi
  kill -TERM "$pid" 2>/dev/null || true
  # Counted in 0.2 s steps: whole-second clock arithmetic would cut a short timeout by up to 1 s.
  while alive "$pid" && ((ticks < STOP_TIMEOUT * 5)); do
    sleep 0.2
    ticks=$((ticks + 1))
  done
  if alive "$pid"; then
    warn "$name (pid $pid) did not stop within ${STOP_TIMEOUT}s, sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    sleep 0.2
  fi
  rm -f "$(pid_file "$name")" "$(token_file "$name")"
  return 0
}

# Waits until `check` succeeds; fails fast if the process died, and stops it on timeout so the
# port is free for the next try.
wait_ready() {
  local name=$1 check=$2 pid deadline
  pid=$(<"$(pid_file "$name")")
  deadline=$(($(now) + START_TIMEOUT))
  while true; do
    if ! alive "$pid"; then
      rm -f "$(pid_file "$name")"
      show_log_tail "$(log_file "$name")"
      die "$name exited during start-up (log: $(log_file "$name"))"
    fi
    if "$check" 2>/dev/null; then
      return 0
    fi
    if (($(now) >= deadline)); then
      stop_service "$name" || true
      show_log_tail "$(log_file "$name")"
      die "$name was not ready after ${START_TIMEOUT}s (log: $(log_file "$name"); raise STACK_START_TIMEOUT if the machine is slow)"
    fi
    sleep 0.2
  done
}

ensure_port_free() {
  local name=$1 port=$2
  if tcp_open "$port"; then
    local owner=""
    if command -v ss >/dev/null; then
      owner=$(ss -ltnpH "sport = :$port" 2>/dev/null | head -n 1 | sed 's/.*users:((\(.*\)))/\1/')
    fi
    die "$name: port $port is already in use${owner:+ by $owner}, but not by a server of this stack; stop it or set STACK_${name^^}_PORT"
  fi
}

# ---------------------------------------------------------------------------------------------
# Secrets: generated once per profile and kept, because dev data encrypted with ENCRYPTION_KEY
# must stay readable across restarts, and S3 keys must match the objects' owner metadata.

SECRETS_FILE="$PROFILE_DIR/secrets.env"

random_value() {
  # node is needed by the stack anyway; openssl may be missing on a minimal machine.
  node -e '
    const c = require("node:crypto");
    const kind = process.argv[1];
    if (kind === "base64") console.log(c.randomBytes(32).toString("base64"));
    else if (kind === "base64url") console.log(c.randomBytes(32).toString("base64url"));
    else if (kind === "access-key") console.log("STACK" + c.randomBytes(8).toString("hex").toUpperCase().slice(0, 15));
    else if (kind === "secret-key") console.log(c.randomBytes(30).toString("base64url"));
  ' "$1"
}

secret_get() {
  [[ -f $SECRETS_FILE ]] || return 0
  sed -n "s/^$1=//p" "$SECRETS_FILE" | tail -n 1
}

secret_ensure() {
  local key=$1 kind=$2 value
  value=$(secret_get "$key")
  if [[ -z $value ]]; then
    value=$(random_value "$kind")
    [[ -n $value ]] || die "could not generate $key"
    (umask 077 && printf '%s=%s\n' "$key" "$value" >>"$SECRETS_FILE")
  fi
}

load_secrets() {
  mkdir -p "$PROFILE_DIR"
  command -v node >/dev/null || die "node is not on PATH (the Node.js of .node-version is required; scripts/env.sh puts it on PATH)"
  secret_ensure ENCRYPTION_KEY base64
  secret_ensure INTERNAL_API_SECRET base64url
  if [[ $PROFILE == test ]]; then
    secret_ensure S3_ACCESS_KEY_ID access-key
    secret_ensure S3_SECRET_ACCESS_KEY secret-key
  fi
  chmod 600 "$SECRETS_FILE"
}

# ---------------------------------------------------------------------------------------------
# Install

require_tool() {
  command -v "$1" >/dev/null || die "$1 is not on PATH: $2"
}

# Runs an install step with its output in a log file; on failure shows the tail of that log.
run_logged() {
  local what=$1 logfile=$2
  shift 2
  mkdir -p "$(dirname "$logfile")"
  if ! "$@" >"$logfile" 2>&1; then
    show_log_tail "$logfile" 40
    die "$what failed (full log: $logfile)"
  fi
}

install_mongo() {
  require_tool java "Java 17 is required for mongo-java-server"
  # The marker holds the pom's checksum, so a version change in pom.xml re-fetches the jars.
  local marker="$MJS_LIB/.installed" want
  want="$(sha256sum "$HELPERS/pom.xml" | cut -d' ' -f1)"
  if [[ -f $marker && $(<"$marker") == "$want" ]]; then
    return 0
  fi
  require_tool mvn "Maven is required to fetch mongo-java-server from Maven Central"
  log "fetching mongo-java-server $MONGO_JAVA_SERVER_VERSION jars with Maven"
  local t0
  t0=$(now)
  rm -rf "$MJS_LIB"
  mkdir -p "$MJS_LIB"
  run_logged "maven fetch of mongo-java-server" "$INSTALL_LOGS/install-mongo-java-server.log" \
    mvn -B -q -Dstyle.color=never -f "$HELPERS/pom.xml" "-Dstack.dir=$STACK_DIR" \
    dependency:copy-dependencies "-DoutputDirectory=$MJS_LIB"
  ls "$MJS_LIB"/mongo-java-server-h2-backend-*.jar "$MJS_LIB"/mongo-java-server-memory-backend-*.jar >/dev/null 2>&1 ||
    die "maven ran but the mongo-java-server jars are not in $MJS_LIB"
  echo "$want" >"$marker"
  log "mongo-java-server installed in $(($(now) - t0))s"
}

as_root() {
  if [[ $(id -u) -eq 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null; then
    sudo "$@"
  else
    die "installing Debian packages needs root: run 'apt-get install -y ${APT_PACKAGE:-<package>}' as root"
  fi
}

# apt-get install of one Debian package whose service must not start: our instance runs with its
# own config on its own port, so the system one would only be a stray server.
apt_install() {
  local package=$1 t0 created_policy=""
  APT_PACKAGE=$package
  require_tool apt-get "$package is missing and this is not a Debian-like system; install it by hand"
  log "installing $package with apt-get"
  t0=$(now)
  # Debian starts the packaged service on install. policy-rc.d (exit 101) is the Debian way to
  # forbid service starts during an install.
  if [[ ! -e /usr/sbin/policy-rc.d ]]; then
    as_root sh -c 'printf "#!/bin/sh\nexit 101\n" >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d'
    created_policy=1
  fi
  local status=0
  (
    run_logged "apt-get update" "$INSTALL_LOGS/install-$package.log" \
      as_root env DEBIAN_FRONTEND=noninteractive apt-get update
    run_logged "apt-get install $package" "$INSTALL_LOGS/install-$package-2.log" \
      as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$package"
  ) || status=$?
  [[ -n $created_policy ]] && as_root rm -f /usr/sbin/policy-rc.d
  ((status == 0)) || exit "$status"
  # On a systemd machine the unit would still start at the next boot.
  if [[ -d /run/systemd/system ]] && command -v systemctl >/dev/null; then
    as_root systemctl disable --now "$package" >/dev/null 2>&1 || true
  fi
  log "$package installed in $(($(now) - t0))s"
}

install_redis() {
  if command -v redis-server >/dev/null && command -v redis-cli >/dev/null; then
    return 0
  fi
  apt_install redis-server
  command -v redis-server >/dev/null || die "apt-get installed redis-server but it is not on PATH"
  log "redis-server $(redis-server --version | cut -d' ' -f3 | sed 's/^v=//')"
}

# The newest server version Debian's postgresql package put under /usr/lib/postgresql.
pg_bin_dir() {
  local dir
  dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  [[ -n $dir && -x $dir/initdb && -x $dir/postgres && -x $dir/pg_ctl ]] && echo "$dir"
}

install_postgres() {
  pg_bin_dir >/dev/null && return 0
  apt_install postgresql
  pg_bin_dir >/dev/null || die "apt-get installed postgresql but /usr/lib/postgresql/<version>/bin/initdb is missing"
}

# FerretDB embedded in our own small Go main (see scripts/stack/ferretdb/main.go for why).
install_ferretdb() {
  local marker="$FERRETDB_BIN.version" want
  want="$(cat "$HELPERS/ferretdb/go.mod" "$HELPERS/ferretdb/go.sum" "$HELPERS/ferretdb/main.go" | sha256sum | cut -d' ' -f1)"
  if [[ -x $FERRETDB_BIN && -f $marker && $(<"$marker") == "$want" ]]; then
    return 0
  fi
  require_tool go "Go is required to build FerretDB"
  log "building FerretDB $FERRETDB_VERSION with go build (a few minutes on a cold Go cache)"
  local t0
  t0=$(now)
  mkdir -p "$(dirname "$FERRETDB_BIN")"
  rm -f "$marker"
  run_logged "go build ferretdb" "$INSTALL_LOGS/install-ferretdb.log" \
    env -C "$HELPERS/ferretdb" go build -mod=readonly -o "$FERRETDB_BIN" .
  [[ -x $FERRETDB_BIN ]] || die "go build ran but $FERRETDB_BIN is missing"
  echo "$want" >"$marker"
  log "FerretDB installed in $(($(now) - t0))s"
}

install_versitygw() {
  local marker="$VERSITYGW_BIN.version"
  if [[ -x $VERSITYGW_BIN && -f $marker && $(<"$marker") == "$VERSITYGW_VERSION" ]]; then
    return 0
  fi
  require_tool go "Go is required to build versitygw"
  log "building versitygw $VERSITYGW_VERSION with go install (a minute or two on a cold Go cache)"
  local t0
  t0=$(now)
  mkdir -p "$(dirname "$VERSITYGW_BIN")"
  rm -f "$marker"
  run_logged "go install versitygw" "$INSTALL_LOGS/install-versitygw.log" \
    env GOBIN="$(dirname "$VERSITYGW_BIN")" go install "github.com/versity/versitygw/cmd/versitygw@$VERSITYGW_VERSION"
  [[ -x $VERSITYGW_BIN ]] || die "go install ran but $VERSITYGW_BIN is missing"
  echo "$VERSITYGW_VERSION" >"$marker"
  log "versitygw installed in $(($(now) - t0))s"
}

require_node_module() {
  require_tool node "the Node.js of .node-version is required (scripts/env.sh puts it on PATH)"
  [[ -f $REPO_ROOT/node_modules/$1/package.json ]] ||
    die "$1 is missing from node_modules: run 'npm ci' in $REPO_ROOT first"
}

install_smtp() { require_node_module smtp-server; }

install_profile() {
  local s
  mkdir -p "$STACK_DIR"
  for s in "${SERVICES[@]}"; do
    is_skipped "$s" && continue
    case $s in
      mongo) if [[ $ENGINE == ferretdb ]]; then install_ferretdb; else install_mongo; fi ;;
      postgres) install_postgres ;;
      redis) install_redis ;;
      s3) install_versitygw && require_node_module @aws-sdk/client-s3 ;;
      smtp) install_smtp ;;
    esac
  done
}

# ---------------------------------------------------------------------------------------------
# Start, one function per server. Each returns early when already running.

mongo_ready() {
  grep -q '^\[mongo\] ready on' "$(log_file mongo)" && tcp_open "$MONGO_PORT"
}

start_mongo() {
  if [[ $ENGINE == ferretdb ]]; then
    start_ferretdb
    return
  fi
  local java_bin=java args
  [[ -n ${JAVA_HOME:-} && -x $JAVA_HOME/bin/java ]] && java_bin="$JAVA_HOME/bin/java"
  if [[ $PROFILE == test ]]; then
    args=(memory "$MONGO_PORT")
  else
    args=(h2 "$MONGO_PORT" "$PROFILE_DIR/mongo.h2")
  fi
  # shellcheck disable=SC2086 # the options are meant to be split into words
  spawn mongo "$java_bin" $MONGO_JAVA_OPTS -cp "$MJS_LIB/*" "$HELPERS/MongoLauncher.java" "${args[@]}"
  wait_ready mongo mongo_ready
}

# Runs a PostgreSQL program as the cluster's owner: initdb and postgres refuse to run as root.
# setpriv execs (no fork), so the pid written by spawn stays the server's pid.
as_pg_owner() {
  if [[ $(id -u) -eq 0 ]]; then
    id postgres >/dev/null 2>&1 || die "running as root needs the 'postgres' user (Debian's postgresql package creates it)"
    setpriv --reuid=postgres --regid=postgres --init-groups -- "$@"
  else
    "$@"
  fi
}

postgres_ready() {
  "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" -d postgres -U postgres
}

start_postgres() {
  PG_BIN=$(pg_bin_dir) || die "PostgreSQL is not installed (/usr/lib/postgresql/<version>/bin)"
  # A fresh cluster for every start, matching the memory-backed mongo: no leftovers between runs.
  rm -rf "$PG_DATA"
  mkdir -p "$PG_DATA"
  [[ $(id -u) -eq 0 ]] && chown postgres: "$PG_DATA"
  chmod 700 "$PG_DATA"
  run_logged "initdb" "$PROFILE_DIR/postgres-initdb.log" \
    as_pg_owner "$PG_BIN/initdb" -D "$PG_DATA" -U postgres -A trust -E UTF8 --no-locale --no-sync
  # TCP on 127.0.0.1 only and no Unix socket (its default directory belongs to the system
  # cluster). Durability is off: the data is thrown away at the next start anyway.
  local owner=()
  [[ $(id -u) -eq 0 ]] && owner=(setpriv --reuid=postgres --regid=postgres --init-groups --)
  spawn postgres "${owner[@]}" "$PG_BIN/postgres" -D "$PG_DATA" -p "$PG_PORT" \
    -c listen_addresses=127.0.0.1 -c unix_socket_directories= \
    -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200
  wait_ready postgres postgres_ready
  run_logged "createdb $PG_DATABASE" "$PROFILE_DIR/postgres-createdb.log" \
    "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U postgres "$PG_DATABASE"
}

ferretdb_ready() {
  grep -q '^\[ferretdb\] ready on' "$(log_file mongo)" && tcp_open "$MONGO_PORT"
}

start_ferretdb() {
  spawn mongo "$FERRETDB_BIN" -listen "127.0.0.1:$MONGO_PORT" \
    -postgresql-url "postgres://postgres@127.0.0.1:$PG_PORT/$PG_DATABASE"
  wait_ready mongo ferretdb_ready
}

redis_ready() {
  [[ $(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping) == PONG ]]
}

start_redis() {
  mkdir -p "$PROFILE_DIR/redis"
  spawn redis redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --protected-mode yes \
    --save '' --appendonly no --daemonize no --dir "$PROFILE_DIR/redis" --logfile ''
  wait_ready redis redis_ready
}

s3_env() {
  S3_ENDPOINT="http://127.0.0.1:$S3_PORT" S3_REGION="$OWN_S3_REGION" S3_BUCKET="$OWN_S3_BUCKET" \
    S3_ACCESS_KEY_ID="$(secret_get S3_ACCESS_KEY_ID)" S3_SECRET_ACCESS_KEY="$(secret_get S3_SECRET_ACCESS_KEY)" "$@"
}

s3_ready() {
  # NODE_NO_WARNINGS: the AWS SDK warns about runtimes near their end of life, which only clutters the log.
  tcp_open "$S3_PORT" && s3_env env NODE_NO_WARNINGS=1 node "$HELPERS/s3-bucket.mjs" >>"$(log_file s3)" 2>&1
}

start_s3() {
  local root="$PROFILE_DIR/s3/data" meta="$PROFILE_DIR/s3/meta"
  # Fresh objects for every test run, matching the memory-backed mongo.
  rm -rf "$PROFILE_DIR/s3"
  mkdir -p "$root" "$meta"
  # Credentials through the environment, not argv, so they do not show in ps.
  spawn s3 env ROOT_ACCESS_KEY_ID="$(secret_get S3_ACCESS_KEY_ID)" ROOT_SECRET_ACCESS_KEY="$(secret_get S3_SECRET_ACCESS_KEY)" \
    "$VERSITYGW_BIN" --port "127.0.0.1:$S3_PORT" --region "$OWN_S3_REGION" \
    posix --sidecar "$meta" "$root"
  wait_ready s3 s3_ready
}

smtp_ready() {
  grep -q '^\[smtp-sink\] ready on' "$(log_file smtp)" && tcp_open "$SMTP_PORT"
}

start_smtp() {
  rm -rf "$MAIL_DIR"
  mkdir -p "$MAIL_DIR"
  spawn smtp node "$HELPERS/smtp-sink.mjs" --port "$SMTP_PORT" --dir "$MAIL_DIR"
  wait_ready smtp smtp_ready
}

start_service() {
  local name=$1 port pid t0
  port=$(port_of "$name")
  if pid=$(running_pid "$name"); then
    if [[ -n $START_TOKEN ]]; then
      log "$name already running (pid $pid, port $port): not started by this start, so its stop leaves it running"
    else
      log "$name already running (pid $pid, port $port)"
    fi
    return 0
  fi
  ensure_port_free "$name" "$port"
  t0=$(now)
  "start_$name"
  log "$name ready on 127.0.0.1:$port (pid $(<"$(pid_file "$name")"), $(($(now) - t0))s)"
}

# Copies variables the caller set for a server it brings itself (see STACK_SKIP).
pass_through() {
  local v value
  for v in "$@"; do
    # printenv, not ${!v}: only what the caller exported counts, never a variable of this script.
    if value=$(printenv "$v") && [[ -n $value ]]; then
      echo "$v=$value"
    fi
  done
}

# Writes .env.<profile> atomically, so a test runner reading it never sees half a file.
write_env_file() {
  local tmp="$ENV_FILE.tmp.$$"
  {
    echo "# Written by scripts/stack.sh start $PROFILE; rewritten on every start."
    if [[ -n $EXTERNAL_MONGO_URI ]]; then
      echo "MONGODB_URI=$EXTERNAL_MONGO_URI"
    elif is_skipped mongo; then
      pass_through MONGODB_URI
    else
      echo "MONGODB_URI=$OWN_MONGO_URI"
    fi
    if [[ $PROFILE == test ]]; then
      if is_skipped redis; then
        pass_through REDIS_URL
      else
        echo "REDIS_URL=redis://127.0.0.1:$REDIS_PORT"
      fi
      if is_skipped s3; then
        pass_through S3_ENDPOINT S3_REGION S3_BUCKET S3_ACCESS_KEY_ID S3_SECRET_ACCESS_KEY
      else
        echo "S3_ENDPOINT=http://127.0.0.1:$S3_PORT"
        echo "S3_REGION=$OWN_S3_REGION"
        echo "S3_BUCKET=$OWN_S3_BUCKET"
        echo "S3_ACCESS_KEY_ID=$(secret_get S3_ACCESS_KEY_ID)"
        echo "S3_SECRET_ACCESS_KEY=$(secret_get S3_SECRET_ACCESS_KEY)"
      fi
      if is_skipped smtp; then
        pass_through SMTP_URL SMTP_SINK_DIR
      else
        echo "SMTP_URL=smtp://127.0.0.1:$SMTP_PORT"
        echo "SMTP_SINK_DIR=$MAIL_DIR"
      fi
    fi
    echo "ENCRYPTION_KEY=$(secret_get ENCRYPTION_KEY)"
    echo "INTERNAL_API_SECRET=$(secret_get INTERNAL_API_SECRET)"
  } >"$tmp"
  chmod 600 "$tmp"
  mv -f "$tmp" "$ENV_FILE"
}

# ---------------------------------------------------------------------------------------------
# Commands

cmd_install() {
  local t0
  t0=$(now)
  install_profile
  log "$PROFILE profile installed ($(($(now) - t0))s)"
}

cmd_start() {
  local t0 s
  t0=$(now)
  install_profile
  load_secrets
  for s in "${SERVICES[@]}"; do
    if is_skipped "$s"; then
      if [[ $s == mongo && -n $EXTERNAL_MONGO_URI ]]; then
        log "mongo skipped: using MONGODB_URI from the environment"
      else
        log "$s skipped (STACK_SKIP)"
      fi
      continue
    fi
    start_service "$s"
  done
  write_env_file
  log "$PROFILE stack ready in $(($(now) - t0))s; environment in $ENV_FILE"
}

cmd_stop() {
  local s pid i
  # Reverse start order: FerretDB closes its PostgreSQL connections before PostgreSQL stops.
  for ((i = ${#SERVICES[@]} - 1; i >= 0; i--)); do
    s=${SERVICES[i]}
    if pid=$(running_pid "$s"); then
      if owned "$s"; then
        stop_service "$s"
        log "$s stopped (was pid $pid)"
      else
        log "$s left running (pid $pid): another start started it"
      fi
    else
      owned "$s" && rm -f "$(pid_file "$s")" "$(token_file "$s")"
      log "$s not running"
    fi
  done
}

cmd_status() {
  local s pid port
  for s in "${SERVICES[@]}"; do
    port=$(port_of "$s")
    if pid=$(running_pid "$s"); then
      printf '[stack] %-6s running  port %-5s pid %s\n' "$s" "$port" "$pid"
    elif tcp_open "$port"; then
      printf '[stack] %-6s stopped  port %-5s (in use by another process)\n' "$s" "$port"
    else
      printf '[stack] %-6s stopped  port %-5s\n' "$s" "$port"
    fi
  done
}

# One stack command at a time per STACK_DIR: two test runners starting the stack together would
# otherwise race for the same ports and pid files.
take_lock() {
  mkdir -p "$STACK_DIR"
  if command -v flock >/dev/null; then
    exec 9>"$STACK_DIR/.lock"
    if ! flock -w 600 9; then
      die "another scripts/stack.sh command holds $STACK_DIR/.lock"
    fi
  fi
}

case $COMMAND in
  install) take_lock && cmd_install ;;
  start) take_lock && cmd_start ;;
  stop) take_lock && cmd_stop ;;
  restart) take_lock && cmd_stop && cmd_start ;;
  status) cmd_status ;;
esac
