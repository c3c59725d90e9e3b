#!/usr/bin/env bash
# Runs a built server entry (dist/server/main.js with its arguments, as `npm start` and
# bin/taskboard do; the bench runs its own) with the Node options the served process takes
# (docs/operations.md, "Memory"; docs/decisions/0113-compiled-server.md, 0305-heap-growth.md).
# Run through scripts/with-node.sh.
#
# --max-semi-space-size: V8 sizes the young generation from the machine's memory (32 MB a
# semi-space here) and a server's start fills it: most of what a started server held beyond its
# live objects. Requests leave little alive, so a smaller young generation collects as often for
# no more work each time. TASKBOARD_SEMI_SPACE_MB sets another size (0: V8 sizes it).
#
# --heap-growing-percent: after each full collection V8 lets the old generation grow by a factor
# it picks from the machine's memory and the allocation rate, up to 4 times what is alive; under a
# steady load a server then holds mostly garbage (420 MB where 60 MB were alive). 20 % keeps the
# heap near what is alive for no measured CPU; it is no cap, so a large import still has room.
# TASKBOARD_HEAP_GROWING_PERCENT sets another (0: V8 picks, its default).
#
# MALLOC_ARENA_MAX: glibc gives each thread that allocates an arena of its own; V8's and libuv's
# helper threads do little of it, and two arenas hold less memory at rest.
set -euo pipefail
options=()
semi=${TASKBOARD_SEMI_SPACE_MB:-8}
[ "$semi" = 0 ] || options+=(--max-semi-space-size="$semi")
options+=(--heap-growing-percent="${TASKBOARD_HEAP_GROWING_PERCENT:-20}")
export MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-2}
exec node "${options[@]}" "$@"
