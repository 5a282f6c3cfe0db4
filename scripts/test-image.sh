#!/bin/sh
# `pnpm test:image`: builds the image (`pnpm image`; its cached layers make an unchanged build quick), then runs
# apps/web/test/image against it: the image's filesystem mounted, its entrypoint run as its user with its environment
# (no container runtime needed). Mounting needs root: run rootless, it goes through `podman unshare`, podman's own
# user namespace (which needs /etc/subuid and /etc/subgid entries for the user). SKIP_IMAGE_BUILD=1 tests the image
# as it is; IMAGE names another tag.
set -eu
cd "$(dirname "$0")/.."
. scripts/runtime.sh
[ "${SKIP_IMAGE_BUILD:-}" = 1 ] || sh scripts/image.sh
export GNAP_IMAGE="${IMAGE:-gnap-auth-server:latest}"
cd apps/web
if [ "$(id -u)" = 0 ]; then
  exec npx vitest run --config test/image/vitest.config.ts
fi
exec podman unshare env PATH="$PATH" GNAP_IMAGE="$GNAP_IMAGE" npx vitest run --config test/image/vitest.config.ts
