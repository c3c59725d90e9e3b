#!/usr/bin/env bash
# Builds a Node 24 base image from Debian's packages and the npm registry alone, for machines that
# reach no container registry (CI here): Debian bookworm (debootstrap minbase, from the mirror apt
# already uses) plus Node from the registry's node-linux-<arch> package, as scripts/with-node.sh
# installs it, and npm. It stands in for the public node:24 slim image the Containerfile names: the
# same layout (/usr/local/bin/node, npm), so every Containerfile here builds on either.
#
# Usage (as root): scripts/container-base.sh [TAG]
#   (default: localhost/taskboard-base:bookworm-node<version>-<checksum of this script>)
# Prints the tag. Reuses an image of that tag when present (TASKBOARD_BASE_REBUILD=1 rebuilds it).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# One Node version for the project: the one scripts/with-node.sh installs.
node_version=${TASKBOARD_NODE_VERSION:-$(sed -n 's/^node_version=\${TASKBOARD_NODE_VERSION:-\(.*\)}$/\1/p' "$root/scripts/with-node.sh")}
npm_version=${TASKBOARD_BASE_NPM_VERSION:-11.21.3}
# The tag names this script's own checksum too, so a changed recipe builds a new base.
recipe=$(cksum <"${BASH_SOURCE[0]}" | cut -d' ' -f1)
tag=${1:-localhost/taskboard-base:bookworm-node$node_version-$recipe}
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "container-base: no packaged Node for $(uname -m)" >&2; exit 1 ;;
esac

if [ -z "${TASKBOARD_BASE_REBUILD:-}" ] && podman image exists "$tag"; then
  echo "$tag"
  exit 0
fi

# The Debian mirror apt uses here (deb822 or one-line sources), so the base needs nothing else.
mirror=${DEBIAN_MIRROR:-$(
  { grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}'
    grep -hs '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list | awk '{print $2}'
  } | grep -v security | grep debian | sed -n 1p || true
)}
mirror=${mirror:-http://deb.debian.org/debian}

work=$(mktemp -d /var/tmp/taskboard-base.XXXXXX)
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"

echo "container-base: debootstrap bookworm from $mirror" >&2
debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 || {
  tail -20 "$work/debootstrap.log" >&2
  exit 1
}

echo "container-base: Node $node_version and npm $npm_version from the npm registry" >&2
(cd "$work" && npm pack --silent "node-linux-$arch@$node_version" "npm@$npm_version" >/dev/null)
mkdir -p "$work/node" "$rootfs/usr/local/lib/node_modules/npm"
tar -xzf "$work"/node-linux-"$arch"-*.tgz -C "$work/node"
install -m 0755 "$work/node/package/bin/node" "$rootfs/usr/local/bin/node"
# The package's binary carries its debug symbols (18 of its 126 MB); Debian's own nodejs ships
# without them too. JavaScript stack traces do not use them.
if command -v strip >/dev/null; then
  strip "$rootfs/usr/local/bin/node"
else
  echo "container-base: no strip (binutils): Node keeps its debug symbols" >&2
fi
tar -xzf "$work"/npm-*.tgz -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"

# What Debian's slim images leave out: package lists, caches, documentation, translations, logs.
cat >"$rootfs/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
EOF
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb \
  "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
  "$rootfs"/var/log/*.log "$rootfs"/var/log/apt/* "$rootfs"/debootstrap
find "$rootfs/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +
# Keep later `apt-get install` in derived images as lean as this.
cat >"$rootfs/etc/apt/apt.conf.d/90slim" <<'EOF'
APT::Install-Recommends "false";
APT::Install-Suggests "false";
EOF
cat >"$rootfs/etc/dpkg/dpkg.cfg.d/90slim" <<'EOF'
path-exclude /usr/share/doc/*
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
EOF

tar -C "$rootfs" --numeric-owner -c . |
  podman import --quiet --change 'CMD ["node"]' --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    - "$tag" >/dev/null
echo "$tag"
