#!/usr/bin/env bash
# Runs a command with a Node >= 22.18 (it strips TypeScript types itself) first on PATH and the dependencies installed for it.
#
# Why: the project targets Node 24 LTS, but machines may only have an older system Node.
# npm carries the Node runtime (with its headers) as the package node-linux-<arch>; we install it
# under .tools/ once and build native addons (better-sqlite3) against it, so `npm start` and
# `npm test` work the same on any machine that has some npm.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
node_version=${TASKBOARD_NODE_VERSION:-24.21.0}

system_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
# The server runs its TypeScript through Node's own type stripping, on by default from 22.18 and 23.6.
system_strips=$(node -p 'const [a, b] = process.versions.node.split(".").map(Number); a > 23 || (a === 23 && b >= 6) || (a === 22 && b >= 18) ? 1 : 0' 2>/dev/null || echo 0)
if [ "$system_strips" = 1 ] && [ -z "${TASKBOARD_FORCE_BUNDLED_NODE:-}" ]; then
  node_home=$(dirname "$(dirname "$(command -v node)")")
else
  case "$(uname -m)" in
    x86_64) arch=x64 ;;
    aarch64|arm64) arch=arm64 ;;
    *) echo "with-node: no packaged Node for $(uname -m); install Node >= 22" >&2; exit 1 ;;
  esac
  tools="$root/.tools/node-$node_version"
  node_home="$tools/node_modules/node-linux-$arch"
  if [ ! -x "$node_home/bin/node" ]; then
    echo "with-node: system Node is ${system_major}, installing Node $node_version from the npm registry into .tools/" >&2
    npm install --prefix "$tools" --no-save --no-package-lock --no-audit --no-fund \
      "node-linux-$arch@$node_version" >&2
  fi
  export PATH="$node_home/bin:$PATH"
fi
# Native addons compile against the headers of the Node that runs them.
if [ -f "$node_home/include/node/node_api.h" ]; then
  export npm_config_nodedir="$node_home"
fi

# (Re)install dependencies when the lockfile or the Node ABI changed since the last install.
stamp="$root/node_modules/.taskboard-installed"
install_id() { echo "$(node -p 'process.versions.modules') $(cat "$root/package-lock.json" "$root/package.json" 2>/dev/null | cksum)"; }
if [ "$(cat "$stamp" 2>/dev/null)" != "$(install_id)" ]; then
  echo "with-node: installing dependencies for Node $(node -v) (native addons build once, ~2 min)" >&2
  if [ -f "$root/package-lock.json" ]; then
    (cd "$root" && npm ci --no-audit --no-fund >&2)
  else
    (cd "$root" && npm install --no-audit --no-fund >&2)
  fi
  install_id >"$stamp"
fi

export PATH="$root/node_modules/.bin:$PATH"
exec "$@"
