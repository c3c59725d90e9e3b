#!/usr/bin/env bash
# Builds the server (src/ → dist/server/, JavaScript) when its sources changed since the last build,
# as build-web.sh builds the web app. The served process runs this build, not the TypeScript: Node's
# type stripper and the module graph of every source file cost memory the server holds for its whole
# life (docs/operations.md, "Memory"; docs/decisions/0113-compiled-server.md). The tests, `npm run dev`
# and `npm run migrate` run the TypeScript as it is.
# Run through scripts/with-node.sh. Like build-web.sh's stamp: a checksum of every file the build
# reads, kept next to the build; equal means up to date. Concurrent runs (parallel tests starting
# `bin/taskboard`) build once: the second waits for the first's lock, then finds the stamp current.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out="$root/dist/server"
stamp="$out/.taskboard-built"
sources_id() {
  (cd "$root" && find src -type f -print0 | sort -z | xargs -0 cksum
    cksum package-lock.json scripts/build-server.sh) | cksum
}
current() { [ -f "$out/main.js" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$1" ]; }
id=$(sources_id)
current "$id" && exit 0
mkdir -p "$root/dist"
exec 9>"$root/dist/.server-build.lock"
flock 9
current "$id" && exit 0
echo "build-server: building the server (src/ changed since the last build)" >&2
next="$root/dist/server.next"
rm -rf "$next"
# One file and the chunks of what is imported on first use; packages stay in node_modules (they
# are resolved from dist/server/ as from src/). Names are kept; whitespace and comments go, and
# the text stays ASCII, so V8 holds the source as one byte a character (NODE_OPTIONS=
# --enable-source-maps maps stack traces back to src/).
(cd "$root" && esbuild src/cli/main.ts --bundle --platform=node --format=esm --target=node22 \
  --packages=external --splitting --outdir="$next" --chunk-names='[name]-[hash]' \
  --minify-whitespace --charset=ascii --sourcemap=linked --legal-comments=none --log-level=warning)
# The checkpoint thread's script is plain JavaScript, loaded beside the module that starts it.
cp "$root/src/storage/sqlite-checkpoint-worker.js" "$next/"
echo "$id" >"$next/.taskboard-built"
rm -rf "$out"
mv "$next" "$out"
