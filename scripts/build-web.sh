#!/usr/bin/env bash
# Builds the web app (web/ → web/dist) when its sources changed since the last build.
# Run through scripts/with-node.sh (npm start does that). Like with-node.sh's install stamp: a
# checksum of every source file the build reads, kept next to the build; equal means up to date.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
stamp="$root/web/dist/.taskboard-built"
sources_id() {
  (cd "$root" && find web packages/client/src -type f \
      -not -path 'web/dist/*' -not -path '*/node_modules/*' -print0 | sort -z | xargs -0 cksum
    cksum package-lock.json) | cksum
}
id=$(sources_id)
if [ -f "$root/web/dist/index.html" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$id" ]; then
  exit 0
fi
echo "build-web: building the web app (web/ changed since the last build)" >&2
(cd "$root/web" && vite build --logLevel warn >&2)
echo "$id" >"$stamp"
