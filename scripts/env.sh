# Sourced by the other scripts: exports KEY=value lines of an env file, without overriding a
# variable the caller already set (so MONGODB_URI, REDIS_URL, ... from the environment win).
load_env_file() {
  local file=$1 key value
  while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in ''|'#'*) continue ;; esac
    key=${line%%=*}
    value=${line#*=}
    if [ -z "${!key:-}" ]; then export "$key=$value"; fi
  done < "$file"
}

# The Node.js runtime of .node-version first on PATH (fetched when the machine's is older).
. "$(dirname "${BASH_SOURCE[0]}")/node-runtime.sh"
