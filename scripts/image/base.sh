#!/usr/bin/env bash
# Makes the base image the Containerfile builds FROM, where no registry of container images can be
# reached: a Debian bookworm root filesystem from Debian's packages (mmdebstrap, minbase, no docs
# or man pages), Node.js 24 (.node-version) from the npm registry's `node-linux-<arch>` package
# checked against the sha512 pinned in scripts/node-runtime.sh, npm pinned below, and a `node`
# user (uid 1000), laid out as the public node:24-slim image is (/usr/local/bin/node, npm). Then
# `podman import` as $BASE_IMAGE. Upstream, build FROM docker.io/library/node:24-slim instead.
# The certificate authorities this machine adds to Debian's (*.crt in $EXTRA_CA_DIR,
# /usr/local/share/ca-certificates) are trusted in the base too, by the system and by Node.js
# (NODE_EXTRA_CA_CERTS), so that a build behind a TLS-inspecting proxy reaches the registries.
#
#   bash scripts/image/base.sh        (as root; apt-get install podman runc mmdebstrap)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
. scripts/env.sh
. scripts/image/podman.sh

NPM_VERSION=11.21.3
NPM_INTEGRITY=sha512-5Cf+jE+XctbhH/zjOOqXC+ity7eec/Tkk4Ql38tf6w+1htp2wYPHmE4c1R1Es3DY227Ac14+SLrlYJwkBicbTg==
SUITE=bookworm

for tool in podman mmdebstrap; do
  command -v "$tool" >/dev/null || { echo "[image] $tool is missing: apt-get install podman runc mmdebstrap" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/rootfs

echo "[image] Debian $SUITE root filesystem (mmdebstrap, minbase)"
mmdebstrap --quiet --variant=minbase --include=ca-certificates \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
  --dpkgopt='path-include=/usr/share/locale/locale.alias' \
  --customize-hook='chroot "$1" apt-get clean' --customize-hook='rm -rf "$1"/var/lib/apt/lists/*' \
  "$SUITE" "$root"

echo "[image] Node.js $(cat .node-version) from the npm registry, pinned by sha512"
package=$(node_runtime_platform)
read -r _ version integrity binsha <<<"$(node_runtime_pins | grep "^$package ")"
node_runtime_fetch "$package" "$version" "$integrity" "$work/node" >/dev/null
[ "$(node_runtime_sha512 "$work/node/bin/node")" = "$binsha" ] || { echo "[image] bin/node is not the pinned binary" >&2; exit 1; }
install -m 0755 "$work/node/bin/node" "$root/usr/local/bin/node"

echo "[image] npm $NPM_VERSION, pinned by sha512"
(cd "$work" && npm pack --silent "npm@$NPM_VERSION" >/dev/null)
[ "$(node_runtime_integrity "$work/npm-$NPM_VERSION.tgz")" = "$NPM_INTEGRITY" ] || { echo "[image] npm's tarball is not the pinned one" >&2; exit 1; }
mkdir -p "$root/usr/local/lib/node_modules/npm"
tar -xzf "$work/npm-$NPM_VERSION.tgz" -C "$root/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"

extra_ca_dir=${EXTRA_CA_DIR:-/usr/local/share/ca-certificates}
if compgen -G "$extra_ca_dir/*.crt" >/dev/null; then
  echo "[image] trusting the extra certificate authorities of $extra_ca_dir"
  cp "$extra_ca_dir"/*.crt "$root/usr/local/share/ca-certificates/"
  chroot "$root" update-ca-certificates >/dev/null
  ca_env=(--change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt')
else
  ca_env=()
fi

chroot "$root" groupadd --gid 1000 node
chroot "$root" useradd --uid 1000 --gid node --shell /bin/bash --create-home node

echo "[image] importing as $BASE_IMAGE"
tar -C "$root" -c . | pod import "${ca_env[@]}" --change 'CMD ["node"]' --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin' - "$BASE_IMAGE" >/dev/null
pod image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' "$BASE_IMAGE"
