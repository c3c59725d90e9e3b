#!/usr/bin/env bash
# The whole test suite: lint and format check, type check, then unit, integration (SQLite and
# PostgreSQL) and e2e tests. Run through scripts/with-node.sh (npm test does that).
# TEST_QUICK=1 (npm run test:quick) is the inner loop without PostgreSQL or Redis: unit, e2e and
# package tests on SQLite only, skipping the suites that need either service; CI runs npm test.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
node --import tsx test/support/preflight.ts
# biome.json decides the files (src, test, packages, bench, scripts, examples, web); npm run format fixes.
biome check
tsc --noEmit
if [ "${TEST_QUICK:-}" = 1 ]; then
  default_files='test/unit/**/*.test.ts test/e2e/**/*.test.ts packages/*/test/**/*.test.ts'
  # The fuzz's full 10,000 requests take minutes; the inner loop sends a tenth (CI sends them all).
  export FUZZ_RUNS="${FUZZ_RUNS:-1000}"
else
  default_files='test/unit/**/*.test.ts test/integration/**/*.test.ts test/e2e/**/*.test.ts packages/*/test/**/*.test.ts'
fi
# Two files at a time: this machine has two cores, and each file starts its own app(s).
# A test that hangs (an open stream nobody ends) fails after TEST_TIMEOUT_MS instead of holding the
# suite until CI's limit, and a file whose handles stay open after its tests is ended.
# The file list is unquoted on purpose: files or globs, split on spaces, that node's test runner expands.
# `taskboard-source`: `@taskboard/client` resolves to its TypeScript source here, no build needed.
exec node --import tsx --conditions=taskboard-source --test --test-concurrency="${TEST_CONCURRENCY:-2}" --test-reporter=spec \
  --test-timeout="${TEST_TIMEOUT_MS:-600000}" --test-force-exit \
  ${TEST_FILES:-$default_files}
