# Sourced by the image scripts: `pod` is podman with the settings this kind of machine needs
# (runc, cgroupfs; crun refuses some cgroup layouts), and the names of the images.
IMAGE_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export CONTAINERS_CONF="${CONTAINERS_CONF:-$IMAGE_DIR/containers.conf}"
BASE_IMAGE="${BASE_IMAGE:-localhost/mongobaas-base:24}"
IMAGE="${IMAGE:-localhost/mongobaas:latest}"
TRY_IMAGE="${TRY_IMAGE:-localhost/mongobaas:try}"
pod() { podman --runtime "${PODMAN_RUNTIME:-runc}" --cgroup-manager "${PODMAN_CGROUP_MANAGER:-cgroupfs}" "$@"; }
