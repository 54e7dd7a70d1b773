#!/usr/bin/env bash
# `npm run test:image`: builds the base (when missing; IMAGE_REBUILD_BASE=1 makes it again), the
# image's runtime and try targets from this checkout, starts the test stack (or uses a running one), runs test/image/
# against containers of the image on the host's network, stops the stack, and prints the figures
# (build times, image sizes, run to healthy, SIGTERM to exit). Needs root, podman, runc and
# mmdebstrap (installed from Debian when missing). Not part of `npm test`: it takes about ten
# minutes on a 2-core machine (docs/deployment.md).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
. scripts/env.sh
. scripts/image/podman.sh

bash scripts/install.sh || exit 1
missing=()
for tool in podman runc mmdebstrap; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "[image] installing ${missing[*]} with apt-get"
  apt-get install -y -qq podman runc mmdebstrap >/dev/null || { apt-get update -qq && apt-get install -y -qq podman runc mmdebstrap >/dev/null; } || exit 1
fi

seconds() { echo $(($(date +%s) - $1)); }
if [ "${IMAGE_REBUILD_BASE:-0}" = 1 ] || ! pod image exists "$BASE_IMAGE"; then
  t=$(date +%s)
  bash scripts/image/base.sh || exit 1
  echo "[image] base built in $(seconds "$t") s"
fi
for target in runtime try; do
  tag=$IMAGE
  [ "$target" = try ] && tag=$TRY_IMAGE
  t=$(date +%s)
  pod build --format docker --pull=never --network host --build-arg "BASE=$BASE_IMAGE" --target "$target" -t "$tag" -f Containerfile . ||
    { echo "[image] the $target target did not build" >&2; exit 1; }
  echo "[image] $target target built in $(seconds "$t") s: $(pod image inspect --format '{{.Size}}' "$tag" | awk '{printf "%.0f MB", $1/1e6}')"
done

# A test stack that is already running (a developer's) is used and left running.
if [ "$(bash scripts/stack.sh status test | grep -c ' running ')" -lt 4 ]; then
  bash scripts/stack.sh start test || { bash scripts/stack.sh stop test; exit 1; }
  trap 'bash scripts/stack.sh stop test' EXIT
fi
load_env_file .env.test
IMAGE=$IMAGE TRY_IMAGE=$TRY_IMAGE npx mocha --timeout 600000 'test/image/**/*.test.ts'
