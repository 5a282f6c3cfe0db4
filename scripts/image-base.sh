#!/bin/sh
# Builds the image's base, `debian:bookworm-slim`, from Debian's own packages, for a machine that reaches Debian's
# archive but no container registry (docs/deploy.md, "Building the image"). The Containerfile then finds its base
# under the name it asks for, so it stays the same everywhere:
#
#   scripts/image-base.sh            # once per machine; `pnpm image` runs it when the base is missing
#
# mmdebstrap installs the `minbase` variant (essential and required packages, apt) of Debian 12, leaves out the
# documentation, manual pages and translations as the registry's slim image does, and streams the result to
# `podman import`, which stores it as docker.io/library/debian:bookworm-slim. Runs as root, or rootless through
# mmdebstrap's own user namespace (`--mode=unshare`, which needs /etc/subuid). Set DEBIAN_MIRROR to use another mirror.
set -eu

name=docker.io/library/debian:bookworm-slim
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

for tool in mmdebstrap podman; do
  command -v "$tool" >/dev/null || {
    echo "image-base: $tool is missing: apt-get install mmdebstrap podman uidmap" >&2
    exit 1
  }
done

mode=root
[ "$(id -u)" = 0 ] || mode=unshare

echo "image-base: building $name from $mirror (mmdebstrap --variant=minbase, mode $mode)" >&2
mmdebstrap \
  --mode="$mode" \
  --variant=minbase \
  --format=tar \
  --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --dpkgopt='path-exclude=/usr/share/info/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --dpkgopt='path-include=/usr/share/locale/locale.alias' \
  --aptopt='Acquire::Languages "none"' \
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin "$1"/var/log/apt/* "$1"/var/log/dpkg.log' \
  bookworm - \
  "deb $mirror bookworm main" \
  "deb $mirror bookworm-updates main" \
  "deb ${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security} bookworm-security main" |
  podman import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["bash"]' \
    --message "debian:bookworm-slim built from $mirror by scripts/image-base.sh" \
    - "$name" >/dev/null

echo "image-base: $name is ready ($(podman image inspect --format '{{.Size}}' "$name") bytes)" >&2
