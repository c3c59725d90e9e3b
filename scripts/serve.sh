#!/usr/bin/env bash
# Runs a built server entry (dist/server/main.js with its arguments, as `npm start` and
# bin/taskboard do; the bench runs its own) with the Node options the served process takes.
# Run through scripts/with-node.sh.
#
# --max-semi-space-size: V8 sizes the young generation from the machine's memory (32 MB a
# semi-space here) and a server's start fills it: most of what a started server held beyond its
# live objects. Requests leave little alive, so a smaller young generation collects as often for
# no more work each time (docs/operations.md, "Memory"; docs/decisions/0113-compiled-server.md).
# TASKBOARD_SEMI_SPACE_MB sets another size (0: V8 sizes it).
set -euo pipefail
semi=${TASKBOARD_SEMI_SPACE_MB:-8}
if [ "$semi" = 0 ]; then exec node "$@"; fi
exec node --max-semi-space-size="$semi" "$@"
