#!/usr/bin/env bash
# `npm run dev`: the API server (port $PORT, default 3000) and Vite's dev server with hot reload
# (port $WEB_DEV_PORT, default 5173), which hands the API's paths to the server. Ctrl-C ends both.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export PORT=${PORT:-3000}
node src/cli/main.ts serve &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT INT TERM
cd web && TASKBOARD_API="http://127.0.0.1:$PORT" vite
