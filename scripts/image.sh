#!/bin/sh
# `pnpm image`: builds the server's image from the Containerfile with Debian's podman, tagged IMAGE (default
# gnap-auth-server:latest). Its base, debian:bookworm-slim, comes from the registry where one is reachable; where
# none is and the base is not stored yet, scripts/image-base.sh builds it from Debian's packages first.
# `--isolation chroot` builds without a container runtime (none runs on a machine without one, such as a CI box);
# `--format docker` keeps HEALTHCHECK, which the OCI format has no field for.
set -eu
cd "$(dirname "$0")/.."
image=${IMAGE:-gnap-auth-server:latest}
if ! podman image exists docker.io/library/debian:bookworm-slim; then
  podman pull docker.io/library/debian:bookworm-slim 2>/dev/null || sh scripts/image-base.sh
fi
# Behind a proxy that re-signs TLS, the host's extra certificates (NODE_EXTRA_CA_CERTS) are trusted by the build's
# downloads too; they are mounted for the build steps only and are not part of the image.
ca=
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then
  ca="--volume $NODE_EXTRA_CA_CERTS:/run/build-ca.crt:ro --build-arg BUILD_CA=/run/build-ca.crt"
fi
# shellcheck disable=SC2086
podman build --isolation chroot --format docker --pull=never --network host $ca -f Containerfile -t "$image" .
echo "image: $image, $(podman image inspect --format '{{.Size}}' "$image") bytes" >&2
